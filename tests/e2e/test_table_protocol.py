"""The table socket end to end (docs/protocol.md): a real server, real websocket clients."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import websockets
from websockets.exceptions import InvalidStatus

from tests.support.live_servers import Client, Driver, clients, setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


def _seqs(client: Client) -> list[int]:
    return [m["seq"] for m in client.messages if "deal" in m and isinstance(m.get("seq"), int)]


def _assert_gapless(client: Client) -> None:
    seqs = _seqs(client)
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs


async def test_full_three_player_deal(srv: ServerProcess, live_db: str) -> None:
    table_id, seats, watchers = await setup_table(live_db, 3, spectators=1)
    async with clients(srv, table_id, seats) as players:
        watcher = Client(srv, table_id, watchers[0].cookie)
        welcome = await watcher.connect()
        assert welcome["seat"] is None and welcome["resume"] == "snapshot"
        assert [p.seat for p in players] == [0, 1, 2]
        driver = Driver(players, [watcher], seed=3)
        ended = await driver.play_deal()
        outcome = ended["data"]["outcome"]
        assert outcome["dealer"] == 0 and outcome["type"] in (
            "game",
            "misere",
            "pass_out",
            "conceded",
        )
        # The finished deal is shown to everybody, with the deck and salt of the commitment.
        assert ended["deal"]["finished"] and "reveal" in ended["deal"]
        # The next deal follows with the next dealer, and every client saw every seq once.
        nxt = await players[0].wait_for(lambda m: m.get("type") == "deal_started")
        assert nxt["data"]["dealer"] == 1 and nxt["data"]["deal_no"] == 2
        for c in [*players, watcher]:
            _assert_gapless(c)
        # Each seat's copy of the same event differs only in what that seat may see.
        copies = [next(m for m in c.messages if m.get("seq") == ended["seq"]) for c in players]
        assert {json.dumps(c["data"], sort_keys=True) for c in copies} == {
            json.dumps(ended["data"], sort_keys=True)
        }
        await watcher.close()


async def test_full_four_player_deal(srv: ServerProcess, live_db: str) -> None:
    table_id, seats, _ = await setup_table(live_db, 4, first_dealer=2)
    async with clients(srv, table_id, seats) as players:
        first = players[0].latest
        assert first is not None and first["deal"]["dealer"] == 2
        driver = Driver(players, seed=5)
        ended = await driver.play_deal()
        # R-T6: the dealer sits on the talon and never holds cards.
        for c in players:
            for m in c.messages:
                if m.get("seq", 0) < ended["seq"] and m.get("deal") and c.seat == 2:
                    assert m["deal"]["hand"] == []
        assert ended["data"]["outcome"]["dealer"] == 2
        tricks = ended["data"]["outcome"].get("tricks")
        if tricks is not None:
            assert sum(tricks.values()) == 10


def _pass_everything(client: Client) -> dict[str, Any] | None:
    assert client.latest is not None
    for action in client.latest["legal"]:
        if action["type"] == "bid" and action["call"] == "pass":
            return dict(action)
    return None


async def test_pass_out_deal(srv: ServerProcess, live_db: str) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats) as players:
        driver = Driver(players, seed=7)
        ended = await driver.play_deal(choose=_pass_everything)
        outcome = ended["data"]["outcome"]
        assert outcome["type"] == "pass_out"
        assert sum(outcome["tricks"].values()) == 10
        started = await players[0].wait_for(lambda m: m.get("type") == "deal_started")
        assert started["data"]["min_level"] == 7  # R-R6: after one pass-out bidding starts at 7
        # The sheet every seat was sent equals the one the pulka keeps on the server.
        assert ended["table"]["sheet"] == ended["data"]["sheet"]


async def test_duplicate_command_is_answered_again_and_applied_once(
    srv: ServerProcess, live_db: str
) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats) as players:
        cutter = players[2]  # dealer 0: the cutter is his right neighbour, seat 2
        before = cutter.last_seq
        assert before is not None
        first = await cutter.command({"type": "cut", "position": 10}, cid="dup-1")
        assert first["type"] == "ack" and first["seq"] == before + 1 and not first["duplicate"]
        again = await cutter.command({"type": "cut", "position": 10}, cid="dup-1", seq=before)
        assert again == {"type": "ack", "id": "dup-1", "seq": before + 1, "duplicate": True}
        # After a reconnect too: the id is stored with the event.
        await cutter.close()
        fresh = Client(srv, table_id, seats[2].cookie)
        await fresh.connect(last_seq=first["seq"])
        third = await fresh.command({"type": "cut", "position": 10}, cid="dup-1", seq=None)
        assert third["duplicate"] is True and third["seq"] == first["seq"]
        await asyncio.sleep(0.3)
        cuts = [m for m in players[0].messages if m.get("type") == "action"]
        assert len(cuts) == 1
        await fresh.close()


async def test_out_of_turn_stale_and_bad_commands_change_nothing(
    srv: ServerProcess, live_db: str
) -> None:
    table_id, seats, watchers = await setup_table(live_db, 3, spectators=1)
    async with clients(srv, table_id, seats) as players:
        seq = players[0].last_seq
        out_of_turn = await players[0].command({"type": "cut", "position": 10})
        assert out_of_turn["type"] == "error" and out_of_turn["code"] == "not_your_turn"
        assert out_of_turn["seq"] == seq
        await players[2].command({"type": "cut", "position": 12})
        await players[0].wait_seq((seq or 0) + 1)
        stale = await players[1].command({"type": "bid", "call": "6S"}, seq=seq)
        assert stale["code"] == "stale_seq"
        low = await players[1].command({"type": "bid", "call": "bogus"})
        assert low["code"] == "bad_command"
        unknown = await players[1].command({"type": "shuffle"})
        assert unknown["code"] == "unknown_command"
        extra = await players[1].command({"type": "bid", "call": "6S", "cards": ["AS"]})
        assert extra["code"] == "bad_command"
        talk = await players[1].command({"type": "chat", "text": "I have aces"})
        assert talk["code"] == "chat_closed"  # R-W12: no table talk during bidding
        await players[1].ws.send("not json")
        bad = await players[1].wait_for(lambda m: m.get("code") == "bad_json")
        assert bad["type"] == "error"
        watcher = Client(srv, table_id, watchers[0].cookie)
        await watcher.connect()
        refused = await watcher.command({"type": "bid", "call": "6S"})
        assert refused["code"] == "not_seated"
        pong = await watcher.command({"type": "ping"})
        assert pong == {"type": "pong", "id": pong["id"]}
        # Nothing of that changed the table: the seq is where the cut left it.
        assert players[1].last_seq == (seq or 0) + 1
        ok = await players[1].command({"type": "bid", "call": "pass"})
        assert ok["type"] == "ack" and ok["seq"] == (seq or 0) + 2
        await watcher.close()


async def test_chat_opens_between_deals_only(srv: ServerProcess, live_db: str) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats) as players:
        said = await players[0].command({"type": "chat", "text": "добрый вечер"})
        assert said["type"] == "ack"  # before the cut the deal is not in progress
        line = await players[1].wait_for(lambda m: m.get("type") == "chat")
        assert line["data"] == {"seat": 0, "name": line["data"]["name"], "text": "добрый вечер"}
        assert line["table"]["chat_open"] is True
        for player in players:  # the chat line moved the table's seq: the cutter must know it
            await player.wait_for(lambda m: m.get("type") == "chat")
        driver = Driver(players, seed=11)
        await driver.step()  # the cut: cards are out, talk closes
        closed = await players[0].command({"type": "chat", "text": "пас?"})
        assert closed["code"] == "chat_closed"
        await driver.play_deal()
        await players[0].wait_for(lambda m: m.get("type") == "deal_started")
        again = await players[2].command({"type": "chat", "text": "ещё одну"})
        assert again["type"] == "ack"


async def test_a_chat_flood_is_refused_with_chat_rate(srv: ServerProcess, live_db: str) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats) as players:
        for i in range(5):
            said = await players[0].command({"type": "chat", "text": f"строка {i}"})
            assert said["type"] == "ack", said
        flood = await players[0].command({"type": "chat", "text": "ещё"})
        assert flood["type"] == "error" and flood["code"] == "chat_rate", flood
        assert "5 in 10 seconds" in flood["message"]
        # Refused changes nothing; the others still talk.
        assert flood["seq"] == said["seq"]
        other = await players[1].command({"type": "chat", "text": "тише"})
        assert other["type"] == "ack"


async def test_unauthenticated_and_wrong_origin_are_refused_before_accept(
    srv: ServerProcess, live_db: str
) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    url = f"ws://127.0.0.1:{srv.port}/ws/tables/{table_id}"
    cases: list[dict[str, Any]] = [
        {"origin": srv.base_url},  # no cookie
        {"origin": srv.base_url, "additional_headers": {"Cookie": "prefclub_session=forged"}},
        {"origin": "http://evil.example", "additional_headers": {"Cookie": seats[0].cookie}},
        {"additional_headers": {"Cookie": seats[0].cookie}},  # no Origin at all
    ]
    for kwargs in cases:
        with pytest.raises(InvalidStatus) as info:
            async with websockets.connect(url, **kwargs):
                pass
        assert info.value.response.status_code == 403, kwargs
    with pytest.raises(InvalidStatus) as missing:
        async with websockets.connect(
            f"ws://127.0.0.1:{srv.port}/ws/tables/999999",
            origin=srv.base_url,  # type: ignore[arg-type]
            additional_headers={"Cookie": seats[0].cookie},
        ):
            pass
    assert missing.value.response.status_code == 403


async def test_reload_restores_the_same_view_and_reconnect_mid_trick(
    srv: ServerProcess, live_db: str
) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats) as players:
        driver = Driver(players, seed=2)
        # Play until a trick is under way (at least one card on the table, not the first lead).
        for _ in range(120):
            await driver.step()
            deal = driver.view()["deal"]
            if deal["phase"] == "play" and len(deal["trick"]) == 1 and deal["tricks_played"] > 0:
                break
        else:
            pytest.skip("this seed's deal never reached a half-played trick")
        mover = driver.mover()
        assert mover is not None and mover.latest is not None
        before = mover.latest
        # A page reload: a fresh socket with no last seq gets a snapshot of exactly that view.
        reload = Client(srv, table_id, seats[mover.seat or 0].cookie)
        welcome = await reload.connect()
        assert welcome["resume"] == "snapshot"
        snap = await reload.wait_for(lambda m: m.get("type") == "snapshot")
        assert snap["seq"] == before["seq"]
        assert snap["deal"] == before["deal"] and snap["legal"] == before["legal"]
        await reload.close()
        # A drop mid-trick: the others play on, the dropped seat keeps its seat.
        other = next(c for c in players if c is not mover)
        await other.close()
        presence = await mover.wait_for(
            lambda m: m.get("type") == "presence" and other.seat not in m["connected"]
        )
        assert other.seat not in presence["connected"]
        last = other.last_seq
        if driver.mover() is not other:
            await mover.command(
                driver.strategy.choose(before, before["legal"], mover.seat or 0) or {}
            )
        back = Client(srv, table_id, seats[other.seat or 0].cookie)
        welcome = await back.connect(last_seq=last)
        assert welcome["resume"] in ("snapshot", "replay", "current")
        current = await back.wait_for(lambda m: "deal" in m and m.get("seq") == welcome["seq"])
        reference = next(
            m for m in reversed(mover.messages) if "deal" in m and m.get("seq") == welcome["seq"]
        )
        assert current["deal"]["trick"] == reference["deal"]["trick"]
        assert current["deal"]["hand"] != reference["deal"]["hand"] or other.seat == mover.seat
        players[players.index(other)] = back
        await driver.play_deal()
        await back.close()


async def test_last_trick_request_shows_only_the_last_closed_trick(
    srv: ServerProcess, live_db: str
) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats) as players:
        driver = Driver(players, seed=4)
        seen_tricks = 0
        for _ in range(150):
            await driver.step()
            deal = driver.view()["deal"]
            if deal["phase"] == "play" and deal["tricks_played"] >= 2 and not deal["trick"]:
                seen_tricks = deal["tricks_played"]
                break
        if not seen_tricks:
            pytest.skip("no trick play in this seed's first deal")
        answer = await players[0].command({"type": "last_trick"})
        assert answer["type"] == "last_trick"
        assert len([c for c in answer["trick"] if c["seat"] >= 0]) == 3
        assert answer["winner"] in (0, 1, 2)
        latest = players[0].latest
        assert latest is not None
        assert answer["trick"] == latest["deal"]["last_trick"]
        assert "history" not in latest["deal"]  # R-W8: earlier tricks are nobody's


async def test_move_timer_moves_for_an_absent_player_who_keeps_his_seat(
    srv: ServerProcess, live_db: str
) -> None:
    table_id, seats, _ = await setup_table(live_db, 3, move_timer_seconds=1)
    present = Client(srv, table_id, seats[0].cookie)
    await present.connect()
    presence = await present.wait_for(lambda m: m.get("type") == "presence")
    assert presence["connected"] == [0]
    # Seat 2 must cut but is not connected: when his time runs out the server cuts for him.
    auto = await present.wait_for(lambda m: m.get("type") == "action", timeout=10)
    assert auto["data"]["seat"] == 2 and auto["data"]["auto"] is True
    assert auto["deal"]["phase"] == "auction"
    await present.close()


async def test_a_client_behind_during_bidding_gets_the_missed_events_replayed(
    srv: ServerProcess, live_db: str
) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats) as players:
        await players[2].command({"type": "cut", "position": 16})
        await players[0].wait_seq(3)
        last = players[0].last_seq
        assert last == 3
        await players[0].close()
        # Each bidder sends with the last seq it saw: it must have seen the previous bid, or
        # its bid is refused as stale (a race this test used to have).
        await players[1].wait_seq(3)
        assert (await players[1].command({"type": "bid", "call": "pass"}))["type"] == "ack"
        await players[2].wait_seq(4)
        assert (await players[2].command({"type": "bid", "call": "pass"}))["type"] == "ack"
        back = Client(srv, table_id, seats[0].cookie)
        welcome = await back.connect(last_seq=last)
        assert welcome["resume"] == "replay" and welcome["seq"] == 5
        replayed = [m for m in back.messages if isinstance(m.get("seq"), int) and "deal" in m]
        assert [m["seq"] for m in replayed] == [4, 5]
        assert [m["data"]["events"][0]["call"] for m in replayed] == ["pass", "pass"]
        # Each replayed event is exactly what seat 0 would have got live.
        assert replayed[-1]["deal"]["hand"] == players[0].latest["deal"]["hand"]  # type: ignore[index]
        assert [a["call"] for a in replayed[-1]["legal"] if a["type"] == "bid"][-1] in (
            "pass",
            "misere",
            "10NT",
        )
        current = Client(srv, table_id, seats[0].cookie)
        again = await current.connect(last_seq=5)
        assert again["resume"] == "current"
        assert not [m for m in current.messages if "deal" in m]
        await back.close()
        await current.close()


async def test_hello_must_come_first_and_oversized_frames_are_refused(
    srv: ServerProcess, live_db: str
) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    url = f"ws://127.0.0.1:{srv.port}/ws/tables/{table_id}"
    async with websockets.connect(
        url,
        origin=srv.base_url,  # type: ignore[arg-type]
        additional_headers={"Cookie": seats[0].cookie},
    ) as ws:
        await ws.send(json.dumps({"id": "x", "type": "bid", "call": "pass"}))
        answer = json.loads(await ws.recv())
        assert answer["type"] == "error" and answer["code"] == "bad_command"
        with pytest.raises(websockets.ConnectionClosed):
            for _ in range(5):
                await asyncio.wait_for(ws.recv(), 5)
    async with clients(srv, table_id, seats[:1]) as (player,):
        await player.ws.send(json.dumps({"id": "big", "type": "chat", "text": "x" * 20000}))
        refused = await player.wait_for(lambda m: m.get("type") == "error")
        assert refused["code"] == "too_large"
        again = await player.command({"type": "hello"})
        assert again["code"] == "bad_command"
        long_chat = await player.command({"type": "chat", "text": "я" * 501})
        assert long_chat["code"] == "chat_too_long"
        blank = await player.command({"type": "chat", "text": "  "})
        assert blank["code"] == "chat_empty"
        await player.ws.send(json.dumps({"id": "nul", "type": "chat", "text": "a\u0000b"}))
        nul = await player.wait_for(lambda m: m.get("code") == "bad_character")
        assert nul["type"] == "error" and "NUL" in nul["message"]
