"""Recording mode (RULES.md §10): a table played with real cards and only recorded.

``tables.mode`` is ``live`` (the server deals) or ``recorded`` (a scorer enters each deal);
``tables.scorer_member_id`` is the member the table chose to score, if not a seated player.

Existing tables get ``mode = 'live'`` from the column's default (what they were); reversible:
downgrade drops both columns, which loses only the recorded tables' mode and scorer.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 01:45:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('tables', sa.Column('mode', sa.String(length=16), server_default='live',
                                      nullable=False))
    op.add_column('tables', sa.Column('scorer_member_id', sa.Integer(), nullable=True))
    op.create_foreign_key(op.f('fk_tables_scorer_member_id_members'), 'tables', 'members',
                          ['scorer_member_id'], ['id'], ondelete='SET NULL')
    op.create_check_constraint(op.f('ck_tables_mode'), 'tables', "mode IN ('live', 'recorded')")


def downgrade() -> None:
    op.drop_constraint(op.f('ck_tables_mode'), 'tables', type_='check')
    op.drop_constraint(op.f('fk_tables_scorer_member_id_members'), 'tables', type_='foreignkey')
    op.drop_column('tables', 'scorer_member_id')
    op.drop_column('tables', 'mode')
