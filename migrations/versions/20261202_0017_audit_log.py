"""The audit log (issue 23): an append-only, hash-chained ``audit_log``.

PostgreSQL itself keeps it: a ``BEFORE INSERT`` trigger chains each row to the one before it
under a transaction-level advisory lock (docs/audit.md has the exact hash inputs), and triggers
refuse every ``UPDATE``, ``DELETE`` and ``TRUNCATE``. The SQL is a frozen copy of
:mod:`app.db.models.audit` at this revision (a platform test compares the installed functions
with the model's text).

The upgrade creates an empty table and rewrites no data. The downgrade drops the table, its
sequence and functions, and with them every audit row: it is reversible only for a club that
accepts losing its audit history.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02 04:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0017'
down_revision: str | None = '0016'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

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


def upgrade() -> None:
    op.execute("CREATE SEQUENCE audit_log_id_seq AS bigint")
    op.create_table(
        'audit_log',
        sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), server_default=sa.text('now()'),
                  nullable=False),
        sa.Column('actor_id', sa.Integer(), nullable=True),
        sa.Column('address', sa.Text(), nullable=True),
        sa.Column('action', sa.Text(), nullable=False),
        sa.Column('target', sa.Text(), nullable=False),
        sa.Column('before', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column('after', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column('format', sa.SmallInteger(), server_default='1', nullable=False),
        sa.Column('prev_hash', sa.Text(), nullable=False),
        sa.Column('hash', sa.Text(), nullable=False),
        sa.CheckConstraint('format = 1', name=op.f('ck_audit_log_format')),
        sa.CheckConstraint(r"action ~ '^[a-z_]+(\.[a-z_]+)+$'", name=op.f('ck_audit_log_action')),
        sa.CheckConstraint("strpos(target, E'\\n') = 0 AND "
                           "strpos(coalesce(address, ''), E'\\n') = 0",
                           name=op.f('ck_audit_log_one_line')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_log')),
    )
    op.execute("ALTER SEQUENCE audit_log_id_seq OWNED BY audit_log.id")
    op.create_index('ix_audit_log_action', 'audit_log', ['action', 'id'])
    op.create_index('ix_audit_log_actor', 'audit_log', ['actor_id', 'id'])
    op.create_index('ix_audit_log_target', 'audit_log', ['target', 'id'])
    op.create_index('ix_audit_log_at', 'audit_log', ['at'])
    op.execute(CHAIN_FUNCTION)
    op.execute(REFUSE_FUNCTION)
    for statement in TRIGGERS:
        op.execute(statement)


def downgrade() -> None:
    op.drop_table('audit_log')  # its triggers and owned sequence go with it
    op.execute("DROP FUNCTION audit_log_chain()")
    op.execute("DROP FUNCTION audit_log_refuse()")
