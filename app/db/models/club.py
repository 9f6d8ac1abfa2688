"""The club's calendar and what happens around the tables: sessions (R-S1), attendance and late
notices (R-S4), the record of every draw (R-T1..R-T3), drawn tables, extension consents and deal
starts (R-S2), and consented seat changes (R-T4, R-T5).

``table_id`` columns refer to live tables (``tables``, revision 0003) and carry no foreign key,
because this revision comes first.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, TimestampMixin


class ClubSession(TimestampMixin, Base):
    """One evening of the club: Mondays 19:00-22:15 club time, or an extra one (R-S1)."""

    __tablename__ = "club_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    starts_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), unique=True, nullable=False
    )
    ends_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    extra: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    created_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("members.id", ondelete="SET NULL"), nullable=True
    )
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When the session end closed the unfinished pulkas (R-S3)."""


class Attendance(Base):
    """A member checked in to a session (practice tables never write here)."""

    __tablename__ = "attendance"
    __table_args__ = (UniqueConstraint("club_session_id", "member_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    club_session_id: Mapped[int] = mapped_column(
        ForeignKey("club_sessions.id", ondelete="CASCADE"), nullable=False, index=True
    )
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), nullable=False, index=True)
    checked_in_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    late: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)


class LateNotice(Base):
    """Notice of being late, given before the session starts (R-S4)."""

    __tablename__ = "late_notices"
    __table_args__ = (UniqueConstraint("club_session_id", "member_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    club_session_id: Mapped[int] = mapped_column(
        ForeignKey("club_sessions.id", ondelete="CASCADE"), nullable=False, index=True
    )
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), nullable=False)
    given_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    note: Mapped[str | None] = mapped_column(String(200), nullable=True)


class DrawRecord(TimestampMixin, Base):
    """The full record of a draw the server made: tables, seats, first dealer (R-T1..R-T3).

    A session's tables are drawn once: the partial unique index ``uq_draws_session_tables``
    allows one ``tables`` draw per session (the draw also locks the session row).
    """

    __tablename__ = "draws"
    __table_args__ = (
        Index(
            "uq_draws_session_tables",
            "club_session_id",
            unique=True,
            postgresql_where=text("kind = 'tables'"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    """``tables``, ``seats``, ``seat_choice`` or ``first_dealer``."""
    club_session_id: Mapped[int | None] = mapped_column(
        ForeignKey("club_sessions.id", ondelete="SET NULL"), nullable=True, index=True
    )
    table_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    made_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("members.id", ondelete="SET NULL"), nullable=True
    )
    record: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)


class DrawnTable(TimestampMixin, Base):
    """A table formed by the table draw (R-T1): its suit and members, then its live table."""

    __tablename__ = "drawn_tables"

    id: Mapped[int] = mapped_column(primary_key=True)
    club_session_id: Mapped[int] = mapped_column(
        ForeignKey("club_sessions.id", ondelete="CASCADE"), nullable=False, index=True
    )
    draw_id: Mapped[int] = mapped_column(ForeignKey("draws.id", ondelete="CASCADE"), nullable=False)
    suit: Mapped[int] = mapped_column(Integer, nullable=False)
    member_ids: Mapped[list[int]] = mapped_column(JSONB, nullable=False)
    table_id: Mapped[int | None] = mapped_column(Integer, nullable=True, unique=True)
    """The live table once seats and the first dealer are drawn."""


class ExtensionConsent(Base):
    """A player's consent to extend his table's play past 22:15 by one round (R-S2)."""

    __tablename__ = "extension_consents"

    table_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


class DealStart(Base):
    """A deal started at a club table (written by the live table; counts the extension round)."""

    __tablename__ = "deal_starts"

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(Integer, nullable=False, index=True)
    dealer_seat: Mapped[int] = mapped_column(Integer, nullable=False)
    """The dealer's seat; -1 when the start was counted from an allowed deal-start check."""
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


class SeatChange(TimestampMixin, Base):
    """A fourth player joining (R-T4) or a replacement (R-T5), waiting for everyone's consent."""

    __tablename__ = "seat_changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(Integer, nullable=False, index=True)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    """``join`` or ``replace``."""
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), nullable=False)
    """The member who comes in."""
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The seat replaced (``replace``)."""
    requested_by_id: Mapped[int] = mapped_column(ForeignKey("members.id"), nullable=False)
    required: Mapped[list[int]] = mapped_column(JSONB, nullable=False)
    """Members whose consent is needed."""
    consents: Mapped[list[int]] = mapped_column(JSONB, nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="pending")
    """``pending``, ``applied`` or ``refused``."""
    record: Mapped[dict[str, Any] | None] = mapped_column(JSONB, nullable=True)
    applied_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ClubSettings(Base):
    """The club's settings (one row, ``id`` 1; absent: every default). An admin edits them
    (``PUT /api/club/settings``, the admin page)."""

    __tablename__ = "club_settings"
    __table_args__ = (
        CheckConstraint("id = 1", name="one_row"),
        CheckConstraint(
            "move_timer_seconds IS NULL OR move_timer_seconds BETWEEN 1 AND 3600", name="move_timer"
        ),
        CheckConstraint("min_pulkas BETWEEN 0 AND 1000", name="min_pulkas"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    move_timer_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Seconds per move at club tables opened from now on; None (the default): no timer."""
    min_pulkas: Mapped[int] = mapped_column(Integer, nullable=False, server_default="5")
    """Finished club pulkas a member needs in a season (or all-time) to be ranked in the
    standings (issue 27); below it he is listed, unranked."""
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), nullable=False
    )
