"""One finished pulka's statistics per member, tallied from its log once, when it ends.

The archive's statistics (games declared, made, failed, misères, whists, money per member) used
to be recomputed by replaying every club pulka's seating changes and deal outcomes on every
request. :func:`tally` does that work for one pulka, so it can be stored when the pulka finishes
(``pulka_stats`` / ``pulka_member_stats``, migration 0015) and the statistics only add rows up.

Pure: the caller hands in the log's facts (:class:`LogFact`, oldest first) and the settlement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from app.rules.core.seats import playing_seats
from app.rules.scoring.deal_cost import CostlyDeals
from app.rules.scoring.sheet import Entry, json_number, running_totals

SEATING_KINDS = ("pulka_started", "deal_started", "player_joined", "player_replaced")
"""Events that carry the seating (names and member ids of every seat)."""
SEAT_CHANGE_KINDS = ("pulka_started", "player_joined", "player_replaced")
"""Events that change who sits where (``deal_started`` only repeats the last of these)."""
TALLY_KINDS = (*SEATING_KINDS, "deal_ended")
"""Every kind :func:`tally` reads."""


@dataclass(frozen=True)
class LogFact:
    """A ``table_events`` row reduced to what the tally reads (absent fields are ``None``)."""

    seq: int
    kind: str
    member_ids: Sequence[int | None] | None = None
    names: Sequence[str] | None = None
    outcome: Mapping[str, Any] | None = None
    deal_no: int | None = None
    entries: Sequence[Mapping[str, Any]] | None = None
    """A ``deal_ended``'s sheet writes (for each member's costliest deals)."""


@dataclass
class MemberLine:
    """One member's part in one pulka. ``seat`` is where he sat when it ended (``None``: he
    left before the end, so it is not one of his pulkas, but his deals and games count)."""

    member_id: int
    seat: int | None = None
    name: str = ""
    deals: int = 0
    declared: int = 0
    made: int = 0
    failed: int = 0
    miseres: int = 0
    miseres_made: int = 0
    whists: Decimal = Decimal(0)
    money: Decimal = Decimal(0)


@dataclass
class PulkaTally:
    """A pulka's seating as it last stood (``names``/``member_ids``), where each finished deal
    lies in the log (``deal_seqs``: deal number → first and last ``seq``) and its members."""

    names: list[str] = field(default_factory=list)
    member_ids: list[int | None] = field(default_factory=list)
    deal_seqs: dict[str, list[int]] = field(default_factory=dict)
    members: dict[int, MemberLine] = field(default_factory=dict)
    costly: CostlyDeals = field(default_factory=CostlyDeals)
    """Each member's costly deals (:mod:`app.rules.scoring.deal_cost`)."""


def made(outcome: Mapping[str, Any]) -> bool | None:
    """Whether the declarer made his game (``None``: nobody declared)."""
    kind = outcome.get("type")
    declarer = outcome.get("declarer")
    if declarer is None:
        return None
    tricks = outcome.get("tricks")
    if kind == "misere":
        return tricks is not None and tricks.get(str(declarer), 0) == 0
    if kind == "conceded":
        return False
    contract = str(outcome.get("contract") or "").removesuffix("BP")  # without the talon
    if tricks is None:  # not played: both passed (R-W1) or a half whist — made
        return True
    level = int(contract[:-2] if contract.endswith("NT") else contract[:-1] or 0)
    return int(tricks.get(str(declarer), 0)) >= level


def _count_deal(out: PulkaTally, ids: list[int | None], outcome: Mapping[str, Any]) -> None:
    def of(mid: int) -> MemberLine:
        return out.members.setdefault(mid, MemberLine(mid))

    for seat in playing_seats(len(ids), outcome["dealer"]):
        mid = ids[seat]
        if mid is not None:
            of(mid).deals += 1
    result = made(outcome)
    declarer = outcome.get("declarer")
    if result is None or declarer is None or ids[declarer] is None:
        return
    one = of(ids[declarer])
    if outcome.get("type") == "misere":
        one.miseres += 1
        one.miseres_made += int(result)
    else:
        one.declared += 1
        one.made += int(result)
        one.failed += int(not result)


def tally(facts: Iterable[LogFact], settlement: Mapping[str, Any] | None) -> PulkaTally:
    """The statistics of one pulka from its log's facts (oldest first) and its settlement.

    The seats' members are those of the last seat change before each deal's end; whists and
    money go to the members seated at the end, from the settlement's ``whists``/``money``."""
    out = PulkaTally()
    ids: list[int | None] = []
    names: list[str] = []
    start: LogFact | None = None
    for f in facts:
        if f.kind in SEATING_KINDS and f.names is not None:
            out.names = list(f.names)
            out.member_ids = list(f.member_ids or out.member_ids)
        if f.kind in SEAT_CHANGE_KINDS and f.member_ids is not None:
            ids, names = list(f.member_ids), list(f.names or names)
        if f.kind == "deal_started":
            start = f
        elif f.kind == "player_joined":
            start = None
        elif f.kind == "deal_ended" and f.outcome is not None:
            if start is not None and f.deal_no is not None and f.deal_no == start.deal_no:
                out.deal_seqs.setdefault(str(f.deal_no), [start.seq, f.seq])
                if f.entries is not None:
                    out.costly.add(ids, names, f.deal_no, f.seq, f.entries)
            _count_deal(out, ids, f.outcome)
    whists = (settlement or {}).get("whists") or []
    money = (settlement or {}).get("money") or []
    for seat, mid in enumerate(ids):
        if mid is None:
            continue
        one = out.members.setdefault(mid, MemberLine(mid))
        one.seat = seat
        one.name = names[seat] if seat < len(names) else ""
        one.whists = Decimal(str(whists[seat])) if seat < len(whists) else Decimal(0)
        one.money = Decimal(str(money[seat])) if seat < len(money) else Decimal(0)
    return out


def sheet_lines(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """The paper sheet's running totals as the archive shows them (JSON), from the entries."""
    return [
        {
            "deal": line.deal,
            "seat": line.seat,
            "column": line.column,
            "total": json_number(line.total),
            "on": line.on,
        }
        for line in running_totals(entries)
    ]
