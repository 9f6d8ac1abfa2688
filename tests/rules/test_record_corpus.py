"""The ``pulka/1`` corpus re-scores byte-identically (issue 25: no loss in the rule-set refactor).

``tests/data/pulka_corpus`` was written by ``tests/data/make_pulka_corpus.py`` before the rules
engine was reorganised: random pulkas of every preset and table size played through the engine
(joins and replacements included) and every record the rules tests score (penalties, seat
changes, recorded tables, invalid records with their error). Each ``NAME.json`` is scored by
``prefclub score`` and must print exactly the stored ``NAME.score.json`` bytes.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from app.commands.score import run_score
from app.rules import PRESET_NAMES, Conventions

CORPUS = Path(__file__).parent.parent / "data" / "pulka_corpus"
RECORDS = sorted(p for p in CORPUS.glob("*.json") if not p.name.endswith(".score.json"))


def test_the_corpus_covers_every_preset_and_table_size() -> None:
    names = {p.stem for p in RECORDS}
    for preset in PRESET_NAMES:
        for players in Conventions.preset_named(preset).table_sizes():
            assert f"played-{preset}-{players}p-0" in names, (preset, players)
    texts = [p.read_text() for p in RECORDS]
    assert any('"seat_changes"' in t for t in texts)
    assert any('"penalties"' in t for t in texts)
    assert len(RECORDS) > 300


@pytest.mark.parametrize("record", RECORDS, ids=lambda p: p.stem)
def test_every_record_rescores_byte_identically(record: Path) -> None:
    expected = json.loads(record.with_suffix(".score.json").read_text())
    out = io.StringIO()
    code = run_score(str(record), out, io.StringIO())
    assert (code, out.getvalue()) == (expected["exit"], expected["stdout"])
