"""A table chooses its preset (issue 13): classic preferans (docs/rules-classic.md) at a practice
table and at a drawn club table; the table, its live state and its deal say so."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.table import Table
from tests.api.conftest import LoggedIn


class _Runner:
    """Stands in for the house-bot runner: the bots are not started in these API tests."""

    def __init__(self) -> None:
        self.spawned: list[tuple[int, list[str]]] = []

    def spawn(self, table_id: int, cookies: list[str], level: str | None = None) -> None:
        self.spawned.append((table_id, cookies))


async def test_k1_a_practice_table_plays_classic(app, logged_in: LoggedIn) -> None:
    """K-1: a practice table of four opened with preset classic: the table and its live state
    name the preset; an unknown preset is refused and the answer lists the known ones."""
    app.state.bot_runner = _Runner()
    member, _ = await logged_in()
    made = await member.post(
        "/api/practice-tables", json={"players": 4, "target": 10, "preset": "classic"}
    )
    assert made.status_code == 201, made.text
    table_id = made.json()["table_id"]
    detail = (await member.get(f"/api/tables/{table_id}")).json()
    assert detail["preset"] == "classic"
    state = (await member.get(f"/api/tables/{table_id}/state")).json()
    assert state["table"]["preset"] == "classic"
    bad = await member.post("/api/practice-tables", json={"players": 3, "preset": "martian"})
    assert bad.status_code == 422 and "classic" in bad.text


async def test_k1_a_drawn_club_table_is_seated_under_the_chosen_preset(evening) -> None:
    """K-1: the drawn table's players choose classic when they seat it by the draw."""
    ev = await evening(3)
    drawn = (await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})).json()[
        "tables"
    ][0]
    player = next(c for c, m in ev.players if m.id == drawn["member_ids"][0])
    bad = await player.post(
        f"/api/drawn-tables/{drawn['id']}/seat", json={"mode": "draw", "preset": "martian"}
    )
    assert bad.status_code == 422 and "classic" in bad.text
    seated = await player.post(
        f"/api/drawn-tables/{drawn['id']}/seat", json={"mode": "draw", "preset": "classic"}
    )
    assert seated.status_code == 201, seated.text
    detail = (await player.get(f"/api/tables/{seated.json()['table_id']}")).json()
    assert detail["preset"] == "classic" and detail["practice"] is False


async def test_the_default_preset_is_still_club(app, logged_in: LoggedIn) -> None:
    app.state.bot_runner = _Runner()
    member, _ = await logged_in()
    made = await member.post("/api/practice-tables", json={"players": 3})
    detail = (await member.get(f"/api/tables/{made.json()['table_id']}")).json()
    assert detail["preset"] == "club"


async def test_a26_a_drawn_arabic_table_is_seated_by_the_aces(
    evening, db_session: AsyncSession
) -> None:
    """A-26 (004: «Кому выпал первый туз — первым выбирает место и первый сдаёт»): seated by
    the draw under arabic, the seat record is the aces' and the first ace's player sits at
    seat 0 and deals first; the dealing record has no R-T3 lot of its own."""
    ev = await evening(3)
    drawn = (await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})).json()[
        "tables"
    ][0]
    player = next(c for c, m in ev.players if m.id == drawn["member_ids"][0])
    seated = await player.post(
        f"/api/drawn-tables/{drawn['id']}/seat", json={"mode": "draw", "preset": "arabic"}
    )
    assert seated.status_code == 201, seated.text
    body = seated.json()
    seat_record, dealer_record = body["seat_draw"]["record"], body["first_dealer"]["record"]
    assert seat_record["rule"] == dealer_record["rule"] == "A-26"
    assert [str(m) for m in body["seats"]] == seat_record["seats"]
    aces = [d["player"] for d in seat_record["draws"] if d["card"].startswith("A")]
    assert aces == seat_record["seats"][:2] and dealer_record["dealer"] == 0
    detail = (await player.get(f"/api/tables/{body['table_id']}")).json()
    assert detail["preset"] == "arabic"
    table = await db_session.get(Table, body["table_id"])
    assert table is not None and table.first_dealer == 0
