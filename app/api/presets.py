"""``GET /api/presets``: every rule set's presets, as the pages draw them (issue 25).

The lobby's preset choice, the table's bidding box and talon button and the recording form are
built from this answer, so no page names a preset: a rule set registered on the server
(:mod:`app.rules.core.ruleset`) appears in them without a change in ``static/``. Public, like
the rules themselves; it carries no member data.
"""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from app.rules import describe_presets

router = APIRouter(tags=["presets"])


class PresetTitle(BaseModel):
    """A preset's name for players, Russian first."""

    ru: str
    en: str


class Preset(BaseModel):
    """One preset of a rule set: what a table of it seats and what its bidding box shows."""

    name: str
    family: str
    """The rule set the preset belongs to (``club`` for club, sochi, leningrad, rostov)."""
    title: PresetTitle
    table_sizes: list[int]
    ladder: list[str]
    """The contract calls of the bidding box, junior to senior (``6S`` … ``10NT``)."""
    ladder_no_talon: bool
    """A second row: each game without the talon (``6SBP`` …, A-12)."""
    special_calls: list[str]
    named_calls: dict[str, str]
    """Calls with a name of their own: call → i18n key (K-4: ``6H`` «преферанс»)."""
    dark_calls: bool
    talon: str
    """``take`` (won by the auction) or ``buy`` (offered in turn, K-5): the talon's wording."""
    record_kinds: list[str]
    """The deal types the recording form offers for a real-card table."""
    overridable: list[str]
    """The conventions a table or a ``pulka/1`` record may change on top of the preset."""


class Presets(BaseModel):
    """Every preset of every registered rule set, the club's first."""

    format: str = "presets/1"
    presets: list[Preset]


@router.get("/api/presets", response_model=Presets)
async def list_presets() -> Presets:
    """Every preset the server plays, in the lobby's order."""
    return Presets(presets=[Preset.model_validate(item) for item in describe_presets()])
