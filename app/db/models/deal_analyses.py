"""Cached deal analyses (issue 15): one double-dummy analysis per finished deal.

The analysis is expensive (seconds in the worker pool) and never changes once the deal has
ended, so it is computed once and kept here, keyed like the deal: its table and deal number.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, ForeignKey, Integer, func
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
