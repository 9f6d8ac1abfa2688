"""The penalty catalogue of physical tables (RULES.md §10, R-X1 … R-X11) and its ``pulka/1`` form.

Each catalogue entry is checked by its rule ID with an amount worked out by hand from RULES.md
(club conventions: remiz and misère multipliers 2, prices 6:2 7:4 8:6 9:8 10:10).
"""

from __future__ import annotations

import copy
import dataclasses
import io
import json
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.commands.score import run_score
from app.rules.core.conventions import Conventions
from app.rules.core.outcome import DealOutcome, Penalty
from app.rules.core.rule_errors import InvalidRecordError
from app.rules.scoring.penalties import CATALOGUE, RULE_WORDS
from app.rules.scoring.pulka import Pulka
from app.rules.scoring.record import export_document, score_document, score_pulka
from tests.rules.test_record import deal_outcome
from tests.support.scoring import CLUB, conceded, game, ints, one, pass_out, play

SEVEN_HEARTS = {2: "whist", 0: "pass"}
FINED = CLUB.with_overrides({"dealing_fine": True})
"""The club preset as pulkas stored before revision 0019 with an R-X2 fault read it."""
"""Dealer 0, declarer 1 on 7♥: seat 2 whists, seat 0 passes."""


def _pen(seat: int, rule: str, **kw: Any) -> Penalty:
    return Penalty(seat=seat, rule=rule, **kw)


def _seven(*penalties: Penalty, tricks: dict[int, int] | None = None) -> DealOutcome:
    return game(0, 1, "7H", SEVEN_HEARTS, tricks or {1: 7, 2: 2, 0: 1}, penalties=penalties)


def _refused(
    deals: list[DealOutcome], players: int = 3, conventions: Conventions = CLUB
) -> InvalidRecordError:
    with pytest.raises(InvalidRecordError) as info:
        play(deals, conventions, players=players)
    return info.value


def test_one_entry_per_rule_of_section_10_with_words() -> None:
    assert sorted(RULE_WORDS, key=lambda r: int(r[3:])) == [f"R-X{i}" for i in range(1, 12)]
    for entry in CATALOGUE.values():
        assert entry.words["ru"] and entry.words["en"] and entry.cost


def test_r_x1_misdeal_is_free_and_charged_to_the_dealer() -> None:
    # R-X1: the deal is void and the same dealer redeals; no penalty.
    assert one(_seven(_pen(0, "misdeal"))).sheet == one(_seven()).sheet
    assert _refused([_seven(_pen(1, "misdeal"))]).field == "penalties"


def test_r_x2_000_no_penalty_for_a_wrong_deal_the_same_dealer_deals_again() -> None:
    """R-X2 as the club's own text reads it (000: «Наказания за неправильную сдачу не
    применяется»; issue 26): seat 0 breaks the procedure twice in the pulka; nothing is written
    either time and he deals both of his deals himself."""
    p = play([
        game(0, 1, "7H", SEVEN_HEARTS, {1: 7, 2: 2, 0: 1},
             penalties=(_pen(0, "dealing_procedure"),)),
        game(1, 2, "6C", {0: "pass", 1: "pass"}),
        game(2, 0, "6C", {1: "pass", 2: "pass"}),
        game(0, 1, "6C", {2: "pass", 0: "pass"}, penalties=(_pen(0, "dealing_procedure"),)),
    ])  # fmt: skip
    assert ints(p.sheet.hill) == [0, 0, 0]
    assert not [e for e in p.entries if e.rule == "R-X2" and e.amount]
    assert p.next_dealer == 1
    passed_on = game(1, 2, "6C", {0: "pass", 1: "pass"}, penalties=(_pen(0, "dealing_procedure"),))
    assert _refused([passed_on]).field == "penalties"  # the fault is the dealer's own
    with_five = _pen(0, "dealing_procedure", hill=5)
    assert _refused([_seven(with_five)]).field == "penalties"


def test_r_x2_dealing_fine_warning_then_five_and_the_deal_passes_on() -> None:
    """R-X2 under ``dealing_fine`` (001 3.2.17; pulkas stored before revision 0019): a warning
    the first time (0), then 5 into the dealer's hill and the deal passes on."""
    warned = game(0, 1, "7H", SEVEN_HEARTS, {1: 7, 2: 2, 0: 1},
                  penalties=(_pen(0, "dealing_procedure", hill=0),))  # fmt: skip
    p = play([
        warned,
        game(1, 2, "6C", {0: "pass", 1: "pass"}),
        game(2, 0, "6C", {1: "pass", 2: "pass"}),
        # Seat 0's deal passes to seat 1, who deals; seat 0 writes 5.
        game(1, 2, "6C", {0: "pass", 1: "pass"}, penalties=(_pen(0, "dealing_procedure"),)),
    ], FINED)  # fmt: skip
    assert ints(p.sheet.hill) == [5, 0, 0]
    assert p.entries[-1].rule == "R-X2" and p.entries[-1].amount == 5
    assert p.next_dealer == 2
    # A first fault cannot pass the deal on: the warned seat is the one who deals.
    first = game(1, 2, "6C", {0: "pass", 1: "pass"}, penalties=(_pen(0, "dealing_procedure"),))
    assert _refused([first], conventions=FINED).field == "penalties"
    refused = _refused([_seven(_pen(2, "dealing_procedure"))], conventions=FINED)
    assert refused.field == "penalties"


def test_r_x3_out_of_turn_deal_stands_and_the_rotation_follows_the_actual_dealer() -> None:
    # R-X3: seat 2 dealt when seat 0 was due; it stands and seat 0 (his left) deals next.
    oot = DealOutcome(dealer=2, kind="pass_out", tricks={0: 4, 1: 3, 2: 3}, out_of_turn=True)
    p, _ = Pulka.new(3, first_dealer=0).record(oot)
    assert p.next_dealer == 0
    assert p.sheet == play([pass_out(2, {0: 4, 1: 3, 2: 3})]).sheet
    with pytest.raises(InvalidRecordError) as info:
        Pulka.new(3, first_dealer=0).record(dataclasses.replace(oot, out_of_turn=False))
    assert info.value.field == "dealer" and "out_of_turn" in info.value.message
    # In turn is not out of turn (and a record's first deal sets the rotation, so it is in turn).
    assert _refused([oot]).field == "out_of_turn"


def test_r_x4_talon_seen_five_no_bidding_two_pass_out_tricks() -> None:
    # R-X4: 5 into the offender's hill, the sitting-out dealer included.
    assert ints(one(_seven(_pen(2, "talon_seen"))).sheet.hill) == [0, 0, 5]
    four = game(3, 1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 2, 0: 1},
                penalties=(_pen(3, "talon_seen"),))  # fmt: skip
    assert ints(one(four, players=4).sheet.hill) == [0, 0, 0, 5]
    # He took no part in the bidding, so he did not declare.
    assert _refused([_seven(_pen(1, "talon_seen"))]).field == "penalties"
    # On a pass-out he takes the first two tricks: fewer than two cannot be.
    bad = DealOutcome(dealer=0, kind="pass_out", tricks={0: 5, 1: 4, 2: 1},
                      penalties=(_pen(2, "talon_seen"),))  # fmt: skip
    assert "two tricks" in _refused([bad]).message
    ok = dataclasses.replace(bad, tricks={0: 4, 1: 4, 2: 2})
    plain = one(pass_out(0, {0: 4, 1: 4, 2: 2}))
    assert one(ok).sheet.hill[2] == plain.sheet.hill[2] + 5


def test_r_x5_talon_taken_no_sheet_amount_and_no_bidding() -> None:
    assert one(_seven(_pen(0, "talon_taken"))).sheet == one(_seven()).sheet
    assert _refused([_seven(_pen(1, "talon_taken"))]).field == "penalties"


def test_r_x6_wrong_card_count_down_three_on_the_declared_game() -> None:
    # R-X6: 7♥ costs 4; down three = 3 × 4 × 2 (club remiz multiplier) = 24.
    assert one(_seven(_pen(2, "wrong_card_count"))).sheet.hill[2] == 24
    # Misère: 3 × 10 × 2 = 60.
    m = DealOutcome(dealer=0, kind="misere", declarer=1, tricks={1: 0, 2: 5, 0: 5},
                    penalties=(_pen(0, "wrong_card_count"),))  # fmt: skip
    assert one(m).sheet.hill[0] == 60
    # Pass-out: the lowest game of the deal, 6 (price 2): 3 × 2 × 2 = 12 on top of the pass-out.
    po = DealOutcome(dealer=0, kind="pass_out", tricks={0: 4, 1: 4, 2: 2},
                     penalties=(_pen(1, "wrong_card_count", hill=12),))  # fmt: skip
    assert one(po).sheet.hill[1] == one(pass_out(0, {0: 4, 1: 4, 2: 2})).sheet.hill[1] + 12
    # Sochi has remiz multiplier 1: 3 × 4 = 12.
    sochi = Conventions.preset_named("sochi")
    assert one(_seven(_pen(2, "wrong_card_count")), sochi).sheet.hill[2] == 12


@pytest.mark.parametrize("entry_id", ["lead_out_of_turn", "card_shown", "claim_without_plan"])
def test_r_x7_x8_x10_only_the_tricks_tell(entry_id: str) -> None:
    # R-X7, R-X8, R-X10: the recorded tricks are what the rule gave; nothing else is written.
    assert one(_seven(_pen(2, entry_id))).sheet == one(_seven()).sheet
    # Charged to a seat that played: not the four-player dealer who sat out.
    four = game(3, 1, "7H", {2: "whist", 0: "pass"}, {1: 7, 2: 2, 0: 1},
                penalties=(_pen(3, entry_id),))  # fmt: skip
    assert _refused([four], players=4).field == "penalties"


def test_r_x9_late_revoke_whister_one_trick_declarer_without_three() -> None:
    # R-X9, whister: seat 2's revoke gives one of his tricks to the declarer: 6 tricks become 7,
    # so 7♥ is made (pool 4) instead of one down.
    revoked = one(_seven(_pen(2, "late_revoke"), tricks={1: 6, 2: 3, 0: 1}))
    assert revoked.sheet == one(_seven(tricks={1: 7, 2: 2, 0: 1})).sheet
    assert ints(revoked.sheet.pool) == [0, 4, 0]
    # R-X9, declarer: "без трёх" whatever he took: 3 × 4 × 2 = 24 in his hill, entries under R-X9.
    p = one(_seven(_pen(1, "late_revoke"), tricks={1: 8, 2: 1, 0: 1}))
    assert ints(p.sheet.hill) == [0, 24, 0] and ints(p.sheet.pool) == [0, 0, 0]
    assert p.sheet == one(conceded(0, 1, "7H")).sheet
    assert {e.rule for e in p.entries} == {"R-X9"}
    # A seat that passed is no whister.
    assert _refused([_seven(_pen(0, "late_revoke"))]).field == "penalties"


def test_r_x11_entry_error_first_free_then_its_own_size() -> None:
    # R-X11: the first correction in a pulka is free; a later over-entry is fined by its size.
    first = game(0, 1, "6C", {2: "pass", 0: "pass"}, penalties=(_pen(2, "entry_error", size=4),))
    later = game(1, 2, "6C", {0: "pass", 1: "pass"},
                 penalties=(_pen(0, "entry_error", size=3, hill=3),))  # fmt: skip
    p = play([first, later])
    assert ints(p.sheet.hill) == [3, 0, 0]
    assert _refused([_seven(_pen(2, "entry_error"))]).field == "penalties"


def test_unknown_id_stated_amounts_and_whists_are_refused() -> None:
    assert "unknown penalty" in _refused([_seven(_pen(2, "R-X4"))]).message
    assert "not 500" in _refused([_seven(_pen(2, "talon_seen", hill=500))]).message
    assert _refused([_seven(_pen(2, "talon_seen", whists_on=1, amount=12))]).field == "penalties"
    assert _refused([_seven(_pen(2, "talon_seen", size=3))]).field == "penalties"


# -- prefclub score ----------------------------------------------------------------------------

BASE: dict[str, Any] = {
    "format": "pulka/1",
    "players": ["Anna", "Boris", "Vera"],
    "target": 20,
    "deals": [
        {"dealer": 0, "type": "game", "declarer": 1, "contract": "7H",
         "defence": {"2": "whist", "0": "pass"}, "tricks": {"1": 7, "2": 2, "0": 1}},
    ],
}  # fmt: skip


def _score(doc: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = run_score("-", out, io.StringIO(json.dumps(doc)))
    lines = out.getvalue().splitlines()
    return code, json.loads(lines[0] if code else out.getvalue())


def _with(*penalties: dict[str, Any], **deal: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    doc["deals"][0].update(deal, penalties=list(penalties))
    return doc


def test_score_refuses_the_issue_example_with_exit_2() -> None:
    code, out = _score(_with({"seat": 0, "rule": "anything at all", "hill": -500}))
    assert code == 2
    assert out["error"]["deal"] == 0 and out["error"]["field"] == "penalties"
    assert "anything at all" in out["error"]["message"]


# Each catalogue entry at the BASE deal (dealer 0, declarer 1, seat 2 whists): who, extra hill.
DOCUMENTED: dict[str, tuple[dict[str, Any], list[int]]] = {
    "misdeal": ({"seat": 0}, [0, 0, 0]),
    "dealing_procedure": ({"seat": 0}, [0, 0, 0]),
    "talon_seen": ({"seat": 2}, [0, 0, 5]),
    "talon_taken": ({"seat": 0}, [0, 0, 0]),
    "wrong_card_count": ({"seat": 0}, [24, 0, 0]),
    "lead_out_of_turn": ({"seat": 2}, [0, 0, 0]),
    "card_shown": ({"seat": 1}, [0, 0, 0]),
    "late_revoke": ({"seat": 1}, [0, 24, 0]),
    "claim_without_plan": ({"seat": 1}, [0, 0, 0]),
    "entry_error": ({"seat": 2, "size": 7}, [0, 0, 0]),
}


@pytest.mark.parametrize("entry_id", sorted(CATALOGUE))
def test_score_accepts_each_catalogue_entry_with_its_documented_amount(entry_id: str) -> None:
    if entry_id == "dealt_out_of_turn":
        # R-X3: free; the deal carries out_of_turn and the penalty names its actual dealer.
        doc = _with()
        doc["deals"].append({"dealer": 0, "type": "pass_out", "out_of_turn": True,
                             "tricks": {"0": 4, "1": 3, "2": 3},
                             "penalties": [{"seat": 0, "rule": entry_id, "hill": 0}]})  # fmt: skip
        code, out = _score(doc)
        assert code == 0, out
        del doc["deals"][1]["penalties"]
        assert out["sheet"] == _score(doc)[1]["sheet"]
        del doc["deals"][1]["out_of_turn"]
        doc["deals"][1]["penalties"] = [{"seat": 0, "rule": entry_id}]
        code, out = _score(doc)
        assert code == 2 and out["error"]["deal"] == 1 and out["error"]["field"] == "dealer"
        return
    penalty, extra = DOCUMENTED[entry_id]
    code, plain = _score(BASE)
    code, out = _score(_with({**penalty, "rule": entry_id}))
    assert code == 0, out
    late = entry_id == "late_revoke"
    base_hill = [0, 0, 0] if late else plain["sheet"]["hill"]
    assert out["sheet"]["hill"] == [b + x for b, x in zip(base_hill, extra, strict=True)]
    # Stating the documented amount is accepted; any other is refused (exit 2).
    if not late:
        stated = {**penalty, "rule": entry_id, "hill": max(extra)}
        assert _score(_with(stated))[0] == 0
        code, out = _score(_with({**stated, "hill": max(extra) + 1}))
        assert code == 2 and out["error"]["field"] == "penalties"


def test_score_out_of_turn_needs_the_flag() -> None:
    doc = copy.deepcopy(BASE)
    doc["deals"][0].update(dealer=2, defence={"0": "whist", "2": "pass"},
                           tricks={"1": 7, "2": 1, "0": 2})  # fmt: skip
    doc["deals"].insert(0, {"dealer": 0, "type": "pass_out", "tricks": {"0": 4, "1": 3, "2": 3}})
    doc["deals"][1]["dealer"] = 2
    code, out = _score(doc)
    assert code == 2 and out["error"] == {
        "deal": 1, "field": "dealer",
        "message": "seat 1 deals this deal (clockwise rotation), not 2; a deal out of turn "
        "that stands is marked out_of_turn (R-X3)",
    }  # fmt: skip
    doc["deals"][1]["out_of_turn"] = True
    code, out = _score(doc)
    assert code == 0


# -- property: recorded entries re-score to the same sheet through record → score --------------


@st.composite
def pulkas_with_penalties(draw: st.DrawFn) -> Pulka:
    """A random pulka of games, pass-outs and catalogue penalties, some deals out of turn."""
    n = draw(st.sampled_from([3, 4]))
    preset = draw(st.sampled_from(["club", "leningrad", "sochi", "rostov"]))
    pulka = Pulka.new(n, conventions=Conventions.preset_named(preset), target=draw(
        st.integers(6, 40)), first_dealer=draw(st.integers(0, n - 1)))  # fmt: skip
    for _ in range(draw(st.integers(0, 10))):
        if pulka.is_complete:
            break
        view = pulka
        oot = draw(st.integers(0, 5)) == 0
        if oot:
            dealer = (pulka.next_dealer + draw(st.integers(1, n - 1))) % n
            view = dataclasses.replace(pulka, next_dealer=dealer)
        o = draw(deal_outcome(view))
        o = dataclasses.replace(o, out_of_turn=oot)
        pens = []
        for _ in range(draw(st.integers(0, 2))):
            entry_id = draw(st.sampled_from(sorted(CATALOGUE)))
            seat = draw(st.integers(0, n - 1))
            size = draw(st.integers(1, 9)) if entry_id == "entry_error" else None
            pens.append(Penalty(seat=seat, rule=entry_id, size=size))
        try:
            pulka, _ = pulka.record(dataclasses.replace(o, penalties=tuple(pens)))
        except InvalidRecordError:
            pulka, _ = pulka.record(o)  # that penalty could not have happened here
    return pulka


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pulkas_with_penalties())
def test_property_recorded_entries_rescore_to_the_same_sheet(pulka: Pulka) -> None:
    live = score_pulka(pulka)
    doc = json.loads(json.dumps(export_document(pulka)))
    assert score_document(doc) == live
    assert Pulka.from_json(json.loads(json.dumps(pulka.to_json()))) == pulka
    assert sum(pulka.settle().rounded) == 0
    assert all(isinstance(e.amount, Fraction) for e in pulka.entries)
