"""``/metrics`` is off without ``PREFCLUB_METRICS_TOKEN``, refuses a missing or wrong bearer
token with 401 (nothing read, nothing changed) and answers the Prometheus text with it."""

from __future__ import annotations

import math
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from app.clock import FrozenClock
from app.config import Settings
from app.main import create_app
from app.security import passwords
from tests.api.conftest import log_in
from tests.support.metrics import NAMED, names, parse, total, value

TOKEN = "metrics-token-for-the-tests-0123456789"


@pytest.fixture
def test_settings(database_url: str, tmp_path: Path) -> Settings:
    """The test app's settings with metrics on."""
    return Settings(
        DATABASE_URL=database_url,
        PREFCLUB_DATA_DIR=tmp_path,
        SECRET_KEY="test-secret-key-that-is-long-enough-for-signing",
        PREFCLUB_ENV="test",
        PREFCLUB_METRICS_TOKEN=TOKEN,
    )


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _scrape(client: httpx.AsyncClient) -> httpx.Response:
    response = await client.get("/metrics", headers=_bearer(TOKEN))
    assert response.status_code == 200, response.text
    return response


async def test_metrics_are_off_when_no_token_is_set(test_settings: Settings) -> None:
    app = create_app(test_settings.model_copy(update={"metrics_token": None}))
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://t"
    ) as client:
        for headers in ({}, _bearer(TOKEN)):
            response = await client.get("/metrics", headers=headers)
            assert response.status_code == 404
            assert response.json()["code"] == "not_found"
            assert "prefclub_" not in response.text


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({}, "metrics_token_required"),
        ({"Authorization": "Bearer"}, "metrics_token_required"),
        ({"Authorization": f"Basic {TOKEN}"}, "metrics_token_required"),
        (_bearer(TOKEN + "x"), "metrics_token_invalid"),
        (_bearer(TOKEN[:-1] + "X"), "metrics_token_invalid"),
        (_bearer("short"), "metrics_token_invalid"),
    ],
)
async def test_a_missing_or_wrong_token_is_401_and_changes_nothing(
    client: httpx.AsyncClient, app: FastAPI, headers: dict[str, str], code: str
) -> None:
    before = parse((await _scrape(client)).text)
    refused = await client.get("/metrics", headers=headers)
    assert refused.status_code == 401
    assert refused.headers["WWW-Authenticate"].startswith("Bearer")
    assert refused.json()["code"] == code and refused.json()["detail"]
    assert "prefclub_" not in refused.text  # no metric leaks into the refusal
    after = parse((await _scrape(client)).text)
    for name in (
        "prefclub_commands_total",
        "prefclub_command_seconds_count",
        "prefclub_worker_pool_busy_total",
        "prefclub_live_tables",
    ):
        assert total(after, name) == total(before, name), name


async def test_the_right_token_gets_every_metric_in_the_text_format(
    client: httpx.AsyncClient,
) -> None:
    response = await _scrape(client)
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert response.headers["cache-control"] == "no-store"
    samples = parse(response.text)
    assert set(NAMED) <= names(samples), set(NAMED) - names(samples)
    assert value(samples, "prefclub_db_pool_size") > 0
    assert value(samples, "prefclub_worker_pool_capacity", pool="passwords") > 0
    assert math.isnan(value(samples, "prefclub_last_backup_age_seconds"))  # none wired, none known


async def test_the_backup_age_comes_from_the_provider_and_a_failing_one_is_nan(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    app.state.backup_age = lambda settings: 42.5
    assert value(parse((await _scrape(client)).text), "prefclub_last_backup_age_seconds") == 42.5

    def broken(settings: Settings) -> float | None:
        raise OSError("the backup folder is gone")

    app.state.backup_age = broken
    assert math.isnan(
        value(parse((await _scrape(client)).text), "prefclub_last_backup_age_seconds")
    )


async def test_a_busy_answer_is_counted(
    client: httpx.AsyncClient,
    make_member,  # type: ignore[no-untyped-def]
    clock: FrozenClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    member = await make_member()
    before = value(
        parse((await _scrape(client)).text), "prefclub_worker_pool_busy_total", pool="passwords"
    )
    monkeypatch.setattr(passwords.POOL, "limit", 0)
    busy = await log_in(client, member.login)
    assert busy.status_code == 503 and busy.json()["code"] == "busy"
    after = value(
        parse((await _scrape(client)).text), "prefclub_worker_pool_busy_total", pool="passwords"
    )
    assert after == before + 1


@pytest.mark.parametrize("token", ["short", "changeme", "   tiny   "])
def test_a_weak_metrics_token_is_refused_at_start_up(token: str, tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="PREFCLUB_METRICS_TOKEN"):
        Settings(PREFCLUB_METRICS_TOKEN=token, PREFCLUB_DATA_DIR=tmp_path)


def test_an_empty_metrics_token_means_off(tmp_path: Path) -> None:
    assert Settings(PREFCLUB_METRICS_TOKEN="  ", PREFCLUB_DATA_DIR=tmp_path).metrics_token is None
