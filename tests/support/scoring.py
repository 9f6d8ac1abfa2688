"""Helpers for the scoring tests (imported explicitly; not a pytest conftest).

They build :class:`DealOutcome` values the way a paper sheet describes a deal and run them through
:meth:`Pulka.record`, the one scoring path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

from app.rules.core.conventions import Conventions
from app.rules.core.outcome import Contract, DealOutcome, Penalty
from app.rules.scoring.pulka import Pulka
from app.rules.scoring.sheet import Entry

CLUB = Conventions.preset_named("club")
LENINGRAD = Conventions.preset_named("leningrad")
SOCHI = Conventions.preset_named("sochi")
ROSTOV = Conventions.preset_named("rostov")
PRESETS = {"club": CLUB, "leningrad": LENINGRAD, "sochi": SOCHI, "rostov": ROSTOV}


def game(
    dealer: int,
    declarer: int,
    contract: str,
    defence: Mapping[int, str],
    tricks: Mapping[int, int] | None = None,
    **extra: Any,
) -> DealOutcome:
    """A trick game: ``contract`` like ``"7H"``; ``defence`` seat -> whist/pass/half."""
    level, strain = (
        int(contract[:-1] if not contract.endswith("NT") else contract[:-2]),
        ("NT" if contract.endswith("NT") else contract[-1]),
    )
    return DealOutcome(
        dealer=dealer,
        kind="game",
        declarer=declarer,
        contract=Contract(level, strain),  # type: ignore[arg-type]
        defence=dict(defence),  # type: ignore[arg-type]
        tricks=None if tricks is None else dict(tricks),
        **extra,
    )


def misere(dealer: int, declarer: int, tricks: Mapping[int, int]) -> DealOutcome:
    """A misère with the tricks each playing seat took."""
    return DealOutcome(dealer=dealer, kind="misere", declarer=declarer, tricks=dict(tricks))


def pass_out(dealer: int, tricks: Mapping[int, int]) -> DealOutcome:
    """A pass-out with tricks per seat (at four players the dealer's talon tricks too)."""
    return DealOutcome(dealer=dealer, kind="pass_out", tricks=dict(tricks))


def conceded(dealer: int, declarer: int, contract: str, **extra: Any) -> DealOutcome:
    """A declarer who gave up "без трёх" (R-C4)."""
    g = game(dealer, declarer, contract, {})
    return DealOutcome(
        dealer=dealer, kind="conceded", declarer=declarer, contract=g.contract, **extra
    )


def penalty(seat: int, rule: str, **kw: Any) -> Penalty:
    """A recorded physical-table penalty."""
    return Penalty(seat=seat, rule=rule, **kw)


def new(
    conventions: Conventions = CLUB,
    *,
    players: int = 3,
    target: int = 100,
    first_dealer: int = 0,
    stake: str = "0.50",
) -> Pulka:
    """A fresh pulka with a high target so single deals never end it."""
    return Pulka.new(
        players,
        conventions=conventions,
        target=target,
        stake=Decimal(stake),
        first_dealer=first_dealer,
    )


def play(
    deals: Iterable[DealOutcome],
    conventions: Conventions = CLUB,
    *,
    players: int = 3,
    target: int = 100,
) -> Pulka:
    """Record ``deals`` in order on a new pulka whose first dealer is the first deal's."""
    deals = list(deals)
    pulka = new(conventions, players=players, target=target, first_dealer=deals[0].dealer)
    for d in deals:
        pulka, _ = pulka.record(d)
    return pulka


def one(outcome: DealOutcome, conventions: Conventions = CLUB, players: int = 3) -> Pulka:
    """A pulka holding just ``outcome``."""
    return play([outcome], conventions, players=players)


def writes(entries: Iterable[Entry]) -> list[tuple[int, str, Fraction, int | None]]:
    """Entries as (seat, column, amount, on) for compact assertions."""
    return [(e.seat, e.column, e.amount, e.on) for e in entries]


def whists(pulka: Pulka) -> list[list[int]]:
    """The whists matrix as plain integers (asserting they are whole)."""
    out = []
    for row in pulka.sheet.whists:
        assert all(v.denominator == 1 for v in row)
        out.append([int(v) for v in row])
    return out


def ints(values: Iterable[Fraction]) -> list[Fraction | int]:
    """Whole fractions as ints, others unchanged."""
    return [int(v) if v.denominator == 1 else v for v in values]


def arabic_record(deals: list[dict[str, Any]], opening_bombs: int = 0) -> dict[str, Any]:
    """A ``pulka/1`` record of Anna, Boris and Vera under the arabic preset (to 20, 0.50 a
    whist, ended by agreement) with these deals: what ``prefclub score`` reads."""
    return {
        "format": "pulka/1",
        "conventions": {"preset": "arabic", "opening_bombs": opening_bombs},
        "players": ["Anna", "Boris", "Vera"],
        "target": 20,
        "stake": "0.50",
        "ended": "agreement",
        "deals": deals,
    }
