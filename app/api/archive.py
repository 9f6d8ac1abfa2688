"""The archive over HTTP: finished pulkas, their sheets and deals, deal replays, statistics.

``GET /api/pulkas``                    finished pulkas, newest first (``?practice=false`` default)
``GET /api/pulkas/{id}``               one finished pulka: sheet, running totals, record, deals
``GET /api/pulkas/{id}/deals/{n}``     a finished deal replayed by the engine, with its R-D4 reveal
``GET /api/stats``                     every member's statistics over club pulkas
``GET /api/members/{id}/stats``        one member's statistics and his result per pulka

Every endpoint needs a logged-in member (401 otherwise); they only read.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query

from app.api.deps import CurrentMember, SessionDep
from app.api.schemas import ERRORS, IdPath
from app.services import archive

router = APIRouter(prefix="/api", tags=["archive"], responses=ERRORS)


def _fail(exc: archive.ArchiveError) -> HTTPException:
    return HTTPException(exc.status, exc.message)


@router.get("/pulkas")
async def pulkas(member: CurrentMember, db: SessionDep,
                 practice: Annotated[bool | None, Query()] = False) -> list[dict[str, Any]]:
    """Finished pulkas, newest first: club pulkas (default), ``practice=true`` practice ones."""
    return await archive.list_pulkas(db, practice=practice)


@router.get("/pulkas/{pulka_id}")
async def pulka(pulka_id: IdPath, member: CurrentMember, db: SessionDep) -> dict[str, Any]:
    """A finished pulka: players, settlement, sheet with running totals, ``pulka/1`` record and
    its deals (outcome and sheet entries of each)."""
    try:
        return await archive.pulka_detail(db, pulka_id)
    except archive.ArchiveError as exc:
        raise _fail(exc) from None


@router.get("/pulkas/{pulka_id}/deals/{deal_no}")
async def deal(pulka_id: IdPath, deal_no: IdPath, member: CurrentMember,
               db: SessionDep) -> dict[str, Any]:
    """A finished deal: hands as dealt, talon, discard, auction, defence, every trick with its
    winner, outcome, entries and the deck reveal with ``verified`` (R-D4). A deal that has not
    ended is refused (409, R-W8)."""
    try:
        return await archive.deal_replay(db, pulka_id, deal_no)
    except archive.ArchiveError as exc:
        raise _fail(exc) from None


@router.get("/stats")
async def stats(member: CurrentMember, db: SessionDep) -> dict[str, Any]:
    """Per member over finished club pulkas (practice tables never count)."""
    rows = await archive.club_stats(db)
    return {"members": [r.to_json(with_series=False) for r in rows]}


@router.get("/members/{member_id}/stats")
async def member_stats(member_id: IdPath, member: CurrentMember, db: SessionDep) -> dict[str, Any]:
    """One member's statistics and his result per club pulka over time (for the chart)."""
    rows = await archive.club_stats(db, member_id)
    return rows[0].to_json(with_series=True)
