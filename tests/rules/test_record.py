"""``pulka/1`` parsing, validation, scoring and export (PULKA_FORMAT.md), one scoring path."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules.core.conventions import Conventions
from app.rules.core.outcome import STRAINS, Contract, DealOutcome
from app.rules.core.rule_errors import InvalidRecordError
from app.rules.scoring.pulka import Pulka
from app.rules.scoring.record import export_document, score_document, score_pulka
from app.rules.scoring.sheet import HALF_WHIST_TRICKS, defenders, playing_seats

EXAMPLE: dict[str, Any] = {
    "format": "pulka/1",
    "conventions": {"preset": "club", "stalingrad": True},
    "players": ["Anna", "Boris", "Vera"],
    "target": 20,
    "stake": "0.50",
    "ended": "agreement",
    "deals": [
        {
            "dealer": 0,
            "type": "game",
            "declarer": 1,
            "contract": "7H",
            "defence": {"2": "whist", "0": "pass"},
            "play": "open",
            "tricks": {"1": 6, "2": 3, "0": 1},
        },
        {
            "dealer": 1,
            "type": "game",
            "declarer": 0,
            "contract": "6C",
            "defence": {"1": "pass", "2": "half"},
        },
        {"dealer": 2, "type": "misere", "declarer": 1, "tricks": {"1": 2, "2": 4, "0": 4}},
        {"dealer": 0, "type": "pass_out", "tricks": {"0": 5, "1": 3, "2": 2}},
        {"dealer": 1, "type": "conceded", "declarer": 2, "contract": "8NT"},
    ],
}


def test_format_example_scores() -> None:
    out = score_document(EXAMPLE)
    assert out["format"] == "pulka-score/1"
    assert out["players"] == ["Anna", "Boris", "Vera"]
    assert out["ended"] == "agreement"
    assert out["sheet"]["pool"] == [2, 0, 0]
    assert out["sheet"]["hill"] == [6, 8 + 40 + 2, 36]
    assert out["sheet"]["whists"] == [[0, 20, 18], [0, 0, 18], [8, 20, 0]]
    assert out["entries"][0] == {
        "deal": 0,
        "seat": 1,
        "column": "hill",
        "amount": 8,
        "rule": "R-P1",
    }
    st_ = out["settlement"]
    assert sum(st_["rounded"]) == 0
    assert sum(Decimal(m) for m in st_["money"]) == 0
    assert set(st_) == {"whists", "rounded", "money"}
    json.dumps(out)


def test_suit_symbols_and_ended_absent() -> None:
    doc = copy.deepcopy(EXAMPLE)
    doc["deals"][0]["contract"] = "7♥"
    del doc["ended"]
    out = score_document(doc)
    assert out["ended"] == "agreement"
    assert out["sheet"] == score_document(EXAMPLE)["sheet"]


def _bad(mutate: Any) -> InvalidRecordError:
    doc = copy.deepcopy(EXAMPLE)
    mutate(doc)
    with pytest.raises(InvalidRecordError) as err:
        score_document(doc)
    return err.value


@pytest.mark.parametrize(
    ("mutate", "deal", "field"),
    [
        (lambda d: d["deals"][0]["tricks"].update({"0": 2}), 0, "tricks"),
        (lambda d: d["deals"][3].update(dealer=2), 3, "dealer"),
        (lambda d: d.update(conventions={"preset": "moscow"}), None, "conventions"),
        (lambda d: d.update(conventions={"preset": "club", "bombs": True}), None, "conventions"),
        (lambda d: d["deals"][4].update(contract="11NT"), 4, "contract"),
        (lambda d: d["deals"][4].update(contract="5S"), 4, "contract"),
        (lambda d: d["deals"][4].update(contract="7X"), 4, "contract"),
        (lambda d: d["deals"][2].update(contract="8S"), 2, "contract"),
        (lambda d: d["deals"][1].update(contract="8C"), 1, "contract"),  # 8 after no pass-out ok?
        (lambda d: d["deals"][0].update(defence={"1": "whist", "0": "pass"}), 0, "defence"),
        (lambda d: d["deals"][0].update(defence={"2": "whist", "0": "maybe"}), 0, "defence"),
        (lambda d: d["deals"][0].update(colour="red"), 0, "colour"),
        (lambda d: d.update(colour="red"), None, "colour"),
        (lambda d: d["deals"][0].update(dealer="0"), 0, "dealer"),
        (lambda d: d["deals"][0].update(type="bridge"), 0, "type"),
        (lambda d: d.update(players=["A", "B"]), None, "players"),
        (lambda d: d.update(target=-1), None, "target"),
        (lambda d: d.update(target=20.0), None, "target"),
        (lambda d: d.update(stake=0.5), None, "stake"),
        (lambda d: d.update(format="pulka/2"), None, "format"),
        (lambda d: d.update(ended="finished"), None, "ended"),
        (lambda d: d.update(deals={}), None, "deals"),
        (lambda d: d["deals"][0].update(talon=["AS"]), 0, "talon"),
        (lambda d: d["deals"][0].update(penalties=[{"seat": 0}]), 0, "penalties"),
    ],
)
def test_invalid_records(mutate, deal, field) -> None:
    if field == "contract" and deal == 1:
        # 8C with half-whist: half-whist only on 6 and 7 -> the defence is at fault
        err = _bad(mutate)
        assert (err.deal, err.field) == (1, "defence")
        return
    err = _bad(mutate)
    assert (err.deal, err.field) == (deal, field)
    assert err.message


def test_half_whist_on_eight_rejected() -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["deals"][1]["contract"] = "8C"

    err = _bad(mutate)
    assert (err.deal, err.field) == (1, "defence") and "half" in err.message


def test_four_player_dealer_cannot_declare() -> None:
    doc = {
        "format": "pulka/1",
        "players": ["A", "B", "C", "D"],
        "target": 10,
        "deals": [
            {"dealer": 0, "type": "misere", "declarer": 0, "tricks": {"0": 0, "1": 5, "2": 5}}
        ],
    }
    with pytest.raises(InvalidRecordError) as err:
        score_document(doc)
    assert (err.value.deal, err.value.field) == (0, "declarer")


def test_deal_after_the_pulka_ended() -> None:
    deals = [
        {"dealer": k % 3, "type": "misere", "declarer": (k + 1) % 3,
         "tricks": {str((k + 1) % 3): 0, str((k + 2) % 3): 5, str(k % 3): 5}}
        for k in range(4)
    ]  # fmt: skip
    doc = {"format": "pulka/1", "players": ["A", "B", "C"], "target": 10, "deals": deals}
    with pytest.raises(InvalidRecordError) as err:
        score_document(doc)
    assert err.value.deal == 3
    doc["deals"] = deals[:3]
    assert score_document(doc)["ended"] == "target"


def test_export_and_rescore_identically() -> None:
    p = Pulka.new(4, names=("A", "B", "C", "D"), conventions=Conventions.preset_named("rostov"))
    p, _ = p.record(DealOutcome(dealer=0, kind="pass_out", tricks={1: 2, 2: 5, 3: 2, 0: 1}))
    p, _ = p.record(
        DealOutcome(
            dealer=1,
            kind="game",
            declarer=2,
            contract=Contract(7, "NT"),
            defence={3: "whist", 0: "pass"},
            tricks={2: 6, 3: 3, 0: 1},
            talon=("AS", "KS"),
        )
    )
    doc = export_document(p)
    assert doc["format"] == "pulka/1"
    again = score_document(json.loads(json.dumps(doc)))
    assert again == score_pulka(p)
    # a shared Rostov pass-out write (25/2) plus the dealer's consolation (10): exact halves
    assert again["sheet"]["whists"][1][2] == 22.5


def test_export_writes_a_mid_pulka_join_as_a_seat_change() -> None:
    """R-T4: see tests/rules/test_record_seat_changes.py for the full coverage."""
    p = Pulka.new(3)
    p, _ = p.record(DealOutcome(dealer=0, kind="pass_out", tricks={1: 4, 2: 3, 0: 3}))
    p, _ = p.join_fourth(after_dealer_seat=0)
    doc = export_document(p)
    assert doc["players"] == ["Seat 0", "Seat 1", "Seat 2"]
    assert doc["seat_changes"][0]["kind"] == "join"


# -- property: any valid record settles to zero and scores as the live path does -------------


@st.composite
def pulkas(draw: st.DrawFn) -> tuple[Pulka, list[DealOutcome]]:
    """A random valid pulka built deal by deal through Pulka.record (the live-table path)."""
    preset = draw(st.sampled_from(["club", "leningrad", "sochi", "rostov"]))
    overrides: dict[str, Any] = {}
    if draw(st.booleans()):
        overrides["whist_style"] = draw(st.sampled_from(["gentleman", "greedy"]))
    conv = Conventions.preset_named(preset).with_overrides(overrides)
    n = draw(st.sampled_from([3, 4]))
    target = draw(st.integers(6, 40))
    stake = draw(st.sampled_from(["0.50", "1", "0.125", "0.03"]))
    pulka = Pulka.new(n, conventions=conv, target=target, stake=stake,
                      first_dealer=draw(st.integers(0, n - 1)))  # fmt: skip
    outcomes: list[DealOutcome] = []
    for _ in range(draw(st.integers(0, 12))):
        if pulka.is_complete:
            break
        o = draw(deal_outcome(pulka))
        pulka, _ = pulka.record(o)
        outcomes.append(o)
    return pulka, outcomes


def _split(draw: st.DrawFn, seats: tuple[int, ...], dealer: int | None = None) -> dict[int, int]:
    left = 10
    out: dict[int, int] = {}
    for s in seats[:-1]:
        cap = min(left, 2) if s == dealer else left
        out[s] = draw(st.integers(0, cap))
        left -= out[s]
    out[seats[-1]] = left
    return out


@st.composite
def deal_outcome(draw: st.DrawFn, pulka: Pulka) -> DealOutcome:
    n, dealer, c = pulka.players, pulka.next_dealer, pulka.conventions
    hands = playing_seats(n, dealer)
    kind = draw(st.sampled_from(["game", "game", "game", "misere", "pass_out", "conceded"]))
    if kind == "pass_out":
        seats = (dealer, *hands) if n == 4 else hands
        return DealOutcome(dealer=dealer, kind="pass_out", tricks=_split(draw, seats, dealer))
    declarer = draw(st.sampled_from(hands))
    if kind == "misere":
        return DealOutcome(dealer=dealer, kind="misere", declarer=declarer,
                           tricks=_split(draw, hands))  # fmt: skip
    level = draw(st.integers(pulka.next_min_level(), 10))
    contract = Contract(level, draw(st.sampled_from(STRAINS)))
    talon = draw(st.sampled_from([None, ("AS", "AH"), ("KD", "QD"), ("7C", "8C")]))
    if kind == "conceded":
        return DealOutcome(dealer=dealer, kind="conceded", declarer=declarer, contract=contract,
                           talon=talon)  # fmt: skip
    first, second = defenders(n, dealer, declarer)
    if level == 10 and c.ten_checked:
        tricks = draw(st.one_of(st.none(), st.just(0)))
        return DealOutcome(dealer=dealer, kind="game", declarer=declarer, contract=contract,
                           defence={first: "pass", second: "pass"}, talon=talon,
                           tricks=None if tricks is None else _split(draw, hands))  # fmt: skip
    options = ["ww", "wp", "pw", "pp"]
    if c.half_whist and level in HALF_WHIST_TRICKS:
        options += ["half", "returned"]
    if c.stalingrad and level == 6 and contract.strain == "S":
        options = ["ww"]
    choice = draw(st.sampled_from(options))
    calls = {"w": "whist", "p": "pass"}
    returned = None
    if choice == "half":
        defence = {first: "pass", second: "half"}
    elif choice == "returned":
        defence, returned = {first: "whist", second: "pass"}, second
    else:
        defence = {first: calls[choice[0]], second: calls[choice[1]]}
    played = choice not in ("half", "pp")
    return DealOutcome(
        dealer=dealer, kind="game", declarer=declarer, contract=contract,
        defence=defence, returned_from=returned, talon=talon,  # type: ignore[arg-type]
        tricks=_split(draw, hands) if played else None,
    )  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pulkas(), st.sampled_from([None, "agreement", "session_end"]))
def test_property_record_equals_live_and_sums_to_zero(built, reason) -> None:
    pulka, _ = built
    if reason is not None and not pulka.is_complete:
        pulka = pulka.close(reason)
    live = score_pulka(pulka)
    doc = json.loads(json.dumps(export_document(pulka)))
    assert score_document(doc) == live
    s = pulka.settle()
    assert sum(s.exact) == 0
    assert sum(s.rounded) == 0
    assert sum(s.money) == 0
    assert all(abs(r - x) < 1 for r, x in zip(s.rounded, s.exact, strict=True))


def test_the_format_documents_example_scores_as_ended_early() -> None:
    """PULKA_FORMAT.md's example says ``"ended": "target"`` after five deals with no pool full:
    it is scored as ended early by agreement (R-P8, R-P9), not rejected."""
    doc = {
        "format": "pulka/1",
        "conventions": {"preset": "club", "stalingrad": True},
        "players": ["Anna", "Boris", "Vera"],
        "target": 20,
        "stake": "0.50",
        "ended": "target",
        "deals": [
            {
                "dealer": 0,
                "type": "game",
                "declarer": 1,
                "contract": "7H",
                "defence": {"2": "whist", "0": "pass"},
                "play": "open",
                "tricks": {"1": 6, "2": 3, "0": 1},
            },
            {
                "dealer": 1,
                "type": "game",
                "declarer": 0,
                "contract": "6C",
                "defence": {"1": "pass", "2": "half"},
            },
            {"dealer": 2, "type": "misere", "declarer": 1, "tricks": {"1": 2, "2": 4, "0": 4}},
            {"dealer": 0, "type": "pass_out", "tricks": {"0": 5, "1": 3, "2": 2}},
            {"dealer": 1, "type": "conceded", "declarer": 2, "contract": "8NT"},
        ],
    }
    scored = score_document(doc)
    assert scored["ended"] == "agreement"
    assert scored["sheet"]["pool"] == [2, 0, 0]
    assert scored["sheet"]["hill"] == [6, 50, 36]
    assert scored["sheet"]["whists"] == [[0, 20, 18], [0, 0, 18], [8, 20, 0]]
    assert sum(scored["settlement"]["rounded"]) == 0
