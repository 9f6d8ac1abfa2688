"""A pulka's tally per member (app.rules.scoring.statistics), over hand-written logs."""

from __future__ import annotations

from decimal import Decimal

from app.rules.scoring.statistics import LogFact, made, tally


def _game(dealer: int, declarer: int, contract: str, tricks: dict[str, int]) -> dict[str, object]:
    return {
        "type": "game",
        "dealer": dealer,
        "declarer": declarer,
        "contract": contract,
        "tricks": tricks,
    }


def test_made_reads_the_contract_level_and_misere_tricks_r_b2() -> None:
    """6S needs six tricks; 10NT ten; a misère is made with none; a concession fails."""
    assert made(_game(0, 1, "6S", {"1": 6})) is True
    assert made(_game(0, 1, "6S", {"1": 5})) is False
    assert made(_game(0, 1, "10NT", {"1": 10})) is True
    assert made({"type": "misere", "dealer": 0, "declarer": 2, "tricks": {"2": 1}}) is False
    assert made({"type": "misere", "dealer": 0, "declarer": 2, "tricks": {"2": 0}}) is True
    assert made({"type": "conceded", "dealer": 0, "declarer": 2, "contract": "7H"}) is False
    assert made({"type": "pass_out", "dealer": 0, "tricks": {"0": 4}}) is None
    assert made(_game(0, 1, "6S", {})) is False
    assert made({"type": "game", "dealer": 0, "declarer": 1, "contract": "8D"}) is True


def test_a_replaced_player_keeps_his_deals_but_not_the_pulka_r_t5() -> None:
    """Member 12 declares deal 1 and leaves (R-T5: 14 takes seat 1); the pulka, whists and
    money go to those seated at the end; deal ranges point at each finished deal."""
    facts = [
        LogFact(1, "pulka_started", [11, 12, 13], ["A", "B", "C"]),
        LogFact(2, "deal_started", [11, 12, 13], ["A", "B", "C"], deal_no=1),
        LogFact(9, "deal_ended", outcome=_game(0, 1, "6S", {"1": 6}), deal_no=1),
        LogFact(10, "player_replaced", [11, 14, 13], ["A", "D", "C"]),
        LogFact(11, "deal_started", [11, 14, 13], ["A", "D", "C"], deal_no=2),
        LogFact(
            20,
            "deal_ended",
            outcome={"type": "misere", "dealer": 1, "declarer": 1, "tricks": {"1": 0}},
            deal_no=2,
        ),
        LogFact(21, "deal_started", [11, 14, 13], ["A", "D", "C"], deal_no=3),
    ]
    out = tally(facts, {"whists": [10, -2.5, -7.5], "money": ["5.00", "-1.25", "-3.75"]})
    assert out.names == ["A", "D", "C"] and out.member_ids == [11, 14, 13]
    assert out.deal_seqs == {"1": [2, 9], "2": [11, 20]}
    left, newcomer = out.members[12], out.members[14]
    assert (left.seat, left.deals, left.declared, left.made, left.whists) == (
        None,
        1,
        1,
        1,
        Decimal(0),
    )
    assert (
        newcomer.seat,
        newcomer.name,
        newcomer.deals,
        newcomer.miseres,
        newcomer.miseres_made,
    ) == (1, "D", 1, 1, 1)
    assert newcomer.whists == Decimal("-2.5") and newcomer.money == Decimal("-1.25")
    assert out.members[11].deals == 2 and out.members[11].whists == 10
