"""Logs keep secrets out: no reset token from a URL's query string in the access log of a real
server, no SQL parameters (a password hash) or constraint key values in a logged DB error."""

from __future__ import annotations

import io
import json
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from app.db.engine import make_engine
from app.db.models import Member, Role
from app.logging_setup import JsonFormatter, RedactFilter
from tests.support.databases import drop_database, scratch_database
from tests.support.server import ServerProcess


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    url, name = scratch_database(database_url)
    try:
        with ServerProcess({"DATABASE_URL": url, "PREFCLUB_DATA_DIR": str(tmp_path)}) as srv:
            yield srv
    finally:
        drop_database(database_url, name)


@pytest.mark.e2e
def test_the_access_log_has_no_reset_token(server: ServerProcess) -> None:
    token = f"RESETTOKEN{uuid.uuid4().hex}"
    page = httpx.get(f"{server.base_url}/reset-password?token={token}")
    assert page.status_code == 200
    httpx.get(f"{server.base_url}/healthz?marker=done")  # a later line: the first was written
    server.stop()
    output = server.output()
    access = [line for line in output.splitlines() if "/reset-password" in line]
    assert access, output  # the request was logged ...
    assert token not in output  # ... without its token
    assert all("?" not in json.loads(line)["msg"] for line in access)


async def test_a_logged_database_error_has_no_parameters(database_url: str) -> None:
    secret = f"SECRETHASH{uuid.uuid4().hex}"
    login = f"dup{uuid.uuid4().hex[:10]}"
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    log = logging.getLogger("prefclub.test.dberror")
    log.addHandler(handler)
    log.propagate = False
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            row = {
                "login": login,
                "display_name": "x",
                "role": Role.member,
                "password_hash": secret,
                "must_change_password": False,
                "active": True,
                "is_bot": False,
            }
            await conn.execute(insert(Member).values(**row))
            with pytest.raises(IntegrityError) as caught:
                await conn.execute(insert(Member).values(**row))
            await conn.rollback()
        try:
            raise caught.value
        except IntegrityError:
            log.exception("database error")
    finally:
        await engine.dispose()
        log.removeHandler(handler)
    text = stream.getvalue()
    assert "database error" in text and "IntegrityError" in text
    assert secret not in text
    assert login not in text  # the duplicate key's value PostgreSQL quotes in DETAIL


def test_our_json_logs_cut_query_strings_from_url_fields() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RedactFilter())
    log = logging.getLogger("prefclub.test.urls")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning(
            "request failed",
            extra={"url": "/reset-password?token=SECRET1", "path": "/x?token=SECRET2"},
        )
    finally:
        log.removeHandler(handler)
    line = json.loads(stream.getvalue())
    assert line["url"] == "/reset-password" and line["path"] == "/x"
    assert "SECRET" not in stream.getvalue()
