"""Deal analysis (issue 15, app.rules.search.deal_analysis) against the simple exhaustive solver.

Every number the analysis gives is a double-dummy value; the reference is the former claim
solver kept as ``tests.rules.reference_solver._reference_best_tricks`` (an independent search). The
per-card marks are checked against values recomputed with the reference on small random
deals played out at random (legal cards only, R-W7).
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from app.rules.core.cards import CARD_TEXTS, parse_card, strain_suit
from app.rules.core.play import legal_cards, trick_winner
from app.rules.search.deal_analysis import DealFacts, analyse_deal, best_discard, makeable_table
from bench.engine import solver_deals
from tests.rules.reference_solver import _reference_best_tricks

Hands = tuple[int, int, int]


def _mask(*texts: str) -> int:
    return sum(1 << parse_card(t) for t in texts)


def test_makeable_table_agrees_with_the_reference_on_a_whole_deal() -> None:
    """Each of the 3 x 5 entries equals the exhaustive solver's, forehand leading (R-W7)."""
    hands, _, _, _ = solver_deals(2)[1]
    table = makeable_table(hands)
    for position in range(3):
        for strain, tricks in table[position].items():
            assert tricks == _reference_best_tricks(hands, 0, (), strain_suit(strain), position)


def test_misere_catch_agrees_with_the_reference() -> None:
    """R-W10: the fewest tricks the defenders can force equals the reference's, per seat."""
    hands, _, declarer, misere = solver_deals(5)[4]
    assert misere
    facts = DealFacts(
        active=(0, 1, 2), dealt={0: hands[0], 1: hands[1], 2: hands[2]}, talon=(), kind="pass_out"
    )
    result = analyse_deal(facts)
    forced = _reference_best_tricks(hands, 0, (), None, declarer, True)
    assert result["misere"][str(declarer)] == {"tricks": forced, "caught": forced >= 1}


@pytest.mark.parametrize("seed", range(40))
def test_best_discard_is_the_best_of_every_discard(seed: int) -> None:
    """The discard found is the first (lowest cards first) to reach the maximum over all
    C(n, 2) discards, and the ties are the discards reaching it (reference values): endings of
    four cards with a two-card talon, every declarer, leader and strain."""
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    declarer, leader = rng.randrange(3), rng.randrange(3)
    trump = rng.choice([None, 0, 1, 2, 3])
    others = [sum(1 << c for c in deck[0:4]), sum(1 << c for c in deck[4:8])]
    six = sum(1 << c for c in deck[8:14])  # four cards and a two-card talon
    hands = [0, 0, 0]
    hands[(declarer + 1) % 3], hands[(declarer + 2) % 3] = others
    mask, best, ties = best_discard((hands[0], hands[1], hands[2]), declarer, six, trump, leader)
    values = {}
    for a, b in combinations([c for c in range(32) if six >> c & 1], 2):
        trial = list(hands)
        trial[declarer] = six & ~(1 << a | 1 << b)
        values[1 << a | 1 << b] = _reference_best_tricks(
            (trial[0], trial[1], trial[2]), leader, (), trump, declarer
        )
    assert best == max(values.values()) == values[mask]
    assert mask == next(m for m, v in values.items() if v == best)
    assert ties == sum(v == best for v in values.values())


def _random_play(
    rng: random.Random, hands: list[int], trump: int | None, leader: int
) -> list[tuple[tuple[int, int], ...]]:
    """Play the hands out with random legal cards; tricks as ``(position, card)``."""
    tricks = []
    while hands[0]:
        trick: list[tuple[int, int]] = []
        for offset in range(3):
            position = (leader + offset) % 3
            led = trick[0][1] >> 3 if trick else None
            legal = legal_cards(hands[position], led, trump)
            card = rng.choice([c for c in range(32) if legal >> c & 1])
            hands[position] ^= 1 << card
            trick.append((position, card))
        tricks.append(tuple(trick))
        leader = trick_winner(trick, trick[0][1] >> 3, trump)
    return tricks


def _reference_marks(
    hands: Hands,
    tricks: list[tuple[tuple[int, int], ...]],
    trump: int | None,
    declarer: int,
    misere: bool,
) -> list[tuple[int, list[str]]]:
    """(loss, better cards) of every card, by the reference solver from first principles."""
    current = list(hands)
    taken = [0, 0, 0]
    out = []

    def total(
        hs: list[int], leader: int, trick: tuple[tuple[int, int], ...], won: list[int]
    ) -> int:
        return won[declarer] + _reference_best_tricks(
            (hs[0], hs[1], hs[2]), leader, trick, trump, declarer, misere
        )

    def play(
        hs: list[int],
        leader: int,
        trick: tuple[tuple[int, int], ...],
        won: list[int],
        position: int,
        card: int,
    ) -> int:
        hs = list(hs)
        hs[position] ^= 1 << card
        played = (*trick, (position, card))
        if len(played) < 3:
            return total(hs, leader, played, won)
        winner = trick_winner(played, played[0][1] >> 3, trump)
        won = list(won)
        won[winner] += 1
        return total(hs, winner, (), won)

    for trick in tricks:
        leader = trick[0][0]
        so_far: tuple[tuple[int, int], ...] = ()
        for position, card in trick:
            led = so_far[0][1] >> 3 if so_far else None
            legal = [c for c in range(32) if legal_cards(current[position], led, trump) >> c & 1]
            values = {c: play(current, leader, so_far, taken, position, c) for c in legal}
            wants_more = (position == declarer) != misere
            best = max(values.values()) if wants_more else min(values.values())
            loss = abs(best - values[card])
            better = sorted(CARD_TEXTS[c] for c, v in values.items() if v == best and c != card)
            out.append((loss, better if loss else []))
            current[position] ^= 1 << card
            so_far = (*so_far, (position, card))
        winner = trick_winner(so_far, so_far[0][1] >> 3, trump)
        taken[winner] += 1
    return out


@pytest.mark.parametrize("seed", range(8))
def test_card_marks_agree_with_the_reference(seed: int) -> None:
    """Every card's loss and better cards equal the reference's (games and misère, R-W10)."""
    rng = random.Random(seed)
    size = 4
    deck = list(range(32))
    rng.shuffle(deck)
    hands: Hands = tuple(
        sum(1 << c for c in deck[p * size : (p + 1) * size])  # type: ignore[assignment]
        for p in range(3)
    )
    misere = seed % 3 == 2
    trump = None if misere else rng.choice([None, 0, 1, 2, 3])
    declarer = rng.randrange(3)
    tricks = _random_play(rng, list(hands), trump, 0)
    seats = (4, 5, 6)  # seats are not positions: the analysis maps them
    contract = "misere" if misere else f"6{'NT' if trump is None else 'SCDH'[trump]}"
    facts = DealFacts(
        active=seats,
        dealt={seats[p]: hands[p] for p in range(3)},
        talon=(),
        kind="misere" if misere else "game",
        declarer=seats[declarer],
        contract=contract,
        tricks=[[(seats[p], c) for p, c in t] for t in tricks],
        winners=[seats[trick_winner(t, t[0][1] >> 3, trump)] for t in tricks],
    )
    result = analyse_deal(facts)
    expected = _reference_marks(hands, tricks, trump, declarer, misere)
    got = [(m["loss"], sorted(m["better"])) for m in result["plays"]]
    assert got == expected
    assert result["plays_complete"] is True
    assert [m["seat"] for m in result["plays"]] == [seats[p] for t in tricks for p, _ in t]
    assert result["contract"]["tricks"] == _reference_best_tricks(
        hands, 0, (), trump, declarer, misere
    )


def test_a_known_mistake_is_marked_minus_one_with_the_better_card() -> None:
    """A game in spades (R-W7): the declarer holds J♠ 7♠ A♣ against 10♠. Leading the 7♠ lets
    the 10♠ win (the others hold no spade); J♠ or A♣ first takes all three tricks."""
    dealt = {0: _mask("7S", "JS", "AC"), 1: _mask("10S", "JC", "JH"), 2: _mask("7C", "9C", "QD")}
    facts = DealFacts(
        active=(0, 1, 2),
        dealt=dealt,
        talon=(),
        kind="game",
        declarer=0,
        contract="6S",
        tricks=[[(0, parse_card("7S")), (1, parse_card("10S")), (2, parse_card("7C"))]],
        winners=[1],
    )
    result = analyse_deal(facts)
    assert result["contract"]["tricks"] == 3 and result["contract"]["taken"] == 0
    first, second, third = result["plays"]
    assert first == {"trick": 1, "seat": 0, "card": "7S", "loss": 1, "better": ["JS", "AC"]}
    assert second["loss"] == 0 and third["loss"] == 0  # forced, or no choice that matters
    assert result["makeable"]["0"]["S"] == 3


def test_pass_out_minimum_from_the_third_trick() -> None:
    """Pass-out (R-R1, R-R2): talon tricks counted as taken, then the fewest tricks each player
    can hold himself to against the other two (reference solver, misère search)."""
    rng = random.Random(11)
    deck = list(range(32))
    rng.shuffle(deck)
    size = 4
    hands = [sum(1 << c for c in deck[p * size : (p + 1) * size]) for p in range(3)]
    talon = [c for c in deck[3 * size :] if any(h >> (c & ~7) & 255 for h in hands)][:2]
    tricks = []
    winners = []
    for talon_card in talon:  # the talon card leads; players follow its suit if they can
        trick = [(-1, talon_card)]
        for p in range(3):
            legal = legal_cards(hands[p], talon_card >> 3, None)
            card = min(c for c in range(32) if legal >> c & 1)
            hands[p] ^= 1 << card
            trick.append((p, card))
        tricks.append(trick)
        winners.append(trick_winner(trick[1:], talon_card >> 3, None))
    after_talon: Hands = (hands[0], hands[1], hands[2])
    rest = _random_play(rng, list(hands), None, 0)
    tricks += [list(t) for t in rest]
    winners += [trick_winner(t, t[0][1] >> 3, None) for t in rest]
    dealt = {p: sum(1 << c for c in deck[p * size : (p + 1) * size]) for p in range(3)}
    facts = DealFacts(
        active=(0, 1, 2),
        dealt=dealt,
        talon=tuple(talon),
        kind="pass_out",
        tricks=tricks,
        winners=winners,
    )
    result = analyse_deal(facts)
    for p in range(3):
        talon_won = sum(w == p for w in winners[:2])
        held = talon_won + _reference_best_tricks(after_talon, 0, (), None, p, True)
        assert result["pass_out"][str(p)] == {
            "held_to": held,
            "taken": sum(w == p for w in winners),
            "talon_tricks": talon_won,
        }
    assert len(result["plays"]) == 3 * len(rest)
    assert all(m["trick"] >= 3 for m in result["plays"])


def test_a_conceded_game_is_analysed_as_its_game() -> None:
    """R-C4: a declarer who conceded still gets the double-dummy value of his contract and the
    best discard; nothing was played, so nothing is taken or marked."""
    dealt = {0: _mask("7S", "JS"), 1: _mask("10S", "JC"), 2: _mask("7C", "9C")}
    talon = (parse_card("AS"), parse_card("8D"))
    facts = DealFacts(
        active=(0, 1, 2),
        dealt=dealt,
        talon=talon,
        kind="conceded",
        declarer=0,
        contract="6S",
        discard=_mask("AS", "JS"),
    )
    result = analyse_deal(facts)
    kept = _mask("7S", "8D")
    assert result["contract"]["tricks"] == _reference_best_tricks(
        (kept, dealt[1], dealt[2]), 0, (), 0, 0
    )
    assert result["contract"]["taken"] is None and result["plays"] == []
    # every kept pair takes both tricks except 7♠ 8♦ (the 7♠ falls to the 10♠); the first of
    # the five best discards, lowest cards first, is 7♠ J♠
    assert result["best_discard"]["tricks"] == 2
    assert result["best_discard"]["cards"] == ["7S", "JS"]
    assert result["best_discard"]["ties"] == 5
