"""Archive indexes (issue 14): the summary events of a table, finished pulkas by date.

``ix_table_events_archive`` holds only the events the archive's summaries read (a pulka's ~50
seating and deal_ended events, not its ~900 actions); ``ix_pulkas_finished`` orders finished
pulkas newest first for the list (and oldest first, scanned backward, for statistics).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 01:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        'ix_table_events_archive', 'table_events', ['table_id', 'seq'], unique=False,
        postgresql_where=sa.text("kind IN ('pulka_started', 'deal_started', 'player_joined', "
                                 "'player_replaced', 'deal_ended')"))
    op.create_index(
        'ix_pulkas_finished', 'pulkas',
        [sa.text('finished_at DESC NULLS LAST'), sa.text('id DESC')], unique=False,
        postgresql_where=sa.text("status = 'finished'"))


def downgrade() -> None:
    op.drop_index('ix_pulkas_finished', table_name='pulkas')
    op.drop_index('ix_table_events_archive', table_name='table_events')
