"""Revoked login sessions close their table sockets: NOTIFY on session revocation/deactivation.

A trigger, so every path that ends a session (logout, deactivation, password change or reset,
an admin's revocation, deleting the row) tells every server process, without the HTTP layer
having to remember it. The payload on channel ``prefclub_sessions`` is ``s:<session id>`` (one
session ended) or ``m:<member id>`` (the member was deactivated: all his sessions). PostgreSQL
delivers it only if and when the transaction commits.

Revision ID: 0008
Revises: 0006
Create Date: 2026-12-01 00:40:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0008'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("""
        CREATE FUNCTION prefclub_session_ended() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                PERFORM pg_notify('prefclub_sessions', 's:' || OLD.id);
                RETURN OLD;
            END IF;
            PERFORM pg_notify('prefclub_sessions', 's:' || NEW.id);
            RETURN NEW;
        END
        $$
    """)
    op.execute("""
        CREATE TRIGGER auth_sessions_revoked_notify
        AFTER UPDATE OF revoked_at ON auth_sessions
        FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
        EXECUTE FUNCTION prefclub_session_ended()
    """)
    op.execute("""
        CREATE TRIGGER auth_sessions_deleted_notify
        AFTER DELETE ON auth_sessions
        FOR EACH ROW WHEN (OLD.revoked_at IS NULL)
        EXECUTE FUNCTION prefclub_session_ended()
    """)
    op.execute("""
        CREATE FUNCTION prefclub_member_deactivated() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('prefclub_sessions', 'm:' || NEW.id);
            RETURN NEW;
        END
        $$
    """)
    op.execute("""
        CREATE TRIGGER members_deactivated_notify
        AFTER UPDATE OF active ON members
        FOR EACH ROW WHEN (OLD.active AND NOT NEW.active)
        EXECUTE FUNCTION prefclub_member_deactivated()
    """)


def downgrade() -> None:
    op.execute("DROP TRIGGER members_deactivated_notify ON members")
    op.execute("DROP FUNCTION prefclub_member_deactivated()")
    op.execute("DROP TRIGGER auth_sessions_deleted_notify ON auth_sessions")
    op.execute("DROP TRIGGER auth_sessions_revoked_notify ON auth_sessions")
    op.execute("DROP FUNCTION prefclub_session_ended()")
