"""The archive members browse between sessions: finished pulkas, deal-by-deal replays, statistics.

Everything here is read-only and built from what is stored: the ``pulkas`` rows (sheet, record,
settlement) and each table's ``table_events`` log. A deal's replay is the engine's own replay of
the deal's actions (:func:`app.rules.replay`), so it equals the live deal; it is given only for
deals whose ``deal_ended`` event is written (R-W8: after a deal ends everything is visible; while
it runs, never), and it carries the R-D4 reveal with the engine's verdict (:func:`verify_deal`).

Statistics count club pulkas only: practice tables never count. The list and the statistics
read the rows tallied once when each pulka finished (``pulka_stats``, ``pulka_member_stats``:
:mod:`app.services.pulka_stats`), never the logs; a pulka and a deal read one table's events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from app.db.models.archive import MemberStats as MemberTotals
from app.db.models.archive import PulkaMemberStats, PulkaStats
from app.db.models.member import Member
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table, TableEvent
from app.realtime.formats import StoredFormatError, check_deal
from app.rules import (
    SEATING_KINDS,
    Conventions,
    DealConfig,
    DealReveal,
    Pulka,
    action_from_json,
    deal_reveal,
    event_to_json,
    outcome,
    outcome_to_json,
    playing_seats,
    replay,
    sheet_lines,
    verify_deal,
    view,
)
from app.services.pulka_stats import COUNTS, TOTALS

SUMMARY_KINDS = (*SEATING_KINDS, "deal_ended")
"""The events the archive's summaries read; the partial index ``ix_table_events_archive``
(migration 0009) holds exactly these, so a pulka's ~50 of them are found without its ~900
``action`` events."""
FACT_FIELDS = ("names", "member_ids", "deal_no", "outcome", "entries")


DEAL_NOT_OVER = "deal_not_over"
"""The ``code`` of a refused deal that has not ended (being played, or abandoned): R-W8."""
PULKA_NOT_OVER = "pulka_not_over"
"""The ``code`` of a refused pulka summary while the pulka is still being played."""
REPLAY_MISMATCH = "replay_mismatch"
"""The ``code`` of a stored deal whose replay by this code does not give its stored result."""


class ArchiveError(LookupError):
    """Something the archive cannot show; ``status`` is the HTTP status that says why and
    ``code`` the stable machine reason (``not_found`` unless told)."""

    def __init__(self, status: int, message: str, code: str = "not_found") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


# -- reading ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    """A stored event reduced to the payload fields the archive's summaries read (``FACT_FIELDS``):
    fetching those with ``payload -> 'field'`` keeps the big ones (the pulka in every
    ``deal_started`` and ``deal_ended``) out of the result and out of Python's JSON parser."""

    seq: int
    kind: str
    payload: dict[str, Any]


async def _facts(db: AsyncSession, table_id: int) -> list[Fact]:
    """The summary events of one table (``SUMMARY_KINDS``), oldest first, as :class:`Fact` s."""
    rows = await db.execute(
        select(TableEvent.seq, TableEvent.kind, *(TableEvent.payload[name] for name in FACT_FIELDS))
        .where(TableEvent.table_id == table_id, TableEvent.kind.in_(SUMMARY_KINDS))
        .order_by(TableEvent.seq)
    )
    return [
        Fact(seq, kind, {k: v for k, v in zip(FACT_FIELDS, values, strict=True) if v is not None})
        for seq, kind, *values in rows.all()
    ]


async def _finished(
    db: AsyncSession, pulka_id: int
) -> tuple[PulkaRow, Table, list[dict[str, Any]] | None]:
    """The finished pulka (without its ``state``), its table and its sheet's running totals
    as stored when it finished, in one query."""
    found = (
        await db.execute(
            select(PulkaRow, Table, PulkaStats.lines)
            .join(Table, Table.id == PulkaRow.table_id)
            .outerjoin(PulkaStats, PulkaStats.pulka_id == PulkaRow.id)
            .where(PulkaRow.id == pulka_id)
            .options(defer(PulkaRow.state))
        )
    ).first()
    if found is None:
        raise ArchiveError(404, f"there is no pulka {pulka_id}")
    row, table, lines = found
    if row.status != "finished":
        raise ArchiveError(
            409,
            f"pulka {pulka_id} is still being played; the archive shows finished pulkas only",
            PULKA_NOT_OVER,
        )
    return row, table, lines


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _players(events: Sequence[TableEvent | Fact]) -> tuple[list[str], list[int | None]]:
    """The names and member ids of the seats as they last stood in the log."""
    names: list[str] = []
    ids: list[int | None] = []
    for e in events:
        if e.kind in SEATING_KINDS and "names" in e.payload:
            names = list(e.payload["names"])
            ids = list(e.payload.get("member_ids") or ids)
    return names, ids


def _summary(
    row: Any, table: Any, names: list[str], member_ids: list[int | None]
) -> dict[str, Any]:
    """A pulka's summary from its row and its table's (the ORM rows, or any objects with the
    same attributes: the list reads only the columns it shows)."""
    return {
        "id": row.id,
        "table_id": table.id,
        "practice": table.practice,
        "club_session_id": table.club_session_id,
        "preset": table.preset,
        "players": table.players,
        "target": table.target,
        "stake": str(table.stake),
        "names": names,
        "member_ids": member_ids,
        "deals": row.deals,
        "ended": row.ended,
        "started_at": _when(table.created_at),
        "finished_at": _when(row.finished_at),
        "settlement": row.settlement,
    }


LIST_LIMIT = 200
"""Pulkas in one page of the list unless the client asks for fewer (or more, up to 500)."""


async def list_pulkas(
    db: AsyncSession,
    *,
    practice: bool | None = False,
    limit: int = LIST_LIMIT,
    before: int | None = None,
) -> list[dict[str, Any]]:
    """Finished pulkas, newest first (``practice``: False club only, True practice only, None
    both); ``before``: only those listed after pulka ``before`` (keyset paging: the next page
    starts after the last pulka of this one).

    One query on ``pulka_stats`` (index ``ix_pulka_stats_list``, or ``ix_pulka_stats_all``
    when both kinds are listed) joined to the pulka and table rows by primary key, reading only
    the columns the summary shows; a second small one first finds ``before``'s sort key.
    Raises :class:`ArchiveError` 404 when ``before`` is not a finished pulka."""
    query = (
        select(
            PulkaRow.id,
            PulkaRow.deals,
            PulkaRow.ended,
            PulkaRow.finished_at,
            PulkaRow.settlement,
            Table.id.label("table_id"),
            Table.practice,
            Table.club_session_id,
            Table.preset,
            Table.players,
            Table.target,
            Table.stake,
            Table.created_at,
            PulkaStats.names,
            PulkaStats.member_ids,
        )
        .select_from(PulkaStats)
        .join(PulkaRow, PulkaRow.id == PulkaStats.pulka_id)
        .join(Table, Table.id == PulkaStats.table_id)
    )
    if practice is not None:
        query = query.where(PulkaStats.practice.is_(practice))
    if before is not None:
        after = (
            await db.execute(
                select(PulkaStats.finished_at, PulkaStats.pulka_id).where(
                    PulkaStats.pulka_id == before
                )
            )
        ).first()
        if after is None:
            raise ArchiveError(404, f"there is no finished pulka {before}")
        query = query.where(
            tuple_(PulkaStats.finished_at, PulkaStats.pulka_id)
            < tuple_(after.finished_at, after.pulka_id)
        )
    query = query.order_by(PulkaStats.finished_at.desc(), PulkaStats.pulka_id.desc())
    out = []
    for r in (await db.execute(query.limit(limit))).all():
        row = _Columns(
            id=r.id,
            deals=r.deals,
            ended=r.ended,
            finished_at=r.finished_at,
            settlement=r.settlement,
        )
        table = _Columns(
            id=r.table_id,
            practice=r.practice,
            club_session_id=r.club_session_id,
            preset=r.preset,
            players=r.players,
            target=r.target,
            stake=r.stake,
            created_at=r.created_at,
        )
        out.append(_summary(row, table, list(r.names), list(r.member_ids)))
    return out


class _Columns:
    """Selected columns under their attribute names (what :func:`_summary` reads)."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)

    def __getattr__(self, name: str) -> Any:  # only for names not given: a typo, not data
        raise AttributeError(name)


def _deal_list(events: Sequence[TableEvent | Fact]) -> list[dict[str, Any]]:
    return [
        {
            "deal_no": e.payload["deal_no"],
            "outcome": e.payload["outcome"],
            "entries": e.payload["entries"],
        }
        for e in events
        if e.kind == "deal_ended"
    ]


async def pulka_detail(db: AsyncSession, pulka_id: int) -> dict[str, Any]:
    """A finished pulka: summary, sheet with running totals, record and its deals.

    Two queries: the pulka with its table and stored running totals, then its table's
    summary events (index ``ix_table_events_archive``). Only a pulka finished without its
    archive rows has its deals scored again (from ``state``) for the running totals."""
    row, table, lines = await _finished(db, pulka_id)
    events = await _facts(db, table.id)
    names, ids = _players(events)
    sheet = row.sheet
    if lines is None or sheet is None:
        pulka = Pulka.from_json(
            await db.scalar(select(PulkaRow.state).where(PulkaRow.id == pulka_id)) or {}
        )
        lines = sheet_lines(pulka.entries)
        sheet = sheet if sheet is not None else pulka.sheet.to_json()
    return {
        **_summary(row, table, names, ids),
        "sheet": sheet,
        "lines": lines,
        "record": row.record,
        "deal_list": _deal_list(events),
    }


# -- one deal -----------------------------------------------------------------------------------


async def _deal_events(
    db: AsyncSession, table_id: int, deal_no: int, seqs: list[int] | None = None
) -> Sequence[Any]:
    """The events :func:`deal_replay` needs: from the ``deal_started`` of finished deal
    ``deal_no`` to its ``deal_ended``. A finished pulka's ``pulka_stats`` row says where they
    lie (``seqs``); otherwise they are found among the summary events, read lean, and when the
    deal did not end those summary events are returned (enough to tell 404 from 409)."""
    if seqs is not None:
        return await _events_between(db, table_id, seqs[0], seqs[1])
    facts = await _facts(db, table_id)
    start: Fact | None = None
    for f in facts:
        if f.kind == "deal_started":
            start = f
        elif f.kind == "player_joined":
            start = None
        elif (
            f.kind == "deal_ended"
            and start is not None
            and f.payload["deal_no"] == deal_no == start.payload["deal_no"]
        ):
            return await _events_between(db, table_id, start.seq, f.seq)
    return facts


async def _events_between(db: AsyncSession, table_id: int, first: int, last: int) -> Sequence[Any]:
    return list(
        (
            await db.execute(
                select(TableEvent.seq, TableEvent.kind, TableEvent.payload)
                .where(TableEvent.table_id == table_id, TableEvent.seq.between(first, last))
                .order_by(TableEvent.seq)
            )
        ).all()
    )


def _reveal_of(data: Mapping[str, Any]) -> DealReveal:
    return DealReveal(
        commitment=data["commitment"],
        deck=tuple(data["deck"]),
        salt=data["salt"],
        cut=data["cut"],
        players=data["players"],
        dealer=data["dealer"],
        hands=tuple(tuple(h) for h in data["hands"]),
        talon=(data["talon"][0], data["talon"][1]),
    )


async def deal_replay(db: AsyncSession, pulka_id: int, deal_no: int) -> dict[str, Any]:
    """The finished deal ``deal_no`` of a pulka, everything shown, replayed by the engine.

    Raises :class:`ArchiveError`: 404 (no such pulka or deal), 409 (the deal never ended).
    """
    found = (
        await db.execute(
            select(
                PulkaRow.id,
                PulkaRow.deals,
                PulkaRow.status,
                Table.id.label("table_id"),
                Table.practice,
                PulkaStats.deal_seqs[str(deal_no)].label("seqs"),
            )
            .join(Table, Table.id == PulkaRow.table_id)
            .outerjoin(PulkaStats, PulkaStats.pulka_id == PulkaRow.id)
            .where(PulkaRow.id == pulka_id)
        )
    ).first()
    if found is None:
        raise ArchiveError(404, f"there is no pulka {pulka_id}")
    row = _Columns(id=found.id, deals=found.deals, status=found.status)
    table = _Columns(id=found.table_id, practice=found.practice)
    start: Mapping[str, Any] | None = None
    actions: list[Mapping[str, Any]] = []
    ended: Mapping[str, Any] | None = None
    seqs = [0, 0]
    for e in await _deal_events(db, table.id, deal_no, found.seqs):
        if e.kind == "deal_started":
            start, actions, seqs[0] = e.payload, [], e.seq
        elif e.kind == "player_joined":
            start, actions = None, []
        elif e.kind == "action" and start is not None:
            actions.append(e.payload)
        elif (
            e.kind == "deal_ended"
            and start is not None
            and e.payload["deal_no"] == deal_no == start["deal_no"]
        ):
            ended, seqs[1] = e.payload, e.seq
            break
    if ended is None or start is None:
        if start is not None and start["deal_no"] == deal_no:
            raise ArchiveError(
                409,
                f"deal {deal_no} has not ended (it is being played or was "
                "abandoned): only finished deals are shown (R-W8)",
                DEAL_NOT_OVER,
            )
        raise ArchiveError(404, f"pulka {pulka_id} has no finished deal {deal_no}")
    try:
        check_deal(start, table_id=table.id, seq=seqs[0], kind="deal_started")
        check_deal(ended, table_id=table.id, seq=seqs[1], kind="deal_ended")
    except StoredFormatError as exc:
        raise ArchiveError(
            409, f"pulka {pulka_id}, deal {deal_no}: {exc.message}", exc.code
        ) from None
    conventions = Conventions.from_mapping(start["pulka"]["conventions"])
    config = DealConfig(
        players=start["players"],
        dealer=start["dealer"],
        conventions=conventions,
        min_level=start["min_level"],
    )
    parsed = [action_from_json({**a["action"], "seat": a["seat"]}) for a in actions]
    state, events = replay(config, start["deck"], bytes.fromhex(start["salt"]), parsed)
    if not state.finished:  # the log says it ended: the engine must agree
        raise ArchiveError(409, f"deal {deal_no} does not replay to its end", "conflict")
    result = outcome(state)
    if result is None or outcome_to_json(result) != ended["outcome"]:
        # Never a silent difference: the deal was stored under rules this code reads otherwise.
        raise ArchiveError(
            409,
            f"pulka {pulka_id}, deal {deal_no}: the replay does not give the stored result",
            REPLAY_MISMATCH,
        )
    shown = view(state, None)
    public = [event_to_json(ev) for ev in events]
    tricks = [
        {"no": ev["trick"], "winner": ev["seat"], "cards": ev["cards"]}
        for ev in public
        if ev["type"] == "trick_taken"
    ]
    reveal = deal_reveal(state)
    return {
        "pulka_id": row.id,
        "table_id": table.id,
        "practice": table.practice,
        "deal_no": deal_no,
        "deals": row.deals,
        "pulka_status": row.status,
        "players": start["players"],
        "names": list(start["names"]),
        "dealer": start["dealer"],
        "forehand": shown["forehand"],
        "active": list(playing_seats(start["players"], start["dealer"])),
        "min_level": start["min_level"],
        "dealt": shown["dealt"],
        "talon": shown["talon"],
        "discard": shown["discard"],
        "auction": shown["auction"],
        "declarer": shown["declarer"],
        "contract": shown["contract"],
        "defence": shown["defence"],
        "whisters": shown["whisters"],
        "play_mode": shown["play_mode"],
        "kind": shown["kind"],
        "end": shown["end"],
        "tricks": tricks,
        "tricks_taken": shown["tricks"],
        "outcome": ended["outcome"],
        "entries": ended["entries"],
        "sheet": ended["sheet"],
        "actions": [
            {"seat": a["seat"], "action": a["action"], "auto": bool(a.get("auto"))} for a in actions
        ],
        "events": public,
        "reveal": reveal,
        "verified": verify_deal(_reveal_of(reveal), conventions.cut_min),
    }


# -- statistics ---------------------------------------------------------------------------------


@dataclass
class MemberStats:
    member_id: int
    name: str = ""
    pulkas: int = 0
    deals: int = 0
    declared: int = 0
    made: int = 0
    failed: int = 0
    miseres: int = 0
    miseres_made: int = 0
    whists: Decimal = Decimal(0)
    money: Decimal = Decimal(0)
    series: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self, with_series: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "member_id": self.member_id,
            "name": self.name,
            "pulkas": self.pulkas,
            "deals": self.deals,
            "declared": self.declared,
            "made": self.made,
            "failed": self.failed,
            "miseres": self.miseres,
            "miseres_made": self.miseres_made,
            "whists": _num(self.whists),
            "money": f"{self.money:.2f}",
            "average_whists": _num(self.whists / self.pulkas) if self.pulkas else 0,
            "average_money": f"{self.money / self.pulkas:.2f}" if self.pulkas else "0.00",
        }
        if with_series:
            out["series"] = self.series
        return out


def _num(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else round(float(value), 2)


async def club_stats(db: AsyncSession, member_id: int | None = None) -> list[MemberStats]:
    """Per member over finished club pulkas, best whists first; with ``member_id``, only his,
    with his result per pulka (oldest first).

    Reads what was tallied when each pulka finished: for everyone, the members' totals
    (``member_stats``, one row each); for one member, his rows per pulka
    (``pulka_member_stats``, index ``ix_pulka_member_stats_member``). A member's name is his
    current display name (the name he sat under when he has no member row)."""
    line = PulkaMemberStats
    club = line.practice.is_(False)
    if member_id is None:
        stats: dict[int, MemberStats] = {}
        for totals, name in (
            await db.execute(
                select(MemberTotals, Member.display_name).outerjoin(
                    Member, Member.id == MemberTotals.member_id
                )
            )
        ).all():
            one = MemberStats(totals.member_id, name or "")
            for c in TOTALS:
                setattr(one, c, getattr(totals, c))
            stats[one.member_id] = one
        unnamed = [s.member_id for s in stats.values() if not s.name]
        if unnamed:
            for mid, seat_name in await _seat_names(db, unnamed):
                stats[mid].name = seat_name
        return sorted(stats.values(), key=lambda s: (-s.whists, s.name))
    one = MemberStats(member_id)
    rows = (
        await db.execute(
            select(
                line.pulka_id,
                line.finished_at,
                line.started_at,
                line.seat,
                line.name,
                line.whists,
                line.money,
                *(getattr(line, c) for c in COUNTS),
            )
            .where(club, line.member_id == member_id)
            .order_by(line.finished_at.asc().nulls_first(), line.pulka_id)
        )
    ).all()
    for i, c in enumerate(COUNTS, start=7):
        setattr(one, c, sum(r[i] for r in rows))
    whists, money, series = Decimal(0), Decimal(0), one.series
    for pulka_id, finished_at, started_at, seat, name, w, m, *_ in rows:
        if seat is None:
            continue
        whists += w
        money += m
        series.append(
            {
                "pulka_id": pulka_id,
                "date": _when(finished_at or started_at),
                "whists": _num(w),
                "money": f"{m:.2f}",
                "total_whists": _num(whists),
            }
        )
        if not one.name:
            one.name = name
    one.pulkas, one.whists, one.money = len(series), whists, money
    person = await db.get(Member, member_id)
    if person is not None:
        one.name = person.display_name
    return [one]


async def _seat_names(db: AsyncSession, member_ids: list[int]) -> list[tuple[int, str]]:
    """For members with no member row: the name each first sat under (oldest pulka first)."""
    line = PulkaMemberStats
    rows = await db.execute(
        select(line.member_id, line.name)
        .distinct(line.member_id)
        .where(
            line.practice.is_(False),
            line.member_id.in_(member_ids),
            line.seat.is_not(None),
            line.name != "",
        )
        .order_by(line.member_id, line.finished_at.asc().nulls_first(), line.pulka_id)
    )
    return [(mid, name) for mid, name in rows.all()]
