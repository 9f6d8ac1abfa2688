"""The socket layer's only door into the rules engine (``app.rules``).

Everything the live tables need from the engine goes through these few functions, so the rest of
``app.realtime`` knows nothing of the engine's internals.
"""

from __future__ import annotations

import contextlib
import contextvars
import random
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from app.rules import (
    Claim,
    DealConfig,
    DealOutcome,
    DealState,
    IllegalActionError,
    MalformedActionError,
    OutOfTurnError,
    Pulka,
    RulesError,
    claim_verdict,
    new_deal,
    shuffled_deck,
    start_events,
    use_claim_verdict,
)
from app.rules import action_from_json as _action_from_json
from app.rules import action_to_json as _action_to_json
from app.rules import apply as _apply
from app.rules import event_to_json as _event_to_json
from app.rules import legal_actions as _legal_actions
from app.rules import outcome as _outcome
from app.rules import view as _view
from app.rules import views as _views
from app.rules import visible_cards as _visible_cards

__all__ = [
    "IllegalActionError",
    "MalformedActionError",
    "OutOfTurnError",
    "RulesError",
]

Action = Any


def shuffle(rng: random.Random) -> list[int]:
    """A shuffled deck order (ints) from ``rng`` (R-D4: the service passes SystemRandom)."""
    return list(shuffled_deck(rng))


def start_deal(
    pulka: Pulka, dealer: int, min_level: int, deck: Sequence[int], salt: bytes
) -> DealState:
    """The deal state right after the shuffle, waiting for the cut."""
    config = DealConfig(
        players=pulka.players, dealer=dealer, conventions=pulka.conventions, min_level=min_level
    )
    return new_deal(config, deck, salt)


def deal_start_events(deal: DealState) -> list[dict[str, Any]]:
    return [_event_to_json(e) for e in start_events(deal)]


def action_from_json(data: Mapping[str, Any], seat: int) -> Action:
    """Parse an action sent by ``seat`` (the seat is the server's, never the client's)."""
    body = {k: v for k, v in data.items() if k not in ("id", "seq", "seat")}
    body["seat"] = seat
    return _action_from_json(body)


def action_to_json(action: Action) -> dict[str, Any]:
    return _action_to_json(action)


def event_to_json(event: Any) -> dict[str, Any]:
    return _event_to_json(event)


def apply(
    deal: DealState, action: Action, claim_result: bool | None = None
) -> tuple[DealState, tuple[Any, ...]]:
    """The engine's ``apply``. A claim (R-W11) is never solved here when its result is known:
    from the log (``claim_result``, the event recorded it) or from the worker pool
    (:func:`remember_claim`); see :func:`_claim_holds_hook`."""
    if isinstance(action, Claim):
        known = claim_result if claim_result is not None else _solved.get((deal, action))
        if known is not None:
            token = _known_claim.set(known)
            try:
                return _apply(deal, action)
            finally:
                _known_claim.reset(token)
    return _apply(deal, action)


# -- claims off the event loop -------------------------------------------------------------------
#
# The claim solver (``app.rules.search.claims.claim_holds``) may search for most of a second from
# the
# first lead. The rules engine calls it inside ``apply``; the live tables call ``apply`` on the
# event loop. So a claim is solved once, in a worker process (:func:`solve_claim`, run by
# ``app.workers.WorkerPool``), and its result is handed to the engine here: the engine's call
# of ``claim_holds`` goes through :func:`_claim_holds_hook`, which answers the known result of
# the claim being applied and otherwise calls the real solver (or, inside
# :func:`inline_claims_forbidden`, refuses to). ``claim_holds`` is a pure function and a result
# is only ever used for the very (deal, action) it was computed for, so the hook changes no
# outcome. (A cleaner seam would be a solver parameter of the rules' ``apply``.)

_SOLVED_LIMIT = 256
_solved: OrderedDict[tuple[DealState, Action], bool] = OrderedDict()
_known_claim: contextvars.ContextVar[bool | None] = contextvars.ContextVar(
    "prefclub_known_claim", default=None
)
_forbid_inline: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "prefclub_forbid_inline_claims", default=False
)


class ClaimNotSolved(Exception):
    """A claim would have been solved on the event loop (its position changed since the
    worker solved it): the command is refused instead."""


_claim_verdict = claim_verdict


def _claim_holds_hook(*args: Any, **kwargs: Any) -> bool:
    known = _known_claim.get()
    if known is not None:
        return known
    if _forbid_inline.get():
        raise ClaimNotSolved("the claim was not solved for this position")
    return _claim_verdict(*args, **kwargs)


# The claims phase asks its verdict once per claim and takes the answer (a declarer's or a
# defender's claim alike, issue 12); the hook stands in for the solver there.
use_claim_verdict(_claim_holds_hook)


def claim_action(data: Mapping[str, Any], seat: int) -> Claim | None:
    """The ``Claim`` of a ``claim`` command body, or None if it is not a well-formed claim."""
    try:
        action = action_from_json(data, seat)
    except (MalformedActionError, ValueError, TypeError, KeyError):
        return None
    return action if isinstance(action, Claim) else None


def claim_known(deal: DealState, action: Claim) -> bool:
    return (deal, action) in _solved


def remember_claim(deal: DealState, action: Claim, holds: bool) -> None:
    """Record a worker's result for exactly this position and claim (bounded, LRU)."""
    _solved[(deal, action)] = holds
    _solved.move_to_end((deal, action))
    while len(_solved) > _SOLVED_LIMIT:
        _solved.popitem(last=False)


def claim_needs_search(deal: DealState, action: Claim) -> bool:
    """Would the engine have to search to settle this claim? False when it decides without the
    solver — above all when it refuses the claim outright (not a claimer, a trick count out of
    range such as ``-1``): such a claim is refused at once, on the loop, and never waits for the
    worker pool (whose first job starts its processes: seconds on a busy machine)."""
    token = _forbid_inline.set(True)
    try:
        _apply(deal, action)
    except ClaimNotSolved:
        return True
    except (RulesError, ValueError, TypeError):
        return False
    finally:
        _forbid_inline.reset(token)
    return False


def solve_claim(deal: DealState, action: Claim) -> bool | None:
    """In a worker process: does the claim hold? None if the engine refuses it outright (then
    ``apply`` refuses it quickly, before any search)."""
    try:
        _, events = _apply(deal, action)
    except (RulesError, ValueError):
        return None
    for event in events:
        if event.type == "claim_accepted":
            return True
        if event.type == "claim_rejected":
            return False
    return None


@contextlib.contextmanager
def inline_claims_forbidden() -> Iterator[None]:
    """Inside: a claim whose result is not known raises :class:`ClaimNotSolved`."""
    token = _forbid_inline.set(True)
    try:
        yield
    finally:
        _forbid_inline.reset(token)


def outcome(deal: DealState) -> DealOutcome | None:
    return _outcome(deal)


def view(deal: DealState, seat: int | None) -> dict[str, Any]:
    return _view(deal, seat)


def views(deal: DealState, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """:func:`view` for several seats at once (what they see alike is built once)."""
    return _views(deal, seats)


def visible_cards(deal: DealState, seat: int | None) -> int:
    return _visible_cards(deal, seat)


def in_progress(deal: DealState) -> bool:
    """Cards are out and the deal is not over (bidding or play: table talk is closed)."""
    return deal.phase not in ("cut", "done")


def legal_json(deal: DealState, seat: int) -> list[dict[str, Any]]:
    """The actions ``seat`` may send now, as protocol objects (without ``seat``)."""
    out = []
    for action in _legal_actions(deal, seat):
        data = _action_to_json(action)
        data.pop("seat", None)
        out.append(data)
    return out


def to_move(deal: DealState) -> int | None:
    return deal.to_move


def phase(deal: DealState) -> str:
    return deal.phase
