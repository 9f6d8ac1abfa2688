"""Classic preferans (seed 003, docs/rules-classic.md) as a rule set: its preset and its hooks.

The hooks sit where the old rules differ from the club's: the suit-only auction and the talon
bought in turn (K-3..K-6, :mod:`~app.rules.variants.classic.classic_phases`), the four suit
contracts a buyer names (K-5), no conceding (K-8), no misère to invite to (K-3), the remiz sheet
(K-9..K-11, :mod:`~app.rules.variants.classic.classic_sheet`) and what a record may hold
(:mod:`~app.rules.variants.classic.classic_record`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from app.rules.core.actions import Action, Bid, NameContract, TakeTalon
from app.rules.core.conventions import Conventions
from app.rules.core.outcome import Contract, DealOutcome
from app.rules.core.rule_errors import IllegalActionError
from app.rules.core.ruleset import RuleSet
from app.rules.deal.deal_rules import DealRules
from app.rules.deal.phases.contract import name_contract
from app.rules.deal.state import DealState, IllegalContractError, Transition
from app.rules.scoring.penalties import CatalogueEntry, PenaltyRules
from app.rules.scoring.pulka_rules import PulkaRules, VariantState
from app.rules.scoring.sheet_rules import SheetRules, Write
from app.rules.variants.classic import classic_penalties
from app.rules.variants.classic.classic_phases import (
    apply_buy,
    apply_classic_bid,
    classic_bid_options,
)
from app.rules.variants.classic.classic_record import classic_refusal
from app.rules.variants.classic.classic_sheet import classic_writes
from app.rules.variants.classic.classic_values import CLASSIC_CONTRACTS

CLASSIC = Conventions(
    preset="classic",
    whist_multiplier=0,
    remiz_multiplier=1,
    misere_multiplier=1,
    consolation="fixed:0",
    whist_liability=Fraction(1),
    whist_style="gentleman",
    half_whist=False,
    stalingrad=False,
    ten_checked=False,
    talon_bonus=False,
    talon_return_penalty=False,
    raspasy_rates=(1, 2, 3),
    raspasy_zero="pool_one",
    raspasy_exit=(6, 6, 6),
    closing="once",
    cut_min=6,
)
"""The club's extras off, a pool point worth one remiz at the end (K-12, 003 30-31) and the cut
of at least six cards (K-2); the bidding, the talon purchase, the redeal and the remiz sheet are
the hooks below."""


class ClassicRules(RuleSet, DealRules, SheetRules, PulkaRules, PenaltyRules):
    """Seed 003: six tricks in a suit, the talon bought, remizes instead of whists."""

    name: ClassVar[str] = "classic"
    presets: ClassVar[tuple[Conventions, ...]] = (CLASSIC,)
    titles: ClassVar = {
        "classic": {"ru": "классический преферанс (XIX век)",
                    "en": "classic preferans (19th century)"},
    }  # fmt: skip
    table_sizes: ClassVar[tuple[int, ...]] = (3, 4)
    overridable: ClassVar[frozenset[str]] = frozenset({"closing"})
    """Only the closing: a pulka stored before revision 0020 keeps ``"closing": "double"``."""
    ladder: ClassVar[tuple[str, ...]] = tuple(str(c) for c in CLASSIC_CONTRACTS)
    special_calls: ClassVar[tuple[str, ...]] = ("pass",)
    named_calls: ClassVar = {"6H": "table.preferans"}
    talon: ClassVar[str] = "buy"
    record_kinds: ClassVar[tuple[str, ...]] = ("game", "redeal")
    misere_invitation: ClassVar[bool] = False
    penalty_entries: ClassVar[tuple[CatalogueEntry, ...]] = classic_penalties.ENTRIES  # K-14..16
    club_entries: ClassVar[frozenset[str] | None] = frozenset({"entry_error"})  # K-13

    def bid_options(self, state: DealState, seat: int) -> list[Action] | None:
        return classic_bid_options(state, seat)  # K-3, K-5

    def apply_bid(self, state: DealState, action: Bid) -> Transition | None:
        return apply_classic_bid(state, action)  # K-3..K-6

    def take_talon(self, state: DealState, action: TakeTalon) -> Transition | None:
        return apply_buy(state, action)  # K-5

    def contract_options(self, state: DealState, seat: int) -> list[Action] | None:
        return [NameContract(seat, c) for c in CLASSIC_CONTRACTS]  # K-5: a suit

    def name_contract(self, state: DealState, action: NameContract) -> Transition | None:
        contract = action.contract
        if contract not in CLASSIC_CONTRACTS:
            raise IllegalContractError("name a suit for six tricks: 6♠, 6♣, 6♦ or 6♥ (K-5)")
        assert isinstance(contract, Contract)
        return name_contract(state, contract, [])

    def invite_refusal(self, state: DealState) -> IllegalActionError | None:
        return IllegalActionError("classic preferans has no misère (K-3)")

    def concede_refusal(self, state: DealState) -> IllegalActionError | None:
        return IllegalContractError("classic preferans has no conceding: the game is played (K-8)")

    def deal_writes(
        self, outcome: DealOutcome, conventions: Conventions, players: int, pass_out_streak: int
    ) -> list[Write] | None:
        return [(s, col, amount, rule, None) for s, col, amount, rule in classic_writes(outcome)]

    def record_refusal(self, outcome: DealOutcome, state: VariantState) -> tuple[str, str] | None:
        return classic_refusal(outcome)


CLASSIC_RULES = ClassicRules()
