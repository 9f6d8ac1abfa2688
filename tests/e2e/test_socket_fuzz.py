"""Fuzzing the table socket against a real server (issue 9): malformed JSON, non-objects, huge
frames, NUL bytes and lone surrogates, binary frames, unknown types, wrong field types and
floods. Every frame gets exactly one answer, nothing changes at the table, the socket stays
usable, and the server never fails (no 1011, no error in its log)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from app.db.engine import make_engine, make_sessionmaker
from app.db.models.table import Pulka, Table, TableEvent
from tests.support.live_servers import Client, clients, server, setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def srv(live_db: str, data_dir: Path) -> Iterator[ServerProcess]:
    """The module's server with a limit raised: the fuzz sends its batches as fast as it
    can and every frame must be answered; the frame budget that closes such a client (4429)
    is tests/e2e/test_socket_budget.py."""
    process = server(live_db, data_dir)
    process.env.update({"WS_FRAME_RATE": "100000", "WS_FRAME_BURST": "100000"})
    process.start()
    try:
        yield process
    finally:
        process.stop()


ANSWERS = ("error", "pong", "last_trick", "ack")

RAW_FRAMES: list[str | bytes] = [
    "not json",
    "",
    " ",
    "{",
    "}",
    "[]",
    "null",
    "1",
    "-0",
    '"text"',
    "true",
    "{}",
    '{"type": null}',
    '{"type": 7}',
    '{"type": ["ping"]}',
    '{"type": {"a": 1}}',
    "[" * 5000 + "]" * 5000,
    '{"a":' * 3000 + "1" + "}" * 3000,
    '{"id": "n1", "type": "bid", "call": NaN}',
    '{"id": "n2", "type": "cut", "position": 1e999}',
    '{"id": "n3", "type": "cut", "position": 1' + "0" * 5000 + "}",
    '{"id": "n4", "type": "chat", "text": "a\\u0000b"}',
    '{"id": "n5", "type": "chat", "text": "\\ud800"}',
    '{"id": "\\udfff", "type": "ping"}',
    '{"id": "n6\\u0000", "type": "cut", "position": 10}',
    '{"id": "n7", "type": "bid", "call": "\\u0000"}',
    '{"id": "n8", "type": "shuffle\\ud83d"}',
    '{"id": "n9", "type": "hello", "last_seq": "\\ud800"}',
    '{"type": "ping", "type": "bid", "id": "n10", "call": "9X"}',
    b"\x00\x01\x02",
    b'{"type": "ping", "id": "binary"}',
    "x" * 20_000,
    json.dumps({"id": "n11", "type": "chat", "text": "я" * 9000}),
]

WEIRD: list[Any] = [
    None,
    True,
    False,
    -1,
    0,
    2**70,
    1.5,
    "",
    " ",
    "x" * 600,
    "9X",
    "AX",
    "11S",
    [],
    {},
    [[[]]],
    {"0": {"1": 2}},
    ["AS", "AS"],
    ["AS"] * 40,
    "\u202e",
    "пас",
    "\t",
]
COMMAND_FIELDS: dict[str, list[str]] = {
    "cut": ["position"],
    "bid": ["call"],
    "discard": ["cards"],
    "name_contract": ["contract"],
    "defend": ["call"],
    "choose_play": ["mode"],
    "play_card": ["card"],
    "claim": ["tricks"],
    "propose_result": ["tricks"],
    "chat": ["text"],
    "take_talon": [],
    "return_talon": [],
    "concede": [],
    "return_whist": [],
    "accept_result": [],
    "decline_result": [],
    "next_deal": [],
}


def fuzz_commands(rng: random.Random, count: int) -> list[dict[str, Any]]:
    """Commands of every type with wrong field types and impossible values (never a legal
    move in the bidding: no valid call is in WEIRD)."""
    out: list[dict[str, Any]] = []
    types = sorted(COMMAND_FIELDS)
    for n in range(count):
        kind = rng.choice(types)
        body: dict[str, Any] = {"type": kind}
        for name in COMMAND_FIELDS[kind]:
            if rng.random() < 0.9:
                body[name] = rng.choice(WEIRD)
        choice = rng.random()
        if choice < 0.7:
            body["id"] = f"f{n}"
        elif choice < 0.85:
            body["id"] = rng.choice(WEIRD)
        if rng.random() < 0.3:
            body["seq"] = rng.choice([*WEIRD, -5, 10**12])
        if rng.random() < 0.2:
            body[rng.choice(["seat", "extra", "deal", "member_id"])] = rng.choice(WEIRD)
        out.append(body)
    return out


async def _table_facts(url: str, table_id: int) -> tuple[int, int, Any]:
    engine = make_engine(url)
    try:
        async with make_sessionmaker(engine)() as db:
            version = await db.scalar(select(Table.version).where(Table.id == table_id))
            events = await db.scalar(
                select(func.count()).select_from(TableEvent).where(TableEvent.table_id == table_id)
            )
            sheet = await db.scalar(select(Pulka.sheet).where(Pulka.table_id == table_id))
        return int(version or 0), int(events or 0), sheet
    finally:
        await engine.dispose()


async def _send_all(client: Client, frames: list[str | bytes]) -> list[dict[str, Any]]:
    """Send every frame, then a ping; the answers that came for them (in order)."""
    start = len(client.messages)
    for frame in frames:
        await client.ws.send(frame)
    end = await client.command({"type": "ping"}, cid="end-of-batch", seq=None)
    assert end["type"] == "pong"
    replies = [m for m in client.messages[start:] if m.get("type") in ANSWERS]
    return replies[:-1]


async def test_fuzzed_frames_are_each_answered_and_change_nothing(
    srv: ServerProcess, live_db: str
) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats) as players:
        cut = await players[2].command({"type": "cut", "position": 16})  # the deal is on
        assert cut["type"] == "ack"
        for c in players:
            await c.wait_seq(cut["seq"])
        before = await _table_facts(live_db, table_id)
        rng = random.Random(9)
        batches: list[list[str | bytes]] = [
            RAW_FRAMES,
            [json.dumps(c) for c in fuzz_commands(rng, 150)],
        ]
        for mover_too in (players[0], players[1]):  # seat 1 is to bid: he fuzzes too
            for frames in batches:
                replies = await _send_all(mover_too, frames)
                assert len(replies) == len(frames), [r for r in replies][-5:]
                assert not [r for r in replies if r["type"] == "ack"], replies
                for reply in replies:
                    if reply["type"] == "error":
                        assert reply["code"] and reply["message"] and "seq" in reply, reply
                        assert reply["seq"] == cut["seq"], reply
        # A flood far beyond any human rate: every frame is still answered, nothing applied.
        flood = [
            json.dumps({"id": f"flood-{i}", "type": "cut", "position": 10, "seq": 1})
            for i in range(200)
        ]
        replies = await _send_all(players[0], flood)
        assert {r.get("code") for r in replies} <= {"stale_seq", "not_your_turn"}
        assert len(replies) == len(flood)
        assert await _table_facts(live_db, table_id) == before
        # The sockets are still usable, and the table plays on.
        bid = await players[1].command({"type": "bid", "call": "pass"})
        assert bid["type"] == "ack" and bid["seq"] == before[0] + 1
        for c in players:
            assert c.ws.close_code is None
    log = srv.output()
    assert "1011" not in log and "Traceback" not in log and '"level": "error"' not in log


async def test_a_chat_flood_is_cut_at_the_rate_limit(srv: ServerProcess, live_db: str) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats[:1]) as (player,):
        before = await _table_facts(live_db, table_id)
        frames: list[str | bytes] = [
            json.dumps({"id": f"talk-{i}", "type": "chat", "text": f"line {i}"}) for i in range(40)
        ]
        replies = await _send_all(player, frames)
        assert [r["type"] for r in replies[:5]] == ["ack"] * 5
        assert {r.get("code") for r in replies[5:]} == {"chat_rate"}
        after = await _table_facts(live_db, table_id)
        assert after[0] == before[0] + 5 and after[2] == before[2]
        assert player.ws.close_code is None
