"""A request's transaction commits before its response leaves (SessionDep, scope="function").

Otherwise a client that acts on the answer at once — the next request right after login — can
race the commit and be refused as not logged in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import local_http
from tests.support.databases import drop_database, scratch_database
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    url, name = scratch_database(database_url)
    try:
        with ServerProcess({"DATABASE_URL": url, "PREFCLUB_DATA_DIR": str(tmp_path)}) as srv:
            yield srv
    finally:
        drop_database(database_url, name)


def test_every_request_right_after_login_sees_the_session(server: ServerProcess) -> None:
    password = re.search(r"one-time password (\S+)", server.output())
    assert password, server.output()
    refused = 0
    for _ in range(25):
        with local_http.client(base_url=server.base_url) as client:
            login = client.post(
                "/api/auth/login", json={"login": "admin", "password": password.group(1)}
            )
            assert login.status_code == 200, login.text
            if client.get("/api/auth/me").status_code != 200:
                refused += 1
    assert refused == 0
