"""``/api/tables``: who may create, look at, time and close live tables."""

from __future__ import annotations

from app.db.models import Role
from tests.api.conftest import LoggedIn, clock, logged_in, make_member  # noqa: F401


async def test_tables_over_http(logged_in: LoggedIn) -> None:  # noqa: F811
    admin, _ = await logged_in(Role.admin)
    anna_client, anna = await logged_in()
    _, boris = await logged_in()
    _, vera = await logged_in()
    outsider, _ = await logged_in()
    seats = [anna.id, boris.id, vera.id]

    refused = await anna_client.post("/api/tables", json={"seats": seats, "practice": False})
    assert refused.status_code == 403
    made = await admin.post(
        "/api/tables", json={"seats": seats, "practice": False, "target": 10, "first_dealer": 1}
    )
    assert made.status_code == 201, made.text
    table = made.json()
    assert table["seq"] == 2 and table["status"] == "playing" and table["players"] == 3
    bad = await admin.post("/api/tables", json={"seats": [anna.id, anna.id, vera.id]})
    assert bad.status_code == 422

    detail = (await outsider.get(f"/api/tables/{table['id']}")).json()
    assert [s["member_id"] for s in detail["seats"]] == seats
    assert detail["pulka"]["status"] == "playing"

    mine = (await anna_client.get(f"/api/tables/{table['id']}/state")).json()
    assert mine["type"] == "snapshot" and mine["seat"] == 0 and mine["seq"] == 2
    assert mine["deal"]["phase"] == "cut" and mine["deal"]["cutter"] == 0
    assert [a["type"] for a in mine["legal"]] == ["cut"] * len(mine["legal"])
    watching = (await outsider.get(f"/api/tables/{table['id']}/state")).json()
    assert watching["seat"] is None and watching["legal"] == []

    timer = await anna_client.patch(
        f"/api/tables/{table['id']}/timer", json={"move_timer_seconds": 20}
    )
    assert timer.status_code == 403  # a club table: admins only
    timer = await admin.patch(f"/api/tables/{table['id']}/timer", json={"move_timer_seconds": 20})
    assert timer.status_code == 200 and timer.json()["deadline_at"] is not None

    assert (await anna_client.post(f"/api/tables/{table['id']}/close", json={})).status_code == 403
    closed = await admin.post(f"/api/tables/{table['id']}/close", json={"reason": "agreement"})
    assert closed.status_code == 200 and closed.json()["status"] == "finished"
    pulka = (await outsider.get(f"/api/tables/{table['id']}/pulka")).json()
    assert pulka["record"]["format"] == "pulka/1" and pulka["record"]["ended"] == "agreement"
    listed = (await outsider.get("/api/tables")).json()
    assert any(t["id"] == table["id"] and t["status"] == "finished" for t in listed)
    playing = (await outsider.get("/api/tables", params={"status": "playing"})).json()
    assert all(t["id"] != table["id"] for t in playing)
    assert (await outsider.get("/api/tables/999999")).status_code == 404
