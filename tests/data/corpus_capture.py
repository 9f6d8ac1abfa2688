"""A pytest plugin that appends every document ``score_document`` sees to a JSONL file.

Used once by :mod:`tests.data.make_pulka_corpus` to harvest the hand-written ``pulka/1``
records of the rules tests (``-p tests.data.corpus_capture``); it records, it changes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import app.rules
import app.rules.scoring.record

OUT = Path(__file__).parent / "pulka_corpus_captured.jsonl"


def pytest_configure(config: pytest.Config) -> None:
    original = app.rules.scoring.record.score_document

    def capturing(doc: object) -> dict[str, Any]:
        try:
            line = json.dumps(doc, ensure_ascii=False, sort_keys=True)
        except (TypeError, ValueError):
            line = None
        if line is not None:
            with OUT.open("a", encoding="utf-8") as f:
                f.write(line + "\n")
        return original(doc)

    app.rules.scoring.record.score_document = capturing  # type: ignore[assignment]
    app.rules.score_document = capturing  # type: ignore[assignment]
