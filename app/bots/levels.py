"""The three bot strengths — ``beginner``, ``club``, ``strong`` — and the practice-table hint.

* ``beginner``: :class:`app.bots.strategy.Strategy`, plain heuristics.
* ``club``: the beginner's bidding, card play by PIMC with a few samples and a short budget.
* ``strong``: bids, discards and contracts from the fitted hand evaluator
  (:mod:`app.bots.evaluator`), card play by PIMC with many samples (:mod:`app.bots.pimc`); on
  misère the defenders search for the line that gives the declarer a trick.

Every level answers ``choose(message, legal, seat)`` with one of ``legal``, seeing only the
protocol message (``{"deal": view, "legal": [...]}``) — never the hidden cards.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from app.bots.evaluator import best_strain, declarer_tricks
from app.bots.pimc import Memory, choose_card
from app.bots.strategy import SUITS, Strategy, contract_parts, misere_safe

BotLevel = Literal["beginner", "club", "strong"]
LEVELS: tuple[str, ...] = get_args(BotLevel)
DEFAULT_LEVEL: BotLevel = "beginner"
TALON_BONUS = 1.0
"""Tricks the talon (two cards in, two out) adds to a declarer's estimate on average."""
BID_MARGIN = 0.5
"""The strong bot bids a level when its estimate is at least the level minus this: passing a
good hand is costly too (a pass-out makes it take tricks against itself)."""
NAME_MARGIN = 1.0
"""After the talon the strong bot names a level above the one it must only with this many
tricks to spare (a failed high contract costs far more than the extra it would score)."""


class SearchStrategy(Strategy):
    """A :class:`Strategy` that plays its cards by PIMC (and, if ``evaluated``, bids by the
    fitted evaluator). ``samples`` and ``budget`` (seconds per card) bound its thinking."""

    def __init__(
        self, rng: random.Random | None = None, *, samples: int, budget: float, evaluated: bool
    ) -> None:
        super().__init__(rng)
        self.samples = samples
        self.budget = budget
        self.evaluated = evaluated
        self.memories: dict[int, Memory] = {}
        self.last_samples = 0
        """How many samples the last PIMC decision solved (0: the heuristic played)."""

    def observe(self, message: Mapping[str, Any], seat: int) -> None:
        """Remember what ``message`` shows (played cards, voids); :meth:`choose` does it too,
        a client may also call it on messages that ask nothing of the seat."""
        deal = message.get("deal") if "deal" in message else message
        if isinstance(deal, Mapping) and deal.get("phase") == "play":
            self.memories.setdefault(seat, Memory()).update(deal)

    def choose(
        self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], seat: int
    ) -> dict[str, Any] | None:
        self.observe(view, seat)
        return super().choose(view, legal, seat)

    # -- play ------------------------------------------------------------------------------

    def _play(
        self, view: Mapping[str, Any], plays: list[Mapping[str, Any]], seat: int
    ) -> dict[str, Any]:
        deal = view["deal"]
        memory = self.memories.setdefault(seat, Memory())
        decision = choose_card(
            deal,
            [p["card"] for p in plays],
            memory,
            self.rng,
            samples=self.samples,
            budget=self.budget,
        )
        self.last_samples = decision.samples
        if decision.card is None:
            return super()._play(view, plays, seat)
        return {"type": "play_card", "card": decision.card}

    # -- auction (evaluated only) ------------------------------------------------------------

    def _bid(self, view: Mapping[str, Any], bids: list[Mapping[str, Any]]) -> dict[str, Any]:
        if not self.evaluated:
            return super()._bid(view, bids)
        hand = view["deal"]["hand"]
        calls = {b["call"] for b in bids}
        tricks, trump = best_strain(hand)
        estimate = tricks + TALON_BONUS
        if "misere" in calls and misere_safe(hand) and estimate < 5:
            return {"type": "bid", "call": "misere"}
        parsed = sorted((p, c) for c in calls if (p := contract_parts(c)) is not None)
        if "here" in calls and parsed and estimate >= parsed[0][0][0] - BID_MARGIN:
            return {"type": "bid", "call": "here"}
        strain = SUITS[trump] if trump is not None else "NT"
        for (level, s), call in parsed:
            if level <= estimate + BID_MARGIN and (s == strain or level < estimate - 0.5):
                return {"type": "bid", "call": call}
        return {"type": "bid", "call": "pass"}

    def _discard(
        self, view: Mapping[str, Any], discards: list[Mapping[str, Any]]
    ) -> dict[str, Any]:
        deal = view["deal"]
        if not self.evaluated or deal.get("bid") == "misere":
            return super()._discard(view, discards)
        hand = list(deal["hand"])

        def kept_value(action: Mapping[str, Any]) -> float:
            out = set(action["cards"])
            return best_strain([c for c in hand if c not in out])[0]

        best = max(discards, key=kept_value)
        return dict(best)

    def _name(self, view: Mapping[str, Any], contracts: list[Mapping[str, Any]]) -> dict[str, Any]:
        if not self.evaluated:
            return super()._name(view, contracts)
        hand = view["deal"]["hand"]
        names = [c["contract"] for c in contracts]
        tricks, trump = best_strain(hand)
        if "misere" in names and misere_safe(hand) and tricks < 4:
            return {"type": "name_contract", "contract": "misere"}
        strain = SUITS[trump] if trump is not None else "NT"
        parsed = sorted((p, c) for c in names if (p := contract_parts(c)) is not None)
        fitting = [(p, c) for p, c in parsed if p[1] == strain]
        # The lowest level of our strain we may name, higher only with tricks to spare.
        reach = [pc for pc in fitting if pc[0][0] <= tricks - NAME_MARGIN]
        choice = (reach[-1] if len(reach) > 1 else (fitting or parsed)[0])[1]
        return {"type": "name_contract", "contract": choice}

    def _defend(
        self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any]:
        if not self.evaluated:
            return super()._defend(view, legal)
        deal = view["deal"]
        calls = {a.get("call") for a in legal if a.get("type") == "defend"}
        contract = contract_parts(deal.get("contract"))
        if calls == {"whist"} or contract is None:
            return super()._defend(view, legal)
        level, strain = contract
        trump = SUITS.index(strain) if strain in SUITS else None
        # Our tricks against the contract: the evaluator's honours without the bias/length
        # terms a declarer gets for leading his long suit.
        mine = declarer_tricks(deal["hand"], trump) - declarer_tricks([], trump)
        need = {6: 1.6, 7: 1.0, 8: 0.8, 9: 0.6, 10: 0.6}[level]
        if "whist" in calls and mine >= need:
            return {"type": "defend", "call": "whist"}
        if "pass" in calls:
            return {"type": "defend", "call": "pass"}
        return dict(legal[0])


def bot_level_of(value: object) -> BotLevel:
    """The bot level a table's setting names; missing or unknown values give the default
    (``beginner``), so an old table or a bad value never stops its bots."""
    if value == "club":
        return "club"
    if value == "strong":
        return "strong"
    return DEFAULT_LEVEL


def make_strategy(
    level: str, rng: random.Random | None = None, budget: float | None = None
) -> Strategy:
    """A fresh player of ``level`` (``beginner``, ``club`` or ``strong``); unknown levels raise
    ``ValueError``. ``budget`` overrides the seconds a searching level thinks per card."""
    if level == "beginner":
        return Strategy(rng)
    if level == "club":
        return SearchStrategy(rng, samples=6, budget=budget or 0.25, evaluated=False)
    if level == "strong":
        return SearchStrategy(rng, samples=40, budget=budget or 0.8, evaluated=True)
    raise ValueError(f"unknown bot level {level!r}: one of {', '.join(LEVELS)}")


def hint(
    message: Mapping[str, Any],
    legal: Sequence[Mapping[str, Any]] | None = None,
    *,
    budget: float = 0.8,
    seed: int | None = None,
) -> dict[str, Any] | None:
    """The strong bot's move for the player who sees ``message`` (a protocol message
    ``{"deal": view, "legal": [...]}``, or a bare ``view`` with ``legal`` given): one of the
    legal actions, None when there is nothing to do. CPU-bound (up to ``budget`` seconds):
    the server runs it in a worker. Stateless: it knows the tricks the view shows."""
    if legal is None:
        legal = list(message.get("legal") or [])
    full = message if "deal" in message else {"deal": message, "legal": legal}
    deal = full["deal"]
    if not legal or not isinstance(deal, Mapping):
        return None
    seat = deal.get("seat")
    if seat is None:
        return None
    strategy = SearchStrategy(random.Random(seed), samples=40, budget=budget, evaluated=True)
    return strategy.choose(full, legal, int(seat))


__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "BotLevel",
    "SearchStrategy",
    "bot_level_of",
    "hint",
    "make_strategy",
]
