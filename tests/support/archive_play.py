"""Playing whole deals at a live table through the command service (archive tests)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Member
from app.realtime.engine import legal_json
from app.realtime.store import StateCache, rebuild
from app.services.pulkas import close_pulka
from app.services.table_commands import execute
from app.services.tables import create_table


class SameSession:
    """A session factory that always hands out one session (the test's rolled-back one)."""

    def __init__(self, db: AsyncSession) -> None:
        self.db = db

    def __call__(self) -> SameSession:
        return self

    async def __aenter__(self) -> AsyncSession:
        return self.db

    async def __aexit__(self, *exc: object) -> None:
        return None


def choose(options: list[dict[str, Any]], contract: str = "6S") -> dict[str, Any]:
    """Forehand opens ``contract``, the others pass; the first defender whists, so the deal is
    played out trick by trick."""
    plain = [
        o
        for o in options
        if o["type"] not in ("concede", "return_talon", "claim", "propose_result")
    ]
    options = plain or options
    kinds = {o["type"] for o in options}
    if "bid" in kinds:
        calls = [o for o in options if o["type"] == "bid"]
        return next((o for o in calls if o["call"] == contract), None) or next(
            o for o in calls if o["call"] == "pass"
        )
    if "name_contract" in kinds:
        named = [o for o in options if o["type"] == "name_contract"]
        return next((o for o in named if o.get("contract") == contract), named[0])
    if "defend" in kinds:
        defend = [o for o in options if o["type"] == "defend"]
        return next((o for o in defend if o["call"] == "whist"), defend[0])
    return options[0]


async def play_deal(
    db: AsyncSession,
    table_id: int,
    member_ids: list[int],
    now: datetime,
    chooser: Callable[[list[dict[str, Any]]], dict[str, Any]] = choose,
    stop: Callable[[Any], Awaitable[bool]] | None = None,
    prefix: str = "a",
) -> int:
    """Play the table's current deal to its end (or until ``stop`` says so); returns the deal's
    number. Command ids start with ``prefix``: a second call for the same deal needs another."""
    factory: Any = SameSession(db)
    # As a server's hub keeps it: each command starts from the state the one before committed,
    # not from the table's events folded again (forty times a deal, and as often in this loop).
    cache = StateCache()
    state = await rebuild(db, table_id)
    assert state is not None and state.deal is not None
    deal_no = state.deal_no
    for step in range(200):
        state = cache.latest(table_id) or await rebuild(db, table_id)
        assert state is not None
        if state.deal_no != deal_no or state.deal is None or state.deal.finished:
            return deal_no
        if stop is not None and await stop(state):
            return deal_no
        seat = state.deal.to_move
        command = {"id": f"{prefix}{deal_no}-{step}", **chooser(legal_json(state.deal, seat))}
        await execute(
            factory,
            cache,
            table_id=table_id,
            member_id=member_ids[seat],
            seat=seat,
            name=f"seat {seat}",
            command=command,
            now=now,
        )
    raise AssertionError("the deal did not end")


async def finished_pulka(
    db: AsyncSession,
    seated: list[Member],
    clock: FrozenClock,
    contracts: list[str],
    practice: bool = False,
) -> int:
    """A finished pulka (its table's id): one deal per contract (forehand bids it,
    ``misere``, or nobody bids anything, a pass-out), then closed by agreement."""
    table = await create_table(
        db,
        seat_member_ids=[m.id for m in seated],
        practice=practice,
        target=20,
        first_dealer=0,
        now=clock.now(),
    )
    for contract in contracts:
        await play_deal(
            db,
            table.id,
            [m.id for m in seated],
            clock.now(),
            chooser=partial(choose, contract=contract),
        )
    await close_pulka(db, table.id, "agreement", clock.now())
    return table.id
