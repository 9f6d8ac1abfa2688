"""The archive over HTTP: finished pulkas, their sheets and deals, deal replays, statistics.

``GET /api/pulkas``                    finished pulkas, newest first (``?practice=false`` default,
                                       ``&limit=`` ≤ 500, ``&before=<id>`` the next page)
``GET /api/pulkas/{id}``               one finished pulka: sheet, running totals, record, deals
``GET /api/pulkas/{id}/deals/{n}``     a finished deal replayed by the engine, with its R-D4 reveal
``GET /api/pulkas/{id}/deals/{n}/analysis``  the deal's double-dummy analysis (docs/analysis.md)
``GET /api/stats``                     every member's statistics over club pulkas
``GET /api/members/{id}/stats``        one member's statistics and his result per pulka
``GET /api/members/{id}/profile``      the member's page: pulkas, rating over time, costliest
                                       deals, head to head (app.services.member_profile)
``GET /api/archive/chain``             the club's chain of deals, one ``deal-chain/1`` file

Every endpoint needs a logged-in member (401 otherwise); they only read.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse

from app.api.app_state import app_state
from app.api.deps import CurrentMember, SessionDep
from app.api.error_answers import CodedHTTPException, service_errors
from app.api.schemas import ERRORS, ErrorOut, IdPath
from app.services import analysis_cache, archive, member_profile
from app.services.deal_chain_file import chain_document, gzipped
from app.workers import WorkerPool

MAX_PAGE = 500
"""The most pulkas one page of the list may hold."""
BUSY_RETRY_AFTER = 5
"""Seconds a 503 ``busy`` analysis answer asks the client to wait."""


router = APIRouter(prefix="/api", tags=["archive"], responses=ERRORS)


def _analysis_pool(request: Request) -> WorkerPool:
    """The app's analysis pool (made with the app; its workers start with the first job)."""
    return app_state(request.app).analysis_pool


def _fail(exc: archive.ArchiveError) -> HTTPException:
    """The archive's refusal with its stable ``code`` (``deal_not_over`` for R-W8)."""
    return CodedHTTPException(exc.status, exc.message, exc.code)


@router.get("/pulkas")
async def pulkas(
    member: CurrentMember,
    db: SessionDep,
    practice: Annotated[bool | None, Query()] = False,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = archive.LIST_LIMIT,
    before: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> list[dict[str, Any]]:
    """Finished pulkas, newest first: club pulkas (default), ``practice=true`` practice ones;
    ``limit`` of them (200 unless asked), and with ``before=<id>`` the page that follows pulka
    ``id`` (keyset paging: pass the last id of the page you have; 404 if it is not a finished
    pulka)."""
    try:
        return await archive.list_pulkas(db, practice=practice, limit=limit, before=before)
    except archive.ArchiveError as exc:
        raise _fail(exc) from None


@router.get("/pulkas/{pulka_id}")
async def pulka(pulka_id: IdPath, member: CurrentMember, db: SessionDep) -> dict[str, Any]:
    """A finished pulka: players, settlement, sheet with running totals, ``pulka/1`` record and
    its deals (outcome and sheet entries of each)."""
    try:
        return await archive.pulka_detail(db, pulka_id)
    except archive.ArchiveError as exc:
        raise _fail(exc) from None


@router.get("/pulkas/{pulka_id}/deals/{deal_no}")
async def deal(
    pulka_id: IdPath, deal_no: IdPath, member: CurrentMember, db: SessionDep
) -> dict[str, Any]:
    """A finished deal: hands as dealt, talon, discard, auction, defence, every trick with its
    winner, outcome, entries and the deck reveal with ``verified`` (R-D4). A deal that has not
    ended is refused (409, R-W8)."""
    try:
        return await archive.deal_replay(db, pulka_id, deal_no)
    except archive.ArchiveError as exc:
        raise _fail(exc) from None


@router.get(
    "/pulkas/{pulka_id}/deals/{deal_no}/analysis",
    responses={
        503: {"model": ErrorOut, "description": "busy analysing other deals; see Retry-After"}
    },
)
async def deal_analysis(
    pulka_id: IdPath, deal_no: IdPath, member: CurrentMember, db: SessionDep, request: Request
) -> dict[str, Any]:
    """A finished deal's double-dummy analysis (docs/analysis.md): makeable tricks per
    declarer and strain, misère catches, the played contract, the best discard, pass-out
    minimums and the cards that cost tricks. Computed on the first request (seconds) and
    cached. A deal that has not ended is refused (409, R-W8); 503 ``busy`` when the server is
    already analysing other deals (nothing started: try again)."""
    try:
        replay = await archive.deal_replay(db, pulka_id, deal_no)
    except archive.ArchiveError as exc:
        raise _fail(exc) from None
    await db.rollback()  # end the read transaction before the long computation
    try:
        result = await analysis_cache.deal_analysis(
            db, _analysis_pool(request), replay["table_id"], deal_no, replay
        )
    except analysis_cache.AnalysisBusy:
        raise CodedHTTPException(
            503,
            "the server is busy analysing other deals; nothing was started — try again in a moment",
            "busy",
            {"Retry-After": str(BUSY_RETRY_AFTER)},
        ) from None
    return {"pulka_id": pulka_id, "table_id": replay["table_id"], "deal_no": deal_no, **result}


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


@router.get("/members/{member_id}/profile", response_class=JSONResponse)
async def profile(member_id: IdPath, member: CurrentMember, db: SessionDep) -> JSONResponse:
    """The member's page (any member): his club pulkas, his rating after each rated pulka,
    his costliest deals and his figures against each member he has played; 404
    ``not_found`` for no such member. The service's answer is plain JSON already, so it is
    sent as it is: FastAPI's generic encoder took 23 ms over a page of 500 pulkas."""
    with service_errors():
        return JSONResponse(await member_profile.profile(db, member_id))


@router.get(
    "/archive/chain",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"application/json": {}},
            "description": "the deal-chain/1 document (docs/chain.md)",
        }
    },
)
async def deal_chain(member: CurrentMember, request: Request) -> StreamingResponse:
    """The club's chain of deals as one ``deal-chain/1`` file (docs/chain.md): every deal's
    commitment and the hashes that link it to the deal before, and for each deal that has
    ended its deck order and salt, so anyone can re-check the whole chain. Streamed page by
    page, each page read in its own short transaction; gzip-compressed when the client accepts
    it."""
    body = chain_document(request.app.state.sessionmaker)
    headers = {
        "Content-Disposition": 'attachment; filename="deal-chain.json"',
        "Cache-Control": "no-store",
        "Vary": "Accept-Encoding",
    }
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        body = gzipped(body)
        headers["Content-Encoding"] = "gzip"
    return StreamingResponse(body, media_type="application/json", headers=headers)
