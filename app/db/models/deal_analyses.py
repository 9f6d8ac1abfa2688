"""Cached deal analyses (issue 15): one double-dummy analysis per finished deal, and the
luck figures weighed from it (issue 27).

The analysis is expensive (seconds in the worker pool) and never changes once the deal has
ended, so it is computed once and kept here, keyed like the deal: its table and deal number.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    SmallInteger,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base


class DealAnalysis(Base):
    """The analysis of finished deal ``deal_no`` of table ``table_id``
    (app.rules.search.deal_analysis)."""

    __tablename__ = "deal_analyses"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    deal_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    result: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), nullable=False
    )


class DealLuck(Base):
    """One player's luck and losses in one finished club deal (issue 27, docs/luck.md), in
    whists: what his cards were worth double-dummy and what he lost to double-dummy in the
    bidding, the whist-or-pass call and the play (``app.rules.scoring.luck``).

    ``seat`` −1 with no member marks a deal that could not be weighed (its replay or analysis
    refused it), so that the background pass does not try it again.
    """

    __tablename__ = "deal_luck"
    __table_args__ = (
        CheckConstraint("seat >= -1", name="seat"),
        Index("ix_deal_luck_member", "member_id", "night"),
        Index("ix_deal_luck_pulka", "pulka_id"),
        Index("ix_deal_luck_heads", "table_id", "deal_no", postgresql_where=text("head")),
    )

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    deal_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    pulka_id: Mapped[int] = mapped_column(
        ForeignKey("pulkas.id", ondelete="CASCADE"), nullable=False
    )
    member_id: Mapped[int | None] = mapped_column(
        ForeignKey("members.id", ondelete="CASCADE"), nullable=True
    )
    ended_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    night: Mapped[date] = mapped_column(Date, nullable=False)
    """The club night of the deal's end (``app.services.standings.night_of``)."""
    worth: Mapped[Decimal] = mapped_column(Numeric(12, 2), nullable=False)
    bidding: Mapped[Decimal] = mapped_column(Numeric(12, 2), nullable=False)
    defence: Mapped[Decimal] = mapped_column(Numeric(12, 2), nullable=False)
    play: Mapped[Decimal] = mapped_column(Numeric(12, 2), nullable=False)
    complete: Mapped[bool] = mapped_column(Boolean, nullable=False)
    head: Mapped[bool] = mapped_column(Boolean, nullable=False)
    """True on one row per deal (its lowest seat, or the skipped row): the weighed deals are
    counted on a small partial index instead of a distinct count over every row."""
    version: Mapped[int] = mapped_column(SmallInteger, nullable=False)
