"""``/api/tables/{id}/recording``: a real-cards table over HTTP (RULES.md §10, docs/club.md)."""

from __future__ import annotations

from typing import Any

from app.db.models import Role
from tests.api.conftest import LoggedIn, clock, logged_in, make_member  # noqa: F401

PASSED = {"type": "game", "declarer": 1, "contract": "7H", "defence": {"2": "pass", "0": "pass"}}


async def test_recording_over_http(logged_in: LoggedIn) -> None:  # noqa: F811
    anna_client, anna = await logged_in()
    boris_client, boris = await logged_in()
    _, vera = await logged_in()
    outsider, _ = await logged_in()
    admin, _ = await logged_in(Role.admin)
    seats = [anna.id, boris.id, vera.id]

    made = await admin.post("/api/tables", json={"seats": seats, "mode": "recorded"})
    assert made.status_code == 201, made.text
    table = made.json()
    assert table["mode"] == "recorded" and table["seq"] == 1  # pulka_started, no deal dealt
    base = f"/api/tables/{table['id']}/recording"
    view = (await outsider.get(base)).json()
    assert view["deal_no"] == 0 and view["next_dealer"] == 0 and len(view["catalogue"]) == 11

    bad = await anna_client.post(
        f"{base}/deals",
        json={
            "deal_no": 0,
            "deal": {**PASSED, "penalties": [{"seat": 0, "rule": "anything at all", "hill": -500}]},
        },
    )
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_entry"
    assert "penalties" in bad.json()["detail"] and "anything at all" in bad.json()["detail"]
    assert (
        await outsider.post(f"{base}/deals", json={"deal_no": 0, "deal": PASSED})
    ).status_code == 403

    eleven = {**PASSED, "defence": {"2": "whist", "0": "pass"}, "tricks": {"0": 2, "1": 7, "2": 2}}
    wrong = await anna_client.post(f"{base}/deals", json={"deal_no": 0, "deal": eleven})
    assert wrong.status_code == 422 and wrong.json()["code"] == "invalid_entry"
    assert wrong.json()["params"] == {"field": "tricks", "total": 11}  # the page says it in words

    entered = await anna_client.post(f"{base}/deals", json={"deal_no": 0, "deal": PASSED})
    assert entered.status_code == 201, entered.text
    assert entered.json()["type"] == "recorded_deal"
    assert entered.json()["data"]["sheet"]["pool"] == [0, 4, 0]
    again = await anna_client.post(f"{base}/deals", json={"deal_no": 0, "deal": PASSED})
    assert again.status_code == 409 and again.json()["code"] == "stale_entry"

    fixed = await anna_client.put(f"{base}/deals/0", json={"deal": {**PASSED, "contract": "8H"}})
    assert fixed.status_code == 200, fixed.text
    assert fixed.json()["data"]["size"] == 0  # an under-entry corrected: nothing over-entered
    assert (await outsider.get(base)).json()["sheet"]["pool"] == [0, 6, 0]

    disputed = await boris_client.post(f"{base}/deals/0/disputes", json={"text": "was 7♥"})
    assert disputed.status_code == 201 and disputed.json()["data"]["seat"] == 1

    bad_scorer = await admin.post(
        "/api/tables", json={"seats": seats, "mode": "recorded", "scorer_member_id": 999999}
    )
    assert bad_scorer.status_code == 422 and bad_scorer.json()["code"] == "bad_scorer"
    live = await admin.post("/api/tables", json={"seats": seats, "practice": False})
    not_recorded = await outsider.get(f"/api/tables/{live.json()['id']}/recording")
    assert not_recorded.status_code == 409 and not_recorded.json()["code"] == "not_recorded"
    assert (await outsider.get("/api/tables/999999/recording")).status_code == 404


async def _recorded_table(logged_in: LoggedIn, fields: dict[str, Any]) -> tuple[Any, str]:  # noqa: F811
    """A real-cards table of three new members made by an admin with ``fields``: the first
    member's client (the scorer) and the table's recording address."""
    scorer_client, anna = await logged_in()
    _, boris = await logged_in()
    _, vera = await logged_in()
    admin, _ = await logged_in(Role.admin)
    seats = [anna.id, boris.id, vera.id]
    made = await admin.post("/api/tables", json={"seats": seats, "mode": "recorded", **fields})
    assert made.status_code == 201, made.text
    return scorer_client, f"/api/tables/{made.json()['id']}/recording"


async def test_an_arabic_recorded_table_offers_and_scores_004s_penalties(
    logged_in: LoggedIn,  # noqa: F811
) -> None:
    """A-23..A-25 at a real-cards arabic table: the view's catalogue adds 004's four entries
    to the club's eleven, and an off-suit discard on 7♥ (no bombs: opening_bombs 0) writes
    the game, 4, into the offender's hill under A-23."""
    scorer_client, base = await _recorded_table(
        logged_in, {"preset": "arabic", "conventions": {"opening_bombs": 0}}
    )
    view = (await scorer_client.get(base)).json()
    ids = [c["id"] for c in view["catalogue"]]
    assert len(ids) == 15 and ids[-4:] == [
        "off_suit_discard",
        "pledge_proven",
        "pledge_unproven",
        "card_exposed_kept",
    ]
    assert view["catalogue"][-4]["words"]["ru"] == "Снос не по масти"
    deal = {
        "type": "game",
        "declarer": 1,
        "contract": "7H",
        "defence": {"2": "whist", "0": "pass"},
        "play": "closed",
        "tricks": {"1": 7, "2": 2, "0": 1},
        "penalties": [{"seat": 2, "rule": "off_suit_discard"}],
    }
    entered = await scorer_client.post(f"{base}/deals", json={"deal_no": 0, "deal": deal})
    assert entered.status_code == 201, entered.text
    entries = (await scorer_client.get(base)).json()["entries"]
    assert [(e["seat"], e["column"], e["amount"]) for e in entries if e["rule"] == "A-23"] == [
        (2, "hill", 4)
    ]


async def test_a_classic_recorded_table_offers_and_scores_003s_remizes(
    logged_in: LoggedIn,  # noqa: F811
) -> None:
    """K-13..K-16 at a real-cards classic table: the catalogue is the scorer's correction and
    003's three remizes, no entry of the club's; Vera looked at the talon on Boris's 6♦ (not
    whisted): one ♦ remiz, 3, into her hill under K-14, Boris 3 into his pool (K-9)."""
    scorer_client, base = await _recorded_table(logged_in, {"preset": "classic"})
    view = (await scorer_client.get(base)).json()
    assert [c["id"] for c in view["catalogue"]] == [
        "entry_error",
        "talon_looked",
        "declared_out_of_turn",
        "passed_out_of_turn",
    ]
    assert view["catalogue"][1]["words"]["ru"] == "Посмотрел талон"
    deal = {
        "type": "game",
        "declarer": 1,
        "contract": "6D",
        "defence": {"2": "pass", "0": "pass"},
        "penalties": [{"seat": 2, "rule": "talon_looked"}],
    }
    whisting = {**deal, "defence": {"2": "whist", "0": "pass"}, "play": "closed",
                "tricks": {"1": 6, "2": 2, "0": 2}}  # fmt: skip
    refused = await scorer_client.post(f"{base}/deals", json={"deal_no": 0, "deal": whisting})
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_entry"
    entered = await scorer_client.post(f"{base}/deals", json={"deal_no": 0, "deal": deal})
    assert entered.status_code == 201, entered.text
    assert entered.json()["data"]["sheet"]["hill"] == [0, 0, 3]
    assert entered.json()["data"]["sheet"]["pool"] == [0, 3, 0]
