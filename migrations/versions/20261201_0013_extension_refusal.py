"""The admin's refusal of a table's extension past 22:15 (issue 11, R-S2).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 02:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('tables', sa.Column('extension_refused_at', sa.DateTime(timezone=True),
                                      nullable=True))


def downgrade() -> None:
    op.drop_column('tables', 'extension_refused_at')
