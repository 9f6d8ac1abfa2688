"""Password-guessing limits: recorded before the check under locks (concurrent guesses cannot slip
through), progressive delays instead of lockouts, forwarded addresses only from trusted proxies,
and the password change limited like the login."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncEngine

from app.clock import FrozenClock
from app.config import Settings
from app.security.addresses import TrustedProxies, client_address
from tests.api.conftest import PASSWORD, LoggedIn, log_in
from tests.support.live_app import LiveApp, live_app


@pytest.fixture
async def live(test_settings: Settings, engine: AsyncEngine) -> AsyncIterator[LiveApp]:
    async for app in live_app(test_settings, engine):
        yield app


def _client(app: FastAPI, address: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=(address, 1)),
        base_url="http://127.0.0.1:8000",
    )


async def _burst(
    client: httpx.AsyncClient,
    bodies: list[dict[str, str]],
    headers: list[dict[str, str]] | None = None,
) -> Counter[int]:
    responses = await asyncio.gather(
        *(
            client.post("/api/auth/login", json=body, headers=(headers or [{}] * len(bodies))[i])
            for i, body in enumerate(bodies)
        )
    )
    return Counter(r.status_code for r in responses)


async def test_concurrent_guesses_on_one_login_are_checked_once(live: LiveApp) -> None:
    # 30 parallel wrong passwords for one account from one address: the first attempt is
    # recorded (and committed) before its hash check, so every other one sees it and waits.
    async with live.client("10.1.0.1") as client:
        codes = await _burst(
            client, [{"login": live.logins[0], "password": f"guess {i}"} for i in range(30)]
        )
    assert codes == Counter({401: 1, 429: 29})


async def test_concurrent_guesses_from_many_addresses_respect_the_login_budget(
    live: LiveApp,
) -> None:
    # Behind a trusted proxy, 30 addresses guess one login at once: only the login's free
    # budget (10) is checked against the hash, the rest wait.
    live.app.state.trusted_proxies = TrustedProxies(["127.0.0.1"])
    async with live.client("127.0.0.1") as client:
        codes = await _burst(
            client,
            [{"login": live.logins[0], "password": f"guess {i}"} for i in range(30)],
            [{"X-Forwarded-For": f"10.2.0.{i + 1}"} for i in range(30)],
        )
    assert codes == Counter({401: 10, 429: 20})


async def test_concurrent_spraying_from_one_address_respects_its_budget(live: LiveApp) -> None:
    # One address tries 30 different logins at once: 20 free failures, then it must wait.
    async with live.client("10.3.0.1") as client:
        codes = await _burst(
            client, [{"login": f"{live.logins[0]}-x{i}", "password": "guess"} for i in range(30)]
        )
    assert codes == Counter({401: 20, 429: 10})


async def test_failures_delay_the_next_attempt_progressively(
    client: httpx.AsyncClient, make_member, clock: FrozenClock
) -> None:
    await make_member(login="target")
    waits = []
    for _ in range(8):
        assert (await log_in(client, "target", "bad")).status_code == 401
        refused = await log_in(client, "target")  # even the right password waits
        assert refused.status_code == 429
        assert refused.json()["code"] == "login_throttled"
        waits.append(int(refused.headers["Retry-After"]))
        clock.advance(timedelta(seconds=waits[-1]))
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60]
    # Never locked for good: after the wait, the right password works.
    assert (await log_in(client, "target")).status_code == 200


async def test_a_wrong_login_answers_with_a_code(
    client: httpx.AsyncClient, make_member, clock: FrozenClock
) -> None:
    await make_member(login="coded")
    wrong = await log_in(client, "coded", "bad")
    assert wrong.status_code == 401 and wrong.json()["code"] == "wrong_credentials"


async def test_someone_elses_failures_cost_the_member_only_a_small_delay(
    app: FastAPI, make_member, clock: FrozenClock
) -> None:
    member = await make_member()
    # An attacker guesses from 15 addresses, waiting whenever he is told to.
    for i in range(15):
        async with _client(app, f"10.4.0.{i + 1}") as attacker:
            response = await log_in(attacker, member.login, "bad")
            if response.status_code == 429:
                assert int(response.headers["Retry-After"]) <= 5
                clock.advance(timedelta(seconds=int(response.headers["Retry-After"])))
                response = await log_in(attacker, member.login, "bad")
            assert response.status_code == 401
    async with _client(app, "10.4.1.1") as own:
        first = await log_in(own, member.login)
        if first.status_code == 429:
            assert int(first.headers["Retry-After"]) <= 5
            clock.advance(timedelta(seconds=int(first.headers["Retry-After"])))
            first = await log_in(own, member.login)
        assert first.status_code == 200


async def test_one_address_does_not_lock_out_its_other_members(
    app: FastAPI, make_member, clock: FrozenClock
) -> None:
    member = await make_member()
    async with _client(app, "10.5.0.1") as shared:
        for i in range(25):
            response = await log_in(shared, f"nobody{i}", "bad")
            if response.status_code == 429:
                clock.advance(timedelta(seconds=int(response.headers["Retry-After"])))
                response = await log_in(shared, f"nobody{i}", "bad")
            assert response.status_code == 401
        # The address is slowed down (at most 30 s), never locked.
        waited = await log_in(shared, member.login)
        assert waited.status_code == 429 and int(waited.headers["Retry-After"]) <= 30
        clock.advance(timedelta(seconds=int(waited.headers["Retry-After"])))
        assert (await log_in(shared, member.login)).status_code == 200


async def test_forwarded_addresses_are_ignored_from_untrusted_peers(
    client: httpx.AsyncClient, make_member, clock: FrozenClock
) -> None:
    member = await make_member()
    assert (
        await client.post(
            "/api/auth/login",
            json={"login": member.login, "password": "x"},
            headers={"X-Forwarded-For": "10.6.0.1"},
        )
    ).status_code == 401
    # A made-up X-Forwarded-For does not escape the delay: the peer is still the address.
    spoofed = await client.post(
        "/api/auth/login",
        json={"login": member.login, "password": PASSWORD},
        headers={"X-Forwarded-For": "10.6.0.2"},
    )
    assert spoofed.status_code == 429


async def test_forwarded_addresses_count_from_a_trusted_proxy(
    app: FastAPI, client: httpx.AsyncClient, make_member, clock: FrozenClock
) -> None:
    app.state.trusted_proxies = TrustedProxies(["127.0.0.1"])
    member = await make_member()
    assert (
        await client.post(
            "/api/auth/login",
            json={"login": member.login, "password": "x"},
            headers={"X-Forwarded-For": "10.7.0.1"},
        )
    ).status_code == 401
    # Another client behind the same proxy is not slowed down by the first one's failure.
    other = await client.post(
        "/api/auth/login",
        json={"login": member.login, "password": PASSWORD},
        headers={"Forwarded": 'for="10.7.0.2";proto=https'},
    )
    assert other.status_code == 200


def test_settings_read_the_trusted_proxies(tmp_path) -> None:
    settings = Settings(PREFCLUB_DATA_DIR=tmp_path, FORWARDED_ALLOW_IPS="127.0.0.1, 10.0.0.0/8")
    assert settings.forwarded_allow_ips == ["127.0.0.1", "10.0.0.0/8"]
    assert Settings(PREFCLUB_DATA_DIR=tmp_path).forwarded_allow_ips == []
    with pytest.raises(ValueError, match="FORWARDED_ALLOW_IPS"):
        Settings(PREFCLUB_DATA_DIR=tmp_path, FORWARDED_ALLOW_IPS="proxy.local")


async def test_wrong_current_passwords_are_delayed_like_logins(
    logged_in: LoggedIn, clock: FrozenClock
) -> None:
    client, _ = await logged_in()
    body = {"current_password": "wrong-one", "new_password": "a brand new secret"}
    first = await client.post("/api/auth/password", json=body)
    assert first.status_code == 403 and first.json()["code"] == "wrong_password"
    again = await client.post("/api/auth/password", json=body)
    assert again.status_code == 429 and int(again.headers["Retry-After"]) == 1
    # Even the right current password waits; after the delay it works.
    right = {"current_password": PASSWORD, "new_password": "a brand new secret"}
    assert (await client.post("/api/auth/password", json=right)).status_code == 429
    clock.advance(timedelta(seconds=1))
    assert (await client.post("/api/auth/password", json=right)).status_code == 200


@pytest.mark.parametrize(
    ("peer", "headers", "trusted", "expected"),
    [
        ("10.9.0.1", {"x-forwarded-for": "1.2.3.4"}, [], "10.9.0.1"),  # untrusted peer: ignored
        ("127.0.0.1", {"x-forwarded-for": "1.2.3.4"}, ["127.0.0.1"], "1.2.3.4"),
        # A client cannot hide behind a made-up leftmost entry: read from the right.
        ("127.0.0.1", {"x-forwarded-for": "6.6.6.6, 1.2.3.4"}, ["127.0.0.1"], "1.2.3.4"),
        # Two trusted proxies in a row are skipped.
        (
            "127.0.0.1",
            {"x-forwarded-for": "1.2.3.4, 10.0.0.5"},
            ["127.0.0.1", "10.0.0.0/8"],
            "1.2.3.4",
        ),
        (
            "127.0.0.1",
            {"forwarded": 'for="[2001:db8::1]:443";proto=https'},
            ["127.0.0.1"],
            "2001:db8::1",
        ),
        ("127.0.0.1", {"forwarded": "for=1.2.3.4:5555, for=10.0.0.5"}, ["*"], "1.2.3.4"),
        # Garbage stops at the last address a trusted proxy vouched for.
        ("127.0.0.1", {"x-forwarded-for": "not-an-ip"}, ["127.0.0.1"], "127.0.0.1"),
        ("127.0.0.1", {}, ["127.0.0.1"], "127.0.0.1"),
    ],
)
def test_client_address(
    peer: str, headers: dict[str, str], trusted: list[str], expected: str
) -> None:
    assert client_address(peer, headers, TrustedProxies(trusted)) == expected
