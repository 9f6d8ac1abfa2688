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

from sqlalchemy import select
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


class ArchiveError(LookupError):
    """Something the archive cannot show; ``status`` is the HTTP status that says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# -- reading ------------------------------------------------------------------------------------


async def _events(db: AsyncSession, table_id: int,
                  kinds: Sequence[str] | None = None) -> list[TableEvent]:
    query = select(TableEvent).where(TableEvent.table_id == table_id)
    if kinds is not None:
        query = query.where(TableEvent.kind.in_(kinds))
    return list((await db.scalars(query.order_by(TableEvent.seq))).all())


async def _finished(db: AsyncSession, pulka_id: int) -> tuple[PulkaRow, Table]:
    row = await db.get(PulkaRow, pulka_id)
    table = await db.get(Table, row.table_id) if row is not None else None
    if row is None or table is None:
        raise ArchiveError(404, f"there is no pulka {pulka_id}")
    if row.status != "finished":
        raise ArchiveError(409, f"pulka {pulka_id} is still being played; the archive shows "
                                "finished pulkas only")
    return row, table


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _players(events: Sequence[TableEvent]) -> tuple[list[str], list[int | None]]:
    """The names and member ids of the seats as they last stood in the log."""
    names: list[str] = []
    ids: list[int | None] = []
    for e in events:
        if e.kind in SEATING_KINDS and "names" in e.payload:
            names = list(e.payload["names"])
            ids = list(e.payload.get("member_ids") or ids)
    return names, ids


def _summary(row: PulkaRow, table: Table, names: list[str],
             member_ids: list[int | None]) -> dict[str, Any]:
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
    both)."""
    query = (select(PulkaRow, Table).join(Table, Table.id == PulkaRow.table_id)
             .where(PulkaRow.status == "finished"))
    if practice is not None:
        query = query.where(Table.practice.is_(practice))
    query = query.order_by(PulkaRow.finished_at.desc().nulls_last(), PulkaRow.id.desc())
    rows = (await db.execute(query.limit(limit))).all()
    out = []
    for row, table in rows:
        last = await db.scalar(
            select(TableEvent).where(TableEvent.table_id == table.id,
                                     TableEvent.kind.in_(SEATING_KINDS))
            .order_by(TableEvent.seq.desc()).limit(1))
        names, ids = _players([last] if last is not None else [])
        out.append(_summary(row, table, names, ids))
    return out


def _deal_list(events: Sequence[TableEvent]) -> list[dict[str, Any]]:
    return [{"deal_no": e.payload["deal_no"], "outcome": e.payload["outcome"],
             "entries": e.payload["entries"]} for e in events if e.kind == "deal_ended"]


async def pulka_detail(db: AsyncSession, pulka_id: int) -> dict[str, Any]:
    """A finished pulka: summary, sheet with running totals, record and its deals."""
    row, table = await _finished(db, pulka_id)
    events = await _events(db, table.id, SUMMARY_KINDS)
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
    row = await db.get(PulkaRow, pulka_id)
    table = await db.get(Table, row.table_id) if row is not None else None
    if row is None or table is None:
        raise ArchiveError(404, f"there is no pulka {pulka_id}")
    start: Mapping[str, Any] | None = None
    actions: list[Mapping[str, Any]] = []
    ended: Mapping[str, Any] | None = None
    for e in await _events(db, table.id):
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
                                    "abandoned): only finished deals are shown (R-W8)")
        raise ArchiveError(404, f"pulka {pulka_id} has no finished deal {deal_no}")
    pulka = Pulka.from_json(start["pulka"])
    config = DealConfig(players=start["players"], dealer=start["dealer"],
                        conventions=pulka.conventions, min_level=start["min_level"])
    parsed = [action_from_json({**a["action"], "seat": a["seat"]}) for a in actions]
    state, events = replay(config, start["deck"], bytes.fromhex(start["salt"]), parsed)
    if not state.finished:  # the log says it ended: the engine must agree
        raise ArchiveError(409, f"deal {deal_no} does not replay to its end")
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
    query = (select(PulkaRow, Table).join(Table, Table.id == PulkaRow.table_id)
             .where(PulkaRow.status == "finished", Table.practice.is_(False))
             .order_by(PulkaRow.finished_at.asc().nulls_first(), PulkaRow.id))
    stats: dict[int, MemberStats] = {}

    def of(mid: int) -> MemberStats:
        return stats.setdefault(mid, MemberStats(mid))

    for row, table in (await db.execute(query)).all():
        ids: list[int | None] = []
        names: list[str] = []
        # Only the fields needed, not whole payloads (each deal_started carries the pulka).
        facts = await db.execute(
            select(TableEvent.kind, TableEvent.payload["member_ids"], TableEvent.payload["names"],
                   TableEvent.payload["outcome"])
            .where(TableEvent.table_id == table.id, TableEvent.kind.in_(SUMMARY_KINDS))
            .order_by(TableEvent.seq))
        for kind, seated, seat_names, outcome in facts.all():
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
                "pulka_id": row.id, "date": _when(row.finished_at or table.created_at),
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
