"""Every club endpoint is in the OpenAPI schema with typed bodies and examples."""

from __future__ import annotations

import httpx

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
