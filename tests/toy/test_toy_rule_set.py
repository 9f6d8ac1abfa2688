"""A rule set registered from ``tests/`` alone plays through the whole engine (issue 25).

The toy rule set (:mod:`tests.toy.toy_rules`: the club's game with its own pass-out exit and
its own sheet entry, counted per player across the pulka) is registered here and nowhere in
``app/``; 1,000 random deals at three, four and five players go through the engine, the sheet,
the ``pulka/1`` export and the re-score; the property suite, the presets endpoint and the record
codec see it without a list being edited. tests/e2e/test_toy_rule_set.py plays it at a live
practice table.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator

import pytest

from app.commands.score import run_score
from app.rules import (
    PRESET_NAMES,
    Bid,
    Contract,
    Conventions,
    DealConfig,
    InvalidConventionError,
    Pulka,
    apply,
    describe_presets,
    export_document,
    legal_actions,
    new_deal,
    outcome,
    rule_set_of,
    score_document,
    shuffled_deck,
)
from app.rules.scoring.pulka_rules import NO_STATE, pulka_rules
from app.rules.scoring.record import score_pulka
from tests.data.make_pulka_corpus import choose
from tests.toy.toy_rules import TOY_EXIT, TOY_RULE, ToyRules, register_toy, withdraw_toy

DEALS = 1000


@pytest.fixture
def toy() -> Iterator[Conventions]:
    register_toy()
    try:
        yield Conventions.preset_named("toy")
    finally:
        withdraw_toy()


def play_pulka(
    conventions: Conventions,
    players: int,
    deals: int,
    rng: random.Random,
    join_at: int | None = None,
) -> tuple[Pulka, int]:
    """A random pulka of ``deals`` deals; returns it and how many deals opened above six."""
    pulka = Pulka.new(
        players,
        names=[f"P{i}" for i in range(players)],
        conventions=conventions,
        target=100_000,
        first_dealer=rng.randrange(players),
    )
    raised = 0
    for index in range(deals):
        if index == join_at:
            pulka, _ = pulka.join_fourth((pulka.next_dealer - 1) % 3, name="Joiner")
        streak = pulka.pass_out_streak
        level = pulka.next_min_level()
        assert level == (TOY_EXIT if streak else 6)
        config = DealConfig(pulka.players, pulka.next_dealer, conventions, level)
        state = new_deal(config, shuffled_deck(rng), rng.randbytes(8))
        first_auction = True
        while not state.finished:
            if state.phase == "auction" and first_auction and state.to_move is not None:
                first_auction = False
                bids = [a.call for a in legal_actions(state, state.to_move) if isinstance(a, Bid)]
                lowest = min(c.level for c in bids if isinstance(c, Contract))
                assert lowest == level
                raised += level > 6
            state, _ = apply(state, choose(state, rng))
        result = outcome(state)
        assert result is not None
        dealt_before = pulka.carried.seats[result.dealer]
        pulka, entries = pulka.record(result)
        fees = [e for e in entries if e.rule == TOY_RULE]
        assert [(e.seat, e.column, e.amount) for e in fees] == [
            (result.dealer, "hill", dealt_before + 1)
        ]
        assert pulka.carried.seats[result.dealer] == dealt_before + 1
    assert sum(pulka.carried.seats) == deals
    return pulka, raised


def test_the_toy_is_in_the_registry_and_every_list_built_from_it(toy: Conventions) -> None:
    assert isinstance(rule_set_of("toy"), ToyRules)
    assert "toy" in PRESET_NAMES and toy.table_sizes() == (3, 4, 5)
    described = [p for p in describe_presets() if p["name"] == "toy"]
    assert described and described[0]["title"]["en"] == "Toy rules"
    with pytest.raises(InvalidConventionError, match="dark_calls"):
        Conventions.from_mapping({"preset": "toy", "dark_calls": True})
    club = Conventions()  # the club's exits after 0, 1, 2 pass-outs: 6, 7, 8 (R-R6)
    assert [pulka_rules(club).min_level(club, n, NO_STATE) for n in range(3)] == [6, 7, 8]
    assert [pulka_rules(toy).min_level(toy, n, NO_STATE) for n in range(3)] == [6, 7, 7]


def test_1000_toy_deals_through_engine_sheet_export_and_rescore(toy: Conventions) -> None:
    rng = random.Random(25)
    played = raised = 0
    plan = [(3, 60, 20), (4, 60, None), (5, 60, None)]
    while played < DEALS:
        players, deals, join_at = plan[(played // 60) % len(plan)]
        deals = min(deals, DEALS - played)
        pulka, up = play_pulka(
            toy, players, deals, rng, join_at if join_at is not None and join_at < deals else None
        )
        played += deals
        raised += up
        assert Pulka.from_json(json.loads(json.dumps(pulka.to_json()))) == pulka
        doc = json.loads(json.dumps(export_document(pulka)))
        assert doc["conventions"] == {"preset": "toy"}
        expected = score_pulka(pulka)
        assert score_document(doc) == expected
        out = io.StringIO()
        assert run_score("-", out, io.StringIO(json.dumps(doc))) == 0
        assert json.loads(out.getvalue()) == json.loads(json.dumps(expected))
        assert any(e["rule"] == TOY_RULE for e in expected["entries"])
    assert played == DEALS
    assert raised > 0  # pass-outs happened and the toy's exit opened the next deal at seven


def test_a_toy_record_is_refused_once_the_toy_is_withdrawn(toy: Conventions) -> None:
    pulka, _ = play_pulka(toy, 3, 3, random.Random(1))
    doc = export_document(pulka)
    withdraw_toy()
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(doc))) == 2
    assert "unknown preset 'toy'" in out.getvalue()
