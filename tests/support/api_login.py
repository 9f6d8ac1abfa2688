"""A synchronous HTTP client logged in to a real ``prefclub serve``, as the browser tests use one
beside their pages to set up a club (members, tables, payments) through the public API."""

from __future__ import annotations

import time

import httpx

from tests.support import local_http

SESSION_VISIBLE_WITHIN = 10.0
"""Seconds the new login session has to become visible: it is committed just after the login
answer, so the first request after it may not see it yet."""


def logged_in_client(
    base: str, login: str, password: str, *, new_password: str | None = None
) -> httpx.Client:
    """An ``httpx.Client`` on ``base`` logged in as ``login`` with the CSRF header set, once its
    session is visible (``/api/auth/me`` answers 200). With ``new_password`` the member then sets
    it (a one-time password's forced change). The caller closes the client (``contextlib.closing``:
    an opened client cannot be entered again)."""
    client = local_http.client(base_url=base)
    try:
        client.post(
            "/api/auth/login", json={"login": login, "password": password}
        ).raise_for_status()
        deadline = time.monotonic() + SESSION_VISIBLE_WITHIN
        while client.get("/api/auth/me").status_code != 200:
            if time.monotonic() > deadline:
                raise AssertionError(f"the login session of {login} never became visible")
            time.sleep(0.1)
        client.headers["X-CSRF-Token"] = client.cookies["prefclub_csrf"]
        if new_password is not None:
            client.post(
                "/api/auth/password",
                json={"current_password": password, "new_password": new_password},
            ).raise_for_status()
    except BaseException:
        client.close()
        raise
    return client


def admin_client(base: str, password: str) -> httpx.Client:
    """:func:`logged_in_client` as the club's first admin (login ``admin``)."""
    return logged_in_client(base, "admin", password)
