"""The club fund — кубышка (RULES.md §9, R-F1..R-F5): an append-only ledger, spending proposals
and the members' votes on them.

``fund_entries`` is immutable: the code only ever inserts rows; a correction is a new
``adjustment`` entry. ``amount`` is signed money in roubles with kopecks:

- ``payment_due`` (> 0): a loser's payment from a settled club pulka, owed to the fund (R-F1);
  a claim, not money in the till, so it does not count in the balance;
- ``payment`` (> 0): money a member paid in, recorded by the treasurer;
- ``spending`` (< 0): an approved proposal paid out (R-F2, R-F5);
- ``adjustment`` (either sign): a correction of an earlier entry.

The balance is the sum of every entry except ``payment_due``; a member's outstanding debt is his
``payment_due`` minus his ``payment`` and ``adjustment`` entries.
"""

from __future__ import annotations

import enum
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    DateTime,
    Enum,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, TimestampMixin


class EntryKind(enum.StrEnum):
    """What a ledger entry records."""

    payment_due = "payment_due"
    payment = "payment"
    spending = "spending"
    adjustment = "adjustment"


class ProposalStatus(enum.StrEnum):
    """Where a spending proposal stands."""

    open = "open"
    approved = "approved"
    rejected = "rejected"
    paid = "paid"


def _values(e: type[enum.Enum]) -> list[str]:
    return [m.value for m in e]


class FundEntry(Base):
    """One immutable movement of the fund's ledger (R-F5: who, when and why)."""

    __tablename__ = "fund_entries"
    __table_args__ = (
        # R-F1 is recorded once per pulka and member, however often settling is retried.
        Index(
            "uq_fund_entries_due_pulka_member",
            "pulka_id",
            "member_id",
            unique=True,
            postgresql_where=text("kind = 'payment_due'"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[EntryKind] = mapped_column(
        Enum(EntryKind, name="fund_entry_kind", values_callable=_values), nullable=False
    )
    member_id: Mapped[int | None] = mapped_column(
        ForeignKey("members.id"), nullable=True, index=True
    )
    """Whose debt or payment it is (none for spending and club-wide adjustments)."""
    pulka_id: Mapped[int | None] = mapped_column(ForeignKey("pulkas.id"), nullable=True, index=True)
    proposal_id: Mapped[int | None] = mapped_column(
        ForeignKey("fund_proposals.id"), nullable=True, index=True
    )
    amount: Mapped[Decimal] = mapped_column(Numeric(12, 2), nullable=False)
    recorded_by_id: Mapped[int | None] = mapped_column(ForeignKey("members.id"), nullable=True)
    """Who recorded it (none when the server recorded a pulka's debts)."""
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    reason: Mapped[str] = mapped_column(String(300), nullable=False)


class FundProposal(TimestampMixin, Base):
    """A member's proposal to spend from the fund (R-F2); one per member and year (R-F3)."""

    __tablename__ = "fund_proposals"
    __table_args__ = (UniqueConstraint("proposer_id", "year"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    proposer_id: Mapped[int] = mapped_column(ForeignKey("members.id"), nullable=False, index=True)
    year: Mapped[int] = mapped_column(Integer, nullable=False)
    """The calendar year in club time when it was made (R-F3)."""
    title: Mapped[str] = mapped_column(String(200), nullable=False)
    amount: Mapped[Decimal] = mapped_column(Numeric(12, 2), nullable=False)
    status: Mapped[ProposalStatus] = mapped_column(
        Enum(ProposalStatus, name="fund_proposal_status", values_callable=_values),
        nullable=False,
        default=ProposalStatus.open,
    )
    decided_by_id: Mapped[int | None] = mapped_column(ForeignKey("members.id"), nullable=True)
    """The admin who approved or rejected it (none when the votes decided)."""
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class FundVote(Base):
    """A member's yes or no on a proposal (one per member and proposal; may be changed while
    the proposal is open)."""

    __tablename__ = "fund_votes"
    __table_args__ = (UniqueConstraint("proposal_id", "member_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    proposal_id: Mapped[int] = mapped_column(
        ForeignKey("fund_proposals.id", ondelete="CASCADE"), nullable=False, index=True
    )
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), nullable=False)
    yes: Mapped[bool] = mapped_column(nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


class FundRequestKey(TimestampMixin, Base):
    """An ``Idempotency-Key`` a member sent with a state-changing fund request.

    The unique ``(member_id, key)`` pair makes each keyed request act at most once: the first
    request inserts the row, acts and stores its answer in the same transaction; a concurrent
    or later request with the same key waits for that transaction and replays the stored answer
    (or is refused when its ``fingerprint`` — method, path and body — differs).
    """

    __tablename__ = "fund_request_keys"
    __table_args__ = (UniqueConstraint("member_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(
        ForeignKey("members.id", ondelete="CASCADE"), nullable=False
    )
    key: Mapped[str] = mapped_column(String(100), nullable=False)
    fingerprint: Mapped[str] = mapped_column(String(64), nullable=False)
    """SHA-256 (hex) of the request's method, path and JSON body."""
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response: Mapped[Any | None] = mapped_column(JSONB, nullable=True)
    """The JSON answer the first request got (replayed as is)."""
