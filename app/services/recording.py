"""Recording mode (RULES.md §10): a table played with real cards, its deals entered by a scorer.

A recorded table keeps the draws, seats, dealer rotation and session timing of a live one, but
the server deals nothing: the scorer (a seated player, or the member the table chose) enters each
deal as a ``pulka/1`` deal object. Every entry goes through the record reader
(:func:`app.rules.core.outcome_json.deal_from_json`) and
:meth:`app.rules.scoring.pulka.Pulka.record` — the
checks and the scoring of a live deal and of ``prefclub score`` — and becomes one table event
(:mod:`app.realtime.recorded`), so the other players see it at once over the socket.

Each function works inside the caller's transaction, serialised on the table row:

* :func:`enter_deal` — the next deal; ``deal_no`` must be the pulka's next deal index, so a
  deal is entered at most once however many requests race (a stale one gets 409 ``stale_entry``).
* :func:`correct_deal` — the last deal entered again, until the next deal's entry is made (R-P7
  at a recorded table); the correction carries an ``entry_error`` penalty (R-X11) sized by the
  over-entry it removes: the first in the pulka free, a later one fined by its size.
* :func:`dispute_deal` — a seated player disputes an entry (a public event; scoring unchanged).

Penalties are audited: an entry that carries penalties as ``penalty.entry``, every correction
as ``penalty.correction`` (the deal before → after, with its ``entry_error`` fine).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.table import Table
from app.realtime import game
from app.realtime.formats import DEAL_FORMAT
from app.realtime.game import TableState
from app.realtime.store import append, load_state, lock_table, notify, rebuild
from app.rules import (
    DealOutcome,
    InvalidRecordError,
    Penalty,
    Pulka,
    Sheet,
    catalogue_for,
    deal_from_json,
    deal_to_json,
)
from app.services import audit
from app.services.audit import Actor
from app.services.live_table import deal_refusal, sync_rows
from app.services.service_errors import ForbiddenError, NotFoundError, ServiceError

MAX_DISPUTE_CHARS = 500


class RecordingError(ServiceError):
    """A recorded-table request refused; ``code`` is stable, ``field`` the deal field at fault."""

    def __init__(
        self, message: str, *, code: str, status: int = 422, field: str | None = None
    ) -> None:
        super().__init__(message, status=status, code=code)
        self.field = field


@dataclasses.dataclass(frozen=True, slots=True)
class Entered:
    """What an entry, correction or dispute committed: the table's ``seq`` and the event."""

    seq: int
    kind: str
    data: dict[str, Any]


async def _recorded_table(db: AsyncSession, table_id: int) -> tuple[Table, TableState]:
    table = await lock_table(db, table_id)
    if table is None:
        raise NotFoundError(f"there is no table {table_id}")
    if table.mode != "recorded":
        raise RecordingError(
            "this table is played live, not recorded", code="not_recorded", status=409
        )
    return table, await load_state(db, table, None)


def _scorer_seat(table: Table, state: TableState, member_id: int) -> int | None:
    """The scorer's seat (None for the chosen non-playing scorer); refuse anyone else."""
    seat = state.seat_of(member_id)
    if seat is None and table.scorer_member_id != member_id:
        raise ForbiddenError("only a seated player or the table's scorer enters deals")
    return seat


def _parse(raw: object, deal_no: int, pulka: Pulka) -> DealOutcome:
    """The entry as an outcome; a missing dealer is the rotation's (R-D1)."""
    if isinstance(raw, Mapping) and "dealer" not in raw:
        raw = {**raw, "dealer": pulka.next_dealer}
    try:
        return deal_from_json(raw, deal_no)
    except InvalidRecordError as exc:
        raise _invalid(exc) from None


def _invalid(exc: InvalidRecordError) -> RecordingError:
    """An entry that could not have happened: its field and the figures at fault go to the
    page (``params``), which says which field to check and why."""
    error = RecordingError(exc.message, code="invalid_entry", field=exc.field)
    error.params = {"field": exc.field, **exc.facts} if exc.field else dict(exc.facts) or None
    return error


def _record(pulka: Pulka, outcome: DealOutcome) -> tuple[Pulka, list[Any]]:
    try:
        return pulka.record(outcome)
    except InvalidRecordError as exc:
        raise _invalid(exc) from None


async def _finish(
    db: AsyncSession, table: Table, state: TableState, before: TableState, now: datetime
) -> None:
    if state.pulka.is_complete:  # R-P8: the last pool reached the target
        state = append(db, table, state, *game.pulka_ended(state, "target"))
    await sync_rows(db, table, state, now, before)
    await notify(db, table.id, table.version)


def _payload(
    pulka: Pulka, outcome: DealOutcome, entries: list[Any], deal_no: int, by: int
) -> dict[str, Any]:
    return {
        "format": DEAL_FORMAT,
        "deal_no": deal_no,
        "outcome": deal_to_json(outcome),
        "entries": [e.to_json() for e in entries],
        "sheet": pulka.sheet.to_json(),
        "pulka": pulka.to_json(),
        "by": by,
    }


async def enter_deal(
    db: AsyncSession,
    table_id: int,
    member_id: int,
    deal_no: int,
    deal: object,
    now: datetime,
    address: str | None = None,
) -> Entered:
    """Enter deal ``deal_no`` (0-based) at a recorded table; checked and scored like a live one."""
    table, state = await _recorded_table(db, table_id)
    _scorer_seat(table, state, member_id)
    if state.status == "finished":
        raise RecordingError("the pulka has ended", code="table_finished", status=409)
    if deal_no != state.pulka.deal_index:
        raise RecordingError(
            f"deal {state.pulka.deal_index} is the one to enter, not {deal_no}",
            code="stale_entry",
            status=409,
        )
    refusal = await deal_refusal(db, table, now)  # R-S2: the session's timing still applies
    if refusal is not None:
        raise RecordingError(refusal, code="session_over", status=409)
    outcome = _parse(deal, deal_no, state.pulka)
    pulka, entries = _record(state.pulka, outcome)
    payload = _payload(pulka, outcome, entries, deal_no, member_id)
    after = append(db, table, state, "recorded_deal", payload)
    seq = after.seq
    if outcome.penalties:
        await audit.record(
            db,
            actor=Actor(member_id, address),
            action="penalty.entry",
            target=f"table:{table_id}",
            before=None,
            after={"deal_no": deal_no, "seq": seq, "penalties": payload["outcome"]["penalties"]},
        )
    await _finish(db, table, after, state, now)
    return Entered(seq, "recorded_deal", game.public_data("recorded_deal", payload))


def over_entry(wrong: Sheet, right: Sheet) -> int:
    """How much the wrong sheet over-entered: the positive differences of every cell (R-X11).

    Pool and hill points and whists are added as they are written; a fraction rounds up.
    """
    total = Fraction(0)
    for w, r in zip((*wrong.pool, *wrong.hill), (*right.pool, *right.hill), strict=True):
        total += max(Fraction(0), w - r)
    for w_row, r_row in zip(wrong.whists, right.whists, strict=True):
        for w, r in zip(w_row, r_row, strict=True):
            total += max(Fraction(0), w - r)
    return -(-total.numerator // total.denominator)


async def correct_deal(
    db: AsyncSession,
    table_id: int,
    member_id: int,
    deal_no: int,
    deal: object,
    now: datetime,
    charged_seat: int | None = None,
    address: str | None = None,
) -> Entered:
    """Enter deal ``deal_no`` again: only the last deal, before the next one is entered (R-P7).

    The corrected deal carries an ``entry_error`` (R-X11) charged to ``charged_seat`` (default:
    the scorer's seat) with the over-entry the correction removes: free the first time in the
    pulka, fined by its size after that.
    """
    table, state = await _recorded_table(db, table_id)
    seat = _scorer_seat(table, state, member_id)
    pulka = state.pulka
    last = pulka.deal_index - 1
    if state.status == "finished" or pulka.closed is not None:
        raise RecordingError(
            "the pulka has ended; its entries are final", code="correction_closed", status=409
        )
    if deal_no != last or not pulka.events or pulka.events[-1].kind != "deal":
        raise RecordingError(
            "an entry may be corrected only until the next deal is entered (R-P7)",
            code="correction_closed",
            status=409,
        )
    charged = seat if charged_seat is None else charged_seat
    if charged is None:
        raise RecordingError("say whose entry it was (seat)", code="invalid_entry", field="seat")
    data = pulka.to_json()
    data["events"] = data["events"][:-1]
    base = Pulka.from_json(data)
    corrected = _parse(deal, deal_no, base)
    if any(p.rule == "entry_error" for p in corrected.penalties):
        raise RecordingError(
            "the correction's entry_error is written by the server",
            code="invalid_entry",
            field="penalties",
        )
    plain, _ = _record(base, corrected)
    size = over_entry(pulka.sheet, plain.sheet)
    fine = Penalty(seat=charged, rule="entry_error", size=size)
    # Earlier corrections of this same deal keep their fines (and count for R-X11's "first").
    wrong = pulka.events[-1].outcome
    assert wrong is not None
    kept = tuple(p for p in wrong.penalties if p.rule == "entry_error")
    corrected = dataclasses.replace(corrected, penalties=(*corrected.penalties, *kept, fine))
    new, entries = _record(base, corrected)
    payload = {**_payload(new, corrected, entries, deal_no, member_id), "size": size}
    after = append(db, table, state, "recorded_correction", payload)
    seq = after.seq
    await audit.record(
        db,
        actor=Actor(member_id, address),
        action="penalty.correction",
        target=f"table:{table_id}",
        before={"deal_no": deal_no, "deal": deal_to_json(wrong)},
        after={
            "deal_no": deal_no,
            "seq": seq,
            "deal": payload["outcome"],
            "entry_error": {"seat": charged, "size": size},
        },
    )
    await _finish(db, table, after, state, now)
    return Entered(seq, "recorded_correction", game.public_data("recorded_correction", payload))


async def dispute_deal(
    db: AsyncSession, table_id: int, member_id: int, deal_no: int, text: str
) -> Entered:
    """A seated player disputes entry ``deal_no``: everyone sees it; nothing is rescored."""
    table, state = await _recorded_table(db, table_id)
    seat = state.seat_of(member_id)
    if seat is None:
        raise ForbiddenError("only a seated player disputes an entry")
    if not 0 <= deal_no < state.pulka.deal_index:
        raise RecordingError(f"there is no entered deal {deal_no}", code="no_such_deal", status=404)
    text = text.strip()
    if not text or len(text) > MAX_DISPUTE_CHARS:
        refused = RecordingError(
            f"a dispute says why in 1-{MAX_DISPUTE_CHARS} characters",
            code="invalid_entry",
            field="text",
        )
        refused.params = {"field": "text", "max": MAX_DISPUTE_CHARS}
        raise refused
    payload = {"deal_no": deal_no, "seat": seat, "name": state.names[seat], "text": text}
    after = append(db, table, state, "recorded_dispute", payload)
    await notify(db, table.id, table.version)
    return Entered(after.seq, "recorded_dispute", payload)


async def recording_view(db: AsyncSession, table_id: int) -> dict[str, Any]:
    """What the entry form needs: the next deal's proposal, the sheet, entries and catalogue."""
    table = await db.get(Table, table_id)
    if table is None:
        raise NotFoundError(f"there is no table {table_id}")
    if table.mode != "recorded":
        raise RecordingError(
            "this table is played live, not recorded", code="not_recorded", status=409
        )
    state = await rebuild(db, table_id)
    assert state is not None
    pulka = state.pulka
    return {
        "table_id": table_id,
        "mode": table.mode,
        "status": state.status,
        "seq": state.seq,
        "players": state.players,
        "names": list(state.names),
        "member_ids": list(state.member_ids),
        "scorer_member_id": table.scorer_member_id,
        "deal_no": pulka.deal_index,
        "next_dealer": pulka.next_dealer,
        "min_level": pulka.next_min_level(),
        "correctable": pulka.deal_index - 1
        if pulka.events and pulka.events[-1].kind == "deal" and state.status != "finished"
        else None,
        "target": pulka.target,
        "sheet": pulka.sheet.to_json(),
        "entries": [e.to_json() for e in pulka.entries],
        "deals": [deal_to_json(e.outcome) for e in pulka.events if e.outcome is not None],
        "settlement": pulka.settle().to_json(),
        "catalogue": [
            {
                "id": e.id,
                "rule": e.rule,
                "charged": e.charged,
                "cost": e.cost,
                "words": dict(e.words),
            }
            for e in catalogue_for(pulka.conventions).values()
        ],
    }
