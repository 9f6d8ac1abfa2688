"""The luck figures of each finished club deal (issue 27, docs/luck.md).

One row per player and deal: what his cards were worth double-dummy and what he lost to
double-dummy in the bidding, the whist-or-pass call and the play, in whists, with the version
of their definition (``app.rules.scoring.luck.LUCK_VERSION``). The rows are filled by the
server's background pass (old deals included), not by this migration: weighing a deal needs
its double-dummy analysis, seconds of CPU each.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-03 18:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0021'
down_revision: str | None = '0020'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'deal_luck',
        sa.Column('table_id', sa.Integer(), nullable=False),
        sa.Column('deal_no', sa.Integer(), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('pulka_id', sa.Integer(), nullable=False),
        sa.Column('member_id', sa.Integer(), nullable=True),
        sa.Column('ended_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('night', sa.Date(), nullable=False),
        sa.Column('worth', sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column('bidding', sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column('defence', sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column('play', sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column('complete', sa.Boolean(), nullable=False),
        sa.Column('head', sa.Boolean(), nullable=False),
        sa.Column('version', sa.SmallInteger(), nullable=False),
        sa.CheckConstraint('seat >= -1', name=op.f('ck_deal_luck_seat')),
        sa.ForeignKeyConstraint(['member_id'], ['members.id'],
                                name=op.f('fk_deal_luck_member_id_members'), ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['pulka_id'], ['pulkas.id'],
                                name=op.f('fk_deal_luck_pulka_id_pulkas'), ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['table_id'], ['tables.id'],
                                name=op.f('fk_deal_luck_table_id_tables'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('table_id', 'deal_no', 'seat', name=op.f('pk_deal_luck')),
    )
    op.create_index('ix_deal_luck_member', 'deal_luck', ['member_id', 'night'])
    op.create_index('ix_deal_luck_pulka', 'deal_luck', ['pulka_id'])
    op.create_index('ix_deal_luck_heads', 'deal_luck', ['table_id', 'deal_no'],
                    postgresql_where=sa.text('head'))


def downgrade() -> None:
    op.drop_index('ix_deal_luck_heads', table_name='deal_luck')
    op.drop_index('ix_deal_luck_pulka', table_name='deal_luck')
    op.drop_index('ix_deal_luck_member', table_name='deal_luck')
    op.drop_table('deal_luck')
