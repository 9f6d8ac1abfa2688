"""A live table's state as a fold of its committed events, and what a command adds to them.

The table's truth is ``table_events``; :func:`fold` turns one event into the next
:class:`TableState`, so any process can rebuild a table by folding events from the last
checkpoint (``pulka_started`` or ``deal_started``, each of which carries the pulka as it stood).
Event kinds and their stored payloads (server-side; clients get :func:`public_data` and views):

``pulka_started``  ``{players, names, member_ids, pulka}``
``deal_started``   ``{format, deal_no, dealer, min_level, deck, salt, pulka, names, member_ids,
                   last_deal}`` (``format``: app.realtime.formats, docs/formats.md)
                   (``deck`` and ``salt`` are secrets: they leave the server only through ``view``)
``action``         ``{seat, action, events, auto}`` — one engine action and its public events
``deal_ended``     ``{format, deal_no, outcome, entries, sheet, pulka}``
``deal_refused``   ``{reason}`` (R-S2: no new deal after the session's end)
``chat``           ``{seat, name, text}`` (R-W12: only between deals)
``pulka_ended``    ``{ended, sheet, settlement, record, pulka}``
``player_joined``  ``{seat, member_id, name, after_dealer_seat, players, names, member_ids,
                   entries, sheet, deal_no, voided_deal, pulka}`` (R-T4, between deals)
``player_replaced`` ``{seat, member_id, name, leaving_member_id, leaving_name, names,
                   member_ids, pulka}`` (R-T5, between deals)
``recorded_*``     a real-cards table's entries (§10), :mod:`app.realtime.recorded`
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.realtime import engine
from app.realtime.formats import DEAL_FORMAT, check_deal
from app.realtime.recorded import RECORDED_KINDS, public_recorded
from app.rules import Pulka, conventions_to_json, deal_from_json, deal_to_json, export_document

CHECKPOINT_KINDS = ("pulka_started", "deal_started")
SEATING_KINDS = frozenset({"player_joined", "player_replaced"})
"""Events that change who sits where: every connection's seat is looked up again after them."""
CHAT_LIMIT = 50
CHAT_MAX_CHARS = 500


@dataclasses.dataclass(frozen=True, slots=True)
class ChatLine:
    seq: int
    seat: int | None
    name: str
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "seat": self.seat, "name": self.name, "text": self.text}


@dataclasses.dataclass(frozen=True, slots=True)
class TableState:
    """Everything a table knows after event ``seq`` (an immutable value)."""

    table_id: int
    seq: int
    players: int
    names: tuple[str, ...]
    member_ids: tuple[int | None, ...]
    pulka: Pulka
    deal: Any = None
    """The engine's ``DealState`` of the current (or just finished) deal."""
    deal_no: int = 0
    """Number of deals started so far (the current deal's number, 1-based)."""
    status: str = "playing"
    """``playing``, ``waiting`` (a new deal was refused, R-S2) or ``finished``."""
    notice: str | None = None
    chat: tuple[ChatLine, ...] = ()
    last_deal: Mapping[str, Any] | None = None
    """The public result of the last finished deal."""
    settlement: Mapping[str, Any] | None = None
    scored: bool = False
    """The current deal is over and its ``deal_ended`` event is written."""
    deadline_at: str | None = None
    """When the seat to move runs out of time (ISO UTC), or None: no move timer runs. Set by
    the event that started the wait (its payload's ``deadline_at``), cleared by the next."""

    @property
    def deal_in_progress(self) -> bool:
        """A deal whose cards are out and whose result is not in yet (R-W12 closes chat)."""
        return self.deal is not None and engine.in_progress(self.deal)

    def seat_of(self, member_id: int) -> int | None:
        for seat, mid in enumerate(self.member_ids):
            if mid == member_id:
                return seat
        return None


def waits_for_first_deal(state: TableState) -> bool:
    """Is this table waiting for its first deal (refused so far, R-S1) with every seat filled?
    Then the server deals it as soon as the deal gate opens (``app.services.first_deal``)."""
    return (
        state.status == "waiting"
        and state.deal_no == 0
        and state.deal is None
        and None not in state.member_ids
    )


class CommandRejected(Exception):
    """A command that changes nothing; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.after_lock = False
        """Raised under the table's row lock (the command id is then looked up again)."""


# -- folding -----------------------------------------------------------------------------------


def fold(
    state: TableState | None, table_id: int, seq: int, kind: str, payload: Mapping[str, Any]
) -> TableState:
    """The state after event ``seq`` (``state`` is the state before it, or None at a checkpoint)."""
    after = _fold(state, table_id, seq, kind, payload)
    deadline = payload.get("deadline_at")
    if after.deadline_at != deadline:
        after = dataclasses.replace(after, deadline_at=deadline)
    return after


def _fold(
    state: TableState | None, table_id: int, seq: int, kind: str, payload: Mapping[str, Any]
) -> TableState:
    if kind == "pulka_started":
        return TableState(
            table_id=table_id,
            seq=seq,
            players=payload["players"],
            names=tuple(payload["names"]),
            member_ids=tuple(payload["member_ids"]),
            pulka=Pulka.from_json(payload["pulka"]),
        )
    if kind == "deal_started":
        check_deal(payload, table_id=table_id, seq=seq, kind=kind)
        pulka = pulka_after(state.pulka if state is not None else None, payload["pulka"])
        deal = engine.start_deal(
            pulka,
            payload["dealer"],
            payload["min_level"],
            payload["deck"],
            bytes.fromhex(payload["salt"]),
        )
        chat = state.chat if state is not None else ()
        # The checkpoint carries the last finished deal, so a state rebuilt from it (after a
        # restart or cache miss) still shows it in snapshots.
        last = state.last_deal if state is not None else payload.get("last_deal")
        return TableState(
            table_id=table_id,
            seq=seq,
            players=payload["players"],
            names=tuple(payload["names"]),
            member_ids=tuple(payload["member_ids"]),
            pulka=pulka,
            deal=deal,
            deal_no=payload["deal_no"],
            chat=chat,
            last_deal=last,
        )
    if state is None:
        raise ValueError(f"event {seq} ({kind}) needs the state before it")
    if kind == "action":
        action = engine.action_from_json(payload["action"], payload["seat"])
        deal, _ = engine.apply(state.deal, action, _logged_claim(payload))
        return dataclasses.replace(state, seq=seq, deal=deal)
    if kind == "deal_ended":
        check_deal(payload, table_id=table_id, seq=seq, kind=kind)
        return dataclasses.replace(
            state,
            seq=seq,
            pulka=pulka_after(state.pulka, payload["pulka"]),
            chat=(),
            last_deal=public_data(kind, payload),
            scored=True,
        )
    if kind == "deal_refused":
        return dataclasses.replace(state, seq=seq, status="waiting", notice=payload["reason"])
    if kind == "chat":
        line = ChatLine(seq, payload["seat"], payload["name"], payload["text"])
        return dataclasses.replace(state, seq=seq, chat=(*state.chat, line)[-CHAT_LIMIT:])
    if kind == "pulka_ended":
        return dataclasses.replace(
            state,
            seq=seq,
            status="finished",
            pulka=pulka_after(state.pulka, payload["pulka"]),
            settlement=payload["settlement"],
            notice=f"pulka ended ({payload['ended']})",
        )
    if kind == "player_joined":
        # The deal that was dealt to three players (if any) is over or was never cut: the table
        # now waits for the four-player deal the newcomer deals.
        return dataclasses.replace(
            state,
            seq=seq,
            players=payload["players"],
            names=tuple(payload["names"]),
            member_ids=tuple(payload["member_ids"]),
            pulka=Pulka.from_json(payload["pulka"]),
            deal=None,
            deal_no=payload["deal_no"],
            scored=False,
        )
    if kind == "player_replaced":
        return dataclasses.replace(
            state,
            seq=seq,
            names=tuple(payload["names"]),
            member_ids=tuple(payload["member_ids"]),
            pulka=Pulka.from_json(payload["pulka"]),
        )
    if kind in RECORDED_KINDS:  # a real-cards table (§10)
        return fold_recorded(state, seq, kind, payload)
    raise ValueError(f"unknown event kind {kind!r}")


def pulka_after(before: Pulka | None, data: Mapping[str, Any]) -> Pulka:
    """The pulka that ``data`` (:meth:`Pulka.to_json` output) describes.

    An event's pulka is most often the pulka before it (a deal's start) or that pulka and one
    more deal (its end). Then ``before`` is taken as is, or records that one deal: the result a
    replay from the first deal gives, at the cost of one deal instead of the pulka's length (two
    full replays made every deal end cost in proportion to the pulka's length, a tenth of the
    server's CPU at full load, docs/performance.md). ``before`` must share ``data``'s settings
    and its last event (a correction rewrites the last deal); anything else (a first
    checkpoint, a join, a close, a correction) is replayed in full."""
    if before is not None and _same_pulka(before, data):
        events = data["events"]
        known = len(before.events)
        same_so_far = known == 0 or (
            len(events) >= known and events[known - 1] == before.events[-1].to_json()
        )
        if same_so_far and len(events) == known:
            return before
        if same_so_far and len(events) == known + 1 and "deal" in events[-1]:
            return before.record(deal_from_json(events[-1]["deal"], before.deal_index))[0]
    return Pulka.from_json(data)


def _same_pulka(before: Pulka, data: Mapping[str, Any]) -> bool:
    """Do ``before`` and ``data`` share the settings a replay starts from, and is ``before``
    still open (a close is the one change of a pulka that is not a deal)?"""
    joined = sum(1 for e in before.events if e.kind == "join")
    return (
        before.closed is None
        and data.get("target") == before.target
        and data.get("stake") == str(before.stake)
        and data.get("first_dealer") == before.first_dealer
        and data.get("players") == before.players - joined
        and data.get("names")
        == (None if before.initial_names is None else list(before.initial_names))
        and data.get("conventions") == conventions_to_json(before.conventions)
    )


def _logged_claim(payload: Mapping[str, Any]) -> bool | None:
    """Whether a logged claim held (R-W11): its event says so, so folding it never searches."""
    for event in payload.get("events", ()):
        if event.get("type") == "claim_accepted":
            return True
        if event.get("type") == "claim_rejected":
            return False
    return None


def public_data(kind: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a stored event every seat may read (an allowlist: secrets never pass)."""
    if kind == "pulka_started":
        return {"players": payload["players"], "names": list(payload["names"])}
    if kind == "deal_started":
        return {
            "deal_no": payload["deal_no"],
            "dealer": payload["dealer"],
            "min_level": payload["min_level"],
        }
    if kind == "action":
        return {
            "seat": payload["seat"],
            "events": list(payload["events"]),
            "auto": bool(payload.get("auto", False)),
        }
    if kind == "deal_ended":
        return {
            "deal_no": payload["deal_no"],
            "outcome": payload["outcome"],
            "entries": payload["entries"],
            "sheet": payload["sheet"],
        }
    if kind == "deal_refused":
        return {"reason": payload["reason"]}
    if kind == "chat":
        return {"seat": payload["seat"], "name": payload["name"], "text": payload["text"]}
    if kind == "pulka_ended":
        return {
            "ended": payload["ended"],
            "sheet": payload["sheet"],
            "settlement": payload["settlement"],
        }
    if kind == "player_joined":
        return {
            "seat": payload["seat"],
            "member_id": payload["member_id"],
            "name": payload["name"],
            "after_dealer_seat": payload["after_dealer_seat"],
            "dealer": payload["seat"],
            "players": payload["players"],
            "names": list(payload["names"]),
            "member_ids": list(payload["member_ids"]),
            "entries": payload["entries"],
            "sheet": payload["sheet"],
        }
    if kind == "player_replaced":
        return {
            "seat": payload["seat"],
            "member_id": payload["member_id"],
            "name": payload["name"],
            "leaving_member_id": payload["leaving_member_id"],
            "leaving_name": payload["leaving_name"],
            "players": len(payload["names"]),
            "names": list(payload["names"]),
            "member_ids": list(payload["member_ids"]),
        }
    if kind in RECORDED_KINDS:
        return public_recorded(kind, payload)
    return {}


# -- new events --------------------------------------------------------------------------------


def pulka_started(
    pulka: Pulka, names: Sequence[str], member_ids: Sequence[int | None]
) -> tuple[str, dict[str, Any]]:
    return "pulka_started", {
        "players": pulka.players,
        "names": list(names),
        "member_ids": list(member_ids),
        "pulka": pulka.to_json(),
    }


def deal_started(state: TableState, rng: random.Random | None = None) -> tuple[str, dict[str, Any]]:
    """A new deal: a fresh shuffle from a cryptographic source and a secret salt (R-D4)."""
    pulka = state.pulka
    deck = engine.shuffle(rng or random.SystemRandom())
    salt = secrets.token_bytes(16)
    return "deal_started", {
        "format": DEAL_FORMAT,
        "deal_no": state.deal_no + 1,
        "dealer": pulka.next_dealer,
        "min_level": pulka.next_min_level(),
        "deck": list(deck),
        "salt": salt.hex(),
        "pulka": pulka.to_json(),
        "players": state.players,
        "names": list(state.names),
        "member_ids": list(state.member_ids),
        "last_deal": state.last_deal,
    }


def action_event(
    state: TableState, seat: int, action_json: Mapping[str, Any], auto: bool = False
) -> tuple[str, dict[str, Any]]:
    """Check an action with the engine; the ``action`` event, or CommandRejected."""
    payload, _ = _checked_action(state, seat, action_json, auto)
    return "action", payload


def action_played(
    state: TableState, seq: int, seat: int, action_json: Mapping[str, Any]
) -> tuple[str, dict[str, Any], TableState]:
    """:func:`action_event` as event ``seq``, with the state after it — what :func:`fold` of
    that event gives, without applying the action a second time (the hot path of a move)."""
    payload, deal = _checked_action(state, seat, action_json, False)
    return "action", payload, dataclasses.replace(state, seq=seq, deal=deal, deadline_at=None)


def _checked_action(
    state: TableState, seat: int, action_json: Mapping[str, Any], auto: bool
) -> tuple[dict[str, Any], Any]:
    if state.status != "playing" or state.deal is None:
        raise CommandRejected("not_now", "no deal is being played at this table")
    try:
        action = engine.action_from_json(action_json, seat)
        deal, events = engine.apply(state.deal, action)
    except engine.OutOfTurnError as exc:
        raise CommandRejected("not_your_turn", str(exc)) from None
    except engine.IllegalActionError as exc:
        raise CommandRejected("illegal", str(exc)) from None
    except engine.MalformedActionError as exc:
        raise CommandRejected("bad_command", str(exc)) from None
    except (ValueError, TypeError, KeyError) as exc:
        raise CommandRejected("bad_command", f"malformed action: {exc}") from None
    return {
        "seat": seat,
        "action": engine.action_to_json(action),
        "events": [engine.event_to_json(e) for e in events],
        "auto": auto,
    }, deal


def chat_event(
    state: TableState, seat: int | None, name: str, text: object
) -> tuple[str, dict[str, Any]]:
    """A chat line; closed while a deal is in progress (R-W12)."""
    if not isinstance(text, str):
        raise CommandRejected("bad_command", "chat needs a text (a string)")
    if not text.strip():
        raise CommandRejected("chat_empty", "chat needs a non-empty text")
    if len(text) > CHAT_MAX_CHARS:
        raise CommandRejected(
            "chat_too_long", f"chat lines are at most {CHAT_MAX_CHARS} characters"
        )
    if state.deal_in_progress:
        raise CommandRejected(
            "chat_closed",
            "table talk is closed during bidding and play; it opens between deals (R-W12)",
        )
    return "chat", {"seat": seat, "name": name, "text": text.strip()}


def deal_ended(state: TableState) -> tuple[str, dict[str, Any]] | None:
    """When the current deal is over: score it on the pulka (the one scoring path)."""
    if state.deal is None or state.scored:
        return None
    outcome = engine.outcome(state.deal)
    if outcome is None:
        return None
    pulka, entries = state.pulka.record(outcome)
    return "deal_ended", {
        "format": DEAL_FORMAT,
        "deal_no": state.deal_no,
        "outcome": deal_to_json(outcome),
        "entries": [e.to_json() for e in entries],
        "sheet": pulka.sheet.to_json(),
        "pulka": pulka.to_json(),
    }


def pulka_ended(state: TableState, reason: str) -> tuple[str, dict[str, Any]]:
    """Close and settle the pulka (R-P8, R-S3)."""
    pulka = state.pulka if state.pulka.closed else state.pulka.close(reason)  # type: ignore[arg-type]
    return "pulka_ended", {
        "ended": pulka.ended,
        "sheet": pulka.sheet.to_json(),
        "settlement": pulka.settle().to_json(),
        "record": export_document(pulka),
        "pulka": pulka.to_json(),
    }


def seat_view(state: TableState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see now: the engine's ``view`` plus table facts."""
    return seat_views(state, (seat,))[seat]


def seat_views(state: TableState, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """:func:`seat_view` for each of ``seats`` (an event's fan-out: one engine call)."""
    wanted = list(dict.fromkeys(seats))
    deals = engine.views(state.deal, wanted) if state.deal is not None else {}
    return {seat: _with_legal(state, seat, deals.get(seat)) for seat in wanted}


def _with_legal(state: TableState, seat: int | None, deal: dict[str, Any] | None) -> dict[str, Any]:
    if deal is not None and state.status == "finished" and not deal.get("finished"):
        # The pulka was closed while this deal ran (R-S3, or by agreement): it is abandoned,
        # unscored, and nobody is to move. What was hidden stays hidden (it never ended).
        deal = {**deal, "phase": "abandoned", "to_move": None, "turn": None}
    return {
        "deal": deal,
        "legal": (
            engine.legal_json(state.deal, seat)
            if seat is not None and state.deal is not None and state.status == "playing"
            else []
        ),
    }


def table_info(state: TableState) -> dict[str, Any]:
    """Public facts of the table: players, sheet, status, chat, last deal."""
    return {
        "table_id": state.table_id,
        "players": state.players,
        "names": list(state.names),
        "status": state.status,
        "notice": state.notice,
        "deal_no": state.deal_no,
        "sheet": state.pulka.sheet.to_json(),
        "seat_marks": state.pulka.seat_marks(),  # R-A1: each player's bombs (arabic), else None
        "bomb_factor": state.pulka.bomb_factor(),  # the opening round's ×2, ×4, ×8, else 1
        "target": state.pulka.target,
        "preset": state.pulka.conventions.preset,
        "chat_open": not state.deal_in_progress,
        "chat": [line.to_json() for line in state.chat],
        "last_deal": state.last_deal,
        "settlement": state.settlement,
        "deadline_at": state.deadline_at,
    }


def fold_recorded(state: TableState, seq: int, kind: str, payload: Mapping[str, Any]) -> TableState:
    """The table state after a recorded-table event."""
    if kind == "recorded_dispute":
        return dataclasses.replace(state, seq=seq)
    check_deal(payload, table_id=state.table_id, seq=seq, kind=kind)
    return dataclasses.replace(
        state,
        seq=seq,
        pulka=pulka_after(state.pulka, payload["pulka"]),
        last_deal=public_recorded(kind, payload),
        scored=True,
    )
