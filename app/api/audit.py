"""The audit log over HTTP (issue 23): ``GET /api/admin/audit`` (admins: every row) and
``GET /api/fund/audit`` (the treasurer, and admins: the fund's rows, ``fund.*``).

Both list newest first, filtered by an action or dotted prefix of one (``member`` is every
``member.*``), an actor, an exact target (``member:12``) and club dates (``since``/``until``,
both inclusive, in the club's time zone), a page at a time: pass the answer's
``next_before_id`` as ``before_id`` for the next (older) page. Each row carries its hashes, so a
reader can check the links (docs/audit.md).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict
from pydantic.config import JsonDict

from app.api.deps import AdminMember, SessionDep, SettingsDep, TreasurerMember
from app.api.error_answers import CodedHTTPException
from app.api.schemas import ERRORS, INT4_MAX
from app.services import audit

router = APIRouter(prefix="/api", tags=["audit"], responses=ERRORS)

FUND = "fund"
MAX_PAGE = 200

ROW_EXAMPLE: JsonDict = {
    "id": 41,
    "at": "2026-11-30T19:20:00.123456Z",
    "actor_id": 2,
    "actor_name": "Казначей",
    "address": "192.0.2.10",
    "action": "fund.entry",
    "target": "fund_entry:12",
    "before": None,
    "after": {
        "id": 12,
        "kind": "payment",
        "member_id": 7,
        "pulka_id": None,
        "proposal_id": None,
        "amount": "40.00",
        "reason": "paid in after the session",
    },
    "format": 1,
    "prev_hash": "5d41…",
    "hash": "9b2c…",
}


class AuditRowOut(BaseModel):
    """One audit row: who (``actor_id`` null: the server), when, from which address, what
    (``action`` on ``target``), ``before`` → ``after``, and its place in the hash chain."""

    model_config = ConfigDict(json_schema_extra={"examples": [ROW_EXAMPLE]})

    id: int
    at: datetime
    actor_id: int | None
    actor_name: str | None
    address: str | None
    action: str
    target: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    format: int
    prev_hash: str
    hash: str


class AuditPageOut(BaseModel):
    """A page of the log, newest first."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"entries": [ROW_EXAMPLE], "next_before_id": None}]}
    )

    entries: list[AuditRowOut]
    next_before_id: int | None
    """Pass as ``before_id`` for the next (older) page; null on the last page."""


ActionQuery = Annotated[str | None, Query(max_length=64, examples=["member", "fund.vote"])]
ActorQuery = Annotated[int | None, Query(ge=1, le=INT4_MAX)]
TargetQuery = Annotated[str | None, Query(max_length=100, examples=["member:12"])]
DateQuery = Annotated[date | None, Query()]
BeforeQuery = Annotated[int | None, Query(ge=1)]
LimitQuery = Annotated[int, Query(ge=1, le=MAX_PAGE)]


def _filter(
    settings: SettingsDep,
    action: str | None,
    actor_id: int | None,
    target: str | None,
    since: date | None,
    until: date | None,
) -> audit.Filter:
    """The filter, or a 422 ``audit_bad_filter`` (nothing is read)."""
    if action is not None and not audit.ACTION_PREFIX.fullmatch(action):
        raise CodedHTTPException(
            422, "action must be a dotted name such as member or fund.vote", "audit_bad_filter"
        )
    if since is not None and until is not None and until < since:
        raise CodedHTTPException(422, "until is before since", "audit_bad_filter")
    zone = settings.zone
    start = datetime.combine(since, time(0), tzinfo=zone) if since else None
    stop = datetime.combine(until + timedelta(days=1), time(0), tzinfo=zone) if until else None
    return audit.Filter(action=action, actor_id=actor_id, target=target, since=start, until=stop)


async def _page(
    db: SessionDep, where: audit.Filter, before_id: int | None, limit: int
) -> AuditPageOut:
    rows = await audit.entries(db, where, before_id=before_id, limit=limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    return AuditPageOut(
        entries=[AuditRowOut(**audit.entry_json(row, name)) for row, name in rows],
        next_before_id=rows[-1][0].id if more and rows else None,
    )


@router.get("/admin/audit", response_model=AuditPageOut)
async def admin_audit(
    admin: AdminMember,
    db: SessionDep,
    settings: SettingsDep,
    action: ActionQuery = None,
    actor_id: ActorQuery = None,
    target: TargetQuery = None,
    since: DateQuery = None,
    until: DateQuery = None,
    before_id: BeforeQuery = None,
    limit: LimitQuery = 50,
) -> AuditPageOut:
    """Admins: the whole audit log, newest first, filtered and paged (keyset ``before_id``)."""
    where = _filter(settings, action, actor_id, target, since, until)
    return await _page(db, where, before_id, limit)


@router.get("/fund/audit", response_model=AuditPageOut)
async def fund_audit(
    member: TreasurerMember,
    db: SessionDep,
    settings: SettingsDep,
    action: ActionQuery = None,
    actor_id: ActorQuery = None,
    target: TargetQuery = None,
    since: DateQuery = None,
    until: DateQuery = None,
    before_id: BeforeQuery = None,
    limit: LimitQuery = 50,
) -> AuditPageOut:
    """The treasurer (and admins): the fund's part of the audit log (``fund.*``): entries,
    proposals, votes, approvals, rejections and payouts. ``action`` narrows within it; an
    action outside the fund is a 422 ``audit_bad_filter``."""
    if action is not None and action != FUND and not action.startswith(FUND + "."):
        raise CodedHTTPException(422, "the fund's log has only fund.* actions", "audit_bad_filter")
    where = _filter(settings, action or FUND, actor_id, target, since, until)
    return await _page(db, where, before_id, limit)
