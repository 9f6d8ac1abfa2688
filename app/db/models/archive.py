"""The archive's summary rows: written once when a pulka finishes, read by the list and stats.

A finished pulka never changes, so what the archive shows of it in lists and statistics is
tallied from its log once (:func:`app.rules.scoring.statistics.tally`, in
:mod:`app.services.pulka_stats`) and stored here, instead of re-reading ~900 events per pulka
on every request (docs/performance.md, "The archive at scale"). Migration 0015 backfills them.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, Numeric, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base


class PulkaStats(Base):
    """A finished pulka as the archive's list shows it, and where its finished deals lie."""

    __tablename__ = "pulka_stats"

    pulka_id: Mapped[int] = mapped_column(
        ForeignKey("pulkas.id", ondelete="CASCADE"), primary_key=True
    )
    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), nullable=False
    )
    practice: Mapped[bool] = mapped_column(Boolean, nullable=False)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    """The list's order (newest first) and its keyset paging key, with ``pulka_id``."""
    names: Mapped[list[str]] = mapped_column(JSONB, nullable=False)
    """The seats' names as they last stood in the log."""
    member_ids: Mapped[list[int | None]] = mapped_column(JSONB, nullable=False)
    deal_seqs: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    """Finished deal number → ``[first seq, last seq]`` of its events (a replay reads those)."""
    lines: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, nullable=False)
    """The sheet's running totals (:func:`app.rules.scoring.statistics.sheet_lines`), so showing the
    pulka does not replay its deals to score them again."""

    __table_args__ = (
        Index("ix_pulka_stats_list", "practice", finished_at.desc(), pulka_id.desc()),
        Index("ix_pulka_stats_all", finished_at.desc(), pulka_id.desc()),
    )


class PulkaMemberStats(Base):
    """One member's part in one finished pulka (:class:`app.rules.scoring.statistics.MemberLine`).

    ``seat`` is ``None`` when he left before the end (his deals count, the pulka does not).
    ``practice``, ``finished_at`` and ``started_at`` copy the pulka's, so the statistics read
    this table alone."""

    __tablename__ = "pulka_member_stats"

    pulka_id: Mapped[int] = mapped_column(
        ForeignKey("pulkas.id", ondelete="CASCADE"), primary_key=True
    )
    member_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    practice: Mapped[bool] = mapped_column(Boolean, nullable=False)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(Text, nullable=False)
    deals: Mapped[int] = mapped_column(Integer, nullable=False)
    declared: Mapped[int] = mapped_column(Integer, nullable=False)
    made: Mapped[int] = mapped_column(Integer, nullable=False)
    failed: Mapped[int] = mapped_column(Integer, nullable=False)
    miseres: Mapped[int] = mapped_column(Integer, nullable=False)
    miseres_made: Mapped[int] = mapped_column(Integer, nullable=False)
    whists: Mapped[Decimal] = mapped_column(Numeric, nullable=False)
    money: Mapped[Decimal] = mapped_column(Numeric, nullable=False)
    costly: Mapped[dict[str, Any] | None] = mapped_column(JSONB, nullable=True)
    """His costliest deals of the pulka, versioned (:mod:`app.rules.scoring.deal_cost`,
    migration 0022); ``None`` only on a row its migration could not weigh."""

    __table_args__ = (
        Index("ix_pulka_member_stats_member", "member_id", "finished_at", "pulka_id"),
    )


class MemberStats(Base):
    """A member's totals over finished club pulkas: the sums of his ``pulka_member_stats``
    rows (``pulkas`` counts those he sat in at the end), kept by adding each pulka's rows when
    it finishes, so the club's statistics read one row per member."""

    __tablename__ = "member_stats"

    member_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pulkas: Mapped[int] = mapped_column(Integer, nullable=False)
    deals: Mapped[int] = mapped_column(Integer, nullable=False)
    declared: Mapped[int] = mapped_column(Integer, nullable=False)
    made: Mapped[int] = mapped_column(Integer, nullable=False)
    failed: Mapped[int] = mapped_column(Integer, nullable=False)
    miseres: Mapped[int] = mapped_column(Integer, nullable=False)
    miseres_made: Mapped[int] = mapped_column(Integer, nullable=False)
    whists: Mapped[Decimal] = mapped_column(Numeric, nullable=False)
    money: Mapped[Decimal] = mapped_column(Numeric, nullable=False)
