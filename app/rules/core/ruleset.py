"""Rule sets as objects: what a family of rules is called, where it plays, and the registry.

A *rule set* is one family of rules played in the shared engine: the club family (``club``,
``sochi``, ``leningrad``, ``rostov``: several :class:`~app.rules.core.conventions.Conventions`
values on one implementation), Arabic preferans, classic preferans (``app/rules/variants/``).
Each is one object, a subclass of :class:`RuleSet` and of the hook classes of the layers it
changes (:class:`~app.rules.deal.deal_rules.DealRules` for a deal,
:class:`~app.rules.scoring.sheet_rules.SheetRules` for the sheet,
:class:`~app.rules.scoring.pulka_rules.PulkaRules` for the pulka and the state it carries from
deal to deal), registered by name, as python-chess registers its variants::

    >>> find_rule_set("club").preset_names
    ('club', 'sochi', 'leningrad', 'rostov')
    >>> rule_set_of("sochi").name
    'club'

The shared engine never imports a variant: it asks :func:`rule_set_of` for the rule set of a
deal's preset and calls its hooks. Registering a rule set declares its presets
(:func:`app.rules.core.conventions.declare_preset`), so ``Conventions.preset_named`` and every
``pulka/1`` record know them; :meth:`RuleSet.describe` is what ``GET /api/presets`` serves, from
which the pages draw the lobby, the bidding box and the recording form.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from app.rules.core.conventions import Conventions, declare_preset, withdraw_preset
from app.rules.core.draw import Seating
from app.rules.core.outcome import Mark, declare_marks, declared_marks, withdraw_marks
from app.rules.core.rule_errors import InvalidConventionError

LADDER_LEVELS = (6, 7, 8, 9, 10)
LADDER_STRAINS = ("S", "C", "D", "H", "NT")


class RuleSet:
    """One family of rules: its presets, names, table sizes and what its pages show.

    A subclass sets the class attributes; the hook methods it overrides come from the hook
    classes it also inherits (a deal's, a pulka's). Values, never state: one instance serves
    every table of the process.
    """

    name: ClassVar[str]
    """The family's registry name (``club``, ``arabic``, ``classic``)."""
    presets: ClassVar[tuple[Conventions, ...]]
    """Its presets, the first one the family's default."""
    titles: ClassVar[Mapping[str, Mapping[str, str]]]
    """Each preset's name for players: ``{"ru": ..., "en": ...}``."""
    table_sizes: ClassVar[tuple[int, ...]] = (3, 4, 5)
    """How many players a table of it seats (five: R-T6)."""
    overridable: ClassVar[frozenset[str]] = frozenset()
    """The conventions a table or a record may change on top of a preset."""
    ladder: ClassVar[tuple[str, ...]] = tuple(
        f"{level}{strain}" for level in LADDER_LEVELS for strain in LADDER_STRAINS
    )
    """The contract calls of the bidding box, junior to senior (R-B2)."""
    ladder_no_talon: ClassVar[bool] = False
    """A second row of the same games without the talon (A-12)."""
    special_calls: ClassVar[tuple[str, ...]] = ("pass", "here", "misere")
    """The calls besides the ladder, in the box's order."""
    named_calls: ClassVar[Mapping[str, str]] = {}
    """Calls with a name of their own on the box: call → i18n key (K-4: 6♥ «преферанс»)."""
    dark_calls: ClassVar[bool] = False
    """Calls "в тёмную" before the cards are picked up (A-10, A-11)."""
    talon: ClassVar[str] = "take"
    """How the talon is won: ``take`` (by the auction, R-C1) or ``buy`` (offered in turn, K-5)."""
    record_kinds: ClassVar[tuple[str, ...]] = ("game", "misere", "pass_out", "conceded")
    """The deal types a real-card record (the recording form) may write."""
    marks: ClassVar[tuple[Mark, ...]] = ()
    """The flags its deals carry in :attr:`~app.rules.core.outcome.DealOutcome.marks`."""

    def draw_seating(self, players: Sequence[str], rng: random.Random) -> Seating | None:
        """Seats and the first dealer drawn at once by this rule set's own custom (A-26), or
        ``None`` for the club's seat draw (R-T2) followed by the first-dealer lot (R-T3)."""
        return None

    @property
    def preset_names(self) -> tuple[str, ...]:
        """Every preset of this rule set, the default first."""
        return tuple(c.preset for c in self.presets)

    def describe(self) -> list[dict[str, Any]]:
        """Each preset as ``GET /api/presets`` serves it: JSON-ready, no code needed to read it."""
        return [
            {
                "name": c.preset,
                "family": self.name,
                "title": dict(self.titles[c.preset]),
                "table_sizes": list(self.table_sizes),
                "ladder": list(self.ladder),
                "ladder_no_talon": self.ladder_no_talon,
                "special_calls": list(self.special_calls),
                "named_calls": dict(self.named_calls),
                "dark_calls": self.dark_calls,
                "talon": self.talon,
                "record_kinds": list(self.record_kinds),
                "overridable": sorted(self.overridable),
            }
            for c in self.presets
        ]


_RULE_SETS: dict[str, RuleSet] = {}
_BY_PRESET: dict[str, RuleSet] = {}


def register(rule_set: RuleSet) -> RuleSet:
    """Add ``rule_set`` to the registry and declare its presets; returns it.

    A rule-set or preset name already taken raises :class:`InvalidConventionError` and
    changes nothing.
    """
    if rule_set.name in _RULE_SETS:
        raise InvalidConventionError(f"rule set {rule_set.name!r} is registered twice")
    taken = [name for name in rule_set.preset_names if name in _BY_PRESET]
    if taken:
        raise InvalidConventionError(f"presets {taken} belong to another rule set")
    missing = [name for name in rule_set.preset_names if name not in rule_set.titles]
    if missing:
        raise InvalidConventionError(f"presets {missing} have no title")
    clashing = [m.key for m in rule_set.marks if m.key in {d.key for d in declared_marks()}]
    if clashing:
        raise InvalidConventionError(f"marks {clashing} belong to another rule set")
    for conventions in rule_set.presets:
        declare_preset(conventions, rule_set.table_sizes, rule_set.overridable)
    declare_marks(rule_set.marks)
    _RULE_SETS[rule_set.name] = rule_set
    for name in rule_set.preset_names:
        _BY_PRESET[name] = rule_set
    return rule_set


def unregister(name: str) -> None:
    """Withdraw the rule set ``name`` and its presets (a test's toy rule set, after the test)."""
    rule_set = _RULE_SETS.pop(name, None)
    if rule_set is None:
        return
    for preset in rule_set.preset_names:
        _BY_PRESET.pop(preset, None)
        withdraw_preset(preset)
    withdraw_marks(rule_set.marks)


def find_rule_set(name: str) -> RuleSet:
    """The registered rule set ``name``; unknown names raise :class:`InvalidConventionError`."""
    try:
        return _RULE_SETS[name]
    except KeyError:
        known = ", ".join(_RULE_SETS)
        raise InvalidConventionError(
            f"unknown rule set {name!r}; known rule sets: {known}"
        ) from None


def rule_set_of(preset: str) -> RuleSet:
    """The rule set a preset belongs to (``"sochi"`` → the club family)."""
    try:
        return _BY_PRESET[preset]
    except KeyError:
        raise InvalidConventionError(f"unknown preset {preset!r}") from None


def rule_sets() -> tuple[RuleSet, ...]:
    """Every registered rule set, in registration order."""
    return tuple(_RULE_SETS.values())


def describe_presets() -> list[dict[str, Any]]:
    """Every preset of every rule set, as ``GET /api/presets`` serves them."""
    return [item for rule_set in _RULE_SETS.values() for item in rule_set.describe()]
