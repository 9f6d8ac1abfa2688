"""The pulka as a value: the state a table keeps from its first deal to the settlement.

A :class:`Pulka` is immutable; every change returns a new value. Its score sheet changes only by
:meth:`Pulka.record`, which checks a :class:`~app.rules.core.outcome.DealOutcome` against the rules
and
the pulka's state and scores it with :func:`app.rules.scoring.sheet.score_deal` — the one scoring
path
that live tables, imported ``pulka/1`` records (``app.rules.scoring.record``) and ``prefclub
score`` share.

What the live-table layer calls::

    pulka = Pulka.new(players=3, names=("Anna", "Boris", "Vera"),
                      conventions=Conventions(), target=20, stake=Decimal("0.50"),
                      first_dealer=0)          # first_dealer: the seat drawn by R-T3
    pulka.next_dealer                          # who deals now (R-D1, pass-outs included)
    pulka.next_min_level()                     # lowest opening bid for this deal (R-B3, R-R6)
    pulka.pass_out_rate()                      # hill points per trick if it is passed out (R-R5)
    pulka, entries = pulka.record(outcome)     # score a finished deal; InvalidRecordError if wrong
    pulka.is_complete                          # every pool reached the target (R-P8)
    pulka = pulka.close("session_end")         # "target" | "agreement" | "session_end"
    pulka.settle()                             # -> Settlement (results, whole whists, money)
    pulka, entries = pulka.join_fourth(after_dealer_seat=1, name="Gleb")   # R-T4
    pulka = pulka.replace_player(seat=2, name="Dina")                        # R-T5
    data = pulka.to_json(); Pulka.from_json(data) == pulka                    # persistence

``to_json`` stores the pulka's settings and its events (deals, joins, replacements, closing);
``from_json`` replays them through the same methods, so a persisted pulka is rebuilt exactly as it
was played, and a corrupted one is rejected with :class:`InvalidRecordError`.

Seats are ``0..players-1`` clockwise. When a fourth player joins (R-T4) he takes the seat left of
the player who has just dealt, so the seats from there on are renumbered one up; the sheet and all
earlier entries are renumbered with them (earlier events keep the numbering of their time).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, Literal, TypeAlias

from app.rules.core.conventions import Conventions, conventions_to_json
from app.rules.core.outcome import STRAINS, DealOutcome, Penalty
from app.rules.core.outcome_json import CARD_SUITS, deal_from_json, deal_to_json, is_card_text
from app.rules.core.prices import HALF_WHIST_TRICKS
from app.rules.core.rule_errors import InvalidConventionError, InvalidRecordError
from app.rules.core.seats import TABLE_SIZES, dealer_on_talon, defenders, playing_seats
from app.rules.scoring.penalties import Resolution, expected_dealer, resolve
from app.rules.scoring.pulka_rules import NO_STATE, PulkaTurn, VariantState, pulka_rules
from app.rules.scoring.settlement import (
    END_REASONS,
    JOIN_RULE,
    EndReason,
    Settlement,
    effective_pools,
    settle,
)
from app.rules.scoring.sheet import Entry, Sheet, pass_out_rate, score_deal

EventKind: TypeAlias = Literal["deal", "join", "replace", "close"]
STATE_FORMAT = "prefclub-pulka/1"
"""The format of :meth:`Pulka.to_json` (``pulkas.state`` and every event's ``pulka``)."""


@dataclasses.dataclass(frozen=True, slots=True)
class PulkaEvent:
    """One thing that happened to a pulka, kept so that it can be replayed and exported."""

    kind: EventKind
    outcome: DealOutcome | None = None
    seat: int | None = None
    name: str | None = None
    reason: EndReason | None = None

    def to_json(self) -> dict[str, Any]:
        """This event as an item of :meth:`Pulka.to_json`'s ``events``."""
        if self.kind == "deal":
            assert self.outcome is not None
            return {"deal": deal_to_json(self.outcome)}
        if self.kind == "close":
            return {"close": self.reason}
        return {self.kind: {"seat": self.seat, "name": self.name}}


@dataclasses.dataclass(frozen=True, slots=True)
class Pulka:
    """A pulka in progress or finished: settings, sheet, every entry and the next deal's state."""

    players: int
    conventions: Conventions
    target: int
    stake: Decimal
    sheet: Sheet
    names: tuple[str, ...] | None = None
    entries: tuple[Entry, ...] = ()
    deal_index: int = 0
    """Index of the next deal (the number of deals recorded so far)."""
    next_dealer: int = 0
    """Seat that deals the next deal: clockwise after every deal, pass-outs included (R-D1)."""
    pass_out_streak: int = 0
    """Consecutive pass-outs just before the next deal (R-R5, R-R6)."""
    closed: EndReason | None = None
    first_dealer: int = 0
    carried: VariantState = NO_STATE
    """What the rule set carries from deal to deal (:mod:`app.rules.scoring.pulka_rules`)."""
    initial_names: tuple[str, ...] | None = None
    """Names at the start, before any join or replacement (for replay)."""
    events: tuple[PulkaEvent, ...] = ()

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        players: int = 3,
        *,
        names: Sequence[str] | None = None,
        conventions: Conventions | None = None,
        target: int = 20,
        stake: Decimal | str = Decimal("0.50"),
        first_dealer: int = 0,
    ) -> Pulka:
        """A fresh pulka of 3, 4 or 5 players; invalid settings raise
        :class:`InvalidRecordError`."""
        if isinstance(players, bool) or not isinstance(players, int) or players not in TABLE_SIZES:
            raise InvalidRecordError("a pulka has 3, 4 or 5 players", field="players")
        if conventions is not None and players not in conventions.table_sizes():
            raise InvalidRecordError(
                f"the {conventions.preset} preset is played by 3 or 4 players", field="players"
            )
        if names is not None and (
            len(names) != players or not all(isinstance(n, str) and n for n in names)
        ):
            raise InvalidRecordError(f"players must be {players} non-empty names", field="players")
        if isinstance(target, bool) or not isinstance(target, int) or target <= 0:
            raise InvalidRecordError("target must be a positive integer", field="target")
        stake_value = parse_stake(stake)
        if not 0 <= first_dealer < players:
            raise InvalidRecordError("first dealer is not a seat", deal=0, field="dealer")
        return cls(
            players=players,
            conventions=conventions if conventions is not None else Conventions(),
            target=target,
            stake=stake_value,
            sheet=Sheet.empty(players),
            names=None if names is None else tuple(names),
            initial_names=None if names is None else tuple(names),
            next_dealer=first_dealer,
            first_dealer=first_dealer,
            carried=pulka_rules(conventions or Conventions()).start(
                conventions or Conventions(), players
            ),
        )

    # -- queries ------------------------------------------------------------------------------

    def next_min_level(self) -> int:
        """Lowest level the next deal's bidding may open at (R-B3, R-R6; 11: pass only, A-3)."""
        return pulka_rules(self.conventions).min_level(
            self.conventions, self.pass_out_streak, self.carried
        )

    def bomb_factor(self) -> int:
        """What every entry of the next deal is multiplied by whoever plays it (the opening
        round's ×2, ×4, ×8, A-3; else 1). A declarer's own bombs are :meth:`seat_marks`'."""
        return pulka_rules(self.conventions).deal_factor(
            self.conventions, self.players, self.carried
        )

    def seat_marks(self) -> list[dict[str, int]] | None:
        """What the sheet shows by each seat from the rule set's carried state (Arabic: his
        bombs and what his next game is worth, R-A1, R-A2), or ``None`` for nothing."""
        return pulka_rules(self.conventions).seat_marks(self.carried, self.players)

    def pass_out_rate(self) -> int:
        """Hill points (Rostov: whists) per trick if the next deal is passed out (R-R5, A-4)."""
        return pass_out_rate(self.conventions, self.pass_out_streak) * self.bomb_factor()

    @property
    def pools(self) -> tuple[Fraction, ...]:
        """Pools as they count for the end of the pulka: after help under ``closing = help``."""
        if self.conventions.closing != "help":
            return self.sheet.pool
        return effective_pools(
            self.entries, self.players, self.target, self.conventions, self.spared_dealers()
        ).pools

    def spared_dealers(self) -> dict[int, int] | None:
        """A-22: at four players under ``closing_spares_dealer``, each deal's dealer, whom the
        deal's declarer may not close; ``None`` when the rule does not apply (or after a join,
        whose renumbering the dealers of earlier deals do not follow)."""
        if not self.conventions.closing_spares_dealer or self.players != 4:
            return None
        if any(e.kind == "join" for e in self.events):
            return None
        deals = [e.outcome for e in self.events if e.outcome is not None]
        return {i: o.dealer for i, o in enumerate(deals)}

    @property
    def is_complete(self) -> bool:
        """Every pool has reached the target: no further deal is played (R-P8)."""
        return all(p >= self.target for p in self.pools)

    @property
    def is_over(self) -> bool:
        """Complete or closed: no further deal is accepted."""
        return self.closed is not None or self.is_complete

    # -- changes ------------------------------------------------------------------------------

    def record(self, outcome: DealOutcome) -> tuple[Pulka, list[Entry]]:
        """Check ``outcome`` as the next deal, score it, and return the new pulka and its entries.

        Raises :class:`InvalidRecordError` (``deal`` = this deal's index, ``field`` = the
        ``pulka/1`` field at fault) if the deal could not have happened here.
        """
        resolution = self._validate(outcome)
        rules = pulka_rules(self.conventions)
        own = rules.own_entries(outcome, self.sheet, self.target, self.deal_index, self.conventions)
        if own is not None:
            entries = own
        else:
            entries = score_deal(
                resolution.outcome,
                self.conventions,
                players=self.players,
                deal=self.deal_index,
                pass_out_streak=self.pass_out_streak,
            )
        if resolution.relabel is not None:
            # R-X9: a declarer's revoke writes the whole deal "без трёх" under the penalty.
            entries = [dataclasses.replace(e, rule=resolution.relabel) for e in entries]
        turn = PulkaTurn(
            self.conventions,
            self.players,
            self.deal_index,
            self.pass_out_streak,
            self.carried,
            self.entries,
        )
        nxt = rules.after_deal(turn, outcome, entries)
        entries = nxt.entries
        new = dataclasses.replace(
            self,
            sheet=self.sheet.apply(entries),
            entries=self.entries + tuple(entries),
            deal_index=self.deal_index + 1,
            next_dealer=nxt.dealer,
            pass_out_streak=nxt.streak,
            carried=nxt.state,
            events=(*self.events, PulkaEvent("deal", outcome=outcome)),
        )
        return new, entries

    def close(self, reason: EndReason) -> Pulka:
        """Close the pulka: at the target, by agreement, or at the end of the session (R-P8)."""
        if reason not in END_REASONS:
            raise InvalidRecordError(f"unknown end reason {reason!r}", field="ended")
        if self.closed is not None:
            raise InvalidRecordError("the pulka is already closed", field="ended")
        if reason == "target" and not self.is_complete:
            raise InvalidRecordError(
                "ended at the target, but not every pool reached it", field="ended"
            )
        return dataclasses.replace(
            self, closed=reason, events=(*self.events, PulkaEvent("close", reason=reason))
        )

    @property
    def ended(self) -> EndReason:
        """Why the pulka ends: its closing reason, else ``target`` if complete, else agreement."""
        if self.closed is not None:
            return self.closed
        return "target" if self.is_complete else "agreement"

    def settle(self) -> Settlement:
        """Settle the sheet (R-P4, R-P5, R-P9); an open pulka settles as :attr:`ended` says."""
        return settle(
            self.sheet,
            self.entries,
            self.conventions,
            target=self.target,
            stake=self.stake,
            ended=self.ended,
            spared=self.spared_dealers(),
        )

    def join_fourth(
        self, after_dealer_seat: int, name: str | None = None
    ) -> tuple[Pulka, list[Entry]]:
        """A fourth player joins a three-player pulka (R-T4, 000; everyone's consent assumed).

        He sits left of ``after_dealer_seat``, who must be the player who has just dealt, and he
        deals next. His pool is the mean of the others' pools rounded down and his hill the mean
        of their hills rounded up (rounded against him); both are written as ``R-T4`` entries.
        """
        if self.players != 3:
            raise InvalidRecordError("only a three-player pulka takes a fourth player")
        if self.is_over:
            raise InvalidRecordError("the pulka has ended")
        just_dealt = (self.next_dealer - 1) % 3
        if after_dealer_seat != just_dealt:
            raise InvalidRecordError(
                f"the new player sits left of seat {just_dealt}, who has just dealt"
            )
        if self.names is not None and not name:
            raise InvalidRecordError("the new player needs a name", field="players")
        seat = after_dealer_seat + 1
        mapping = [s if s < seat else s + 1 for s in range(3)]
        pools = self.pools
        pool = Fraction(math.floor(sum(pools, Fraction(0)) / 3))
        hill = Fraction(math.ceil(sum(self.sheet.hill, Fraction(0)) / 3))
        joined = [
            Entry(self.deal_index, seat, "pool", pool, JOIN_RULE),
            Entry(self.deal_index, seat, "hill", hill, JOIN_RULE),
        ]
        names = None
        if self.names is not None:
            assert name is not None
            names = (*self.names[:seat], name, *self.names[seat:])
        new = dataclasses.replace(
            self,
            players=4,
            names=names,
            sheet=self.sheet.with_seat_inserted(seat).apply(joined),
            entries=tuple(e.moved(mapping) for e in self.entries) + tuple(joined),
            next_dealer=seat,
            carried=self.carried.moved(mapping, 4),
            events=(*self.events, PulkaEvent("join", seat=after_dealer_seat, name=name)),
        )
        return new, joined

    def replace_player(self, seat: int, name: str | None = None) -> Pulka:
        """Another member takes ``seat`` and inherits its sheet (R-T5; the others consented)."""
        if not 0 <= seat < self.players:
            raise InvalidRecordError(f"seat {seat} is not at this table")
        if self.is_over:
            raise InvalidRecordError("the pulka has ended")
        names = self.names
        if names is not None:
            if not name:
                raise InvalidRecordError("the new player needs a name", field="players")
            names = (*names[:seat], name, *names[seat + 1 :])
        return dataclasses.replace(
            self,
            names=names,
            events=(*self.events, PulkaEvent("replace", seat=seat, name=name)),
        )

    # -- persistence --------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready object from which :meth:`from_json` rebuilds this pulka by replay."""
        first_players = self.players - sum(1 for e in self.events if e.kind == "join")
        initial_names = None if self.initial_names is None else list(self.initial_names)
        return {
            "format": STATE_FORMAT,
            "players": first_players,
            "names": initial_names,
            "conventions": conventions_to_json(self.conventions),
            "target": self.target,
            "stake": str(self.stake),
            "first_dealer": self.first_dealer,
            "events": [e.to_json() for e in self.events],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Pulka:
        """Rebuild a pulka from :meth:`to_json` output by replaying its events.

        A stored pulka in a format this code does not know is refused (InvalidRecordError,
        field ``format``), never replayed by rules it was not written under; one without a
        ``format`` predates the field and is ``prefclub-pulka/1`` (docs/formats.md)."""
        found = data.get("format", STATE_FORMAT) if isinstance(data, Mapping) else None
        if found != STATE_FORMAT:
            raise InvalidRecordError(
                f"stored pulka format {found!r} is not {STATE_FORMAT!r}", field="format"
            )
        try:
            return cls._replay(data)
        except (KeyError, TypeError, AttributeError) as exc:
            raise InvalidRecordError(f"not a persisted pulka: {exc!r}") from None

    @classmethod
    def _replay(cls, data: Mapping[str, Any]) -> Pulka:
        try:
            conventions = Conventions.from_mapping(data["conventions"])
        except InvalidConventionError as exc:
            raise InvalidRecordError(str(exc), field="conventions") from None
        names = data.get("names")
        pulka = cls.new(
            data["players"],
            names=names,
            conventions=conventions,
            target=data["target"],
            stake=data["stake"],
            first_dealer=data["first_dealer"],
        )
        for event in data["events"]:
            if "deal" in event:
                pulka, _ = pulka.record(deal_from_json(event["deal"], pulka.deal_index))
            elif "close" in event:
                pulka = pulka.close(event["close"])
            elif "join" in event:
                pulka, _ = pulka.join_fourth(event["join"]["seat"], event["join"]["name"])
            elif "replace" in event:
                pulka = pulka.replace_player(event["replace"]["seat"], event["replace"]["name"])
            else:
                raise InvalidRecordError(f"unknown pulka event {sorted(event)}")
        return pulka

    # -- validation ---------------------------------------------------------------------------

    def _prior_penalties(self) -> list[Penalty]:
        """The penalties of every deal recorded so far (R-X2 and R-X11 count them)."""
        return [p for e in self.events if e.outcome is not None for p in e.outcome.penalties]

    def _validate(self, o: DealOutcome) -> Resolution:
        deal = self.deal_index

        def fail(field: str | None, message: str, **facts: int) -> InvalidRecordError:
            return InvalidRecordError(message, deal=deal, field=field, facts=facts)

        n = self.players
        if self.closed is not None:
            raise fail("deals", f"the pulka was closed ({self.closed}); no further deal")
        if self.is_complete:
            raise fail("deals", "every pool has reached the target; the pulka has ended")
        if not _is_seat(o.dealer, n):
            raise fail("dealer", f"dealer {o.dealer!r} is not a seat")
        prior = self._prior_penalties()
        due = expected_dealer(o, self.next_dealer, n, prior, self.conventions)
        if not isinstance(o.out_of_turn, bool):
            raise fail("out_of_turn", "out_of_turn must be true or false")
        if o.out_of_turn and o.dealer == due:
            raise fail("out_of_turn", f"seat {due} deals this deal in turn; it is not out of turn")
        if not o.out_of_turn and o.dealer != due:
            raise fail(
                "dealer",
                f"seat {due} deals this deal (clockwise rotation), not {o.dealer}; "
                "a deal out of turn that stands is marked out_of_turn (R-X3)",
            )
        if o.kind not in ("game", "misere", "pass_out", "conceded", "redeal"):
            raise fail("type", f"unknown deal type {o.kind!r}")
        rules = pulka_rules(self.conventions)
        refusal = rules.record_refusal(o, self.carried)
        if refusal is not None:
            raise fail(*refusal)
        if o.kind == "redeal":  # K-6: nothing but the dealer (and the talon) to check
            if o.talon is not None:
                self._validate_talon(o, fail)
            return Resolution(o)
        playing = playing_seats(n, o.dealer)
        if o.kind == "pass_out":
            if o.declarer is not None:
                raise fail("declarer", "a pass-out has no declarer")
        else:
            if not _is_seat(o.declarer, n):
                raise fail("declarer", f"declarer {o.declarer!r} is not a seat")
            if o.declarer not in playing:
                raise fail("declarer", f"seat {o.declarer} deals and does not play this deal")
        if o.kind in ("game", "conceded"):
            if o.contract is None:
                raise fail("contract", "a trick game needs a contract")
            if not isinstance(o.contract.level, int) or not 6 <= o.contract.level <= 10:
                raise fail("contract", f"contract level {o.contract.level!r} is not 6-10")
            if o.contract.strain not in STRAINS:
                raise fail("contract", f"unknown strain {o.contract.strain!r}")
            if o.contract.no_talon and not self.conventions.no_talon_games:
                raise fail("contract", "games without the talon are not played here (A-12)")
            minimum = self.next_min_level()
            if o.contract.level < minimum:
                raise fail(
                    "contract",
                    f"after {self.pass_out_streak} pass-out(s) the lowest game is {minimum} (R-R6)",
                )
        elif o.contract is not None:
            what = "misère" if o.kind == "misere" else "pass-out"
            raise fail("contract", f"a {what} has no contract")
        if o.misere_partner is not None and (
            not dealer_on_talon(n)
            or o.misere_partner != o.dealer
            or (o.kind != "misere" and not self.conventions.halves_any_game)
        ):
            raise fail("misere_partner", "only the dealer on the talon goes halves (R-B9, A-19)")
        refusal = rules.marks_refusal(o, self.conventions)
        if refusal is not None:
            raise fail(*refusal)
        if o.returned_from is not None and o.kind != "game":
            raise fail("returned_from", "only a trick game can have a returned whist")
        if o.kind in ("misere", "pass_out") and o.defence:
            raise fail("defence", f"a {o.kind.replace('_', '-')} has no whist calls")
        if o.talon_returned:
            if not self.conventions.talon_return_penalty:
                raise fail("talon_returned", "talon_return_penalty is off (R-C6)")
            if o.kind == "pass_out":
                raise fail("talon_returned", "a pass-out has no declarer to return the talon")
        if o.talon is not None:
            self._validate_talon(o, fail)
        if o.kind == "game":
            self._validate_game(o, fail)
        elif o.kind == "conceded":
            self._validate_calls(o, fail)
            if o.tricks is not None:
                raise fail("tricks", "a conceded game is not played: no tricks")
        else:
            if o.tricks is None:
                raise fail("tricks", "tricks are required")
            seats: tuple[int, ...] = playing
            if o.kind == "pass_out" and dealer_on_talon(n) and o.dealer in o.tricks:
                seats = (*playing, o.dealer)  # the dealer's talon tricks; absent means none
            self._validate_tricks(o, seats, fail)
        return resolve(
            o,
            self.conventions,
            players=n,
            min_level=self.conventions.minimum_level(self.pass_out_streak),
            prior=prior,
            fail=fail,
        )

    def _validate_talon(self, o: DealOutcome, fail: Any) -> None:
        talon = o.talon
        if not isinstance(talon, tuple) or len(talon) != 2:
            raise fail("talon", "the talon is two cards")
        for card in talon:
            if not is_card_text(card):
                raise fail("talon", f"{card!r} is not a card")
        if _card_key(talon[0]) == _card_key(talon[1]):
            raise fail("talon", "the two talon cards are the same card")

    def _validate_tricks(self, o: DealOutcome, seats: Sequence[int], fail: Any) -> None:
        tricks = o.tricks
        assert tricks is not None
        if set(tricks) != set(seats):
            raise fail(
                "tricks",
                f"tricks must be given for seats {sorted(seats)}, got {sorted(tricks)}",
            )
        for seat, t in tricks.items():
            if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= 10:
                raise fail("tricks", f"seat {seat}: {t!r} is not a trick count 0-10")
        total = sum(tricks.values())
        if total != 10:
            raise fail("tricks", f"tricks sum to {total}, expected 10", total=total)
        if o.kind == "pass_out" and dealer_on_talon(self.players) and tricks.get(o.dealer, 0) > 2:
            raise fail("tricks", "the dealer can win at most the two talon tricks")

    def _validate_calls(self, o: DealOutcome, fail: Any) -> None:
        assert o.declarer is not None
        for seat, call in o.defence.items():
            if not _is_seat(seat, self.players) or seat == o.declarer:
                raise fail("defence", f"seat {seat!r} is not a defender")
            if call not in ("whist", "pass", "half"):
                raise fail("defence", f"seat {seat}: unknown call {call!r}")
        on_talon = dealer_on_talon(self.players)
        if on_talon and o.dealer in o.defence and o.defence[o.dealer] != "whist":
            raise fail("defence", "the four-player dealer appears in defence only if he whisted")
        callers = {
            *defenders(self.players, o.dealer, o.declarer),
            *((o.dealer,) if on_talon else ()),
        }
        for seat in o.defence:
            if seat not in callers:
                raise fail("defence", f"seat {seat} sits out this deal and has no call (R-T6)")

    def _validate_game(self, o: DealOutcome, fail: Any) -> None:
        assert o.declarer is not None and o.contract is not None
        c = self.conventions
        self._validate_calls(o, fail)
        level = o.contract.level
        first, second = defenders(self.players, o.dealer, o.declarer)
        calls = o.defence
        for seat in (first, second):
            if seat not in calls:
                raise fail("defence", f"defender {seat} has no call")
        dealer_whist = dealer_on_talon(self.players) and calls.get(o.dealer) == "whist"
        halves = [s for s in (first, second) if calls[s] == "half"]
        whisters = [s for s, call in calls.items() if call == "whist"]
        checked_ten = level == 10 and c.ten_checked
        if checked_ten:
            if whisters or halves:
                raise fail("defence", "a ten is checked, not whisted (R-W9)")
            if o.tricks is not None:
                self._validate_tricks(o, playing_seats(self.players, o.dealer), fail)
            return
        stalingrad = c.stalingrad and level == 6 and o.contract.strain == "S"
        if stalingrad and not (calls[first] == "whist" and calls[second] == "whist"):
            raise fail("defence", "6♠ (Stalingrad) must be whisted by both defenders (R-W6)")
        if halves or o.returned_from is not None:
            if not c.half_whist:
                raise fail("defence", "half-whist is off under these conventions")
            if level not in HALF_WHIST_TRICKS:
                raise fail("defence", f"half-whist only on 6 and 7, not on {level} (R-W4)")
        if halves:
            half = halves[0]
            other = second if half == first else first
            if len(halves) > 1 or calls[other] != "pass":
                raise fail("defence", "half-whist needs the other defender to have passed")
            if half == first and c.whist_style != "gentleman":
                raise fail("defence", "only the second defender may take half-whist (R-W4)")
            if dealer_whist:
                raise fail("defence", "a returned whist is written with returned_from")
            if o.tricks is not None:
                raise fail("tricks", "a half-whist is not played: no tricks")
            return
        if o.returned_from is not None:
            r = o.returned_from
            if r not in (first, second) or calls.get(r) != "pass":
                raise fail(
                    "returned_from", "returned_from must be the half-whister, whose call is pass"
                )
            other = second if r == first else first
            returners = [s for s in whisters if s != r]
            if len(whisters) != 1 or returners[0] not in (other, o.dealer):
                raise fail("defence", "after a returned whist there is exactly one whister")
        elif dealer_whist:
            if calls[first] != "pass" or calls[second] != "pass":
                raise fail("defence", "the dealer may whist only after both defenders passed")
            if level < 8:
                raise fail("defence", "on 6 and 7 the dealer whists only by returning a half-whist")
        if whisters:
            if o.tricks is None:
                raise fail("tricks", "a whisted game is played: tricks are required")
            self._validate_tricks(o, playing_seats(self.players, o.dealer), fail)
        elif o.tricks is not None:
            raise fail("tricks", "nobody whisted, so the game was not played: no tricks")


def parse_stake(stake: Decimal | str | int) -> Decimal:
    """A non-negative decimal stake per whist; floats are refused as inexact."""
    if isinstance(stake, bool) or not isinstance(stake, (Decimal, str, int)):
        raise InvalidRecordError('stake must be a decimal string such as "0.50"', field="stake")
    try:
        value = Decimal(stake)
    except (InvalidOperation, ValueError):
        message = f"stake {stake!r} is not a decimal number"
        raise InvalidRecordError(message, field="stake") from None
    if not value.is_finite() or value < 0:
        raise InvalidRecordError("stake must be a non-negative decimal number", field="stake")
    return value


def _is_seat(value: object, players: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players


def _card_key(card: str) -> tuple[str, str]:
    return card[:-1].upper(), CARD_SUITS[card[-1].upper()]
