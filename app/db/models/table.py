"""Live tables: the table row, its seats, its append-only event log, command ids and its pulka.

``table_events`` is the truth for live play (DESIGN.md "Persistence"): a command is accepted only
when its event is committed, and a table's whole state can be rebuilt by folding its events.
``tables.version`` is the last committed ``seq``; writers serialise on the table row
(``SELECT ... FOR UPDATE``).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, TimestampMixin


class Table(TimestampMixin, Base):
    """A table where one pulka is played (live, by members and bots)."""

    __tablename__ = "tables"

    id: Mapped[int] = mapped_column(primary_key=True)
    club_session_id: Mapped[int | None] = mapped_column(
        ForeignKey("club_sessions.id", ondelete="SET NULL"), nullable=True, index=True
    )
    practice: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    preset: Mapped[str] = mapped_column(String(32), nullable=False, default="club")
    conventions: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    target: Mapped[int] = mapped_column(Integer, nullable=False)
    stake: Mapped[Decimal] = mapped_column(Numeric(12, 2), nullable=False)
    players: Mapped[int] = mapped_column(Integer, nullable=False)
    first_dealer: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    """The last committed ``table_events.seq`` (0 before the first event)."""
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="playing")
    """``playing`` or ``finished``."""
    move_timer_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Seconds a player has for each move; ``None`` (the club default) means no timer."""
    deadline_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When the player to move runs out of time (stored, so any process can fire it once)."""
    deadline_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The ``version`` the deadline was set at; a deadline fires only if nothing happened since."""
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    extension_refused_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )
    """When an admin refused this club table's extension past 22:15 (R-S2): from then on it
    ends as a table without extension, whatever its players agree."""
    mode: Mapped[str] = mapped_column(
        String(16), nullable=False, default="live", server_default="live"
    )
    """``live`` (the server deals) or ``recorded`` (real cards; a scorer enters each deal, §10)."""
    scorer_member_id: Mapped[int | None] = mapped_column(
        ForeignKey("members.id", ondelete="SET NULL"), nullable=True
    )
    """At a recorded table: a member the table chose to score besides the seated players."""
    bot_level: Mapped[str] = mapped_column(
        String(16), nullable=False, default="beginner", server_default="beginner"
    )
    """The house bots' strength at a practice table: ``beginner``, ``club`` or ``strong``."""

    __table_args__ = (
        CheckConstraint("mode IN ('live', 'recorded')", name="mode"),
        CheckConstraint("bot_level IN ('beginner', 'club', 'strong')", name="bot_level"),
    )


class TableSeat(Base):
    """Who sits in each seat (``member_id`` is ``None`` for an empty seat).

    ``club_session_id`` copies the table's session so that PostgreSQL itself enforces "a member
    holds at most one seat at the club tables of a session" (the partial unique index
    ``uq_table_seats_session_member``); practice tables have no session and are not limited.
    A replacement (R-T5) rewrites the seat rows, so the leaving member no longer holds one.
    """

    __tablename__ = "table_seats"
    __table_args__ = (
        Index(
            "uq_table_seats_session_member",
            "club_session_id",
            "member_id",
            unique=True,
            postgresql_where=text("club_session_id IS NOT NULL AND member_id IS NOT NULL"),
        ),
    )

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    member_id: Mapped[int | None] = mapped_column(
        ForeignKey("members.id"), nullable=True, index=True
    )
    club_session_id: Mapped[int | None] = mapped_column(
        ForeignKey("club_sessions.id", ondelete="SET NULL"), nullable=True
    )
    """The table's club session (``None`` at practice and admin-made tables)."""


class TableEvent(Base):
    """One committed event of a table: the append-only log live play is rebuilt from.

    ``payload`` may hold server secrets (a deal's deck and salt); it never leaves the server
    except through the engine's ``view()``.
    """

    __tablename__ = "table_events"
    __table_args__ = (
        # The archive's summaries (pulka list, sheet, statistics, finding a deal to replay)
        # read only these kinds: ~50 of a pulka's ~900 events (docs/performance.md).
        Index(
            "ix_table_events_archive",
            "table_id",
            "seq",
            postgresql_where=text(
                "kind IN ('pulka_started', 'deal_started', "
                "'player_joined', 'player_replaced', 'deal_ended')"
            ),
        ),
    )

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32), nullable=False)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), nullable=False
    )


class TableCommand(Base):
    """A client command id that was applied, with the answer it got (idempotent retries)."""

    __tablename__ = "table_commands"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), primary_key=True)
    command_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    """The last event the command produced."""
    response: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), nullable=False
    )


class Pulka(TimestampMixin, Base):
    """The pulka played at a table: its live sheet while it runs, its record when it ends."""

    __tablename__ = "pulkas"

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), nullable=False, unique=True
    )
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="playing")
    """``playing`` or ``finished``."""
    ended: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """``target``, ``agreement`` or ``session_end`` once finished."""
    deals: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    state: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    """The scoring engine's pulka (``Pulka.to_json``) after the last finished deal."""
    sheet: Mapped[dict[str, Any] | None] = mapped_column(JSONB, nullable=True)
    """The live sheet (pool, hill, whists) after the last finished deal."""
    record: Mapped[dict[str, Any] | None] = mapped_column(JSONB, nullable=True)
    """The finished pulka as a ``pulka/1`` document."""
    settlement: Mapped[dict[str, Any] | None] = mapped_column(JSONB, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


# The archive's pulka list, newest first, and statistics, oldest first (a backward scan).
Index(
    "ix_pulkas_finished",
    Pulka.finished_at.desc().nulls_last(),
    Pulka.id.desc(),
    postgresql_where=Pulka.status == "finished",
)
