"""Conventions: the named rule switches a pulka is played and scored under (RULES.md §8, §11).

A :class:`Conventions` value is immutable. It is built from a preset and optional overrides by
convention name, exactly as the ``pulka/1`` ``conventions`` object spells them::

    >>> c = Conventions.from_mapping({"preset": "sochi", "stalingrad": True})
    >>> c.whist_style, c.stalingrad
    ('greedy', True)

Unknown names and values of the wrong kind raise :class:`InvalidConventionError`.

The presets themselves belong to the rule sets (``app/rules/variants/``): each rule set declares
its presets here when it is registered (:mod:`app.rules.core.ruleset`), with the table sizes it is
written for and the conventions a table may override. This module names no preset but the
club's default values, which every :class:`Conventions` field starts from.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal, TypeAlias, overload

from app.rules.core.rule_errors import InvalidConventionError

PresetName: TypeAlias = str
"""The name of a preset: one of :func:`preset_names`, declared by a registered rule set."""
WhistStyle: TypeAlias = Literal["gentleman", "greedy"]
RaspasyZero: TypeAlias = Literal["hill_minus_two", "pool_one", "pool_one_point"]
Closing: TypeAlias = Literal["double", "help", "once"]
RaspasyRates: TypeAlias = tuple[int, ...] | Literal["rostov"]


class _PresetNames(Sequence[str]):
    """The names of every declared preset, in declaration order, read live (so a rule set
    registered later, a test's toy one included, is listed without editing a list)."""

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return tuple(_PRESETS)[index]

    def __len__(self) -> int:
        return len(_PRESETS)

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(_PRESETS))

    def __contains__(self, name: object) -> bool:
        return name in _PRESETS

    def __repr__(self) -> str:
        return repr(tuple(_PRESETS))


PRESET_NAMES: Sequence[str] = _PresetNames()
"""Every declared preset name (a live view of the registry's presets)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Conventions:
    """Every convention of RULES.md §8's preset table, with the club's values as defaults."""

    preset: PresetName = "club"
    whist_multiplier: int = 2
    """Trick whists = price × this (R-W1 as 000 writes it: twice the price)."""
    remiz_multiplier: int = 2
    """Each undertrick = price × this into the declarer's hill."""
    misere_multiplier: int = 2
    """A failed misère: 10 × this into the hill per trick taken."""
    consolation: str = "price"
    """Per undertrick, each opponent writes on the declarer: ``price`` or ``fixed:N`` whists."""
    whist_liability: Fraction = Fraction(1)
    """A whister short of his requirement writes price × this into his hill per missing trick."""
    whist_style: WhistStyle = "gentleman"
    half_whist: bool = True
    stalingrad: bool = True
    ten_checked: bool = True
    talon_bonus: bool = True
    talon_return_penalty: bool = True
    """R-C6: the declarer may return the shown talon; the dealer pays the declared game (000)."""
    raspasy_rates: RaspasyRates = (2, 4, 6)
    raspasy_zero: RaspasyZero = "hill_minus_two"
    raspasy_exit: tuple[int, int, int] = (6, 7, 8)
    closing: Closing = "double"
    """R-P4, R-P9: how the pools correct the hills at the end. ``double``: every point over or
    short of the target comes off or goes on the hill twice (the club); ``help``: a surplus helps
    the others, a point still short goes on once (Sochi, Rostov); ``once``: every point over or
    short counts once, no help (003 30-31, "по тому же расчёту": a point written off is one
    remiz, K-12)."""
    cut_min: int = 4
    opening_bombs: int = 0
    """A-2: bombs written at the start; each is a round of forced pass-outs at ×2, ×4, ×8…"""
    deal_stays: bool = False
    """A-5, A-6: an all-pass (exits at 7 and 8) and a caught misère keep the deal with the
    dealer; the third pass-out in a row passes it and costs him (A-7)."""
    dealer_zero_bonus: bool = True
    """R-R4 at four players: the dealer's pass-out zero bonus; 004 gives him none (A-9)."""
    no_talon_games: bool = False
    """A-12: each game may also be bid without the talon, just above itself."""
    dark_calls: bool = False
    """A-10, A-11: a seat may pass or bid "в тёмную" before it picks up its cards."""
    preferans_contract: bool = False
    """A-16: the call "преферанс" (all ten tricks, the opponents play for the declarer)."""
    preferans_short_hill: int = 30
    """A-16: 004's "пишется много" for a "преферанс" declared without nine sure tricks."""
    halves_any_game: bool = False
    """A-19: the four-player dealer may be invited to go halves on any game, not only misère."""
    spit: bool = False
    """A-21: a returned talon ("плевок") costs whists the declarer writes on the dealer."""
    closing_spares_dealer: bool = False
    """A-22: with ``closing = help`` the four-player dealer is never closed (helped)."""
    talon_bonus_flat: bool = False
    """A-20: the talon bonus is 3/2/1 whists flat (004), not that many trick whists (R-C5)."""
    dealing_fine: bool = False
    """R-X2: a dealer's second procedure fault in a pulka writes 5 into his hill and passes the
    deal to his left (001 3.2.17). Off by the club's own text (000 «Наказания за неправильную
    сдачу не применяется»): the same dealer deals again and nothing is written. Pulkas stored
    before revision 0019 with such a fault carry it as ``true`` (docs/formats.md)."""
    ten_consolation: bool = True
    """A-15: a checked ten that failed also writes the consolation whists (R-W9 "remiz as
    usual"); 004's "игравший пишет в гору" writes only the hill. Pulkas stored before
    revision 0019 carry it as ``true`` (docs/formats.md)."""

    @classmethod
    def preset_named(cls, name: str) -> Conventions:
        """Return the preset called ``name``; unknown names raise InvalidConventionError."""
        try:
            return _PRESETS[name]
        except KeyError:
            known = ", ".join(PRESET_NAMES)
            raise InvalidConventionError(
                f"unknown preset {name!r}; known presets: {known}"
            ) from None

    @classmethod
    def overridable(cls, preset: str) -> frozenset[str]:
        """The conventions a table playing ``preset`` may override (its rule set's list)."""
        return _OVERRIDABLE.get(preset, frozenset())

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Conventions:
        """Build conventions from a ``pulka/1``-style object: ``preset`` plus overrides."""
        if not isinstance(data, Mapping):
            raise InvalidConventionError("conventions must be an object")
        preset_name = data.get("preset", "club")
        if not isinstance(preset_name, str):
            raise InvalidConventionError("preset must be a string")
        base = cls.preset_named(preset_name)
        overrides = {key: value for key, value in data.items() if key != "preset"}
        return base.with_overrides(overrides)

    def with_overrides(self, overrides: Mapping[str, Any]) -> Conventions:
        """Return a copy with single conventions changed by name, each value checked."""
        changes: dict[str, Any] = {}
        allowed = _OVERRIDABLE.get(self.preset)
        for name, raw in overrides.items():
            parser = _PARSERS.get(name)
            if parser is None:
                raise InvalidConventionError(f"unknown convention {name!r}")
            if allowed is not None and name != "preset" and name not in allowed:
                raise InvalidConventionError(
                    f"convention {name!r} is not played under the {self.preset} preset"
                )
            changes[name] = parser(name, raw)
        return dataclasses.replace(self, **changes)

    def to_mapping(self) -> dict[str, Any]:
        """Every convention as JSON-ready values (the inverse of :meth:`from_mapping`)."""
        out: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, Fraction):
                value = int(value) if value.denominator == 1 else float(value)
            elif isinstance(value, tuple):
                value = list(value)
            out[field.name] = value
        return out

    def table_sizes(self) -> tuple[int, ...]:
        """The table sizes this preset's rule set is written for (three to five players at
        most, R-T6)."""
        return _TABLE_SIZES.get(self.preset, (3, 4, 5))

    def consolation_whists(self, price: int) -> int:
        """Whists each opponent writes on a declarer per undertrick (R-P1)."""
        if self.consolation == "price":
            return price
        return int(self.consolation.split(":", 1)[1])

    def minimum_level(self, consecutive_pass_outs: int) -> int:
        """Lowest bid level allowed after that many consecutive pass-outs (R-B3, R-R6)."""
        return self.raspasy_exit[min(consecutive_pass_outs, 2)]


def _bool(name: str, raw: Any) -> bool:
    if not isinstance(raw, bool):
        raise InvalidConventionError(f"{name} must be true or false")
    return raw


def _positive_int(name: str, raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise InvalidConventionError(f"{name} must be a non-negative integer")
    return raw


def _choice(*allowed: str) -> Any:
    def parse(name: str, raw: Any) -> str:
        if raw not in allowed:
            raise InvalidConventionError(f"{name} must be one of {', '.join(allowed)}")
        return str(raw)

    return parse


def _consolation(name: str, raw: Any) -> str:
    if raw == "price":
        return "price"
    if isinstance(raw, str) and raw.startswith("fixed:") and raw[6:].isdigit():
        return raw
    raise InvalidConventionError(f"{name} must be 'price' or 'fixed:N'")


def _liability(name: str, raw: Any) -> Fraction:
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise InvalidConventionError(f"{name} must be a number such as 1 or 0.5")
    try:
        value = Fraction(str(raw))
    except ValueError:
        raise InvalidConventionError(f"{name} must be a number such as 1 or 0.5") from None
    if value < 0:
        raise InvalidConventionError(f"{name} must not be negative")
    return value


def _rates(name: str, raw: Any) -> RaspasyRates:
    if raw == "rostov":
        return "rostov"
    if (
        isinstance(raw, (list, tuple))
        and raw
        and all(isinstance(r, int) and not isinstance(r, bool) and r >= 0 for r in raw)
    ):
        return tuple(raw)
    raise InvalidConventionError(f"{name} must be a list of non-negative integers or 'rostov'")


def _exit(name: str, raw: Any) -> tuple[int, int, int]:
    if (
        isinstance(raw, (list, tuple))
        and len(raw) == 3
        and all(isinstance(r, int) and not isinstance(r, bool) and 6 <= r <= 10 for r in raw)
    ):
        return (raw[0], raw[1], raw[2])
    raise InvalidConventionError(f"{name} must be three levels from 6 to 10")


def _preset_override(name: str, raw: Any) -> Any:
    raise InvalidConventionError("preset cannot be overridden")


_PARSERS: dict[str, Any] = {
    "whist_multiplier": _positive_int,
    "remiz_multiplier": _positive_int,
    "misere_multiplier": _positive_int,
    "consolation": _consolation,
    "whist_liability": _liability,
    "whist_style": _choice("gentleman", "greedy"),
    "half_whist": _bool,
    "stalingrad": _bool,
    "ten_checked": _bool,
    "talon_bonus": _bool,
    "talon_return_penalty": _bool,
    "raspasy_rates": _rates,
    "raspasy_zero": _choice("hill_minus_two", "pool_one", "pool_one_point"),
    "raspasy_exit": _exit,
    "closing": _choice("double", "help", "once"),
    "cut_min": _positive_int,
    "opening_bombs": _positive_int,
    "deal_stays": _bool,
    "dealer_zero_bonus": _bool,
    "talon_bonus_flat": _bool,
    "closing_spares_dealer": _bool,
    "spit": _bool,
    "halves_any_game": _bool,
    "no_talon_games": _bool,
    "dark_calls": _bool,
    "preferans_contract": _bool,
    "preferans_short_hill": _positive_int,
    "ten_consolation": _bool,
    "dealing_fine": _bool,
    "preset": _preset_override,
}

_PRESETS: dict[str, Conventions] = {}
_TABLE_SIZES: dict[str, tuple[int, ...]] = {}
_OVERRIDABLE: dict[str, frozenset[str]] = {}
CONVENTION_NAMES: frozenset[str] = frozenset(n for n in _PARSERS if n != "preset")
"""Every convention a ``pulka/1`` record or a table may name."""


def declare_preset(
    conventions: Conventions, table_sizes: tuple[int, ...], overridable: frozenset[str]
) -> None:
    """Make ``conventions`` the preset named ``conventions.preset`` (a rule set's registration
    calls this; :mod:`app.rules.core.ruleset`). A name is declared once."""
    name = conventions.preset
    if name in _PRESETS:
        raise InvalidConventionError(f"preset {name!r} is declared twice")
    unknown = overridable - CONVENTION_NAMES
    if unknown:
        raise InvalidConventionError(f"unknown conventions {sorted(unknown)} of {name!r}")
    _PRESETS[name] = conventions
    _TABLE_SIZES[name] = table_sizes
    _OVERRIDABLE[name] = overridable


def withdraw_preset(name: str) -> None:
    """Forget the preset ``name`` (a rule set withdrawn, as a test's toy one is)."""
    _PRESETS.pop(name, None)
    _TABLE_SIZES.pop(name, None)
    _OVERRIDABLE.pop(name, None)


def conventions_to_json(c: Conventions) -> dict[str, Any]:
    """``preset`` plus every convention that differs from it, as ``pulka/1`` spells them."""
    base = Conventions.preset_named(c.preset)
    out: dict[str, Any] = {"preset": c.preset}
    for f in dataclasses.fields(c):
        value = getattr(c, f.name)
        if f.name == "preset" or value == getattr(base, f.name):
            continue
        if isinstance(value, Fraction):
            value = int(value) if value.denominator == 1 else str(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out
