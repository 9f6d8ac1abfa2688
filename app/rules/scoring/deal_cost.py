"""What one finished deal cost each seated player, and each member's costliest deals of a pulka.

The member's page lists his costliest deals to replay with the analysis (issue 27). A deal's
cost is read from its sheet writes (:func:`deal_loss`); :class:`CostlyDeals` keeps a pulka's
:data:`COSTLIEST` dearest deals per member while the pulka's log is tallied once, when it ends
(:func:`app.rules.scoring.statistics.tally`), so the page merges a few stored short lists
instead of reading and weighing every deal's writes on every visit.

The stored form (``pulka_member_stats.costly``, :meth:`CostlyDeals.stored`) carries
:data:`COSTLY_VERSION`; a reader that meets another version (or none) weighs that pulka's deals
again from its log (:mod:`app.services.member_profile`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

COSTLIEST = 10
"""The costliest deals kept per member and pulka, and shown on his page."""
COSTLY_VERSION = 1
"""The version of the stored list (``{"version": 1, "deals": [...]}``)."""
POINT_IN_WHISTS = 10
"""A hill point is worth ten whists on paper (R-P4)."""


def deal_loss(entries: Iterable[Mapping[str, Any]], players: int, seat: int) -> Fraction:
    """What one deal's writes cost ``seat``, in whists (positive: a loss): ten whists for
    every hill point he took above the table's mean for that deal, plus the whists written on
    him, minus those he wrote (R-P4's settlement restricted to the deal's hill and whists;
    pool points are gains whose worth depends on the pulka's closing, so they are left out).

    >>> deal_loss([{"seat": 0, "column": "hill", "amount": 3},
    ...            {"seat": 1, "column": "whists", "amount": 6, "on": 0}], 3, 0)
    Fraction(26, 1)
    """
    hill: list[int | Fraction] = [0] * players
    net: int | Fraction = 0
    for entry in entries:
        raw = entry.get("amount", 0)
        # whole amounts (nearly all) stay ints: a Fraction per entry was most of the page's time
        amount = raw if type(raw) is int else Fraction(str(raw))
        writer, column = entry.get("seat"), entry.get("column")
        if column == "hill" and isinstance(writer, int) and 0 <= writer < players:
            hill[writer] += amount
        elif column == "whists":
            if entry.get("on") == seat:
                net += amount
            if writer == seat:
                net -= amount
    total = sum(hill)
    # 10·(hill − total/players) + net, over one denominator: one Fraction per deal
    return Fraction(POINT_IN_WHISTS * (hill[seat] * players - total) + net * players) / players


@dataclass(frozen=True, slots=True)
class CostlyDeal:
    """One deal of a member's pulka and what it cost him: its number, the ``seq`` of its
    ``deal_ended`` event (to read its outcome) and the names seated when it was played."""

    deal_no: int
    seq: int
    loss: Fraction
    names: Sequence[str]

    def to_json(self) -> dict[str, Any]:
        """The stored form: the loss as an exact ``"n"`` or ``"n/d"`` string, and as the
        nearest float (``sort``) for a reader to order by in SQL (rounding keeps the order, so
        the exact order is decided among the few rows at the cut)."""
        return {
            "deal": self.deal_no,
            "seq": self.seq,
            "loss": str(self.loss),
            "sort": float(self.loss),
            "names": list(self.names),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CostlyDeal:
        """Read one stored deal (raises ``KeyError``/``ValueError``/``TypeError`` if malformed)."""
        return cls(
            int(data["deal"]), int(data["seq"]), Fraction(str(data["loss"])), list(data["names"])
        )


def dearest(deals: Iterable[CostlyDeal], count: int = COSTLIEST) -> list[CostlyDeal]:
    """The ``count`` deals with the largest loss (only losses), ties to the earlier deal."""
    return sorted((d for d in deals if d.loss > 0), key=lambda d: (-d.loss, d.deal_no))[:count]


@dataclass
class CostlyDeals:
    """Each member's costly deals of one pulka, collected deal by deal as its log is read."""

    by_member: dict[int, list[CostlyDeal]] = field(default_factory=dict)

    def add(
        self,
        member_ids: Sequence[int | None],
        names: Sequence[str],
        deal_no: int,
        seq: int,
        entries: Iterable[Mapping[str, Any]],
    ) -> None:
        """Weigh one finished deal for every member seated (the seating of its last change)."""
        writes = list(entries)
        players = len(member_ids)
        for seat, member_id in enumerate(member_ids):
            if member_id is None:
                continue
            loss = deal_loss(writes, players, seat)
            if loss > 0:
                self.by_member.setdefault(member_id, []).append(
                    CostlyDeal(deal_no, seq, loss, list(names))
                )

    def stored(self, member_id: int) -> dict[str, Any]:
        """The member's :data:`COSTLIEST` dearest deals in their stored, versioned form."""
        deals = dearest(self.by_member.get(member_id, ()))
        return {"version": COSTLY_VERSION, "deals": [d.to_json() for d in deals]}
