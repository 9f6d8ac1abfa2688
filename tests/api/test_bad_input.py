"""Bad input never reaches the database as a 5xx: ids beyond the ``integer`` columns, NUL bytes,
lone surrogates and control characters in text all get a 4xx with ``code`` ``invalid_input``
and change nothing (issue 9, security review)."""

from __future__ import annotations

import json

import httpx
import pytest

from app.db.models import Role
from tests.api.conftest import LoggedIn

TOO_BIG = ["2147483648", "9223372036854775808", "99999999999999999999"]
"""Just past the ``integer`` (int4) columns, past bigint, and past everything."""

PATHS = [
    "/api/pulkas/{id}",
    "/api/pulkas/1/deals/{id}",
    "/api/pulkas/{id}/deals/1",
    "/api/members/{id}",
    "/api/members/{id}/stats",
    "/api/tables/{id}",
    "/api/tables/{id}/state",
    "/api/tables/{id}/pulka",
    "/api/tables/{id}/draws",
    "/api/tables/{id}/extension",
    "/api/ui/tables/{id}/sheet-lines",
    "/api/sessions/{id}",
    "/api/sessions/{id}/draws",
]

POSTS = [
    "/api/sessions/{id}/check-in",
    "/api/seat-changes/{id}/apply",
]

BAD_TEXT = ["a\u0000b", "\ud800", "x\udfff", "bell\u0007", "esc\u001b[2J"]
"""NUL (PostgreSQL text cannot hold it), lone surrogates (not encodable as UTF-8) and other
control characters (terminal escapes in a name)."""


def assert_invalid(response: httpx.Response) -> None:
    """A 4xx answer with the stable ``invalid_input`` code and a readable detail."""
    assert 400 <= response.status_code < 500, (response.status_code, response.text)
    body = response.json()
    assert body["code"] == "invalid_input", body
    assert body["detail"], body


async def send_raw(
    client: httpx.AsyncClient, method: str, url: str, body: dict[str, object]
) -> httpx.Response:
    """Send ``body`` as JSON text with ``\\u`` escapes, so lone surrogates can be sent."""
    text = json.dumps(body, ensure_ascii=True)
    return await client.request(
        method, url, content=text.encode("ascii"), headers={"Content-Type": "application/json"}
    )


@pytest.mark.parametrize("big", TOO_BIG)
async def test_ids_beyond_the_integer_range_in_paths_are_422(logged_in: LoggedIn, big: str) -> None:
    admin, _ = await logged_in(Role.admin)
    for path in PATHS:
        assert_invalid(await admin.get(path.format(id=big)))
    for path in POSTS:
        assert_invalid(await admin.post(path.format(id=big)))
    assert_invalid(await admin.patch(f"/api/members/{big}", json={"display_name": "X"}))
    assert_invalid(await admin.post(f"/api/fund/proposals/{big}/vote", json={"yes": True}))
    assert_invalid(await admin.post(f"/api/seat-changes/{big}/consent", json={"agree": True}))
    assert_invalid(await admin.post(f"/api/drawn-tables/{big}/seat", json={"mode": "draw"}))
    assert_invalid(await admin.post(f"/api/tables/{big}/close", json={"reason": "agreement"}))
    assert_invalid(await admin.patch(f"/api/tables/{big}/timer", json={"move_timer_seconds": None}))


async def test_zero_and_negative_ids_are_422(logged_in: LoggedIn) -> None:
    admin, _ = await logged_in(Role.admin)
    for bad in ("0", "-1"):
        assert_invalid(await admin.get(f"/api/tables/{bad}"))
        assert_invalid(await admin.get(f"/api/members/{bad}"))


@pytest.mark.parametrize("big", [int(b) for b in TOO_BIG])
async def test_ids_beyond_the_integer_range_in_bodies_are_422(
    logged_in: LoggedIn, big: int
) -> None:
    admin, me = await logged_in(Role.admin)
    before = (await admin.get("/api/tables")).json()
    assert_invalid(
        await admin.post("/api/tables", json={"seats": [me.id, big, None], "practice": True})
    )
    assert_invalid(await admin.post("/api/tables/1/join", json={"member_id": big}))
    assert_invalid(await admin.post("/api/tables/1/replace", json={"seat": 1, "member_id": big}))
    assert_invalid(
        await admin.post(
            "/api/drawn-tables/1/seat", json={"mode": "choice", "seats": [me.id, big, 3]}
        )
    )
    assert_invalid(
        await admin.post("/api/fund/payments", json={"member_id": big, "amount": "1.00"})
    )
    assert_invalid(await admin.get(f"/api/fund?before_id={big}"))
    assert (await admin.get("/api/tables")).json() == before


@pytest.mark.parametrize("bad", BAD_TEXT)
async def test_bad_characters_in_names_titles_reasons_and_notes_are_422(
    logged_in: LoggedIn,
    bad: str,
) -> None:
    admin, me = await logged_in(Role.admin)
    members = (await admin.get("/api/members")).json()
    assert_invalid(
        await send_raw(admin, "POST", "/api/members", {"login": "newbie", "display_name": bad})
    )
    assert_invalid(await send_raw(admin, "PATCH", f"/api/members/{me.id}", {"display_name": bad}))
    assert (await admin.get("/api/members")).json() == members

    fund = (await admin.get("/api/fund")).json()
    assert_invalid(
        await send_raw(admin, "POST", "/api/fund/proposals", {"title": bad, "amount": "10.00"})
    )
    assert_invalid(
        await send_raw(
            admin,
            "POST",
            "/api/fund/payments",
            {"member_id": me.id, "amount": "10.00", "reason": bad},
        )
    )
    assert (await admin.get("/api/fund")).json() == fund
    assert (await admin.get("/api/fund/proposals")).json()["proposals"] == []

    sessions = (await admin.post("/api/sessions/generate", json={"weeks": 1})).json()
    assert_invalid(
        await send_raw(
            admin, "POST", f"/api/sessions/{sessions[0]['id']}/late-notice", {"note": bad}
        )
    )
    detail = (await admin.get(f"/api/sessions/{sessions[0]['id']}")).json()
    assert detail["late_notices"] == []
    assert_invalid(await send_raw(admin, "POST", "/api/tables/1/close", {"reason": bad}))
    assert_invalid(
        await send_raw(admin, "POST", "/api/tables", {"seats": [me.id, None, None], "preset": bad})
    )


async def test_a_surrogate_in_an_unknown_field_or_a_wrong_value_is_not_echoed_as_500(
    logged_in: LoggedIn,
) -> None:
    admin, _ = await logged_in(Role.admin)
    # the validation error names the input: it must still encode as UTF-8
    response = await send_raw(
        admin, "POST", "/api/members", {"login": "\ud800", "display_name": "X", "role": "\udfff"}
    )
    assert_invalid(response)
    response = await send_raw(admin, "POST", "/api/sessions/generate", {"weeks": "\ud800"})
    assert_invalid(response)


async def test_good_text_still_passes(logged_in: LoggedIn) -> None:
    admin, _ = await logged_in(Role.admin)
    created = await admin.post(
        "/api/members", json={"login": "tabby", "display_name": "Пётр «Таб» Петров 🂡"}
    )
    assert created.status_code == 201, created.text
    proposal = await admin.post(
        "/api/fund/proposals", json={"title": "Две колоды\nи сукно", "amount": "12.00"}
    )
    assert proposal.status_code == 201, proposal.text
