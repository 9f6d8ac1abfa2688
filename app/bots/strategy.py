"""How a bot chooses a move: simple hand evaluation for bids, sensible leads and follows.

The strategy sees only what the protocol gives a seat: its ``view`` (the engine's, filtered for
that seat) and the ``legal`` list of actions it may send. It always answers with one of the
legal actions, so a bot can never make an illegal move however naive its judgement.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from app.rules import action_from_json, default_choice

RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "C", "D", "H")
STRAIN_ORDER = ("S", "C", "D", "H", "NT")


def parse(card: str) -> tuple[str, int]:
    """``"10H"`` → ``("H", 3)``: suit letter and rank index (7 = 0 … A = 7)."""
    return card[-1], RANKS.index(card[:-1])


def by_suit(cards: Sequence[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {s: [] for s in SUITS}
    for card in cards:
        suit, rank = parse(card)
        out[suit].append(rank)
    for ranks in out.values():
        ranks.sort(reverse=True)
    return out


def suit_tricks(ranks: Sequence[int], trump: bool) -> float:
    """A rough count of the tricks a suit takes (honours, and length when it is trumps)."""
    n = len(ranks)
    tricks = 0.0
    have = set(ranks)
    if 7 in have:
        tricks += 1
    if 6 in have and n >= 2:
        tricks += 1 if 7 in have else 0.6
    if 5 in have and n >= 3:
        tricks += 0.8 if {6, 7} <= have else 0.4
    if trump:
        tricks += max(0, n - 2) * 0.9
    elif n >= 5:
        tricks += (n - 4) * 0.5
    return tricks


def hand_estimate(cards: Sequence[str]) -> tuple[float, str]:
    """The best strain for ``cards`` and the tricks expected with it."""
    suits = by_suit(cards)
    best = (0.0, "NT")
    for trump in SUITS:
        total = sum(suit_tricks(r, s == trump) for s, r in suits.items())
        if (total, len(suits[trump])) > (best[0], len(suits.get(best[1], []))):
            best = (total, trump)
    nt = sum(suit_tricks(r, False) for r in suits.values())
    if all(len(r) >= 2 and r[0] >= 5 for r in suits.values()) and nt > best[0]:
        best = (nt, "NT")
    return best


def misere_safe(cards: Sequence[str]) -> bool:
    """A hand that can duck every trick: every suit held starts from a low card and is short
    of high ones."""
    for ranks in by_suit(cards).values():
        if not ranks:
            continue
        low = sorted(ranks)
        for i, rank in enumerate(low):
            if rank > 2 * i + 1:
                return False
    return True


def contract_parts(text: str | None) -> tuple[int, str] | None:
    """Level and strain of a contract's text; a game without the talon (A-12) as its game."""
    if (
        not text
        or text in ("misere", "misere_bp", "preferans", "pass", "here")
        or text.startswith("dark_")
    ):
        return None  # the bots never call in the dark
    text = text.removesuffix("BP")
    return int(text[:-2] if text.endswith("NT") else text[:-1]), (
        "NT" if text.endswith("NT") else text[-1]
    )


def _typed(legal: Sequence[Mapping[str, Any]], kind: str) -> list[Mapping[str, Any]]:
    return [a for a in legal if a.get("type") == kind]


def timeout_action(legal: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The move made for a player whose time ran out, among the protocol's ``legal`` list: the
    rules' default (``app.rules.deal.timeout.default_choice``: pass when possible, else take the
    talon, else the first ordinary legal action), the same move the server makes."""
    actions = [action_from_json({**action, "seat": 0}) for action in legal]
    choice = default_choice(actions)
    if choice is None:
        return None
    return dict(legal[actions.index(choice)])


class Strategy:
    """A plausible, legal player. ``rng`` makes its few random choices reproducible."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def choose(
        self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], seat: int
    ) -> dict[str, Any] | None:
        """One of ``legal`` (as a command body without ``id``), or None to wait."""
        if not legal:
            return None
        types = {a.get("type") for a in legal}
        if "accept_result" in types:
            return {"type": "accept_result"}
        if "pick_up" in types:
            # never in the dark; look at the cards when it is our call, not before
            # (three seats picking up at once would only race each other's seq)
            return {"type": "pick_up"} if "bid" in types else None
        if "cut" in types:
            return dict(self.rng.choice(_typed(legal, "cut")))
        if "bid" in types and "take_talon" in types:
            return self._buy(view)  # K-5: a classic talon offered
        if "bid" in types:
            return self._bid(view, _typed(legal, "bid"))
        if "take_talon" in types:
            return {"type": "take_talon"}
        if "discard" in types:
            return self._discard(view, _typed(legal, "discard"))
        if "name_contract" in types:
            return self._name(view, _typed(legal, "name_contract"))
        if "defend" in types or "return_whist" in types:
            return self._defend(view, legal)
        if "choose_play" in types:
            return {"type": "choose_play", "mode": self.rng.choice(("open", "closed"))}
        if "play_card" in types:
            return self._play(view, _typed(legal, "play_card"), seat)
        return timeout_action(legal)  # nothing to judge: the rules' default move

    # -- auction ---------------------------------------------------------------------------

    def _bid(self, view: Mapping[str, Any], bids: list[Mapping[str, Any]]) -> dict[str, Any]:
        hand = view["deal"]["hand"] if "deal" in view else view["hand"]
        calls = {b["call"] for b in bids if not b["call"].endswith(("BP", "_bp"))}  # none
        estimate, strain = hand_estimate(hand)
        estimate += 1.5  # the talon helps the declarer
        if "misere" in calls and misere_safe(hand) and estimate < 5:
            return {"type": "bid", "call": "misere"}
        parsed = [p for c in calls if (p := contract_parts(c)) is not None]
        if "here" in calls and parsed and estimate >= min(parsed)[0] - 0.5:
            return {"type": "bid", "call": "here"}
        options = sorted((p, c) for c in calls if (p := contract_parts(c)) is not None)
        for (level, s), call in options:
            if level <= estimate and (s == strain or level < estimate - 0.5):
                return {"type": "bid", "call": call}
        return {"type": "bid", "call": "pass"}

    def _buy(self, view: Mapping[str, Any]) -> dict[str, Any]:
        """K-5: buy a classic talon with a fair hand; the last seat offered it always buys,
        so bot tables do not redeal forever (K-6)."""
        deal = view.get("deal", view)
        estimate, _ = hand_estimate(deal["hand"])
        last = len(deal["auction"]) >= 5  # three suit passes, then two talon passes
        if last or estimate + 1.5 >= 5.5:
            return {"type": "take_talon"}
        return {"type": "bid", "call": "pass"}

    # -- declarer ----------------------------------------------------------------------------

    def _discard(
        self, view: Mapping[str, Any], discards: list[Mapping[str, Any]]
    ) -> dict[str, Any]:
        deal = view["deal"]
        hand = deal["hand"]
        misere = deal.get("bid") == "misere"
        suits = by_suit(hand)
        _, trump = hand_estimate(hand)

        def cost(pair: Sequence[str]) -> float:
            total = 0.0
            for card in pair:
                suit, rank = parse(card)
                if misere:
                    total -= rank * 2 + (3 if len(suits[suit]) <= 2 else 0)
                else:
                    total += (
                        rank * 2
                        + (20 if suit == trump else 0)
                        - (6 if len(suits[suit]) <= 2 else 0)
                    )
            return total

        best = min(discards, key=lambda a: cost(a["cards"]))
        return dict(best)

    def _name(self, view: Mapping[str, Any], contracts: list[Mapping[str, Any]]) -> dict[str, Any]:
        deal = view["deal"]
        names = [c["contract"] for c in contracts]
        if "misere" in names:
            return {"type": "name_contract", "contract": "misere"}
        _, strain = hand_estimate(deal["hand"])
        parsed = sorted((p, c) for c in names if (p := contract_parts(c)) is not None)
        for (_level, s), name in parsed:
            if s == strain:
                return {"type": "name_contract", "contract": name}
        return {"type": "name_contract", "contract": parsed[0][1]}

    # -- defence ---------------------------------------------------------------------------

    def _defend(
        self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any]:
        deal = view["deal"]
        calls = {a.get("call") for a in legal if a.get("type") == "defend"}
        if calls == {"whist"}:
            return {"type": "defend", "call": "whist"}
        contract = contract_parts(deal.get("contract"))
        if contract is None:  # misère: nobody whists a misère
            return {"type": "defend", "call": "pass"} if "pass" in calls else dict(legal[0])
        level, strain = contract
        suits = by_suit(deal["hand"])
        mine = sum(suit_tricks(r, s == strain) for s, r in suits.items())
        need = {6: 2, 7: 1, 8: 1, 9: 1, 10: 1}[level]
        if "whist" in calls and mine >= need:
            return {"type": "defend", "call": "whist"}
        if "half" in calls and mine >= need / 2 and self.rng.random() < 0.5:
            return {"type": "defend", "call": "half"}
        if "pass" in calls:
            return {"type": "defend", "call": "pass"}
        return dict(legal[0])

    # -- play ------------------------------------------------------------------------------

    def _play(
        self, view: Mapping[str, Any], plays: list[Mapping[str, Any]], seat: int
    ) -> dict[str, Any]:
        deal = view["deal"]
        cards = [p["card"] for p in plays]
        kind = deal.get("kind")
        contract = contract_parts(deal.get("contract"))
        trump = contract[1] if contract and contract[1] != "NT" else None
        trick = [(t["seat"], t["card"]) for t in deal.get("trick", [])]
        hand_seat = deal.get("turn", seat)
        declarer = deal.get("declarer")
        wants_tricks = kind == "game" and True
        if kind in ("pass_out",) or (kind == "misere" and hand_seat == declarer):
            wants_tricks = False
        if not trick:
            return {"type": "play_card", "card": self._lead(cards, wants_tricks, trump)}
        led = parse(trick[0][1])[0]
        win_seat, win_card = trick[0]
        for s, card in trick[1:]:
            if _beats(card, win_card, led, trump):
                win_seat, win_card = s, card
        partner_wins = (
            kind == "game" and hand_seat != declarer and win_seat != declarer and win_seat >= 0
        )
        if kind == "misere" and hand_seat != declarer:
            wants_tricks = False
            partner_wins = False
        winners = sorted(
            (c for c in cards if _beats(c, win_card, led, trump)), key=lambda c: parse(c)[1]
        )
        losers = sorted(
            (c for c in cards if not _beats(c, win_card, led, trump)), key=lambda c: parse(c)[1]
        )
        if wants_tricks and not partner_wins and winners:
            return {"type": "play_card", "card": winners[0]}
        if not wants_tricks and losers:
            return {"type": "play_card", "card": losers[-1]}
        pool = losers or winners
        return {"type": "play_card", "card": pool[0]}

    def _lead(self, cards: Sequence[str], wants_tricks: bool, trump: str | None) -> str:
        suits = by_suit(cards)
        if wants_tricks:
            aces = [c for c in cards if parse(c)[1] == 7 and parse(c)[0] != trump]
            if aces:
                return aces[0]
            longest = max((s for s in SUITS if suits[s]), key=lambda s: len(suits[s]))
            top = suits[longest][0]
            return (
                f"{RANKS[top]}{longest}" if top >= 6 else (f"{RANKS[suits[longest][-1]]}{longest}")
            )
        lowest = min(cards, key=lambda c: parse(c)[1])
        return lowest


def _beats(card: str, best: str, led: str, trump: str | None) -> bool:
    suit, rank = parse(card)
    best_suit, best_rank = parse(best)
    if suit == best_suit:
        return rank > best_rank
    return trump is not None and suit == trump


__all__ = ["Strategy", "hand_estimate", "timeout_action"]
