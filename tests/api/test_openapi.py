"""Every club endpoint is in the OpenAPI schema with typed bodies and examples."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
from fastapi import FastAPI

from app.api.schemas import ERRORS, ErrorOut, ValidationErrorOut

CLUB_PATHS = {
    ("post", "/api/auth/login"),
    ("post", "/api/auth/logout"),
    ("get", "/api/auth/me"),
    ("patch", "/api/auth/me"),
    ("post", "/api/auth/password"),
    ("post", "/api/auth/password-reset"),
    ("get", "/api/members"),
    ("post", "/api/members"),
    ("patch", "/api/members/{member_id}"),
    ("post", "/api/members/{member_id}/deactivate"),
    ("post", "/api/members/{member_id}/password-reset"),
    ("get", "/api/sessions"),
    ("post", "/api/sessions/generate"),
    ("post", "/api/sessions/extra"),
    ("get", "/api/sessions/current"),
    ("post", "/api/sessions/{session_id}/check-in"),
    ("post", "/api/sessions/{session_id}/late-notice"),
    ("post", "/api/sessions/{session_id}/draw-tables"),
    ("post", "/api/sessions/{session_id}/end"),
    ("get", "/api/attendance"),
    ("post", "/api/drawn-tables/{drawn_id}/seat"),
    ("post", "/api/practice-tables"),
    ("post", "/api/tables/{table_id}/extension"),
    ("post", "/api/tables/{table_id}/join"),
    ("post", "/api/tables/{table_id}/replace"),
    ("post", "/api/seat-changes/{change_id}/consent"),
}


async def test_openapi_documents_the_club_api(client: httpx.AsyncClient) -> None:
    schema = (await client.get("/openapi.json")).json()
    paths = schema["paths"]
    for method, path in CLUB_PATHS:
        assert method in paths.get(path, {}), f"{method.upper()} {path} is not documented"
        operation = paths[path][method]
        assert operation.get("description") or operation.get("summary")
    components = schema["components"]["schemas"]
    for name in (
        "LoginIn",
        "MemberOut",
        "SessionOut",
        "DrawOut",
        "SeatIn",
        "ExtensionOut",
        "SeatChangeOut",
        "ErrorOut",
    ):
        assert components[name].get("examples"), f"{name} has no example"


def _refs(node: Any) -> Iterator[str]:
    """Every ``$ref`` anywhere in a JSON document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


async def test_every_route_documents_its_error_answers_by_their_schemas(
    client: httpx.AsyncClient,
) -> None:
    """``ERRORS`` names the error bodies by reference (no per-route model: app/api/schemas.py
    says why): every club route still documents each error answer with its body's schema,
    every reference of the document resolves, and the error models' schemas are the ones
    FastAPI writes for response models."""
    schema = (await client.get("/openapi.json")).json()
    components = schema["components"]["schemas"]
    checked = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, answer in ERRORS.items():
                documented = operation["responses"].get(str(status))
                if documented is None:  # a router without the club's error answers
                    continue
                assert documented["description"], (method, path, status)  # a route may word it
                assert documented["content"]["application/json"]["schema"], (method, path, status)
                checked += documented["content"] == answer["content"]  # or its own body
    assert checked > 500  # the seven answers of every club route
    for ref in set(_refs(schema)):
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.removeprefix("#/components/schemas/") in components, ref
    by_model = FastAPI()
    by_model.add_api_route(
        "/", lambda: None, responses={400: {"model": ErrorOut}, 422: {"model": ValidationErrorOut}}
    )
    written = by_model.openapi()["components"]["schemas"]
    for name in ("ErrorOut", "ValidationErrorOut", "ValidationIssue"):
        assert components[name] == written[name], name
