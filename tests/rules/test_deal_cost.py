"""Each member's costliest deals of a pulka, kept while its log is tallied (issue 27;
app/rules/scoring/deal_cost.py). Losses are R-P4's settlement restricted to one deal."""

from __future__ import annotations

from fractions import Fraction

from app.rules import COSTLIEST, COSTLY_VERSION, LogFact, tally
from app.rules.scoring.deal_cost import CostlyDeal, CostlyDeals


def _hill(seat: int, amount: int | str) -> dict[str, object]:
    return {"seat": seat, "column": "hill", "amount": amount, "rule": "R-P1"}


def _whists(seat: int, on: int, amount: int | str) -> dict[str, object]:
    return {"seat": seat, "column": "whists", "amount": amount, "on": on, "rule": "R-P1"}


def test_the_dearest_ten_are_kept_largest_first_with_exact_losses() -> None:
    # R-P4: a remiz of k points costs seat 0 10·(k − k/3) whists, 20k/3: 12 deals, k = 1..12
    costly = CostlyDeals()
    for k in range(1, 13):
        costly.add([7, 8, 9], ["A", "B", "C"], k, 100 + k, [_hill(0, k)])
    stored = costly.stored(7)
    assert stored["version"] == COSTLY_VERSION == 1
    deals = [CostlyDeal.from_json(d) for d in stored["deals"]]
    assert len(deals) == COSTLIEST
    assert [d.deal_no for d in deals] == list(range(12, 2, -1))
    assert deals[0] == CostlyDeal(12, 112, Fraction(80), ["A", "B", "C"])
    assert stored["deals"][1]["loss"] == "220/3" and stored["deals"][1]["sort"] == 220 / 3
    # the others gained: only losses are kept
    assert costly.stored(8) == {"version": 1, "deals": []}


def test_whists_count_net_and_ties_go_to_the_earlier_deal() -> None:
    costly = CostlyDeals()
    # deal 1: B writes 6 whists on A, A writes 2 on B: A loses 4; deal 2 the same loss
    costly.add([7, 8, 9], ["A", "B", "C"], 1, 10, [_whists(1, 0, 6), _whists(0, 1, 2)])
    costly.add([7, 8, 9], ["A", "B", "C"], 2, 20, [_whists(1, 0, "5.5"), _whists(0, 1, "1.5")])
    assert [(d["deal"], d["loss"]) for d in costly.stored(7)["deals"]] == [(1, "4"), (2, "4")]


def test_the_tally_weighs_each_deal_with_the_seating_of_its_time() -> None:
    # R-T5: D replaces B before deal 2; B's remiz of deal 1 is his, D's of deal 2 is D's
    facts = [
        LogFact(1, "pulka_started", [11, 12, 13], ["A", "B", "C"]),
        LogFact(2, "deal_started", [11, 12, 13], ["A", "B", "C"], deal_no=1),
        LogFact(
            9,
            "deal_ended",
            outcome={"dealer": 0, "type": "pass_out"},
            deal_no=1,
            entries=[_hill(1, 3)],
        ),
        LogFact(10, "player_replaced", [11, 14, 13], ["A", "D", "C"]),
        LogFact(11, "deal_started", [11, 14, 13], ["A", "D", "C"], deal_no=2),
        LogFact(
            19,
            "deal_ended",
            outcome={"dealer": 1, "type": "pass_out"},
            deal_no=2,
            entries=[_hill(1, 6)],
        ),
    ]
    counted = tally(facts, None)
    assert counted.costly.stored(12)["deals"] == [
        {"deal": 1, "seq": 9, "loss": "20", "sort": 20.0, "names": ["A", "B", "C"]}
    ]
    assert counted.costly.stored(14)["deals"] == [
        {"deal": 2, "seq": 19, "loss": "40", "sort": 40.0, "names": ["A", "D", "C"]}
    ]
    assert counted.costly.stored(11)["deals"] == []
