"""Bot level per table (issue 15): the strength of the house bots at a practice table.

Existing tables get ``bot_level = 'beginner'`` from the column's default (the only level there
was); reversible: downgrade drops the column.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 03:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('tables', sa.Column('bot_level', sa.String(length=16),
                                      server_default='beginner', nullable=False))
    op.create_check_constraint(op.f('ck_tables_bot_level'), 'tables',
                               "bot_level IN ('beginner', 'club', 'strong')")


def downgrade() -> None:
    op.drop_constraint(op.f('ck_tables_bot_level'), 'tables', type_='check')
    op.drop_column('tables', 'bot_level')
