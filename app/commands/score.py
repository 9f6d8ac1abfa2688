"""``prefclub score FILE|-``: score a ``pulka/1`` record and print ``pulka-score/1``.

:func:`run_score` reads the record from a file or, for ``-``, from standard input, and prints one
JSON document on standard output: the score (exit status 0), or for any malformed input — a
missing or unreadable file, bad JSON, an invalid record — exactly one error object
``{"error": {"deal": 3, "field": "tricks", "message": "..."}}`` (exit status 2). ``deal`` and
``field`` are left out when they do not apply. Scoring goes through ``app.rules.scoring.record``,
the
same path as live tables (PULKA_FORMAT.md).
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from app.rules import RulesError, score_document

EXIT_OK = 0
EXIT_INVALID = 2


def run_score(path_or_dash: str, stdout: TextIO, stdin: TextIO) -> int:
    """Score the record at ``path_or_dash`` (``-`` = ``stdin``); print JSON; return exit code."""
    try:
        if path_or_dash == "-":
            text = stdin.read()
        else:
            with open(path_or_dash, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        return _error(stdout, f"cannot read {path_or_dash}: {exc}")
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        return _error(stdout, f"invalid JSON: {exc}")
    except RecursionError:
        return _error(stdout, "invalid JSON: nested too deeply")
    try:
        result = score_document(doc)
    except RulesError as exc:
        deal = getattr(exc, "deal", None)
        field = getattr(exc, "field", None)
        return _error(stdout, getattr(exc, "message", str(exc)), deal=deal, field=field)
    except RecursionError:
        return _error(stdout, "document is nested too deeply")
    except (TypeError, KeyError, IndexError, ArithmeticError) as exc:  # pragma: no cover
        # A record shape the checks missed must still answer with one JSON error, never a trace.
        return _error(stdout, f"invalid record: {exc!r}")
    stdout.write(json.dumps(result, ensure_ascii=False, indent=2) + "\n")
    return EXIT_OK


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _error(
    stdout: TextIO, message: str, *, deal: int | None = None, field: str | None = None
) -> int:
    error: dict[str, Any] = {}
    if deal is not None:
        error["deal"] = deal
    if field is not None:
        error["field"] = field
    error["message"] = message
    stdout.write(json.dumps({"error": error}, ensure_ascii=False) + "\n")
    return EXIT_INVALID
