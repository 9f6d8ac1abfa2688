"""The heartbeat is spread over its interval: the tables take turns, each hears once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

from app.clock import FrozenClock
from app.realtime.connection import Connection
from app.realtime.hub import Hub
from app.realtime.table_messages import TableChannel
from tests.support.sockets import Recorder


async def test_tables_take_turns_for_the_heartbeat() -> None:
    """With a 2-second interval, half the tables hear in the first second and the other half
    in the next: a thousand tables' heartbeats never go out in one turn of the event loop."""
    engine = create_async_engine("postgresql+psycopg://nobody@/nowhere")  # never connected
    hub = Hub(
        async_sessionmaker(engine),
        "",
        FrozenClock(datetime(2026, 12, 1, tzinfo=UTC)),
        heartbeat_interval=2.0,
    )  # the heartbeat never touches the database
    sockets: dict[int, Recorder] = {}
    for table_id in range(1, 11):
        channel = hub.channels[table_id] = TableChannel(table_id, seq=table_id)
        socket = sockets[table_id] = Recorder()
        channel.conns.add(Connection(socket, table_id=table_id, member_id=1, seat=0, name="x"))
    task = asyncio.create_task(hub._heartbeat())
    try:
        await asyncio.sleep(1.3)
        first = {t for t, s in sockets.items() if s.sent}
        assert len(first) == 5 and len({t % 2 for t in first}) == 1
        await asyncio.sleep(1.0)
        assert all(len(s.sent) == 1 for s in sockets.values())
        assert all(
            s.sent[0] == {"type": "heartbeat", "seq": t, "time": s.sent[0]["time"]}
            for t, s in sockets.items()
        )
    finally:
        task.cancel()
