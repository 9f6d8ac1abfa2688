"""Classic preferans (seed 003): the remiz sheet and the ``pulka/1`` record (docs/rules-classic.md
K-6, K-9..K-12). Every amount below is worked out by hand from the suit values ♠1 ♣2 ♦3 ♥4.
"""

from __future__ import annotations

import io
import json
from fractions import Fraction
from typing import Any

import pytest

from app.commands.score import run_score
from app.rules import (
    Contract,
    Conventions,
    DealOutcome,
    Defend,
    InvalidRecordError,
    Pulka,
    outcome,
    score_document,
)
from tests.support.engine import LAYOUT, LAYOUT_TALON, bids, run, start

CLASSIC = Conventions.preset_named("classic")


def written(o: DealOutcome, players: int = 3) -> list[tuple[int, str, Fraction, str]]:
    pulka = Pulka.new(players, conventions=CLASSIC, first_dealer=o.dealer)
    _, entries = pulka.record(o)
    return [(e.seat, e.column, e.amount, e.rule) for e in entries]


def game(
    contract: str,
    declarer: int,
    defence: dict[int, str],
    tricks: dict[int, int] | None,
    dealer: int = 0,
) -> DealOutcome:
    level, strain = int(contract[0]), contract[1:]
    return DealOutcome(
        dealer=dealer,
        kind="game",
        declarer=declarer,
        contract=Contract(level, strain),  # type: ignore[arg-type]
        defence=defence,
        play="closed" if tricks else None,
        tricks=tricks,
    )


def test_k9_an_unwhisted_game_is_written_off_at_its_suit_value() -> None:
    """K-9 (seed 003, 29-30, 32): 6♥ nobody whisted: the declarer writes off 4, nothing else."""
    assert written(game("6H", 1, {2: "pass", 0: "pass"}, None)) == [(1, "pool", 4, "K-9")]


def test_k9_k11_made_game_and_a_whister_short_of_two() -> None:
    """K-9, K-11 (seed 003, 30): 6♦ made with 7 tricks: the declarer writes off 3; the whister
    who took one trick puts one remiz of 3; the passer (two tricks) writes nothing."""
    o = game("6D", 1, {2: "whist", 0: "pass"}, {1: 7, 2: 1, 0: 2})
    assert written(o) == [(1, "pool", 3, "K-9"), (2, "hill", 3, "K-11")]


def test_k10_a_failed_game_puts_a_remiz_per_trick_short_and_whisters_write_nothing_off() -> None:
    """K-10 (seed 003, 29, 31): 6♣ with four tricks: two remizes of 2 = 4 into the hill; the
    whisters took three each, more than two, and still write nothing off."""
    o = game("6C", 1, {2: "whist", 0: "whist"}, {1: 4, 2: 3, 0: 3})
    assert written(o) == [(1, "hill", 4, "K-10")]


def test_k10_k11_declarer_and_a_whister_both_put_remizes() -> None:
    """K-10, K-11 (seed 003, 28, 31): 6♠ with five: one remiz of 1; the whister with no trick
    puts two remizes of 1; the one with five puts none."""
    o = game("6S", 1, {2: "whist", 0: "whist"}, {1: 5, 2: 5, 0: 0})
    assert written(o) == [(1, "hill", 1, "K-10"), (0, "hill", 2, "K-11")]


def test_k11_four_players_the_dealer_writes_nothing() -> None:
    """K-1, K-11: at four, dealer 0 sits out; 6♥ by seat 2 made exactly, seat 3 whisted with
    one trick: 4 off for seat 2, one remiz of 4 for seat 3."""
    o = game("6H", 2, {3: "whist", 1: "pass"}, {1: 3, 2: 6, 3: 1})
    assert written(o, players=4) == [(2, "pool", 4, "K-9"), (3, "hill", 4, "K-11")]


def test_k6_a_redeal_writes_nothing_and_the_deal_passes_on() -> None:
    """K-6: all passed the talon: no entries, no pass-out streak, the next seat deals."""
    pulka = Pulka.new(3, conventions=CLASSIC)
    pulka, entries = pulka.record(DealOutcome(dealer=0, kind="redeal", talon=("8H", "7H")))
    assert entries == [] and pulka.next_dealer == 1 and pulka.pass_out_streak == 0
    assert pulka.next_min_level() == 6


def test_k4_k9_a_live_deal_scores_through_the_same_sheet() -> None:
    """K-4, K-9: seat 0 says hearts as third hand, both defenders pass: the live engine's
    outcome writes off 4 for seat 0."""
    state = bids(start(LAYOUT, LAYOUT_TALON, conventions=CLASSIC), "6D", "pass", "6H")
    state, _ = run(state, Defend(1, "pass"), Defend(2, "pass"))
    result = outcome(state)
    assert result is not None
    assert written(result) == [(0, "pool", 4, "K-9")]


@pytest.mark.parametrize(
    ("deal", "field"),
    [
        ({"dealer": 0, "type": "pass_out", "tricks": {"0": 4, "1": 3, "2": 3}}, "type"),
        (
            {"dealer": 0, "type": "misere", "declarer": 1, "tricks": {"1": 0, "2": 5, "0": 5}},
            "type",
        ),
        (
            {
                "dealer": 0,
                "type": "game",
                "declarer": 1,
                "contract": "7S",
                "defence": {"2": "pass", "0": "pass"},
            },
            "contract",
        ),
        (
            {
                "dealer": 0,
                "type": "game",
                "declarer": 1,
                "contract": "6NT",
                "defence": {"2": "pass", "0": "pass"},
            },
            "contract",
        ),
        (
            {
                "dealer": 0,
                "type": "game",
                "declarer": 1,
                "contract": "6S",
                "defence": {"2": "half", "0": "pass"},
            },
            "defence",
        ),
        ({"dealer": 0, "type": "redeal", "declarer": 1}, "type"),
    ],
)
def test_k3_k6_k7_a_classic_record_refuses_what_the_old_rules_do_not_have(
    deal: dict[str, Any], field: str
) -> None:
    """K-3, K-6, K-7: no pass-out, misère, levels above six, no-trumps or half-whist."""
    doc = {
        "format": "pulka/1",
        "conventions": {"preset": "classic"},
        "players": ["A", "B", "C"],
        "target": 10,
        "stake": "1",
        "deals": [deal],
    }
    with pytest.raises(InvalidRecordError) as err:
        score_document(doc)
    assert err.value.field == field


def test_k6_a_redeal_is_refused_outside_classic() -> None:
    """K-6: the club's game passes out instead; a redeal in a club record is an error."""
    doc = {
        "format": "pulka/1",
        "conventions": {"preset": "club"},
        "players": ["A", "B", "C"],
        "target": 10,
        "stake": "1",
        "deals": [{"dealer": 0, "type": "redeal"}],
    }
    with pytest.raises(InvalidRecordError) as err:
        score_document(doc)
    assert err.value.field == "type"


CLASSIC_RECORD: dict[str, Any] = {
    "format": "pulka/1",
    "conventions": {"preset": "classic"},
    "players": ["Anna", "Boris", "Vera"],
    "target": 4,
    "stake": "1",
    "deals": [
        {
            "dealer": 0,
            "type": "game",
            "declarer": 1,
            "contract": "6H",
            "defence": {"2": "pass", "0": "pass"},
        },
        {"dealer": 1, "type": "redeal"},
        {
            "dealer": 2,
            "type": "game",
            "declarer": 0,
            "contract": "6C",
            "defence": {"1": "whist", "2": "whist"},
            "play": "closed",
            "tricks": {"0": 5, "1": 4, "2": 1},
        },
    ],
}


def test_k12_prefclub_score_rescores_a_classic_record() -> None:
    """K-12: a ``pulka/1`` record under ``classic`` scores through ``prefclub score``: Boris 4
    off; Anna one remiz of 2 on 6♣; Vera, whisting with one trick, one remiz of 2."""
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(CLASSIC_RECORD))) == 0
    result = json.loads(out.getvalue())
    assert result["sheet"]["pool"] == [0, 4, 0]
    assert result["sheet"]["hill"] == [2, 0, 2]
    assert result["sheet"]["whists"] == [[0, 0, 0]] * 3


def test_k12_the_settlement_is_the_clubs_without_whists() -> None:
    """K-12: closing ``once`` (no help whists; 003 30-31, a point written off is one remiz). The
    record above: pools 0/4/0 against target 4, hills 2/0/2. Corrected hills (hill + points
    short): Anna 2 + 4 = 6, Boris 0, Vera 6; mean 4; each 10 x (mean - hill): Anna -20, Boris
    +40, Vera -20."""
    result = score_document(CLASSIC_RECORD)
    assert result["settlement"]["whists"] == ["-20.00", "40.00", "-20.00"]


def test_k13_a_classic_record_takes_no_club_penalty_but_an_entry_correction() -> None:
    """K-13: "talon_seen" (R-X4) is the club's catalogue: refused under classic; a scorer's
    entry_error (R-X11) is kept."""
    deal = {
        "dealer": 0,
        "type": "game",
        "declarer": 1,
        "contract": "6H",
        "defence": {"2": "pass", "0": "pass"},
    }
    doc = {**CLASSIC_RECORD, "deals": [{**deal, "penalties": [{"seat": 2, "rule": "talon_seen"}]}]}
    with pytest.raises(InvalidRecordError) as err:
        score_document(doc)
    assert err.value.field == "penalties"
    fixed = {
        **CLASSIC_RECORD,
        "deals": [{**deal, "penalties": [{"seat": 1, "rule": "entry_error", "size": 0}]}],
    }
    assert score_document(fixed)["sheet"]["pool"] == [0, 4, 0]
