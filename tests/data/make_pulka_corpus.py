"""Write the ``pulka/1`` corpus of ``tests/data/pulka_corpus`` (run once, before a refactor).

Two sources, both through the public API only:

* **played**: for every preset and every table size it is written for, seeded random pulkas
  played deal by deal through the engine (``new_deal``/``apply``/``outcome``) and recorded on a
  :class:`~app.rules.Pulka` exactly as a live table does, with a fourth player joining (R-T4) and
  a replacement (R-T5) in some of them, then exported with ``export_document``;
* **harvested**: every ``pulka/1`` document the rules tests score (hand-written records with
  penalties, seat changes, recorded tables; valid and invalid), captured by running those tests
  with :mod:`tests.data.corpus_capture` as a plugin.

Each record ``NAME.json`` is stored with ``NAME.score.json``, the bytes ``prefclub score``
printed for it and its exit status; ``tests/rules/test_record_corpus.py`` re-scores every one and
expects the same bytes. Usage (from the repository root)::

    .venv/bin/pytest -q -p tests.data.corpus_capture tests/rules/test_record.py ...
    .venv/bin/python -m tests.data.make_pulka_corpus

A rule change that is meant to re-score one preset's records (issue 26: Arabic bombs that
belong to a player) keeps every record and rewrites only that preset's expected scores::

    .venv/bin/python -m tests.data.make_pulka_corpus --rescore arabic

A change that must not re-score what was stored (issue 26: a failed checked ten under arabic)
instead adds the convention that keeps the older reading to that preset's records
(``"ten_consolation": true``; a classic record's ``"closing": "double"``), as migrations 0019
and 0020 do to the database's.
"""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path
from typing import Any

from app.commands.score import run_score
from app.rules import (
    PRESET_NAMES,
    AcceptResult,
    Action,
    Bid,
    Conventions,
    DealConfig,
    DealState,
    PlayCard,
    Pulka,
    apply,
    export_document,
    legal_actions,
    legal_cards_now,
    mask_cards,
    new_deal,
    outcome,
    shuffled_deck,
)

HERE = Path(__file__).parent / "pulka_corpus"
CAPTURED = Path(__file__).parent / "pulka_corpus_captured.jsonl"
PULKAS_PER_CASE = 3
DEALS_PER_PULKA = 24


def choose(state: DealState, rng: random.Random) -> Action:
    """A random legal action of the seat to move, with a taste for passing and low bids."""
    seat = state.to_move
    assert seat is not None
    if state.phase == "play" and state.proposal is not None:
        for other in range(state.players):
            answers = [a for a in legal_actions(state, other) if isinstance(a, AcceptResult)]
            if answers:
                return answers[0]
    if state.phase == "play":
        return PlayCard(seat, rng.choice(mask_cards(legal_cards_now(state))))
    options = legal_actions(state, seat)
    bids = [a for a in options if isinstance(a, Bid)]
    if bids and len(bids) == len(options):
        if rng.random() < 0.6:
            return bids[0]
        return rng.choice(bids[1:5] or bids)
    return rng.choice(options)


def play_pulka(preset: str, players: int, seed: int) -> Pulka:
    """One random pulka under ``preset``; seed-dependent joins and replacements."""
    rng = random.Random(seed)
    conventions = Conventions.preset_named(preset)
    names = [f"P{i}" for i in range(players)]
    pulka = Pulka.new(
        players,
        names=names,
        conventions=conventions,
        target=rng.choice((10, 20)),
        stake="0.50",
        first_dealer=rng.randrange(players),
    )
    join_at = (
        rng.randrange(2, 8) if players == 3 and 4 in conventions.table_sizes() and seed % 2 else -1
    )
    replace_at = rng.randrange(1, DEALS_PER_PULKA) if seed % 3 == 0 else -1
    for index in range(DEALS_PER_PULKA):
        if pulka.is_over:
            break
        if index == join_at:
            pulka, _ = pulka.join_fourth((pulka.next_dealer - 1) % 3, name="Joiner")
        if index == replace_at:
            pulka = pulka.replace_player(rng.randrange(pulka.players), name=f"R{index}")
        config = DealConfig(pulka.players, pulka.next_dealer, conventions, pulka.next_min_level())
        state = new_deal(config, shuffled_deck(rng), rng.randbytes(8))
        while not state.finished:
            state, _ = apply(state, choose(state, rng))
        result = outcome(state)
        assert result is not None
        pulka, _ = pulka.record(result)
    if not pulka.is_over and seed % 2 == 0:
        pulka = pulka.close("session_end")
    return pulka


def score_bytes(doc: Any) -> dict[str, Any]:
    """What ``prefclub score`` prints for ``doc`` and its exit status."""
    out = io.StringIO()
    code = run_score("-", out, io.StringIO(json.dumps(doc, ensure_ascii=False)))
    return {"exit": code, "stdout": out.getvalue()}


def write(name: str, doc: Any) -> None:
    """Store ``doc`` and its score under ``name``."""
    (HERE / f"{name}.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    (HERE / f"{name}.score.json").write_text(
        json.dumps(score_bytes(doc), ensure_ascii=False, indent=1) + "\n"
    )


def preset_of(doc: Any) -> str | None:
    """The preset a stored record names (``None`` for a record without one, or not a record)."""
    conventions = doc.get("conventions") if isinstance(doc, dict) else None
    preset = conventions.get("preset") if isinstance(conventions, dict) else None
    return preset if isinstance(preset, str) else None


def rescore(preset: str) -> int:
    """Rewrite ``NAME.score.json`` of every stored record under ``preset``, records untouched."""
    count = 0
    for record in sorted(HERE.glob("*.json")):
        if record.name.endswith(".score.json"):
            continue
        doc = json.loads(record.read_text())
        if preset_of(doc) != preset:
            continue
        record.with_name(record.stem + ".score.json").write_text(
            json.dumps(score_bytes(doc), ensure_ascii=False, indent=1) + "\n"
        )
        count += 1
    print(f"re-scored {count} {preset} records in {HERE}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "--rescore":
        return rescore(args[1])
    HERE.mkdir(exist_ok=True)
    for old in HERE.glob("*.json"):
        old.unlink()
    count = 0
    for preset in PRESET_NAMES:
        for players in Conventions.preset_named(preset).table_sizes():
            for k in range(PULKAS_PER_CASE):
                seed = 1000 * players + k
                write(
                    f"played-{preset}-{players}p-{k}",
                    export_document(play_pulka(preset, players, seed)),
                )
                count += 1
    if CAPTURED.exists():
        seen: set[str] = set()
        for line in CAPTURED.read_text().splitlines():
            if line in seen:
                continue
            seen.add(line)
            write(f"harvested-{len(seen):04d}", json.loads(line))
            count += 1
    print(f"wrote {count} records to {HERE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
