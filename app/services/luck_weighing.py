"""The part of the luck pass that runs in an analysis worker: a stored deal's figures from plain
data (docs/luck.md).

A pool worker imports the module of the function it is given, so this one imports only the
rules: the worker that weighs deals starts without SQLAlchemy, the models and the other
services (``app.services.deal_luck``, which schedules the pass, cost a worker about a second of
imports).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

from app.rules import Pulka, RulesError, deal_from_json, weigh_deal

CENT = Decimal("0.01")


def _cents(value: Fraction) -> Decimal:
    """An exact figure rounded half-even to the hundredth of a whist (as stored)."""
    return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(CENT, ROUND_HALF_EVEN)


def weigh_stored(
    pulka_json: Mapping[str, Any], outcome_json: Mapping[str, Any], analysis: Mapping[str, Any]
) -> dict[int, tuple[str, str, str, str, bool]] | None:
    """Each playing seat's figures of a stored deal (run in a worker process): the pulka as
    its ``deal_started`` event stored it, the ``deal_ended`` outcome and the analysis; ``None``
    when the stored pulka or outcome is refused by the rules."""
    try:
        pulka = Pulka.from_json(pulka_json)
        outcome = deal_from_json(outcome_json, pulka.deal_index)
    except RulesError:
        return None
    out: dict[int, tuple[str, str, str, str, bool]] = {}
    for seat, luck in weigh_deal(pulka, outcome, analysis).items():
        worth, bidding, defence, play = (
            str(_cents(v)) for v in (luck.worth, luck.bidding, luck.defence, luck.play)
        )
        out[seat] = (worth, bidding, defence, play, luck.complete)
    return out
