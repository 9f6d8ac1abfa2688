"""Fan-out pieces without a server: the per-connection queue, replay safety, public data."""

from __future__ import annotations

import asyncio
import json
import random

from app.bots.strategy import Strategy
from app.realtime import engine, game
from app.realtime.connection import CLOSE_TOO_SLOW, Connection, dumps
from app.realtime.game import TableState
from app.realtime.table_messages import Recent, event_message, replay_safe
from app.rules.scoring.pulka import Pulka
from tests.support.sockets import Recorder


class StuckSocket:
    """A client that never reads: every send blocks."""

    def __init__(self) -> None:
        self.closed_with: int | None = None
        self.sent: list[str] = []

    async def send_text(self, data: str) -> None:
        self.sent.append(data)
        await asyncio.Event().wait()

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed_with = code


async def test_a_stuck_client_is_dropped_without_blocking_the_sender() -> None:
    socket = StuckSocket()
    conn = Connection(socket, table_id=1, member_id=1, seat=0, name="x", queue_limit=4)
    results = [conn.send({"type": "heartbeat", "seq": i}) for i in range(10)]
    assert results[:4] == [True] * 4 and not all(results)
    assert conn.closed.is_set() and conn.close_code == CLOSE_TOO_SLOW
    await asyncio.sleep(0.05)
    assert socket.closed_with == CLOSE_TOO_SLOW
    assert conn.send({"type": "heartbeat"}) is False
    await conn.aclose()


async def test_a_socket_that_stops_accepting_is_dropped_after_the_send_timeout() -> None:
    socket = StuckSocket()
    conn = Connection(socket, table_id=1, member_id=1, seat=0, name="x", send_timeout=0.05)
    conn.send({"type": "heartbeat"})
    await asyncio.wait_for(conn.closed.wait(), 2)
    assert conn.close_code == CLOSE_TOO_SLOW


def _play(actions: int, seed: int = 3) -> list[Recent]:
    """A table folded in memory, the bots moving: every event with the state after it."""
    pulka = Pulka.new(3, names=["A", "B", "C"], target=50)
    state: TableState = game.fold(
        None, 1, 1, *game.pulka_started(pulka, ["A", "B", "C"], [1, 2, 3])
    )
    out: list[Recent] = []
    kind, payload = game.deal_started(state, random.Random(seed))
    state = game.fold(state, 1, 2, kind, payload)
    out.append(Recent(2, kind, payload, state))
    strategy = Strategy(random.Random(seed))
    for _ in range(actions):
        ended = game.deal_ended(state)
        if ended is not None:
            state = game.fold(state, 1, state.seq + 1, *ended)
            out.append(Recent(state.seq, ended[0], ended[1], state))
            break
        mover = engine.to_move(state.deal)
        assert mover is not None
        view = game.seat_view(state, mover)
        choice = strategy.choose(view, view["legal"], mover)
        assert choice is not None
        kind, payload = game.action_event(state, mover, choice)
        state = game.fold(state, 1, state.seq + 1, kind, payload)
        out.append(Recent(state.seq, kind, payload, state))
    return out


def test_replays_are_refused_once_a_card_was_played_in_a_running_deal() -> None:
    events = _play(200)
    assert events[-1].kind == "deal_ended"
    first_card = next(
        i
        for i, r in enumerate(events)
        if any(e["type"] == "card_played" for e in r.payload.get("events", ()))
    )
    assert replay_safe(events[:first_card])  # bidding, talon, contract: nothing hides later
    assert not replay_safe(events[: first_card + 1])
    assert replay_safe(events)  # the deal has ended since: everything is shown anyway


def test_public_data_and_views_never_carry_the_deck_or_salt() -> None:
    for item in _play(200, seed=8):
        secret = item.state.deal
        for seat in (0, 1, 2, None):
            text = json.dumps(event_message(item.state, item.seq, item.kind, item.payload, seat))
            if not secret.finished:
                assert "salt" not in json.dumps(game.public_data(item.kind, item.payload))
                assert secret.salt.hex() not in text
                assert '"deck"' not in text


def test_a_seating_change_folds_and_is_never_replayed() -> None:
    # After a join (R-T4) seats are renumbered: earlier events went to other seat numbers, so a
    # client that missed the join gets a snapshot, never a replay.
    events = _play(200)
    state = events[-1].state
    pulka, entries = state.pulka.join_fourth((state.pulka.next_dealer - 1) % 3, "D")
    seat = (state.pulka.next_dealer - 1) % 3 + 1
    names = [*state.names[:seat], "D", *state.names[seat:]]
    ids = [*state.member_ids[:seat], 4, *state.member_ids[seat:]]
    payload = {
        "seat": seat,
        "member_id": 4,
        "name": "D",
        "after_dealer_seat": seat - 1,
        "players": 4,
        "names": names,
        "member_ids": ids,
        "entries": [e.to_json() for e in entries],
        "sheet": pulka.sheet.to_json(),
        "deal_no": pulka.deal_index,
        "voided_deal": False,
        "pulka": pulka.to_json(),
    }
    joined = game.fold(state, 1, state.seq + 1, "player_joined", payload)
    assert joined.players == 4 and joined.deal is None and joined.seat_of(4) == seat
    assert joined.pulka.next_dealer == seat and joined.deal_no == 1
    kind, started = game.deal_started(joined, random.Random(1))
    assert started["dealer"] == seat and started["players"] == 4
    dealt = game.fold(joined, 1, joined.seq + 1, kind, started)
    assert engine.view(dealt.deal, seat)["players"] == 4
    item = Recent(joined.seq, "player_joined", payload, joined)
    assert not replay_safe([*events, item])
    message = event_message(joined, joined.seq, "player_joined", payload, seat)
    assert message["data"]["dealer"] == seat and "pulka" not in message["data"]


async def test_an_idle_connection_holds_no_writer_and_keeps_the_order() -> None:
    """Messages go out in the order queued; once they are out no task is left waiting (an
    idle socket's waiting task and future, thousands of them, were what the garbage collector
    walked at a thousand tables: docs/performance.md)."""
    socket = Recorder()
    conn = Connection(socket, table_id=1, member_id=1, seat=0, name="x")
    assert not conn.writing
    for i in range(5):
        assert conn.send({"type": "heartbeat", "seq": i})
    assert conn.writing and conn.queued == 5
    await asyncio.sleep(0.01)
    assert [m["seq"] for m in socket.sent] == [0, 1, 2, 3, 4]
    assert not conn.writing and conn.queued == 0
    conn.send({"type": "heartbeat", "seq": 5})
    await asyncio.sleep(0.01)
    assert socket.sent[-1]["seq"] == 5 and not conn.writing


async def test_nothing_queued_after_a_flush_is_sent() -> None:
    socket = Recorder()
    conn = Connection(socket, table_id=1, member_id=1, seat=0, name="x")
    conn.send({"type": "error", "code": "bad_command"})
    await conn.flush()
    assert conn.send({"type": "heartbeat"}) is False
    await asyncio.sleep(0.01)
    assert [m["type"] for m in socket.sent] == ["error"]


def test_messages_are_encoded_exactly_as_json_would() -> None:
    """``dumps`` (orjson) writes the very text of compact ``json.dumps`` with non-ASCII as is:
    every seat's message of a played deal, Russian text, integer keys, and what orjson refuses."""
    messages: list[dict[str, object]] = [
        event_message(r.state, r.seq, r.kind, r.payload, seat)
        for r in _play(40)
        for seat in (0, 1, 2, None)
    ]
    messages += [
        {"type": "chat", "text": 'Вист! «пас» — 6♠ 10♥ \\ " \n', "seq": 7},
        {"since": {1: "2026-12-01T08:00:00+00:00"}, "n": [1.5, -0.25, None, True]},
        {"big": 2**70},
    ]
    for message in messages:
        assert dumps(message) == json.dumps(message, separators=(",", ":"), ensure_ascii=False)


class PausingSocket(StuckSocket):
    """A socket that takes writes at once until its transport is 'paused' (flow control),
    then only through the awaited send, which never completes: a client that stopped
    reading. ``writes`` holds each write made at once (a list of texts)."""

    def __init__(self, takes: int) -> None:
        super().__init__()
        self.takes = takes
        self.writes: list[list[str]] = []

    def send_nowait(self, texts: list[str]) -> bool:
        if len(self.writes) >= self.takes:
            return False
        self.writes.append(list(texts))
        return True

    def seqs(self) -> list[list[int]]:
        return [[json.loads(t)["seq"] for t in write] for write in self.writes]


async def test_what_a_turn_gives_a_socket_goes_out_in_one_write_without_a_task() -> None:
    """With the server's send-now (``prefclub.send_nowait``) the messages a socket is given
    in one turn of the loop (an event, then the command's ack) are written together at the
    end of that turn: one write, no writer task, nothing left queued."""
    socket = PausingSocket(takes=100)
    conn = Connection(
        socket, table_id=1, member_id=1, seat=0, name="x", send_nowait=socket.send_nowait
    )
    for i in range(3):
        assert conn.send({"type": "heartbeat", "seq": i})
    assert conn.queued == 3 and socket.writes == []  # not yet: the turn is not over
    await asyncio.sleep(0)
    assert socket.seqs() == [[0, 1, 2]] and conn.queued == 0 and not conn.writing
    conn.send({"type": "heartbeat", "seq": 3})
    await asyncio.sleep(0)
    assert socket.seqs() == [[0, 1, 2], [3]] and socket.sent == []
    await conn.aclose()


async def test_a_paused_socket_queues_in_order_and_a_stuck_one_is_dropped() -> None:
    """Once the socket stops taking writes at once, the turn's messages wait in the queue for
    the writer (later ones behind them, even if the socket would take them again: order is
    kept); a client that never reads again is dropped (4008) when the queue is full."""
    socket = PausingSocket(takes=1)
    conn = Connection(
        socket,
        table_id=1,
        member_id=1,
        seat=0,
        name="x",
        queue_limit=4,
        send_nowait=socket.send_nowait,
    )
    conn.send({"type": "heartbeat", "seq": 0})
    await asyncio.sleep(0)
    conn.send({"type": "heartbeat", "seq": 1})
    conn.send({"type": "heartbeat", "seq": 2})
    await asyncio.sleep(0)  # the socket no longer takes writes at once: 1, 2 go to the writer
    assert socket.seqs() == [[0]] and conn.writing
    socket.takes = 100  # writable again, but the writer still holds messages 1 and 2
    conn.send({"type": "heartbeat", "seq": 3})
    await asyncio.sleep(0.01)
    assert [json.loads(m)["seq"] for m in socket.sent] == [1]  # the writer's send hangs
    assert conn.queued == 2 and socket.seqs() == [[0]]
    for i in range(4, 12):
        conn.send({"type": "heartbeat", "seq": i})
    assert conn.closed.is_set() and conn.close_code == CLOSE_TOO_SLOW
    await asyncio.sleep(0.05)
    assert socket.closed_with == CLOSE_TOO_SLOW
    assert socket.seqs() == [[0]]


async def test_a_failing_send_now_falls_back_to_the_writer() -> None:
    """A send-now that raises (the socket died under it) leaves the messages to the writer,
    whose send finds out and drops the connection."""

    class Dead(StuckSocket):
        def send_nowait(self, texts: list[str]) -> bool:
            raise RuntimeError("transport closed")

        async def send_text(self, data: str) -> None:
            raise ConnectionError("gone")

    socket = Dead()
    conn = Connection(
        socket, table_id=1, member_id=1, seat=0, name="x", send_nowait=socket.send_nowait
    )
    assert conn.send({"type": "heartbeat"})
    await asyncio.wait_for(conn.closed.wait(), 2)
    assert conn.close_code == CLOSE_TOO_SLOW


async def test_a_flush_writes_the_turn_before_a_close() -> None:
    """An error sent just before the server closes the socket (``session_ended``) is written:
    the flush does not wait for the end of the turn."""
    socket = PausingSocket(takes=100)
    conn = Connection(
        socket, table_id=1, member_id=1, seat=0, name="x", send_nowait=socket.send_nowait
    )
    conn.send({"type": "error", "seq": 7})
    await conn.flush()
    assert socket.seqs() == [[7]]
    conn.drop(4401, "login session ended")
    await asyncio.sleep(0.01)
    assert socket.seqs() == [[7]] and socket.closed_with == 4401
