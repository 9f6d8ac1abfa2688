"""The pure Preferans engine of prefclub: cards, the verifiable deal, auction, play, claims.

Standard library only, no I/O, deterministic given its inputs (randomness comes in as a
``random.Random``). A deal is an immutable :class:`DealState`; it changes only through
:func:`apply`. The public API (see RULES.md for the rule IDs)::

    from app.rules import *

    config = DealConfig(players=3, dealer=0, conventions=Conventions(), min_level=6)
    deck = shuffled_deck(random.SystemRandom())        # R-D4; tests pass random.Random(seed)
    state = new_deal(config, deck, salt=os.urandom(16))  # phase "cut", state.commitment public
    state, events = apply(state, Cut(seat=state.cutter, position=16))
    legal_actions(state, seat)        # -> list[Action] the seat may take now
    view(state, seat)                 # -> JSON-ready dict of what seat sees (None: spectator)
    state.phase, state.to_move, state.turn, state.finished   # turn: the hand due to play;
                                      # to_move: the seat acting for it (open whist: the whister)
    legal_cards_now(state), visible_cards(state, seat)       # masks, for bots and checks
    outcome(state)                    # -> DealOutcome once finished (for app.rules.scoring.sheet)
    replay(config, deck, salt, actions) == (state, events)   # persistence rebuilds by replay

Cards are ints 0..31 (``suit * 8 + rank``, suits ♠ ♣ ♦ ♥, ranks 7..A); hands are 32-bit masks.
``parse_card("10H")``, ``card_text(c)`` -> ``"10H"``, ``card_pretty(c)`` -> ``"10♥"``.

Actions (frozen dataclasses, each with ``seat``): :class:`Cut`, :class:`Bid` (a
:class:`Contract`, ``"misere"``, ``"pass"``, ``"here"``), :class:`TakeTalon` and
:class:`ReturnTalon` (only with ``talon_return_penalty``, R-C6), :class:`Discard`,
:class:`NameContract`, :class:`Concede` (R-C4), :class:`Defend` (whist/pass/half),
:class:`ReturnWhist` (R-W4), :class:`ChoosePlay` (R-W3), :class:`PlayCard`, :class:`Claim`
(R-W11), :class:`ProposeResult`, :class:`AcceptResult`, :class:`DeclineResult`.
JSON: :func:`action_to_json`, :func:`action_from_json` (raises :class:`MalformedActionError`),
:func:`event_to_json`. Events (:class:`Event`) are public: they never carry hidden cards.

Draws before play: :func:`draw_tables` (R-T1), :func:`draw_seats` (R-T2),
:func:`draw_first_dealer` (R-T3). Deal verification: :func:`deal_reveal`, :func:`verify_deal`.
Claim solver: :func:`claim_holds`, :func:`best_tricks`.

Scoring (one code path for live tables, records and the CLI): :func:`score_deal` turns a
:class:`DealOutcome` into sheet :class:`Entry` writes; :class:`Pulka` is the pulka-level state
(dealer rotation, pass-out streak, exits, closing); :func:`settle` gives the
:class:`Settlement`; :func:`parse_document`, :func:`score_document` and
:func:`export_document` read and write the portable ``pulka/1`` record.
"""

from app.rules.core.actions import (
    ACTION_TYPES,
    AcceptResult,
    Action,
    AnswerInvitation,
    Bid,
    ChoosePlay,
    Claim,
    Concede,
    Cut,
    DeclineResult,
    Defend,
    Discard,
    Event,
    InviteMisere,
    LookAtHand,
    NameContract,
    PickUp,
    PlayCard,
    ProposeResult,
    ReturnTalon,
    ReturnWhist,
    TakeTalon,
)
from app.rules.core.auction import (
    Auction,
    Call,
    ContractCall,
    DarkBid,
    IllegalBidError,
    call_text,
    contract_pretty,
    parse_call,
    parse_contract,
)

# The rest of the app reaches the engine through this module only (an import-linter contract,
# docs/architecture.md "One door"): what it needs beyond the game API above.
from app.rules.core.cards import (
    CARD_TEXTS,
    SUIT_LETTERS,
    Card,
    CardMask,
    InvalidCardError,
    card_pretty,
    card_text,
    cards_mask,
    mask_cards,
    mask_text,
    parse_card,
    parse_cards,
)
from app.rules.core.codec import (
    MalformedActionError,
    action_from_json,
    action_to_json,
    event_from_json,
    event_to_json,
)
from app.rules.core.conventions import PRESET_NAMES, Conventions, PresetName, conventions_to_json
from app.rules.core.deck import (
    DealReveal,
    InvalidDeckError,
    check_deck,
    commitment,
    cut_deck,
    deal_cards,
    reveal,
    shuffled_deck,
    verify_deal,
)
from app.rules.core.draw import (
    DealerLot,
    InvalidDrawError,
    SeatDraw,
    TableDraw,
    draw_first_dealer,
    draw_seats,
    draw_tables,
)
from app.rules.core.outcome import (
    STRAINS,
    Contract,
    DealKind,
    DealOutcome,
    DefenceCall,
    Penalty,
    PlayMode,
    Strain,
)
from app.rules.core.outcome_json import deal_from_json, deal_to_json
from app.rules.core.outcome_json import deal_to_json as outcome_to_json
from app.rules.core.play import IllegalCardError, legal_cards, trick_winner
from app.rules.core.rule_errors import (
    IllegalActionError,
    InvalidConventionError,
    InvalidRecordError,
    RulesError,
)
from app.rules.core.ruleset import (
    RuleSet,
    describe_presets,
    find_rule_set,
    register,
    rule_set_of,
    rule_sets,
    unregister,
)
from app.rules.core.seats import TABLE_SIZES, playing_seats
from app.rules.deal.dispatch import (
    DealConfig,
    DealState,
    IllegalClaimError,
    IllegalContractError,
    OutOfTurnError,
    Phase,
    apply,
    deal_reveal,
    legal_actions,
    legal_cards_now,
    new_deal,
    outcome,
    replay,
    start_events,
    view,
    views,
    visible_cards,
)
from app.rules.deal.phases.claiming import ClaimVerdict, claim_verdict, use_claim_verdict
from app.rules.deal.timeout import DEFAULT_CUT, default_choice, default_move
from app.rules.scoring.deal_cost import (
    COSTLIEST,
    COSTLY_VERSION,
    CostlyDeal,
    deal_loss,
)
from app.rules.scoring.luck import LUCK_VERSION, SeatLuck, weigh_deal
from app.rules.scoring.penalties import catalogue_for
from app.rules.scoring.pulka import Pulka
from app.rules.scoring.record import export_document, parse_document, score_document
from app.rules.scoring.settlement import Settlement, settle
from app.rules.scoring.sheet import Entry, Sheet, json_number, running_totals, score_deal
from app.rules.scoring.statistics import (
    SEAT_CHANGE_KINDS,
    SEATING_KINDS,
    TALLY_KINDS,
    LogFact,
    PulkaTally,
    sheet_lines,
    tally,
)
from app.rules.search.claims import best_tricks, claim_holds
from app.rules.search.deal_analysis import DealFacts, analyse_deal
from app.rules.search.solver import solve_counted
from app.rules.variants import BUILT_IN as BUILT_IN_RULE_SETS  # importing it registers them

__all__ = [
    "ACTION_TYPES",
    "BUILT_IN_RULE_SETS",
    "CARD_TEXTS",
    "COSTLIEST",
    "COSTLY_VERSION",
    "DEFAULT_CUT",
    "LUCK_VERSION",
    "PRESET_NAMES",
    "SEATING_KINDS",
    "SEAT_CHANGE_KINDS",
    "STRAINS",
    "SUIT_LETTERS",
    "TABLE_SIZES",
    "TALLY_KINDS",
    "AcceptResult",
    "Action",
    "AnswerInvitation",
    "Auction",
    "Bid",
    "Call",
    "Card",
    "CardMask",
    "ChoosePlay",
    "Claim",
    "ClaimVerdict",
    "Concede",
    "Contract",
    "ContractCall",
    "Conventions",
    "CostlyDeal",
    "Cut",
    "DarkBid",
    "DealConfig",
    "DealFacts",
    "DealKind",
    "DealOutcome",
    "DealReveal",
    "DealState",
    "DealerLot",
    "DeclineResult",
    "DefenceCall",
    "Defend",
    "Discard",
    "Entry",
    "Event",
    "IllegalActionError",
    "IllegalBidError",
    "IllegalCardError",
    "IllegalClaimError",
    "IllegalContractError",
    "InvalidCardError",
    "InvalidConventionError",
    "InvalidDeckError",
    "InvalidDrawError",
    "InvalidRecordError",
    "InviteMisere",
    "LogFact",
    "LookAtHand",
    "MalformedActionError",
    "NameContract",
    "OutOfTurnError",
    "Penalty",
    "Phase",
    "PickUp",
    "PlayCard",
    "PlayMode",
    "PresetName",
    "ProposeResult",
    "Pulka",
    "PulkaTally",
    "ReturnTalon",
    "ReturnWhist",
    "RuleSet",
    "RulesError",
    "SeatDraw",
    "SeatLuck",
    "Settlement",
    "Sheet",
    "Strain",
    "TableDraw",
    "TakeTalon",
    "action_from_json",
    "action_to_json",
    "analyse_deal",
    "apply",
    "best_tricks",
    "call_text",
    "card_pretty",
    "card_text",
    "cards_mask",
    "catalogue_for",
    "check_deck",
    "claim_holds",
    "claim_verdict",
    "commitment",
    "contract_pretty",
    "conventions_to_json",
    "cut_deck",
    "deal_cards",
    "deal_from_json",
    "deal_loss",
    "deal_reveal",
    "deal_to_json",
    "default_choice",
    "default_move",
    "describe_presets",
    "draw_first_dealer",
    "draw_seats",
    "draw_tables",
    "event_from_json",
    "event_to_json",
    "export_document",
    "find_rule_set",
    "json_number",
    "legal_actions",
    "legal_cards",
    "legal_cards_now",
    "mask_cards",
    "mask_text",
    "new_deal",
    "outcome",
    "outcome_to_json",
    "parse_call",
    "parse_card",
    "parse_cards",
    "parse_contract",
    "parse_document",
    "playing_seats",
    "register",
    "replay",
    "reveal",
    "rule_set_of",
    "rule_sets",
    "running_totals",
    "score_deal",
    "score_document",
    "settle",
    "sheet_lines",
    "shuffled_deck",
    "solve_counted",
    "start_events",
    "tally",
    "trick_winner",
    "unregister",
    "use_claim_verdict",
    "verify_deal",
    "view",
    "views",
    "visible_cards",
    "weigh_deal",
]
