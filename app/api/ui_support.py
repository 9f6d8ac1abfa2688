"""Read-only helpers for the browser UI.

``GET /api/ui/config``: what the pages need to know about the club (its time zone, so session
times read as the club's local time whatever the browser's zone).

``GET /api/ui/tables/{id}/sheet-lines``: the pulka's sheet as the club writes it on paper — every
column's running totals deal by deal (R-P6) — so the table page can draw the paper pulka after a
reload, not only the current totals the socket carries; and the last recorded deal with its
entries (a snapshot taken right after a deal started does not carry it).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, status

from app.api.deps import CurrentMember, SessionDep, SettingsDep
from app.api.schemas import ERRORS, IdPath
from app.rules import Pulka, deal_to_json, json_number, running_totals
from app.services.pulkas import pulka_of_table

router = APIRouter(prefix="/api/ui", tags=["ui"], responses=ERRORS)


@router.get("/config")
async def config(settings: SettingsDep) -> dict[str, Any]:
    """Public facts for the pages: the club's IANA time zone."""
    return {"club_tz": settings.club_tz}


@router.get("/tables/{table_id}/sheet-lines")
async def sheet_lines(table_id: IdPath, member: CurrentMember, db: SessionDep) -> dict[str, Any]:
    """The running totals of every column after each deal (pool, hill, whists ``on`` a seat)."""
    row = await pulka_of_table(db, table_id)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "the table has no pulka")
    pulka = Pulka.from_json(row.state)
    outcomes = [e.outcome for e in pulka.events if e.kind == "deal" and e.outcome is not None]
    last_deal = None
    if outcomes:
        index = len(outcomes) - 1
        last_deal = {
            "deal_no": len(outcomes),
            "outcome": deal_to_json(outcomes[-1]),
            "entries": [e.to_json() for e in pulka.entries if e.deal == index],
        }
    return {
        "table_id": table_id,
        "players": pulka.players,
        "target": pulka.target,
        "sheet": pulka.sheet.to_json(),
        "lines": [
            {
                "deal": line.deal,
                "seat": line.seat,
                "column": line.column,
                "total": json_number(line.total),
                "on": line.on,
            }
            for line in running_totals(pulka.entries)
        ],
        "last_deal": last_deal,
        "seats": pulka.seat_marks(),  # R-A1: each player's bombs (arabic), else None
        "bomb_factor": pulka.bomb_factor(),  # the next deal's opening-round factor, else 1
        # R-P4, R-P9: each player's whists if the pulka were closed now, by its own closing
        "balance": list(pulka.settle().shown),
        "closing": pulka.conventions.closing,
    }
