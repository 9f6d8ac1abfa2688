"""The chain of deals: every ``deal_started`` of ``table_events``, linked by SHA-256.

``deal_chain`` is written only by the database: a deferred trigger on ``table_events`` appends
one entry per ``deal_started`` at commit, under an advisory lock (so entries serialise and
positions have no gaps), and triggers refuse every other ``INSERT`` and every ``UPDATE``,
``DELETE`` and ``TRUNCATE`` of it. There is no foreign key to ``tables``: a table dropped
afterwards must leave its deals in the chain, where the check finds them missing.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base

GENESIS = "0" * 64
"""The ``prev_hash`` of the chain's first entry."""


class DealChainEntry(Base):
    """One link: a deal's commitment at ``position`` and the hash that binds it to the rest."""

    __tablename__ = "deal_chain"
    __table_args__ = (
        UniqueConstraint("table_id", "seq", name="uq_deal_chain_table_id"),
        UniqueConstraint("prev_hash", name="uq_deal_chain_prev_hash"),
        CheckConstraint("position >= 1", name="position"),
    )

    position: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    table_id: Mapped[int] = mapped_column(Integer, nullable=False)
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    """The ``table_events.seq`` of the deal's ``deal_started``."""
    commitment: Mapped[str] = mapped_column(String(64), nullable=False)
    prev_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    hash: Mapped[str] = mapped_column(String(64), nullable=False)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    """The event's ``created_at`` (not hashed)."""
