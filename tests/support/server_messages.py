"""The English sentences the server can say, read from the source of ``app/`` (issue 11).

A page in Russian must never show one of them: the server's ``detail`` texts, the reasons a table
waits (``deal_refused``), a refused command's ``message``. Rather than keep a list by hand (it
would lag behind the code), every string literal of ``app/`` that reads like an English phrase
of three words or more is collected, docstrings excepted; of an f-string, its longest literal
part. Log lines and schema descriptions come along too: harmless, since no page shows them.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
PHRASE = re.compile(r"[A-Za-z][A-Za-z0-9 ,;:'’()\-.%!?]*")
WORD = re.compile(r"[A-Za-z]{2,}")
RULE_ID = re.compile(r"R-[A-Z]+\d")
"""A rule ID as RULES.md writes them (R-S2, R-W12): never on a player's page."""
ENGLISH_RUN = re.compile(r"\b[A-Za-z]{2,}(?:[ ,']+[A-Za-z]{2,}){3,}\b")
"""Four or more English words in a row: no Russian page says that."""
MIN_PART = 12
"""An f-string's literal part shorter than this says too little to be looked for."""


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the constant nodes that are docstrings (or bare string statements)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def _phrase(text: str) -> str | None:
    text = text.strip(" :,;")
    if PHRASE.fullmatch(text) and len(WORD.findall(text)) >= 3:
        return text
    return None


def _messages_of(tree: ast.AST) -> set[str]:
    skip = _docstrings(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [
                v.value
                for v in node.values
                if isinstance(v, ast.Constant) and isinstance(v.value, str)
            ]
            for v in node.values:
                skip.add(id(v))
            longest = max(parts, key=len, default="")
            phrase = _phrase(longest)
            if phrase and len(phrase) >= MIN_PART:
                found.add(phrase)
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
        ):
            phrase = _phrase(node.value)
            if phrase:
                found.add(phrase)
    return found


@cache
def english_messages() -> tuple[str, ...]:
    """Every English phrase in the server's source, longest first."""
    found: set[str] = set()
    for path in sorted(APP.rglob("*.py")):
        found |= _messages_of(ast.parse(path.read_text(), str(path)))
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


def english_in(text: str) -> list[str]:
    """What in a Russian page's visible ``text`` is server English or a rule ID (empty: none)."""
    hits = [message for message in english_messages() if message in text]
    hits += RULE_ID.findall(text)
    hits += [m.group(0) for m in ENGLISH_RUN.finditer(text)]
    return hits
