"""Arabic preferans (seed 004, docs/rules-arabic.md) as a rule set: its preset and its hooks.

The deal: the auction dealt with games without the talon (A-12, A-13), "преферанс" (A-16) and,
while the cards lie face down, the dark calls (A-10, A-11) on its ladder. The sheet: a returned
talon is a spit, whists the declarer writes on the dealer (A-21). The pulka, with the state it
carries from deal to deal (:class:`ArabicState`): the opening rounds (A-3), each player's bombs
(R-A1..R-A4, :mod:`~app.rules.variants.arabic.arabic_bombs`), the deal that stays with the dealer
and the three-pass-out penalty (A-5..A-7), the dark factors and pass-out prices (A-10, A-11,
R-A3) and the "преферанс" written off the sheet (A-16).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import ClassVar, Self

from app.rules.core.actions import Action, Event, NameContract, TakeTalon
from app.rules.core.auction import PASS_ONLY_LEVEL, Auction, Call
from app.rules.core.conventions import CONVENTION_NAMES, Conventions
from app.rules.core.draw import Seating
from app.rules.core.outcome import DealOutcome, Mark
from app.rules.core.rule_errors import IllegalActionError
from app.rules.core.ruleset import RuleSet
from app.rules.deal.deal_rules import DealRules
from app.rules.deal.state import DealConfig, DealState, IllegalContractError, Transition
from app.rules.scoring.penalties import CatalogueEntry, PenaltyRules
from app.rules.scoring.pulka_rules import NextDeal, PulkaRules, PulkaTurn, VariantState
from app.rules.scoring.sheet import Entry, Sheet
from app.rules.scoring.sheet_rules import SheetRules, Write
from app.rules.variants.arabic import (
    arabic_bombs,
    arabic_deal,
    arabic_draw,
    arabic_marks,
    arabic_penalties,
    arabic_pulka,
)
from app.rules.variants.arabic.arabic_auction import ArabicAuction, arabic_call
from app.rules.variants.arabic.arabic_marks import DARK, PREFERANS
from app.rules.variants.arabic.arabic_preferans import preferans_entries, start_preferans

ARABIC = Conventions(
    preset="arabic",
    whist_multiplier=1,
    remiz_multiplier=1,
    misere_multiplier=1,
    consolation="price",
    whist_liability=Fraction(1),
    whist_style="greedy",
    half_whist=True,
    stalingrad=True,
    ten_checked=True,
    talon_bonus=True,
    talon_return_penalty=True,
    raspasy_rates=(1, 2, 3),
    raspasy_zero="pool_one",
    raspasy_exit=(6, 7, 8),
    closing="help",
    cut_min=4,
    opening_bombs=3,
    deal_stays=True,
    dealer_zero_bonus=False,
    no_talon_games=True,
    dark_calls=True,
    preferans_contract=True,
    halves_any_game=True,
    spit=True,
    closing_spares_dealer=True,
    talon_bonus_flat=True,
    ten_consolation=False,
)
"""Seed 004: Sochi scoring with 004's bombs, exits and dealing."""


@dataclasses.dataclass(frozen=True, slots=True)
class ArabicState(VariantState):
    """What an Arabic pulka carries from deal to deal; ``seats`` is each player's series, his
    dark pass-outs in a row (R-A1)."""

    opening_left: int = 0
    """A-3: forced opening pass-outs still to deal (convention ``opening_bombs``)."""
    dark_run: int = 0
    """A-10: consecutive pass-outs with a dark pass just before the next deal."""
    bombs: arabic_bombs.Bombs = ()
    """R-A1, R-A2: per seat, the factors of the bombs he holds, oldest (the next used) first."""

    def moved(self, mapping: Sequence[int], players: int) -> Self:
        """Seats and bombs renumbered (R-T4); the new player holds no bomb."""
        out: list[tuple[int, ...]] = [()] * players
        for old, held in enumerate(self.bombs):
            out[mapping[old]] = held
        return dataclasses.replace(VariantState.moved(self, mapping, players), bombs=tuple(out))

    def next_game(self, seat: int) -> int:
        """R-A2: what the next game of ``seat`` as declarer is multiplied by (his bomb)."""
        return arabic_bombs.current(self.bombs, seat)


class ArabicRules(RuleSet, DealRules, SheetRules, PulkaRules, PenaltyRules):
    """Seed 004 on the shared engine."""

    name: ClassVar[str] = "arabic"
    presets: ClassVar[tuple[Conventions, ...]] = (ARABIC,)
    titles: ClassVar = {"arabic": {"ru": "арабский преферанс", "en": "Arabic preferans"}}
    table_sizes: ClassVar[tuple[int, ...]] = (3, 4)
    overridable: ClassVar[frozenset[str]] = CONVENTION_NAMES
    ladder_no_talon: ClassVar[bool] = True
    special_calls: ClassVar[tuple[str, ...]] = ("pass", "here", "misere", "misere_bp", "preferans")
    dark_calls: ClassVar[bool] = True
    marks: ClassVar[tuple[Mark, ...]] = arabic_marks.MARKS
    penalty_entries: ClassVar[tuple[CatalogueEntry, ...]] = arabic_penalties.ENTRIES  # A-23..25

    def draw_seating(self, players: Sequence[str], rng: random.Random) -> Seating:
        return arabic_draw.draw_by_aces(players, rng)  # the first ace deals

    # -- the deal -----------------------------------------------------------------------------

    def opening_auction(self, config: DealConfig, order: tuple[int, int, int]) -> Auction:
        c = config.conventions
        dark = c.dark_calls and config.min_level < PASS_ONLY_LEVEL
        extra = ArabicAuction(
            no_talon=c.no_talon_games,
            blind=0b111 if dark else 0,  # hands face down until picked up
            preferans=c.preferans_contract,
        )
        return Auction(order=order, min_level=config.min_level, extra=extra)

    def bid_options(self, state: DealState, seat: int) -> list[Action] | None:
        return arabic_deal.bid_options(state, seat)

    def auction_call(self, auction: Auction, call: Call) -> Auction:
        return arabic_call(auction, call)

    def auction_won(self, state: DealState, events: list[Event]) -> Transition | None:
        return arabic_deal.auction_won(state, events)

    def face_down(self, state: DealState, seat: int) -> bool:
        return arabic_deal.face_down(state, seat)

    def picked_up(self, state: DealState, seat: int) -> DealState:
        return arabic_deal.picked_up(state, seat)

    def talon_options(self, state: DealState, seat: int) -> list[Action] | None:
        return arabic_deal.talon_options(state, seat)

    def take_talon(self, state: DealState, action: TakeTalon) -> Transition | None:
        return arabic_deal.take_dark_talon(state, action)

    def name_at_talon(self, state: DealState, action: NameContract) -> Transition | None:
        return arabic_deal.switch_to_misere(state, action)

    def may_return_talon(self, state: DealState) -> bool:
        return state.bid != "preferans"  # the talon is his, in his twelve cards

    def discarding_hand(self, state: DealState, seat: int) -> int:
        if state.bid == "preferans" and state.declarer is not None:
            return state.declarer  # the first defender discards for him
        return seat

    def after_discard(self, state: DealState, events: list[Event]) -> Transition | None:
        return start_preferans(state, events) if state.bid == "preferans" else None

    def concede_refusal(self, state: DealState) -> IllegalActionError | None:
        if state.bid == "preferans":
            return IllegalContractError(
                "only a declarer who took the talon for a trick game can concede (R-C4)"
            )
        return None

    def forced_whist(self, state: DealState) -> str | None:
        if arabic_deal.dark_game(state):
            return "a dark game played at its level is whisted by both defenders (A-11)"
        return None

    def view_flags(self, state: DealState) -> Mapping[str, bool]:
        return arabic_deal.view_flags(state)

    def finish_outcome(self, state: DealState, outcome: DealOutcome) -> DealOutcome:
        return arabic_marks.deal_marks(state, outcome)

    # -- the sheet ----------------------------------------------------------------------------

    def returned_talon(self, outcome: DealOutcome, conventions: Conventions, cost: int) -> Write:
        if conventions.spit and outcome.declarer is not None:
            return (outcome.declarer, "whists", cost, "A-21", outcome.dealer)  # "на сдающего"
        return super().returned_talon(outcome, conventions, cost)

    def consoles_failed_ten(self, conventions: Conventions) -> bool:
        return conventions.ten_consolation  # "Если не сыграна — игравший пишет в гору"

    # -- the pulka ----------------------------------------------------------------------------

    def start(self, conventions: Conventions, players: int) -> VariantState:
        return ArabicState(
            seats=(0,) * players,
            opening_left=arabic_pulka.opening_deals(conventions, players),
            bombs=arabic_bombs.opening(conventions.opening_bombs, players),  # R-A1
        )

    def min_level(self, conventions: Conventions, streak: int, state: VariantState) -> int:
        return arabic_pulka.min_level(conventions, streak, _own(state).opening_left)

    def deal_factor(self, conventions: Conventions, players: int, state: VariantState) -> int:
        return arabic_pulka.bomb_factor(conventions, players, _own(state).opening_left)

    def record_refusal(self, outcome: DealOutcome, state: VariantState) -> tuple[str, str] | None:
        refusal = super().record_refusal(outcome, state)
        if refusal is None and _own(state).opening_left and outcome.kind != "pass_out":
            return "type", "the opening bombs are played as pass-outs, without bidding (A-3)"
        return refusal

    def marks_refusal(
        self, outcome: DealOutcome, conventions: Conventions
    ) -> tuple[str, str] | None:
        return arabic_marks.marks_refusal(outcome, conventions)

    def own_entries(
        self, outcome: DealOutcome, sheet: Sheet, target: int, deal: int, conventions: Conventions
    ) -> list[Entry] | None:
        if PREFERANS not in outcome.marks:
            return None
        return preferans_entries(outcome, sheet, target, deal, conventions.preferans_short_hill)

    def seat_marks(self, state: VariantState, players: int) -> list[dict[str, int]] | None:
        """R-A1, R-A2: each player's bombs as the paper shows them (their number) and what his
        next game is multiplied by."""
        own = _own(state)
        return [
            {"bombs": len(own.bombs[s]) if s < len(own.bombs) else 0, "next_game": own.next_game(s)}
            for s in range(players)
        ]

    def after_deal(self, turn: PulkaTurn, outcome: DealOutcome, entries: list[Entry]) -> NextDeal:
        c, players, state = turn.conventions, turn.players, _own(turn.state)
        dark_run = state.dark_run + 1 if outcome.kind == "pass_out" and DARK in outcome.marks else 0
        entries = arabic_bombs.multiplied(entries, _factor(turn, state, outcome, dark_run))
        nxt = arabic_pulka.advance(c, players, outcome, turn.streak, state.opening_left)
        if nxt.penalised:
            penalty = arabic_pulka.pass_out_penalty(
                (*turn.earlier, *entries),
                players,
                outcome.dealer,
                turn.deal - turn.streak,
                turn.deal,
            )
            entries = [*entries, penalty] if penalty is not None else entries
        bombs, series = state.bombs, (0,) * players
        if dark_run:
            bombs, series = arabic_bombs.after_dark_pass_out(bombs, state.seats, outcome, players)
        else:
            bombs = arabic_bombs.after_game(bombs, outcome)
        new_state = dataclasses.replace(
            state,
            seats=series,
            opening_left=nxt.opening_left,
            dark_run=dark_run,
            bombs=bombs,
        )
        return NextDeal(entries, nxt.dealer, nxt.streak, new_state)


def _factor(turn: PulkaTurn, state: ArabicState, outcome: DealOutcome, dark_run: int) -> Fraction:
    """What the deal's entries are multiplied by (R-A2, R-A3): in the opening its round's bomb;
    a pass-out at its own price; a game by its declarer's bomb × 2 if dark; a «преферанс»
    (written off the sheet, A-16) by nothing."""
    c = turn.conventions
    if state.opening_left:
        return Fraction(arabic_pulka.bomb_factor(c, turn.players, state.opening_left))
    if outcome.kind == "pass_out":
        return arabic_pulka.pass_out_scale(c, outcome, turn.streak, dark_run)
    if PREFERANS in outcome.marks:
        return Fraction(1)
    bomb = arabic_bombs.declarer_factor(state.bombs, outcome)
    return Fraction(bomb * arabic_pulka.dark_factor(outcome))


def _own(state: VariantState) -> ArabicState:
    """The pulka's state as this rule set started it."""
    assert isinstance(state, ArabicState)
    return state


ARABIC_RULES = ArabicRules()
