"""The club's page as an app on the phone (issue 28, docs/browser.md): a web app manifest with
real icons, and a service worker that keeps only the page's shell. Real Chromium logs in, plays
at a table and walks the pages; every answer in the cache is then the page at ``/`` or a file
under ``/static/`` — never an ``/api/`` answer, so never a hand or a session — and with the
network cut the page still opens."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from tests.browser.conftest import first_admin_password
from tests.browser.test_csp import PASSWORD, admin_table
from tests.support.api_login import admin_client
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

CACHED_URLS = """async () => {
  const out = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) out.push(request.url);
  }
  return out;
}"""


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def test_the_manifest_names_the_club_and_its_icons_exist(server: ServerProcess) -> None:
    api = admin_client(server.base_url, first_admin_password(server))
    answer = api.get("/manifest.webmanifest")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    assert manifest["name"] == "Преферанс-клуб" and manifest["display"] == "standalone"
    assert manifest["start_url"].startswith("/") and manifest["scope"] == "/"
    sizes = set()
    for icon in manifest["icons"]:
        got = api.get(icon["src"])
        assert got.status_code == 200, icon
        assert got.headers["content-type"].startswith(icon["type"]), icon
        if icon["type"] == "image/png":
            width, height = _png_size(got.content)
            assert f"{width}x{height}" == icon["sizes"], icon
            sizes.add(icon["sizes"])
    assert {"192x192", "512x512"} <= sizes
    worker = api.get("/sw.js")
    assert worker.status_code == 200 and "javascript" in worker.headers["content-type"]
    assert worker.headers["cache-control"] == "no-cache"


def test_the_cache_holds_the_shell_and_never_an_answer_of_the_api(
    server: ServerProcess, browser: Any
) -> None:
    base = server.base_url
    table_id = admin_table(server, ("app1", "app2"))

    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="ru-RU")
    page = context.new_page()
    page.goto(base + "/")
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    page.reload()  # now the worker controls the page and sees its requests
    assert page.evaluate("() => Boolean(navigator.serviceWorker.controller)")
    page.fill("#login", "admin")
    page.fill("#password", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_selector("#session-title")
    page.goto(f"{base}/#/table/{table_id}")
    page.wait_for_selector(".conn:has-text('На связи')")  # the table's socket is open
    page.wait_for_selector("[data-testid=sheet] svg.pulka", state="attached")
    for route in ("#/history", "#/fund", "#/members", "#/lobby"):
        page.goto(f"{base}/{route}")
        page.wait_for_load_state("networkidle")
    cached = page.evaluate(CACHED_URLS)
    paths = [url.removeprefix(base) for url in cached]
    assert "/static/js/app.js" in paths and "/" in paths, paths
    assert all(p == "/" or p.startswith("/static/") for p in paths), paths

    context.set_offline(True)
    page.goto(base + "/")
    page.wait_for_selector(".brand")  # the shell opens without the network
    context.close()
