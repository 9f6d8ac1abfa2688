"""``/api/tables/{id}/recording``: a real-cards table's entries over HTTP (RULES.md §10).

The scorer enters each deal as a ``pulka/1`` deal object (docs/pulka-format-notes.md); the other
players hear every entry, correction and dispute at once on the table's socket (the events of
:mod:`app.realtime.recorded`). Refusals are ``{"detail": ..., "code": ...}`` with ``field`` naming
the deal field at fault; a refused request changes nothing (its transaction is rolled back).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import APIRouter, status
from pydantic import BaseModel, Field

from app.api.deps import AddressDep, ClockDep, CurrentMember, SessionDep
from app.api.error_answers import ApiError
from app.api.schemas import Text
from app.services import recording
from app.services.service_errors import ServiceError

router = APIRouter(prefix="/api/tables", tags=["recording"])


class EntryIn(BaseModel):
    deal_no: int = Field(ge=0, description="the 0-based deal this entry is for (the next one)")
    deal: dict[str, Any] = Field(description="a pulka/1 deal; dealer defaults to the rotation's")


class CorrectionIn(BaseModel):
    deal: dict[str, Any]
    seat: int | None = Field(
        default=None,
        ge=0,
        le=3,
        description="whose wrong entry it was (default: the scorer's seat)",
    )


class DisputeIn(BaseModel):
    text: Text = Field(min_length=1, max_length=recording.MAX_DISPUTE_CHARS)


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    except recording.RecordingError as exc:
        detail = str(exc) if exc.field is None else f"{exc.field}: {exc}"
        raise ApiError(exc.status, detail, exc.code, params=exc.params) from exc
    except ServiceError as exc:
        raise ApiError(exc.status, str(exc), exc.code) from exc


@router.get("/{table_id}/recording")
async def view(table_id: int, member: CurrentMember, db: SessionDep) -> dict[str, Any]:
    """The entry form's data: the next deal (its proposed dealer), sheet, entries, catalogue."""
    with _errors():
        return await recording.recording_view(db, table_id)


@router.post("/{table_id}/recording/deals", status_code=status.HTTP_201_CREATED)
async def enter(
    table_id: int,
    body: EntryIn,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    address: AddressDep,
) -> dict[str, Any]:
    """Enter the next deal; checked and scored with the rules of a live deal."""
    with _errors():
        done = await recording.enter_deal(
            db, table_id, member.id, body.deal_no, body.deal, clock.now(), address
        )
    return {"seq": done.seq, "type": done.kind, "data": done.data}


@router.put("/{table_id}/recording/deals/{deal_no}")
async def correct(
    table_id: int,
    deal_no: int,
    body: CorrectionIn,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    address: AddressDep,
) -> dict[str, Any]:
    """Correct the last deal entered, until the next one is (R-P7, R-X11)."""
    with _errors():
        done = await recording.correct_deal(
            db,
            table_id,
            member.id,
            deal_no,
            body.deal,
            clock.now(),
            charged_seat=body.seat,
            address=address,
        )
    return {"seq": done.seq, "type": done.kind, "data": done.data}


@router.post("/{table_id}/recording/deals/{deal_no}/disputes", status_code=status.HTTP_201_CREATED)
async def dispute(
    table_id: int, deal_no: int, body: DisputeIn, member: CurrentMember, db: SessionDep
) -> dict[str, Any]:
    """Dispute an entry: every player sees it on the table's socket."""
    with _errors():
        done = await recording.dispute_deal(db, table_id, member.id, deal_no, body.text)
    return {"seq": done.seq, "type": done.kind, "data": done.data}
