"""The API reference at ``/docs`` (Swagger UI) and ``/redoc`` without the internet.

FastAPI's own pages load Swagger UI and ReDoc from a CDN, so a club laptop offline gets a blank
page. The ``fastapi-offline`` package ships those assets; the app serves them itself under
``/docs-assets`` and points the two pages at them. A deployment that turned the pages off
(``docs_url=None``) keeps them off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.routing import BaseRoute, Route

from app.api.schemas import ERROR_MODELS

ASSETS_URL = "/docs-assets"
ASSETS_DIR = Path(fastapi_offline.__file__).resolve().parent / "static"
"""``swagger-ui-bundle.js``, ``swagger-ui.css``, ``redoc.standalone.js`` and ``favicon.png``."""


def error_schemas() -> dict[str, Any]:
    """The components' schemas of the error answers' models (``ERROR_MODELS`` and the models
    they nest) exactly as FastAPI writes them for a route's response models: taken from the
    document of a one-route app that declares them so."""
    probe = FastAPI()
    responses: dict[int | str, dict[str, Any]] = {
        status: {"model": model} for status, model in enumerate(ERROR_MODELS, start=550)
    }
    probe.add_api_route("/", lambda: None, responses=responses)
    return dict(probe.openapi()["components"]["schemas"])


def install_error_schemas(app: FastAPI) -> None:
    """Add the error answers' schemas (``app.api.schemas.ERRORS`` refers to them) to the
    components of ``app``'s OpenAPI document when it is first built."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = build()
            components = document.setdefault("components", {})
            schemas = {**error_schemas(), **components.get("schemas", {})}
            components["schemas"] = dict(sorted(schemas.items()))  # as FastAPI orders them
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _without(routes: list[BaseRoute], paths: set[str]) -> list[BaseRoute]:
    return [r for r in routes if not (isinstance(r, Route) and r.path in paths)]


def install_offline_docs(app: FastAPI) -> None:
    """Replace FastAPI's CDN-backed ``/docs`` and ``/redoc`` pages with ones whose scripts and
    styles the app serves itself. Pages switched off on ``app`` stay off. The pages read the
    app from their request, never from a closure: FastAPI keeps an endpoint in a process-wide
    cache, which would keep every app a process ever built alive (a test run builds hundreds)."""
    docs_url, redoc_url = app.docs_url, app.redoc_url
    oauth_url = app.swagger_ui_oauth2_redirect_url
    openapi_url = app.openapi_url
    if openapi_url is None or (docs_url is None and redoc_url is None):
        return
    replaced = {p for p in (docs_url, redoc_url, oauth_url) if p}
    app.router.routes[:] = _without(app.router.routes, replaced)
    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS_DIR), name="docs-assets")

    if docs_url is not None:

        async def swagger(request: Request) -> HTMLResponse:
            root = request.scope.get("root_path", "")
            return get_swagger_ui_html(
                openapi_url=f"{root}{openapi_url}",
                title=f"{request.app.title} — API",
                oauth2_redirect_url=oauth_url,
                swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
                swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
                swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
                swagger_ui_parameters=request.app.swagger_ui_parameters,
            )

        app.add_api_route(docs_url, swagger, methods=["GET"], include_in_schema=False)
        if oauth_url is not None:

            async def oauth_redirect() -> HTMLResponse:
                return get_swagger_ui_oauth2_redirect_html()

            app.add_api_route(oauth_url, oauth_redirect, methods=["GET"], include_in_schema=False)

    if redoc_url is not None:

        async def redoc(request: Request) -> HTMLResponse:
            root = request.scope.get("root_path", "")
            return get_redoc_html(
                openapi_url=f"{root}{openapi_url}",
                title=f"{request.app.title} — API",
                redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
                redoc_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
                with_google_fonts=False,
            )

        app.add_api_route(redoc_url, redoc, methods=["GET"], include_in_schema=False)
