"""Fund: idempotency keys of state-changing fund requests (issue 9).

One row per (member, Idempotency-Key) with the request's fingerprint and the stored answer; the
unique constraint makes a keyed payment, payout, proposal or vote act at most once.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 00:50:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'fund_request_keys',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('member_id', sa.Integer(), nullable=False),
        sa.Column('key', sa.String(length=100), nullable=False),
        sa.Column('fingerprint', sa.String(length=64), nullable=False),
        sa.Column('status_code', sa.Integer(), nullable=True),
        sa.Column('response', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'),
                  nullable=False),
        sa.ForeignKeyConstraint(['member_id'], ['members.id'],
                                name=op.f('fk_fund_request_keys_member_id_members'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_fund_request_keys')),
        sa.UniqueConstraint('member_id', 'key', name=op.f('uq_fund_request_keys_member_id')),
    )


def downgrade() -> None:
    op.drop_table('fund_request_keys')
