"""One table draw per session, one club seat per member per session (issue 9).

- ``draws``: a partial unique index allows one ``tables`` draw per session (R-T1). A database
  that already holds several (the race this revision closes) keeps the first; the later ones
  are renamed ``tables_void`` (kept for the record, no longer a draw of the session).
- ``table_seats.club_session_id`` copies the table's session, and a partial unique index on
  ``(club_session_id, member_id)`` lets a member hold at most one seat at the club tables of a
  session. Existing seats are back-filled; where a member already held several seats in a
  session (the same race) only his seat at the earliest table keeps the session id.

Rewrites data; reversible only in part: downgrade drops the two unique indexes and the
``table_seats.club_session_id`` column (its backfill goes with it), but draws renamed
``tables_void`` stay renamed: which of them were once a session's ``tables`` draw is kept
only in their kind, and restoring several draws per session would reopen the race.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 00:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("""
        UPDATE draws SET kind = 'tables_void'
        WHERE kind = 'tables' AND id NOT IN (
            SELECT min(id) FROM draws WHERE kind = 'tables' AND club_session_id IS NOT NULL
            GROUP BY club_session_id)
          AND club_session_id IS NOT NULL
    """)
    op.create_index('uq_draws_session_tables', 'draws', ['club_session_id'], unique=True,
                    postgresql_where=sa.text("kind = 'tables'"))
    op.add_column('table_seats', sa.Column('club_session_id', sa.Integer(), nullable=True))
    op.create_foreign_key(op.f('fk_table_seats_club_session_id_club_sessions'), 'table_seats',
                          'club_sessions', ['club_session_id'], ['id'], ondelete='SET NULL')
    op.execute("""
        UPDATE table_seats AS s SET club_session_id = t.club_session_id
        FROM tables AS t
        WHERE t.id = s.table_id AND t.club_session_id IS NOT NULL AND s.member_id IS NOT NULL
          AND s.table_id = (
            SELECT min(s2.table_id) FROM table_seats AS s2
            JOIN tables AS t2 ON t2.id = s2.table_id
            WHERE t2.club_session_id = t.club_session_id AND s2.member_id = s.member_id)
    """)
    op.create_index('uq_table_seats_session_member', 'table_seats',
                    ['club_session_id', 'member_id'], unique=True,
                    postgresql_where=sa.text(
                        'club_session_id IS NOT NULL AND member_id IS NOT NULL'))


def downgrade() -> None:
    op.drop_index('uq_table_seats_session_member', table_name='table_seats',
                  postgresql_where=sa.text(
                      'club_session_id IS NOT NULL AND member_id IS NOT NULL'))
    op.drop_constraint(op.f('fk_table_seats_club_session_id_club_sessions'), 'table_seats',
                       type_='foreignkey')
    op.drop_column('table_seats', 'club_session_id')
    op.drop_index('uq_draws_session_tables', table_name='draws',
                  postgresql_where=sa.text("kind = 'tables'"))
