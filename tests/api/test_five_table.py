"""R-T1, R-T6: with exactly five present the draw makes one table of five, and it is seated:
every member has his seat at a five-player table (the deals are played in the browser test and
by ``prefclub selfplay --players 5``)."""

from __future__ import annotations

from datetime import timedelta

from app.clock import FrozenClock
from app.rules.core.seats import idle_seats, playing_seats
from tests.api.conftest import AT_1900


async def test_the_draws_table_of_five_is_seated_and_dealt(evening, clock: FrozenClock) -> None:
    ev = await evening(5)
    drawn = await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})
    assert drawn.status_code == 201, drawn.text
    body = drawn.json()
    assert body["draw"]["record"]["table_sizes"] == [5]
    table = body["tables"][0]
    assert len(table["member_ids"]) == 5
    player = next(c for c, m in ev.players if m.id == table["member_ids"][0])
    seated = await player.post(f"/api/drawn-tables/{table['id']}/seat", json={"mode": "draw"})
    assert seated.status_code == 201, seated.text
    out = seated.json()
    assert sorted(out["seats"]) == sorted(table["member_ids"])
    dealer = out["first_dealer"]["record"]["dealer"]
    clock.set(AT_1900 + timedelta(minutes=1))
    clients = {m.id: c for c, m in ev.players}
    for seat, member_id in enumerate(out["seats"]):
        state = (await clients[member_id].get(f"/api/tables/{out['table_id']}/state")).json()
        assert state["seat"] == seat and state["table"]["players"] == 5
    detail = (await player.get(f"/api/tables/{out['table_id']}")).json()
    assert detail["players"] == 5
    assert [s["member_id"] for s in detail["seats"]] == out["seats"]
    # R-T6: the first dealer and the seat opposite him sit out the first deal
    assert set(playing_seats(5, dealer)) == set(range(5)) - set(idle_seats(5, dealer))
    assert (dealer + 3) % 5 in idle_seats(5, dealer)
