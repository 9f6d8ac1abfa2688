"""Seasons, standings and the rating (issue 27).

A season is a span of days the admin names (say September to May); seasons never overlap (an
exclusion constraint, beside the service's own check). Standings are summed from
``member_nights``: one row per member and club night, the sums of his finished club pulkas
that night, kept by adding each pulka's archive rows when it finishes
(:mod:`app.services.standings`), so a season's standings (or the all-time ones) are one small
``GROUP BY`` over the nights in its days, whatever seasons the admin defines later. The rating
(:mod:`app.services.rating`) keeps each member's OpenSkill Plackett-Luce ``mu``/``sigma`` and
the list of the pulkas it has taken in, in the order it took them. All of it can be rebuilt
from the archive (``pulka_member_stats``) and must come out equal.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB, ExcludeConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, TimestampMixin


class Season(TimestampMixin, Base):
    """A named span of club nights, ``first_day`` to ``last_day`` inclusive (club dates)."""

    __tablename__ = "seasons"
    __table_args__ = (
        CheckConstraint("last_day >= first_day", name="days_in_order"),
        ExcludeConstraint(
            (text("daterange(first_day, last_day, '[]')"), "&&"),
            name="seasons_no_overlap",
            using="gist",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), nullable=False, unique=True)
    first_day: Mapped[date] = mapped_column(Date, nullable=False)
    last_day: Mapped[date] = mapped_column(Date, nullable=False)


class MemberNight(Base):
    """One member's finished club pulkas of one night: what standings are summed from.

    ``entries`` counts his archive rows that night (a pulka he left before its end is one,
    though ``pulkas`` does not count it), so a row is dropped when a re-tallied pulka takes
    its last entry off."""

    __tablename__ = "member_nights"

    member_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    night: Mapped[date] = mapped_column(Date, primary_key=True)
    entries: Mapped[int] = mapped_column(Integer, nullable=False)
    pulkas: Mapped[int] = mapped_column(Integer, nullable=False)
    deals: Mapped[int] = mapped_column(Integer, nullable=False)
    whists: Mapped[Decimal] = mapped_column(Numeric, nullable=False)
    money: Mapped[Decimal] = mapped_column(Numeric, nullable=False)

    __table_args__ = (Index("ix_member_nights_night", "night", "member_id"),)


class MemberRating(Base):
    """A member's OpenSkill Plackett-Luce rating after every rated pulka he played."""

    __tablename__ = "member_ratings"

    member_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mu: Mapped[float] = mapped_column(Float(53), nullable=False)
    sigma: Mapped[float] = mapped_column(Float(53), nullable=False)
    matches: Mapped[int] = mapped_column(Integer, nullable=False)


class RatedPulka(Base):
    """A pulka the rating has taken in, in its order (``finished_at``, ``pulka_id``), with
    the ranks it was given and the ratings after it (``{member id: [rank, mu, sigma]}``)."""

    __tablename__ = "rated_pulkas"

    pulka_id: Mapped[int] = mapped_column(
        ForeignKey("pulkas.id", ondelete="CASCADE"), primary_key=True
    )
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    result: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), nullable=False
    )

    __table_args__ = (Index("ix_rated_pulkas_order", "finished_at", "pulka_id"),)
