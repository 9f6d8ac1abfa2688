"""The club's settings: one row; first the move timer of club tables (issue 11, off by default).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 04:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0014'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'club_settings',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('move_timer_seconds', sa.Integer(), nullable=True),
        sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'),
                  nullable=False),
        sa.CheckConstraint('id = 1', name=op.f('ck_club_settings_one_row')),
        sa.CheckConstraint('move_timer_seconds IS NULL OR move_timer_seconds BETWEEN 1 AND 3600',
                           name=op.f('ck_club_settings_move_timer')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_club_settings')),
    )


def downgrade() -> None:
    op.drop_table('club_settings')
