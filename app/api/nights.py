"""The night's results, the print-outs and the screen for the room over HTTP (issue 27).

``GET  /api/nights/{session_id}``              the night's results (app.services.nights)
``POST /api/nights/{session_id}/corrections``  an officer's correction, audited
``GET  /api/nights/{session_id}/pdf``          the night's results as an A4 PDF
``GET  /api/pulkas/{pulka_id}/pdf``            a finished pulka's sheet as an A4 PDF
``GET  /api/room``                             every club table in play as a spectator sees it

Every endpoint needs a logged-in member; a correction needs the treasurer or admin role. The
PDFs are made in the bounded print pool (503 ``busy`` when it is full, nothing started).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from app.api.app_state import app_state
from app.api.deps import (
    AddressDep,
    ClockDep,
    CurrentMember,
    SessionDep,
    SettingsDep,
    TreasurerMember,
)
from app.api.error_answers import CodedHTTPException, service_errors
from app.api.schemas import ERRORS, ErrorOut, Id, IdPath, Text
from app.config import Settings
from app.services import archive, nights, print_pdf, room
from app.services.audit import Actor
from app.workers import PoolBusy, WorkerPool

BUSY_RETRY_AFTER = 5
"""Seconds a 503 ``busy`` print answer asks the client to wait."""


router = APIRouter(prefix="/api", tags=["nights"], responses=ERRORS)


class CorrectionIn(BaseModel):
    """What was corrected in the night's results, and where."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "note": "Стол 2: расчёт пересчитан, долг Иванова исправлен записью кассы",
                    "pulka_id": 41,
                    "fund_entry_id": 310,
                }
            ]
        },
    )

    note: Text = Field(min_length=1, max_length=nights.NOTE_MAX)
    pulka_id: Id | None = None
    fund_entry_id: Id | None = None


def _window(settings: Settings) -> timedelta:
    return timedelta(seconds=settings.night_correction_seconds)


@router.get("/nights/{session_id}")
async def night(
    session_id: IdPath,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    """The night's results: tables, pulkas, settlements (whists and money), the fund's share,
    the deal of the night, its status (``open``, ``provisional``, ``final``) and corrections."""
    with service_errors():
        return await nights.night(db, session_id, clock.now(), _window(settings))


@router.post("/nights/{session_id}/corrections")
async def correct(
    session_id: IdPath,
    body: CorrectionIn,
    member: TreasurerMember,
    db: SessionDep,
    clock: ClockDep,
    settings: SettingsDep,
    address: AddressDep,
) -> dict[str, Any]:
    """Log a correction of the night's results (treasurer or admin); answers the night."""
    with service_errors():
        return await nights.add_correction(
            db,
            session_id,
            note=body.note,
            pulka_id=body.pulka_id,
            fund_entry_id=body.fund_entry_id,
            actor=Actor.of(member, address),
            now=clock.now(),
            window=_window(settings),
        )


def _print_pool(request: Request) -> WorkerPool:
    return app_state(request.app).print_pool


async def _pdf(
    request: Request,
    settings: Settings,
    make: Callable[[Mapping[str, Any], str], bytes],
    data: Mapping[str, Any],
    name: str,
) -> Response:
    if not settings.pdf_font.is_file():
        raise CodedHTTPException(
            503, f"the PDF font {settings.pdf_font} is not installed", "pdf_font_missing"
        )
    try:
        content = await _print_pool(request).run(make, dict(data), str(settings.pdf_font))
    except PoolBusy:
        raise CodedHTTPException(
            503,
            "the server is busy printing; nothing was started — try again in a moment",
            "busy",
            {"Retry-After": str(BUSY_RETRY_AFTER)},
        ) from None
    return Response(
        content,
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{name}.pdf"'},
    )


PDF_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/pdf": {}}, "description": "the A4 PDF"},
    503: {"model": ErrorOut, "description": "busy printing, or the font is missing"},
}


@router.get("/nights/{session_id}/pdf", response_class=Response, responses=PDF_RESPONSES)
async def night_pdf(
    session_id: IdPath,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    settings: SettingsDep,
    request: Request,
) -> Response:
    """The night's results as an A4 PDF (for the club's wall)."""
    with service_errors():
        data = await nights.night(db, session_id, clock.now(), _window(settings))
    await db.rollback()  # end the read transaction before the print job
    return await _pdf(request, settings, print_pdf.night_pdf, data, f"night-{session_id}")


@router.get("/pulkas/{pulka_id}/pdf", response_class=Response, responses=PDF_RESPONSES)
async def pulka_pdf(
    pulka_id: IdPath, member: CurrentMember, db: SessionDep, settings: SettingsDep, request: Request
) -> Response:
    """A finished pulka's sheet as an A4 PDF."""
    try:
        data = await archive.pulka_detail(db, pulka_id)
    except archive.ArchiveError as exc:
        raise CodedHTTPException(exc.status, exc.message, exc.code) from None
    await db.rollback()
    return await _pdf(request, settings, print_pdf.pulka_pdf, data, f"pulka-{pulka_id}")


@router.get("/room")
async def room_screen(
    member: CurrentMember, db: SessionDep, clock: ClockDep, request: Request
) -> dict[str, Any]:
    """Every club table in play, as a spectator sees it (no hidden card), for the room's TV,
    and the current season's standings (all-time without one): the top ten lines."""
    hub = app_state(request.app).hub
    return await room.room(db, clock.now(), hub.cache if hub is not None else None)
