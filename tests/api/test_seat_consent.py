"""Every human who leaves a seat or takes one consents to it (R-T4, R-T5 and the club's
security rule): nobody takes over another member's practice table, nobody is seated without
being asked, and house bots never consent for a human."""

from __future__ import annotations

import httpx
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Member, Role
from tests.api.conftest import LoggedIn


class _Runner:
    """The bot runner's seam (``app.state.bot_runner``): records which bots would start."""

    def __init__(self) -> None:
        self.spawned: list[tuple[int, list[str]]] = []

    def spawn(self, table_id: int, cookies: list[str], level: str | None = None) -> None:
        self.spawned.append((table_id, cookies))


async def _practice(app, client: httpx.AsyncClient) -> dict:  # type: ignore[no-untyped-def]
    app.state.bot_runner = _Runner()
    made = await client.post("/api/practice-tables", json={"players": 3, "target": 10})
    assert made.status_code == 201, made.text
    return made.json()


async def _seats(client: httpx.AsyncClient, table_id: int) -> list[int | None]:
    detail = (await client.get(f"/api/tables/{table_id}")).json()
    return [s["member_id"] for s in detail["seats"]]


async def test_a_member_cannot_take_over_anothers_practice_table(app, logged_in: LoggedIn) -> None:  # type: ignore[no-untyped-def]
    owner_client, owner = await logged_in()
    thief_client, thief = await logged_in()
    table = await _practice(app, owner_client)
    table_id, seats = table["table_id"], table["seats"]

    # His own seat: the house bots at the table do not consent for the member who sits there.
    asked = await thief_client.post(
        f"/api/tables/{table_id}/replace", json={"seat": 0, "member_id": thief.id}
    )
    assert asked.status_code == 201, asked.text
    change = asked.json()
    assert change["status"] == "pending" and change["required"] == [owner.id]
    assert await _seats(owner_client, table_id) == seats
    refused = await owner_client.post(
        f"/api/seat-changes/{change['id']}/consent", json={"agree": False}
    )
    assert refused.json()["status"] == "refused"
    assert await _seats(owner_client, table_id) == seats

    # A bot's seat at his table: he is still asked.
    bot_seat = await thief_client.post(
        f"/api/tables/{table_id}/replace", json={"seat": 1, "member_id": thief.id}
    )
    assert bot_seat.status_code == 201, bot_seat.text
    assert bot_seat.json()["status"] == "pending"
    assert bot_seat.json()["required"] == [owner.id]
    assert await _seats(owner_client, table_id) == seats


async def test_nobody_is_seated_without_being_asked(
    app, logged_in: LoggedIn, db_session: AsyncSession
) -> None:  # type: ignore[no-untyped-def]
    owner_client, owner = await logged_in()
    friend_client, friend = await logged_in()
    table = await _practice(app, owner_client)
    table_id, seats = table["table_id"], table["seats"]

    # He hands his own seat to a friend: the friend must agree before he sits down.
    asked = await owner_client.post(
        f"/api/tables/{table_id}/replace", json={"seat": 0, "member_id": friend.id}
    )
    assert asked.status_code == 201, asked.text
    change = asked.json()
    assert change["status"] == "pending" and change["required"] == [friend.id]
    assert await _seats(owner_client, table_id) == seats
    agreed = await friend_client.post(
        f"/api/seat-changes/{change['id']}/consent", json={"agree": True}
    )
    assert agreed.status_code == 200, agreed.text
    assert agreed.json()["status"] == "applied"
    assert await _seats(owner_client, table_id) == [friend.id, *seats[1:]]

    # A new table with other members in it: only bots (or an admin) may be seated so.
    other_client, other = await logged_in()
    bots = [await db_session.get(Member, m) for m in seats[1:]]
    assert all(b is not None and b.is_bot for b in bots)
    forced = await other_client.post(
        "/api/tables", json={"seats": [other.id, owner.id, seats[1]], "practice": True}
    )
    assert forced.status_code == 403
    assert forced.json()["code"] == "seat_needs_consent"
    with_bots = await other_client.post(
        "/api/tables", json={"seats": [other.id, seats[1], seats[2]], "practice": True}
    )
    assert with_bots.status_code == 201, with_bots.text

    # An admin asking a member to join: that member is asked too.
    admin_client, _ = await logged_in(Role.admin)
    joined = await admin_client.post(
        f"/api/tables/{with_bots.json()['id']}/join", json={"member_id": owner.id}
    )
    assert joined.status_code == 201, joined.text
    assert joined.json()["status"] == "pending"
    assert sorted(joined.json()["required"]) == sorted([other.id, owner.id])
    assert len(await _seats(other_client, with_bots.json()["id"])) == 3
