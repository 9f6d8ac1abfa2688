"""The penalty catalogue of physical tables (RULES.md §10, R-X1 … R-X11).

At a table played with real cards the scorer records faults by picking an entry of this
catalogue; a ``pulka/1`` penalty names the entry by its stable id (``{"seat": 1, "rule":
"talon_seen"}``) and never by free text. The catalogue says, for each entry, the rule it cites,
who may be charged, and how much it costs; the amount is computed here from the deal, the
conventions and the pulka's earlier penalties, so a record can state it (it is checked) or leave
it out (it is filled in), but never choose it::

    >>> CATALOGUE["talon_seen"].rule, CATALOGUE["talon_seen"].charged
    ('R-X4', 'any')

:func:`resolve` turns a recorded deal into the deal the sheet scores: every penalty gets its
amount and its rule ID (the sheet entry cites ``R-X4``, which the page names in words), and a late
revoke (R-X9) changes the result — a whister's trick goes to the declarer, a declarer's game is
written "без трёх" (R-C4). :func:`expected_dealer` says who deals a recorded deal: the rotation's
dealer, his left neighbour when his deal passed on (R-X2 under ``dealing_fine``), or anyone for
a deal marked ``out_of_turn`` (R-X3, the rotation then continues from the actual dealer).

The module is pure: it reads only its arguments.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar, Literal, TypeAlias

from app.rules.core.conventions import Conventions
from app.rules.core.outcome import DealOutcome, Penalty
from app.rules.core.prices import MISERE_PRICE, price
from app.rules.core.rule_errors import InvalidRecordError
from app.rules.core.ruleset import rule_set_of
from app.rules.core.seats import playing_seats

Charged: TypeAlias = Literal["dealer", "any", "playing", "declarer_or_whister"]
"""Who may be charged: the dealer, any seat (the sitting-out dealer included), a seat that
played the deal, or the declarer or a whister of a trick game."""
Fail: TypeAlias = Callable[[str | None, str], InvalidRecordError]

TALON_SEEN_HILL = 5
"""R-X4: what a player who saw the talon writes into his hill."""
DEALING_PROCEDURE_HILL = 5
"""R-X2 under ``dealing_fine`` (001 3.2.17): what a dealer who broke the procedure again writes
into his hill."""
TALON_SEEN_TRICKS = 2
"""R-X4: on a pass-out the offender takes the first two tricks (led from the talon)."""


@dataclasses.dataclass(frozen=True, slots=True)
class CatalogueEntry:
    """One penalty of RULES.md §10: its id, rule, who pays, and what it costs (in words)."""

    id: str
    rule: str
    charged: Charged
    cost: str
    """How the amount is computed, in English (the docs and the API show it)."""
    words: Mapping[str, str]
    """The entry's name in each language of the site (``ru``, ``en``)."""
    price: Callable[[DealOutcome, Conventions, int], int] | None = None
    """A rule set's entry: the hill points it charges on a deal (the deal, its conventions, its
    lowest game); ``None`` for the shared entries, whose amounts :func:`amount_of` knows."""
    refusal: Callable[[DealOutcome, int], str | None] | None = None
    """A rule set's entry: why the recorded deal contradicts charging this seat (e.g. he was
    out of the deal but is recorded playing it), or ``None``."""


CATALOGUE: Mapping[str, CatalogueEntry] = {
    e.id: e
    for e in (
        CatalogueEntry(
            "misdeal", "R-X1", "dealer",
            "none: the deal is void and the same dealer redeals",
            {"ru": "Ошибка при сдаче", "en": "Misdeal"},
        ),
        CatalogueEntry(
            "dealing_procedure", "R-X2", "dealer",
            "none (000: no penalty for a wrong deal): the same dealer deals again; with the "
            "convention dealing_fine (001 3.2.17) a warning the first time in the pulka, after "
            "that 5 into the dealer's hill and the deal passes to his left",
            {"ru": "Нарушение порядка сдачи", "en": "Dealing procedure broken"},
        ),
        CatalogueEntry(
            "dealt_out_of_turn", "R-X3", "dealer",
            "none: the deal stands and the next deal is dealt by the actual dealer's left "
            "(recorded as out_of_turn: true on the deal)",
            {"ru": "Сдача не в очередь", "en": "Dealt out of turn"},
        ),
        CatalogueEntry(
            "talon_seen", "R-X4", "any",
            "5 into the offender's hill; he took no part in the bidding and on a pass-out takes "
            "the first two tricks",
            {"ru": "Подсмотрел прикуп", "en": "Talon seen"},
        ),
        CatalogueEntry(
            "talon_taken", "R-X5", "any",
            "none on the sheet: the offender took no part in the bidding",
            {"ru": "Взял прикуп", "en": "Talon taken"},
        ),
        CatalogueEntry(
            "wrong_card_count", "R-X6", "any",
            "down three on the declared game: 3 × its price × the remiz multiplier into the "
            "offender's hill (misère: 3 × 10 × the misère multiplier; pass-out: the lowest game "
            "of the deal)",
            {"ru": "Неверное число карт", "en": "Wrong card count"},
        ),
        CatalogueEntry(
            "lead_out_of_turn", "R-X7", "playing",
            "none on the sheet: the tricks recorded are those the rule gave",
            {"ru": "Ход не в очередь", "en": "Lead out of turn"},
        ),
        CatalogueEntry(
            "card_shown", "R-X8", "playing",
            "none: the card was played exposed",
            {"ru": "Показал карту", "en": "Card shown"},
        ),
        CatalogueEntry(
            "late_revoke", "R-X9", "declarer_or_whister",
            "a whister gives one of his tricks to the declarer; the declarer's game is written "
            '"без трёх" (R-C4) whatever the tricks',
            {"ru": "Фальшренонс", "en": "Revoke"},
        ),
        CatalogueEntry(
            "claim_without_plan", "R-X10", "playing",
            "none on the sheet: the opponents dictated the play and the tricks say so",
            {"ru": "Заявка без плана", "en": "Claim without a plan"},
        ),
        CatalogueEntry(
            "entry_error", "R-X11", "any",
            "the first correction in the pulka is free; after it the over-entry (size) is fined "
            "by its own size into the offender's hill",
            {"ru": "Ошибка записи", "en": "Score entry error"},
        ),
    )
}  # fmt: skip
"""Every penalty a scorer may record, by id; exactly one per rule R-X1 … R-X11."""

RULE_WORDS: Mapping[str, Mapping[str, str]] = {e.rule: e.words for e in CATALOGUE.values()}
"""The words of each rule ID a penalty entry on the sheet cites."""


class PenaltyRules:
    """The hook a rule set may give the catalogue: penalties of its own seed text, recorded
    like the club's (A-23..A-25: seed 004's)."""

    penalty_entries: ClassVar[tuple[CatalogueEntry, ...]] = ()
    """Entries this rule set adds to the club's catalogue, ids distinct from it."""
    club_entries: ClassVar[frozenset[str] | None] = None
    """The ids of the club's catalogue this rule set keeps (``None``: all of them)."""


def catalogue_for(conventions: Conventions) -> Mapping[str, CatalogueEntry]:
    """The entries a record of ``conventions``' preset may name: the club's catalogue and its
    rule set's own."""
    rule_set = rule_set_of(conventions.preset)
    if not isinstance(rule_set, PenaltyRules):
        return CATALOGUE
    kept = rule_set.club_entries
    club = CATALOGUE if kept is None else {i: e for i, e in CATALOGUE.items() if i in kept}
    return {**club, **{e.id: e for e in rule_set.penalty_entries}}


@dataclasses.dataclass(frozen=True, slots=True)
class Resolution:
    """A recorded deal made ready for the sheet."""

    outcome: DealOutcome
    """The deal to score: penalties carry their rule ID and amount, R-X9 applied."""
    relabel: str | None = None
    """A rule ID every entry of the deal is written under (a declarer's revoke, R-X9)."""


def declared_price(outcome: DealOutcome, min_level: int) -> int:
    """The price of "the declared game" of a deal (R-X6, A-23, A-24): its contract's, a
    misère 10, a pass-out its lowest game (R-R6)."""
    if outcome.kind == "misere":
        return MISERE_PRICE
    level = outcome.contract.level if outcome.contract is not None else min_level
    return price(level)


def amount_of(
    entry_id: str,
    outcome: DealOutcome,
    conventions: Conventions,
    *,
    seat: int,
    min_level: int = 6,
    prior: Sequence[Penalty] = (),
    size: int | None = None,
) -> int:
    """The hill points entry ``entry_id`` charges ``seat`` on ``outcome``.

    ``min_level`` is the deal's lowest game (R-R6; the "declared game" of a pass-out, R-X6),
    ``prior`` the penalties recorded before this one (R-X2 and R-X11 count them), ``size``
    the over-entry of an entry error (R-X11).
    """
    if entry_id == "talon_seen":
        return TALON_SEEN_HILL
    if entry_id == "dealing_procedure":
        again = any(p.rule == entry_id and p.seat == seat for p in prior)
        return DEALING_PROCEDURE_HILL if again and conventions.dealing_fine else 0
    if entry_id == "wrong_card_count":
        multiplier = (
            conventions.misere_multiplier
            if outcome.kind == "misere"
            else conventions.remiz_multiplier
        )
        return 3 * declared_price(outcome, min_level) * multiplier
    if entry_id == "entry_error":
        if size is None:
            return 0
        first = not any(p.rule == entry_id for p in prior)
        return 0 if first else size
    own = catalogue_for(conventions).get(entry_id)
    if own is not None and own.price is not None:
        return own.price(outcome, conventions, min_level)
    return 0


def expected_dealer(
    outcome: DealOutcome,
    rotation_dealer: int,
    players: int,
    prior: Sequence[Penalty],
    conventions: Conventions,
) -> int:
    """Who must have dealt ``outcome``: the rotation's dealer, or his left if his deal passed on.

    Under ``dealing_fine`` a repeated R-X2 fault charged to the rotation's dealer passes the
    deal to his left; an ``out_of_turn`` deal (R-X3) is checked by the caller.
    """
    if not conventions.dealing_fine:
        return rotation_dealer
    for p in outcome.penalties:
        if p.rule == "dealing_procedure" and p.seat == rotation_dealer and _again(p, prior):
            return (rotation_dealer + 1) % players
    return rotation_dealer


def _again(p: Penalty, prior: Sequence[Penalty]) -> bool:
    """R-X2: the seat was warned before in this pulka."""
    return any(q.rule == "dealing_procedure" and q.seat == p.seat for q in prior)


def resolve(
    outcome: DealOutcome,
    conventions: Conventions,
    *,
    players: int,
    min_level: int,
    prior: Sequence[Penalty],
    fail: Fail,
) -> Resolution:
    """Check every penalty of ``outcome`` against the catalogue and return the deal to score.

    ``outcome`` must otherwise be valid (:meth:`app.rules.scoring.pulka.Pulka.record` checks it
    first).
    An unknown id, a seat the entry cannot charge, a stated amount other than the catalogue's,
    or a fault the deal contradicts (the talon-seer declaring, R-X4) raise ``fail("penalties",
    ...)``.
    """
    resolved: list[Penalty] = []
    scored = outcome
    relabel: str | None = None
    catalogue = catalogue_for(conventions)
    for index, p in enumerate(outcome.penalties):
        entry = _entry(p, fail, catalogue)
        earlier = (*prior, *outcome.penalties[:index])
        _check_seat(entry, p, outcome, players, fail)
        why = entry.refusal(outcome, p.seat) if entry.refusal is not None else None
        if why is not None:
            raise fail("penalties", f"{entry.id} ({entry.rule}): {why}")
        if p.whists_on is not None or p.amount:
            raise fail("penalties", f"{entry.id} ({entry.rule}) is written in the hill only")
        if entry.id == "entry_error":
            if p.size is None or isinstance(p.size, bool) or p.size < 0:
                raise fail("penalties", "entry_error needs size: the over-entry, a whole number")
        elif p.size is not None:
            raise fail("penalties", f"{entry.id} has no size")
        hill = amount_of(
            entry.id, outcome, conventions, seat=p.seat, min_level=min_level,
            prior=earlier, size=p.size,
        )  # fmt: skip
        if p.hill is not None and p.hill != hill:
            raise fail(
                "penalties",
                f"{entry.id} ({entry.rule}) charges seat {p.seat} {hill} into the hill here, "
                f"not {p.hill}",
            )
        if entry.id == "dealing_procedure":
            owner = outcome.dealer if hill == 0 else (outcome.dealer - 1) % players
            if p.seat != owner:
                raise fail(
                    "penalties",
                    "dealing_procedure (R-X2) is charged to the dealer (under dealing_fine, after "
                    "his first warning, the deal passes to his left, who deals this deal)",
                )
        if entry.id == "dealt_out_of_turn" and not outcome.out_of_turn:
            raise fail("penalties", "dealt_out_of_turn is recorded as out_of_turn: true (R-X3)")
        if entry.id in ("talon_seen", "talon_taken"):
            _check_no_bidding(entry, p, outcome, players, fail)
        if entry.id == "late_revoke":
            scored, relabel = _revoke(scored, p.seat, fail)
        resolved.append(Penalty(seat=p.seat, rule=entry.rule, hill=hill))
    return Resolution(dataclasses.replace(scored, penalties=tuple(resolved)), relabel)


def _entry(p: Penalty, fail: Fail, catalogue: Mapping[str, CatalogueEntry]) -> CatalogueEntry:
    entry = catalogue.get(p.rule) if isinstance(p.rule, str) else None
    if entry is None:
        raise fail(
            "penalties",
            f"unknown penalty {p.rule!r}; a penalty names a catalogue id: " + ", ".join(catalogue),
        )
    return entry


def _check_seat(
    entry: CatalogueEntry, p: Penalty, o: DealOutcome, players: int, fail: Fail
) -> None:
    if isinstance(p.seat, bool) or not isinstance(p.seat, int) or not 0 <= p.seat < players:
        raise fail("penalties", f"penalty seat {p.seat!r} is not a seat")
    playing = playing_seats(players, o.dealer)
    if entry.charged == "dealer" and entry.id != "dealing_procedure" and p.seat != o.dealer:
        raise fail("penalties", f"{entry.id} ({entry.rule}) is charged to the dealer")
    if entry.charged == "playing" and (p.seat not in playing or o.kind == "conceded"):
        raise fail("penalties", f"{entry.id} ({entry.rule}) is charged to a seat that played")
    if entry.charged == "declarer_or_whister":
        whister = o.defence.get(p.seat) == "whist"
        if o.kind != "game" or o.tricks is None or not (p.seat == o.declarer or whister):
            raise fail(
                "penalties",
                f"{entry.id} ({entry.rule}) is charged to the declarer or a whister of a played "
                "trick game",
            )


def _check_no_bidding(
    entry: CatalogueEntry, p: Penalty, o: DealOutcome, players: int, fail: Fail
) -> None:
    # R-X4, R-X5: the offender takes no part in the bidding, so he cannot have declared.
    if p.seat == o.declarer:
        raise fail("penalties", f"after {entry.id} ({entry.rule}) seat {p.seat} could not bid")
    # R-X4: on a pass-out a playing offender takes the first two tricks (led from the talon).
    taken = o.tricks if o.kind == "pass_out" and o.tricks is not None else {}
    playing = p.seat in playing_seats(players, o.dealer)
    if entry.id == "talon_seen" and playing and taken.get(p.seat, 2) < TALON_SEEN_TRICKS:
        raise fail(
            "penalties",
            f"seat {p.seat} saw the talon and takes the first two tricks of the pass-out "
            "(R-X4): at least 2",
        )


def _revoke(o: DealOutcome, seat: int, fail: Fail) -> tuple[DealOutcome, str | None]:
    # R-X9: a whister is fined one trick (it goes to the declarer); the declarer is "без трёх".
    if o.tricks is None:  # an earlier revoke of the declarer's already made it "без трёх"
        raise fail("penalties", "after the declarer's revoke the deal is without three (R-X9)")
    assert o.declarer is not None
    if seat == o.declarer:
        return dataclasses.replace(o, kind="conceded", tricks=None), "R-X9"
    if o.tricks[seat] < 1:
        raise fail("penalties", f"seat {seat} took no trick to be fined for a revoke (R-X9)")
    tricks = dict(o.tricks)
    tricks[seat] -= 1
    tricks[o.declarer] += 1
    return dataclasses.replace(o, tricks=tricks), None
