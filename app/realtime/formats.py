"""The versions of what a table stores about its deals, and the check that refuses the unknown.

A ``deal_started`` payload (the deck, the salt and how they make the hands) and a
``deal_ended`` payload (the deal's ``pulka/1`` outcome and the pulka after it) carry
``"format": "deal/1"`` from now on; a payload without it was written before versions were
written and IS ``deal/1`` by definition (docs/formats.md). Whoever re-reads a stored deal (the
live table's rebuild in :mod:`app.realtime.game`, the archive's replay) calls
:func:`check_deal` first, so a deal stored by a code this server does not know is refused with
an error naming its table, never re-read differently. The check is one dict lookup per deal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DEAL_FORMAT = "deal/1"
"""The stored deal format this code writes and reads (docs/formats.md)."""
KNOWN_DEAL_FORMATS = frozenset({DEAL_FORMAT})
STORED_FORMAT_UNKNOWN = "stored_format_unknown"
"""The stable ``code`` of a stored deal, record or pulka in a format this code does not read."""


class StoredFormatError(ValueError):
    """Stored data in a format this code does not read; the message names where it lies."""

    code = STORED_FORMAT_UNKNOWN

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def deal_format(payload: Mapping[str, Any]) -> str:
    """The format of a stored deal event's payload (``deal/1`` when it names none)."""
    found = payload.get("format", DEAL_FORMAT)
    return found if isinstance(found, str) else repr(found)


def check_deal(payload: Mapping[str, Any], *, table_id: int, seq: int, kind: str) -> None:
    """Refuse a stored deal event whose format this code does not know (StoredFormatError)."""
    found = deal_format(payload)
    if found not in KNOWN_DEAL_FORMATS:
        raise StoredFormatError(
            f"table {table_id}: event {seq} ({kind}) is stored as {found!r}; this server "
            f"reads {', '.join(sorted(KNOWN_DEAL_FORMATS))} only (docs/formats.md)"
        )
