"""Events of a recorded (real-cards) table, RULES.md §10: how they fold and what players see.

A recorded table has no ``deal_started``: its scorer enters each deal (``app.services.recording``)
and every entry is one event carrying the pulka as it stands after it, like ``deal_ended``:

``recorded_deal``        ``{deal_no, outcome, entries, sheet, pulka, by}`` — a deal entered
``recorded_correction``  ``{deal_no, outcome, entries, sheet, pulka, by, size}`` — the last deal
                         entered again (R-P7, R-X11: ``size`` is the over-entry corrected)
``recorded_dispute``     ``{deal_no, seat, name, text}`` — a player disputes an entry

All of it is public: a recorded deal has no hidden cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

RECORDED_KINDS = frozenset({"recorded_deal", "recorded_correction", "recorded_dispute"})


def public_recorded(kind: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """What every seat and spectator reads of a recorded-table event (all of it but the pulka)."""
    return {k: v for k, v in payload.items() if k != "pulka"}
