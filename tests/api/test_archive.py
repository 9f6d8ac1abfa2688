"""The archive: finished pulkas, deal replays with the R-D4 check, statistics over club pulkas."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Member
from app.realtime.store import rebuild
from app.services.pulkas import close_pulka
from app.services.tables import create_table
from tests.api.conftest import LoggedIn
from tests.support.archive_play import play_deal


async def _table(
    db: AsyncSession, members: list[Member], clock: FrozenClock, practice: bool = False
) -> int:
    table = await create_table(
        db,
        seat_member_ids=[m.id for m in members],
        practice=practice,
        target=20,
        first_dealer=0,
        now=clock.now(),
    )
    return table.id


async def _pulka_id(client: httpx.AsyncClient, table_id: int) -> int:
    detail = (await client.get(f"/api/tables/{table_id}")).json()
    return int(detail["pulka"]["id"])


async def test_a_finished_deal_replays_everything_and_verifies(
    logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    anna_client, anna = await logged_in(name="Анна")
    _, boris = await logged_in(name="Борис")
    _, vera = await logged_in(name="Вера")
    ids = [anna.id, boris.id, vera.id]
    table_id = await _table(db_session, [anna, boris, vera], clock)
    assert await play_deal(db_session, table_id, ids, clock.now()) == 1
    pulka_id = await _pulka_id(anna_client, table_id)

    # The pulka still runs: it is not in the archive's list, but its finished deal may be read.
    assert (await anna_client.get(f"/api/pulkas/{pulka_id}")).status_code == 409
    running = await anna_client.get(f"/api/pulkas/{pulka_id}/deals/2")
    assert running.status_code == 409 and "R-W8" in running.json()["detail"]

    replay = (await anna_client.get(f"/api/pulkas/{pulka_id}/deals/1")).json()
    assert replay["verified"] is True
    assert replay["names"] == ["Анна", "Борис", "Вера"]
    assert replay["contract"] == "6S" and replay["declarer"] == 1  # forehand of dealer 0
    assert [c["call"] for c in replay["auction"]] == ["6S", "pass", "pass"]
    assert {d["call"] for d in replay["defence"]} >= {"whist"}
    assert sorted(len(h) for h in replay["dealt"].values()) == [10, 10, 10]
    assert len(replay["talon"]) == 2 and len(replay["discard"]) == 2
    assert len(replay["tricks"]) == 10
    assert all(len(t["cards"]) == 3 and t["winner"] in (0, 1, 2) for t in replay["tricks"])
    taken = {str(s): sum(t["winner"] == s for t in replay["tricks"]) for s in range(3)}
    assert taken == {k: v for k, v in replay["tricks_taken"].items()}
    assert replay["outcome"]["contract"] == "6S" and replay["entries"]
    reveal = replay["reveal"]
    assert len(reveal["deck"]) == 32 and len(bytes.fromhex(reveal["salt"])) == 16
    assert reveal["hands"][0] == sorted(replay["dealt"]["0"], key=reveal["hands"][0].index)

    # Closing the pulka abandons deal 2 at its cut: it never ended, so it is never shown.
    await close_pulka(db_session, table_id, "agreement", clock.now())
    abandoned = await anna_client.get(f"/api/pulkas/{pulka_id}/deals/2")
    assert abandoned.status_code == 409
    assert (await anna_client.get(f"/api/pulkas/{pulka_id}/deals/3")).status_code == 404
    assert (await anna_client.get("/api/pulkas/999999/deals/1")).status_code == 404

    listed = (await anna_client.get("/api/pulkas")).json()
    mine = next(p for p in listed if p["id"] == pulka_id)
    assert mine["names"] == ["Анна", "Борис", "Вера"] and mine["member_ids"] == ids
    assert mine["ended"] == "agreement" and mine["settlement"]["money"]
    detail = (await anna_client.get(f"/api/pulkas/{pulka_id}")).json()
    assert detail["record"]["format"] == "pulka/1" and detail["lines"]
    assert [d["deal_no"] for d in detail["deal_list"]] == [1]
    assert detail["deal_list"][0]["outcome"]["declarer"] == 1
    assert all(
        p["id"] != pulka_id
        for p in (await anna_client.get("/api/pulkas", params={"practice": "true"})).json()
    )


async def test_stats_count_club_pulkas_only(
    logged_in: LoggedIn,
    db_session: AsyncSession,
    clock: FrozenClock,
    make_member: Callable[..., Awaitable[Member]],
) -> None:
    client, anna = await logged_in(name="Анна")
    boris, vera = await make_member(name="Борис"), await make_member(name="Вера")
    club = await _table(db_session, [anna, boris, vera], clock)
    await play_deal(db_session, club, [anna.id, boris.id, vera.id], clock.now())
    await close_pulka(db_session, club, "agreement", clock.now())
    # A practice pulka with Boris declaring twice: it must not count anywhere.
    practice = await _table(db_session, [vera, boris, anna], clock, practice=True)
    await play_deal(db_session, practice, [vera.id, boris.id, anna.id], clock.now())
    await close_pulka(db_session, practice, "agreement", clock.now())
    state = await rebuild(db_session, practice)
    assert state is not None and state.status == "finished"

    listed = (await client.get("/api/pulkas", params={"practice": "true"})).json()
    assert any(p["table_id"] == practice for p in listed)
    assert all(p["table_id"] != practice for p in (await client.get("/api/pulkas")).json())

    rows = {r["member_id"]: r for r in (await client.get("/api/stats")).json()["members"]}
    assert rows[boris.id]["pulkas"] == 1 and rows[boris.id]["deals"] == 1
    assert rows[boris.id]["declared"] == 1 and rows[anna.id]["declared"] == 0
    assert rows[boris.id]["made"] + rows[boris.id]["failed"] == 1
    assert rows[anna.id]["name"] == "Анна"
    one: dict[str, Any] = (await client.get(f"/api/members/{boris.id}/stats")).json()
    assert one["pulkas"] == 1 and len(one["series"]) == 1
    assert one["series"][0]["pulka_id"] == await _pulka_id(client, club)
    assert one["money"] == one["series"][0]["money"]
    nobody = (await client.get("/api/members/999999/stats")).json()
    assert nobody["pulkas"] == 0 and nobody["series"] == []


async def test_the_archive_needs_a_login(client: httpx.AsyncClient) -> None:
    for path in (
        "/api/pulkas",
        "/api/pulkas/1",
        "/api/pulkas/1/deals/1",
        "/api/stats",
        "/api/members/1/stats",
    ):
        assert (await client.get(path)).status_code == 401, path


def _all_pass(options: list[dict[str, Any]]) -> dict[str, Any]:
    passing = [o for o in options if o["type"] == "bid" and o["call"] == "pass"]
    return passing[0] if passing else options[0]


async def test_a_pass_out_replays_with_the_talon_cards_leading(
    logged_in: LoggedIn,
    db_session: AsyncSession,
    clock: FrozenClock,
    make_member: Callable[..., Awaitable[Member]],
) -> None:
    client, anna = await logged_in()
    boris, vera = await make_member(), await make_member()
    table_id = await _table(db_session, [anna, boris, vera], clock, practice=True)
    await play_deal(
        db_session, table_id, [anna.id, boris.id, vera.id], clock.now(), chooser=_all_pass
    )
    replay = (await client.get(f"/api/pulkas/{await _pulka_id(client, table_id)}/deals/1")).json()
    assert replay["kind"] == "pass_out" and replay["verified"] is True
    assert [c["call"] for c in replay["auction"]] == ["pass"] * 3
    assert len(replay["tricks"]) == 10 and replay["discard"] is None
    # R-R2: at three players the two talon cards lead the first two tricks (seat -1).
    leads = [t["cards"][0] for t in replay["tricks"][:2]]
    assert [c["seat"] for c in leads] == [-1, -1]
    assert sorted(c["card"] for c in leads) == sorted(replay["talon"])
    assert replay["outcome"]["type"] == "pass_out"
