"""The API reference at ``/docs`` and ``/redoc`` works with no internet: every script and
stylesheet the pages load is served by the app itself (issue 11)."""

from __future__ import annotations

import gc
import re
import weakref

import httpx

from app.config import Settings
from app.main import create_app


def _asset_urls(html: str) -> list[str]:
    return re.findall(r"""(?:src|href)=["']([^"']+\.(?:js|css|png))["']""", html)


async def test_swagger_ui_loads_only_assets_the_app_serves(client: httpx.AsyncClient) -> None:
    page = await client.get("/docs")
    assert page.status_code == 200
    urls = _asset_urls(page.text)
    assert any(u.endswith("swagger-ui-bundle.js") for u in urls), page.text
    assert any(u.endswith("swagger-ui.css") for u in urls), page.text
    for url in urls:
        assert url.startswith("/"), f"{url} is loaded from another host"
        asset = await client.get(url)
        assert asset.status_code == 200, url
        assert len(asset.content) > 1000, url
    assert "cdn." not in page.text


async def test_redoc_loads_only_assets_the_app_serves(client: httpx.AsyncClient) -> None:
    page = await client.get("/redoc")
    assert page.status_code == 200
    urls = _asset_urls(page.text)
    assert any(u.endswith("redoc.standalone.js") for u in urls), page.text
    for url in urls:
        assert url.startswith("/"), f"{url} is loaded from another host"
        assert (await client.get(url)).status_code == 200, url
    assert "fonts.googleapis" not in page.text and "cdn." not in page.text


async def test_the_schema_has_no_docs_pages(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert not {"/docs", "/redoc", "/docs-assets"} & set(paths)


async def test_the_pages_carry_the_apps_title(client: httpx.AsyncClient) -> None:
    for page in ("/docs", "/redoc"):
        html = (await client.get(page)).text
        assert "<title>prefclub — API</title>" in html, (page, html[:300])


def test_an_app_dropped_is_freed(test_settings: Settings) -> None:
    """The docs pages read the app from their request: FastAPI keeps every endpoint in a
    process-wide cache, and a page that held its app would keep every app a process built
    alive (a parallel test run built hundreds, two million objects for each full collection
    to walk)."""
    app = create_app(test_settings)
    assert any(getattr(r, "path", None) == "/docs" for r in app.routes)
    dropped = weakref.ref(app)
    del app
    gc.collect()
    assert dropped() is None, [type(r).__name__ for r in gc.get_referrers(dropped())]
