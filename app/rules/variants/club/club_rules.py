"""The club family: ``club``, ``leningrad``, ``sochi``, ``rostov`` (RULES.md §8's preset table).

One rule set, four presets: they differ only in :class:`~app.rules.core.conventions.Conventions`
values, which the shared engine reads; the club's auction, talon, sheet and pulka are the shared
ones, so this rule set overrides no hook. A table may override every convention the shared
engine plays, none of the switches only another rule set's hooks read.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import ClassVar

from app.rules.core.conventions import CONVENTION_NAMES, Conventions
from app.rules.core.ruleset import RuleSet

CLUB = Conventions()
LENINGRAD = dataclasses.replace(
    CLUB,
    preset="leningrad",
    talon_return_penalty=False,
    stalingrad=False,
    ten_checked=False,
    talon_bonus=False,
    raspasy_zero="pool_one",
)
SOCHI = Conventions(
    preset="sochi",
    whist_multiplier=1,
    remiz_multiplier=1,
    misere_multiplier=1,
    consolation="price",
    whist_liability=Fraction(1),
    whist_style="greedy",
    half_whist=True,
    stalingrad=False,
    ten_checked=False,
    talon_bonus=False,
    talon_return_penalty=False,
    raspasy_rates=(1, 2, 3),
    raspasy_zero="pool_one",
    raspasy_exit=(6, 6, 6),
    closing="help",
    cut_min=4,
)
ROSTOV = dataclasses.replace(
    SOCHI,
    preset="rostov",
    consolation="fixed:10",
    whist_liability=Fraction(1, 2),
    raspasy_rates="rostov",
    raspasy_zero="pool_one_point",
)
OTHER_RULE_SETS_SWITCHES = frozenset({
    "opening_bombs", "deal_stays", "dark_calls", "no_talon_games", "preferans_contract",
    "preferans_short_hill", "spit", "ten_consolation",
})  # fmt: skip
"""Conventions only Arabic preferans's hooks read (A-2..A-16, A-21): not played here."""


class ClubRules(RuleSet):
    """The club family of RULES.md: the shared engine with no hook of its own."""

    name: ClassVar[str] = "club"
    presets: ClassVar[tuple[Conventions, ...]] = (CLUB, SOCHI, LENINGRAD, ROSTOV)
    titles: ClassVar = {
        "club": {"ru": "клубные", "en": "club"},
        "leningrad": {"ru": "ленинградка", "en": "Leningrad"},
        "sochi": {"ru": "сочинка", "en": "Sochi"},
        "rostov": {"ru": "ростовка", "en": "Rostov"},
    }
    overridable: ClassVar[frozenset[str]] = CONVENTION_NAMES - OTHER_RULE_SETS_SWITCHES


CLUB_RULES = ClubRules()
