"""The shell commands of a Markdown page: every line of its ```sh blocks, for tests that run
what the documentation tells an operator to type."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class DocCommand:
    """One command of a page: the section it is in, its line and its text."""

    section: str
    line: int
    text: str

    def stages(self) -> list[list[str]]:
        """The command split into pipeline stages, each a list of words (quotes removed)."""
        lexer = shlex.shlex(self.text, posix=True, punctuation_chars="|&;<>")
        lexer.whitespace_split = True
        stages: list[list[str]] = [[]]
        for token in lexer:
            if token == "|":
                stages.append([])
            elif set(token) <= set("|&;<>"):
                raise ValueError(
                    f"line {self.line}: only plain pipelines are supported: {self.text!r}"
                )
            else:
                stages[-1].append(token)
        return stages


def sh_commands(path: Path) -> list[DocCommand]:
    """Every command of the ```sh blocks of ``path``, continuation lines joined."""
    commands: list[DocCommand] = []
    section = ""
    in_sh = False
    pending = ""
    start = 0
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        fence = FENCE.match(line)
        if fence:
            in_sh = not in_sh and fence.group(1) == "sh"
            continue
        if not in_sh:
            if line.startswith("## "):
                section = line[3:].strip()
            continue
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            start = number
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        commands.append(DocCommand(section, start, " ".join(pending.split())))
        pending = ""
    return commands
