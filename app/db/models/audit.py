"""The audit log (issue 23): who changed what, when, from which address, before → after.

``audit_log`` is append-only and hash-chained, both enforced by PostgreSQL itself:

- a ``BEFORE INSERT`` trigger takes a transaction-level advisory lock (so audited transactions
  append one after another), gives the row its ``id`` from ``audit_log_id_seq`` under that
  lock (so ``id`` order is chain order), and sets ``prev_hash`` to the last row's ``hash``
  (64 zeros for the first row) and ``hash`` to the SHA-256 of the row's canonical text
  (:data:`CHAIN_FUNCTION`, docs/audit.md);
- ``BEFORE UPDATE OR DELETE`` (per row) and ``BEFORE TRUNCATE`` triggers raise, so no client —
  the app's own connection included — can change or remove a row.

Migration ``0017`` installs the same SQL (copied there, frozen); ``tests/platform`` checks the
installed functions against the text here, as the drift test does for tables and columns.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    FetchedValue,
    Index,
    Integer,
    SmallInteger,
    Text,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base

FORMAT = 1
"""The row format (``audit_log.format``): which canonical text its ``hash`` covers."""
GENESIS = "0" * 64
"""The ``prev_hash`` of the first row."""
CHAIN_LOCK = "prefclub.audit_log.chain"
"""``pg_advisory_xact_lock(hashtext(CHAIN_LOCK))`` serialises the appends."""

CHAIN_FUNCTION = r"""
CREATE OR REPLACE FUNCTION audit_log_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    last text;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('prefclub.audit_log.chain'));
    NEW.id := nextval('audit_log_id_seq');
    NEW.format := 1;
    SELECT a.hash INTO last FROM audit_log a ORDER BY a.id DESC LIMIT 1;
    NEW.prev_hash := coalesce(last, repeat('0', 64));
    NEW.hash := encode(sha256(convert_to(
        'audit/1' || E'\n' || NEW.prev_hash
        || E'\n' || NEW.id::text
        || E'\n' || to_char(NEW.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
        || E'\n' || coalesce(NEW.actor_id::text, '')
        || E'\n' || coalesce(NEW.address, '')
        || E'\n' || NEW.action
        || E'\n' || NEW.target
        || E'\n' || coalesce(NEW.before::text, '')
        || E'\n' || coalesce(NEW.after::text, ''),
        'UTF8')), 'hex');
    RETURN NEW;
END
$$;
"""

REFUSE_FUNCTION = r"""
CREATE OR REPLACE FUNCTION audit_log_refuse() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;
"""

TRIGGERS = (
    "CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log "
    "FOR EACH ROW EXECUTE FUNCTION audit_log_chain()",
    "CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log "
    "FOR EACH ROW EXECUTE FUNCTION audit_log_refuse()",
    "CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log "
    "FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse()",
)
TRIGGER_NAMES = ("audit_log_chain", "audit_log_no_change", "audit_log_no_truncate")


class AuditEntry(Base):
    """One audited change. ``actor_id`` is ``None`` when the server acted (a timer, a pulka's
    settlement); ``before``/``after`` are ``None`` where there was nothing before (a creation)
    or is nothing after (a cancellation). Money in them is a decimal string."""

    __tablename__ = "audit_log"
    __table_args__ = (
        CheckConstraint("format = 1", name="format"),
        CheckConstraint(r"action ~ '^[a-z_]+(\.[a-z_]+)+$'", name="action"),
        CheckConstraint(
            "strpos(target, E'\\n') = 0 AND strpos(coalesce(address, ''), E'\\n') = 0",
            name="one_line",
        ),
        Index("ix_audit_log_action", "action", "id"),
        Index("ix_audit_log_actor", "actor_id", "id"),
        Index("ix_audit_log_target", "target", "id"),
        Index("ix_audit_log_at", "at"),
    )

    id: Mapped[int] = mapped_column(
        BigInteger, primary_key=True, autoincrement=False, server_default=FetchedValue()
    )
    """Given by the chain trigger from ``audit_log_id_seq`` under the chain lock: chain order."""
    at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), nullable=False
    )
    actor_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The member who acted. No foreign key: the log outlives any row it names."""
    address: Mapped[str | None] = mapped_column(Text, nullable=True)
    action: Mapped[str] = mapped_column(Text, nullable=False)
    target: Mapped[str] = mapped_column(Text, nullable=False)
    before: Mapped[dict[str, Any] | None] = mapped_column(JSONB, nullable=True)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSONB, nullable=True)
    format: Mapped[int] = mapped_column(SmallInteger, nullable=False, server_default="1")
    prev_hash: Mapped[str] = mapped_column(Text, nullable=False)
    hash: Mapped[str] = mapped_column(Text, nullable=False)
