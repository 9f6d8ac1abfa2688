"""The archive members browse between sessions: finished pulkas, deal-by-deal replays, statistics.

Everything here is read-only and built from what is stored: the ``pulkas`` rows (sheet, record,
settlement) and each table's ``table_events`` log. A deal's replay is the engine's own replay of
the deal's actions (:func:`app.rules.replay`), so it equals the live deal; it is given only for
deals whose ``deal_ended`` event is written (R-W8: after a deal ends everything is visible; while
it runs, never), and it carries the R-D4 reveal with the engine's verdict (:func:`verify_deal`).

Statistics count club pulkas only: practice tables never count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import select, true
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.member import Member
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table, TableEvent
from app.rules import (
    DealConfig,
    DealReveal,
    Pulka,
    action_from_json,
    deal_reveal,
    event_to_json,
    replay,
    running_totals,
    verify_deal,
    view,
)
from app.rules.deck import playing_seats
from app.rules.sheet import json_number

SEATING_KINDS = ("pulka_started", "deal_started", "player_joined", "player_replaced")
SUMMARY_KINDS = (*SEATING_KINDS, "deal_ended")
"""The events the archive's summaries read; the partial index ``ix_table_events_archive``
(migration 0009) holds exactly these, so a pulka's ~50 of them are found without its ~900
``action`` events."""
SEAT_CHANGE_KINDS = ("pulka_started", "player_joined", "player_replaced")
"""The events that change who sits where. ``deal_started`` repeats the seating it was dealt
with (a copy of the last of these), so statistics skip it: its payload carries the whole pulka
and is the largest a table writes."""
FACT_FIELDS = ("names", "member_ids", "deal_no", "outcome", "entries")


DEAL_NOT_OVER = "deal_not_over"
"""The ``code`` of a refused deal that has not ended (being played, or abandoned): R-W8."""
PULKA_NOT_OVER = "pulka_not_over"
"""The ``code`` of a refused pulka summary while the pulka is still being played."""


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
        select(TableEvent.seq, TableEvent.kind,
               *(TableEvent.payload[name] for name in FACT_FIELDS))
        .where(TableEvent.table_id == table_id, TableEvent.kind.in_(SUMMARY_KINDS))
        .order_by(TableEvent.seq))
    return [Fact(seq, kind, {k: v for k, v in zip(FACT_FIELDS, values, strict=True)
                             if v is not None})
            for seq, kind, *values in rows.all()]


async def _finished(db: AsyncSession, pulka_id: int) -> tuple[PulkaRow, Table]:
    row = await db.get(PulkaRow, pulka_id)
    table = await db.get(Table, row.table_id) if row is not None else None
    if row is None or table is None:
        raise ArchiveError(404, f"there is no pulka {pulka_id}")
    if row.status != "finished":
        raise ArchiveError(409, f"pulka {pulka_id} is still being played; the archive shows "
                                "finished pulkas only", PULKA_NOT_OVER)
    return row, table


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


def _summary(row: Any, table: Any, names: list[str],
             member_ids: list[int | None]) -> dict[str, Any]:
    """A pulka's summary from its row and its table's (the ORM rows, or any objects with the
    same attributes: the list reads only the columns it shows)."""
    return {
        "id": row.id, "table_id": table.id, "practice": table.practice,
        "club_session_id": table.club_session_id, "preset": table.preset,
        "players": table.players, "target": table.target, "stake": str(table.stake),
        "names": names, "member_ids": member_ids, "deals": row.deals, "ended": row.ended,
        "started_at": _when(table.created_at), "finished_at": _when(row.finished_at),
        "settlement": row.settlement,
    }


async def list_pulkas(db: AsyncSession, *, practice: bool | None = False,
                      limit: int = 200) -> list[dict[str, Any]]:
    """Finished pulkas, newest first (``practice``: False club only, True practice only, None
    both).

    One query: the page of pulkas (index ``ix_pulkas_finished``), each with its last seating
    event's names and member ids fetched by a ``LATERAL ... LIMIT 1`` (index
    ``ix_table_events_archive``), and only the columns the summary shows (not the record)."""
    seating = (
        select(TableEvent.payload["names"].label("names"),
               TableEvent.payload["member_ids"].label("member_ids"))
        .where(TableEvent.table_id == Table.id, TableEvent.kind.in_(SEATING_KINDS))
        .order_by(TableEvent.seq.desc()).limit(1).lateral("seating"))
    query = (
        select(PulkaRow.id, PulkaRow.deals, PulkaRow.ended, PulkaRow.finished_at,
               PulkaRow.settlement, Table.id.label("table_id"), Table.practice,
               Table.club_session_id, Table.preset, Table.players, Table.target, Table.stake,
               Table.created_at, seating.c.names, seating.c.member_ids)
        .join(Table, Table.id == PulkaRow.table_id)
        .outerjoin(seating, true())
        .where(PulkaRow.status == "finished"))
    if practice is not None:
        query = query.where(Table.practice.is_(practice))
    query = query.order_by(PulkaRow.finished_at.desc().nulls_last(), PulkaRow.id.desc())
    out = []
    for r in (await db.execute(query.limit(limit))).all():
        row = _Columns(id=r.id, deals=r.deals, ended=r.ended, finished_at=r.finished_at,
                       settlement=r.settlement)
        table = _Columns(id=r.table_id, practice=r.practice, club_session_id=r.club_session_id,
                         preset=r.preset, players=r.players, target=r.target, stake=r.stake,
                         created_at=r.created_at)
        names = list(r.names) if r.names is not None else []
        ids = list(r.member_ids) if r.member_ids is not None else []
        out.append(_summary(row, table, names, ids))
    return out


class _Columns:
    """Selected columns under their attribute names (what :func:`_summary` reads)."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)

    def __getattr__(self, name: str) -> Any:  # only for names not given: a typo, not data
        raise AttributeError(name)


def _deal_list(events: Sequence[TableEvent | Fact]) -> list[dict[str, Any]]:
    return [{"deal_no": e.payload["deal_no"], "outcome": e.payload["outcome"],
             "entries": e.payload["entries"]} for e in events if e.kind == "deal_ended"]


async def pulka_detail(db: AsyncSession, pulka_id: int) -> dict[str, Any]:
    """A finished pulka: summary, sheet with running totals, record and its deals."""
    row, table = await _finished(db, pulka_id)
    events = await _facts(db, table.id)
    names, ids = _players(events)
    pulka = Pulka.from_json(row.state)
    return {
        **_summary(row, table, names, ids),
        "sheet": row.sheet if row.sheet is not None else pulka.sheet.to_json(),
        "lines": [
            {"deal": line.deal, "seat": line.seat, "column": line.column,
             "total": json_number(line.total), "on": line.on}
            for line in running_totals(pulka.entries)
        ],
        "record": row.record,
        "deal_list": _deal_list(events),
    }


# -- one deal -----------------------------------------------------------------------------------


async def _deal_events(db: AsyncSession, table_id: int, deal_no: int) -> Sequence[Any]:
    """The events :func:`deal_replay` needs: from the ``deal_started`` of finished deal
    ``deal_no`` to its ``deal_ended`` when there is one (found among the summary events, read
    lean), otherwise the summary events themselves (enough to tell 404 from 409)."""
    facts = await _facts(db, table_id)
    start: Fact | None = None
    for f in facts:
        if f.kind == "deal_started":
            start = f
        elif f.kind == "player_joined":
            start = None
        elif (f.kind == "deal_ended" and start is not None
              and f.payload["deal_no"] == deal_no == start.payload["deal_no"]):
            return list((await db.scalars(
                select(TableEvent).where(TableEvent.table_id == table_id,
                                         TableEvent.seq.between(start.seq, f.seq))
                .order_by(TableEvent.seq))).all())
    return facts



def _reveal_of(data: Mapping[str, Any]) -> DealReveal:
    return DealReveal(
        commitment=data["commitment"], deck=tuple(data["deck"]), salt=data["salt"],
        cut=data["cut"], players=data["players"], dealer=data["dealer"],
        hands=tuple(tuple(h) for h in data["hands"]), talon=(data["talon"][0], data["talon"][1]),
    )


async def deal_replay(db: AsyncSession, pulka_id: int, deal_no: int) -> dict[str, Any]:
    """The finished deal ``deal_no`` of a pulka, everything shown, replayed by the engine.

    Raises :class:`ArchiveError`: 404 (no such pulka or deal), 409 (the deal never ended).
    """
    found = (await db.execute(
        select(PulkaRow.id, PulkaRow.deals, PulkaRow.status, Table.id.label("table_id"),
               Table.practice)
        .join(Table, Table.id == PulkaRow.table_id).where(PulkaRow.id == pulka_id))).first()
    if found is None:
        raise ArchiveError(404, f"there is no pulka {pulka_id}")
    row = _Columns(id=found.id, deals=found.deals, status=found.status)
    table = _Columns(id=found.table_id, practice=found.practice)
    start: Mapping[str, Any] | None = None
    actions: list[Mapping[str, Any]] = []
    ended: Mapping[str, Any] | None = None
    for e in await _deal_events(db, table.id, deal_no):
        if e.kind == "deal_started":
            start, actions = e.payload, []
        elif e.kind == "player_joined":
            start, actions = None, []
        elif e.kind == "action" and start is not None:
            actions.append(e.payload)
        elif (e.kind == "deal_ended" and start is not None
              and e.payload["deal_no"] == deal_no == start["deal_no"]):
            ended = e.payload
            break
    if ended is None or start is None:
        if start is not None and start["deal_no"] == deal_no:
            raise ArchiveError(409, f"deal {deal_no} has not ended (it is being played or was "
                                    "abandoned): only finished deals are shown (R-W8)",
                               DEAL_NOT_OVER)
        raise ArchiveError(404, f"pulka {pulka_id} has no finished deal {deal_no}")
    pulka = Pulka.from_json(start["pulka"])
    config = DealConfig(players=start["players"], dealer=start["dealer"],
                        conventions=pulka.conventions, min_level=start["min_level"])
    parsed = [action_from_json({**a["action"], "seat": a["seat"]}) for a in actions]
    state, events = replay(config, start["deck"], bytes.fromhex(start["salt"]), parsed)
    if not state.finished:  # the log says it ended: the engine must agree
        raise ArchiveError(409, f"deal {deal_no} does not replay to its end", "conflict")
    shown = view(state, None)
    public = [event_to_json(ev) for ev in events]
    tricks = [{"no": ev["trick"], "winner": ev["seat"], "cards": ev["cards"]}
              for ev in public if ev["type"] == "trick_taken"]
    reveal = deal_reveal(state)
    return {
        "pulka_id": row.id, "table_id": table.id, "practice": table.practice,
        "deal_no": deal_no, "deals": row.deals, "pulka_status": row.status,
        "players": start["players"], "names": list(start["names"]),
        "dealer": start["dealer"], "forehand": shown["forehand"],
        "active": list(playing_seats(start["players"], start["dealer"])),
        "min_level": start["min_level"],
        "dealt": shown["dealt"], "talon": shown["talon"], "discard": shown["discard"],
        "auction": shown["auction"], "declarer": shown["declarer"],
        "contract": shown["contract"], "defence": shown["defence"],
        "whisters": shown["whisters"], "play_mode": shown["play_mode"], "kind": shown["kind"],
        "end": shown["end"], "tricks": tricks, "tricks_taken": shown["tricks"],
        "outcome": ended["outcome"], "entries": ended["entries"], "sheet": ended["sheet"],
        "actions": [{"seat": a["seat"], "action": a["action"], "auto": bool(a.get("auto"))}
                    for a in actions],
        "events": public,
        "reveal": reveal,
        "verified": verify_deal(_reveal_of(reveal), pulka.conventions.cut_min),
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
            "member_id": self.member_id, "name": self.name, "pulkas": self.pulkas,
            "deals": self.deals, "declared": self.declared, "made": self.made,
            "failed": self.failed, "miseres": self.miseres, "miseres_made": self.miseres_made,
            "whists": _num(self.whists), "money": f"{self.money:.2f}",
            "average_whists": _num(self.whists / self.pulkas) if self.pulkas else 0,
            "average_money": f"{self.money / self.pulkas:.2f}" if self.pulkas else "0.00",
        }
        if with_series:
            out["series"] = self.series
        return out


def _num(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else round(float(value), 2)


def _made(outcome: Mapping[str, Any]) -> bool | None:
    """Whether the declarer made his game (None: nobody declared)."""
    kind = outcome.get("type")
    declarer = outcome.get("declarer")
    if declarer is None:
        return None
    tricks = outcome.get("tricks")
    if kind == "misere":
        return tricks is not None and tricks.get(str(declarer), 0) == 0
    if kind == "conceded":
        return False
    contract = str(outcome.get("contract") or "")
    if tricks is None:  # not played: both passed (R-W1) or a half whist — made
        return True
    level = int(contract[:-2] if contract.endswith("NT") else contract[:-1] or 0)
    return int(tricks.get(str(declarer), 0)) >= level


async def club_stats(db: AsyncSession, member_id: int | None = None) -> list[MemberStats]:
    """Per member over finished club pulkas, oldest pulka first in each series."""
    club = (PulkaRow.status == "finished", Table.practice.is_(False))
    pulkas = (await db.execute(
        select(PulkaRow.id, PulkaRow.table_id, PulkaRow.finished_at, PulkaRow.settlement,
               Table.created_at)
        .join(Table, Table.id == PulkaRow.table_id).where(*club)
        .order_by(PulkaRow.finished_at.asc().nulls_first(), PulkaRow.id))).all()
    # One query for the facts of every pulka (not one per pulka), and only the fields needed:
    # each deal_ended's outcome, the seating of each seat change.
    facts: dict[int, list[tuple[Any, ...]]] = {}
    for table_id, *fact in (await db.execute(
            select(TableEvent.table_id, TableEvent.kind, TableEvent.payload["member_ids"],
                   TableEvent.payload["names"], TableEvent.payload["outcome"])
            .join(PulkaRow, PulkaRow.table_id == TableEvent.table_id)
            .join(Table, Table.id == TableEvent.table_id)
            .where(*club, TableEvent.kind.in_((*SEAT_CHANGE_KINDS, "deal_ended")))
            .order_by(TableEvent.table_id, TableEvent.seq))).all():
        facts.setdefault(table_id, []).append(tuple(fact))
    stats: dict[int, MemberStats] = {}

    def of(mid: int) -> MemberStats:
        return stats.setdefault(mid, MemberStats(mid))

    for row in pulkas:
        ids: list[int | None] = []
        names: list[str] = []
        for kind, seated, seat_names, outcome in facts.get(row.table_id, []):
            if kind in SEATING_KINDS and seated is not None:
                ids, names = list(seated), list(seat_names or names)
            if kind != "deal_ended":
                continue
            for seat in playing_seats(len(ids), outcome["dealer"]):
                mid = ids[seat]
                if mid is not None:
                    of(mid).deals += 1
            made = _made(outcome)
            declarer = outcome.get("declarer")
            if made is None or declarer is None or ids[declarer] is None:
                continue
            one = of(ids[declarer])
            if outcome.get("type") == "misere":
                one.miseres += 1
                one.miseres_made += int(made)
            else:
                one.declared += 1
                one.made += int(made)
                one.failed += int(not made)
        settlement = row.settlement or {}
        whists = settlement.get("whists") or []
        money = settlement.get("money") or []
        for seat, mid in enumerate(ids):
            if mid is None:
                continue
            one = of(mid)
            one.pulkas += 1
            w = Decimal(str(whists[seat])) if seat < len(whists) else Decimal(0)
            m = Decimal(str(money[seat])) if seat < len(money) else Decimal(0)
            one.whists += w
            one.money += m
            one.series.append({
                "pulka_id": row.id, "date": _when(row.finished_at or row.created_at),
                "whists": _num(w), "money": f"{m:.2f}", "total_whists": _num(one.whists),
            })
            if not one.name and seat < len(names):
                one.name = names[seat]
    if member_id is not None:
        stats = {member_id: stats.get(member_id, MemberStats(member_id))}
    if stats:
        members = await db.scalars(select(Member).where(Member.id.in_(list(stats))))
        for person in members:
            stats[person.id].name = person.display_name
    return sorted(stats.values(), key=lambda s: (-s.whists, s.name))
