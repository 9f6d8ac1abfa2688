"""The API reference at ``/docs`` and ``/redoc`` works with no internet: every script and
stylesheet the pages load is served by the app itself (issue 11)."""

from __future__ import annotations

import re

import httpx


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
