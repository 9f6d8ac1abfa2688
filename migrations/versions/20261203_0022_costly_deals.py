"""Each member's costliest deals of a pulka, tallied once (issue 27, the member's page).

``pulka_member_stats.costly`` keeps, per member and finished pulka, his ten dearest deals (deal
number, the ``seq`` of its ``deal_ended``, the exact loss, the names seated), versioned
(``app.rules.scoring.deal_cost.COSTLY_VERSION``). The member's page merged them from every
deal's writes on each visit; now it merges these short lists. Live tables write the list when a
pulka ends (:func:`app.services.pulka_stats.record`); this upgrade backfills every row already
there from its table's log, with the same tally, a few hundred pulkas per query.

Writes a derived column only; reversible: downgrade drops it, upgrading again tallies the same
lists from the logs.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-03 21:30:00
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from app.rules.scoring.statistics import tally
from app.services.pulka_stats import facts_query, to_fact

revision: str = '0022'
down_revision: str | None = '0021'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 200
"""Pulkas whose facts are read in one query during the backfill."""
SET_COSTLY = sa.text(
    "UPDATE pulka_member_stats SET costly = CAST(:costly AS jsonb) "
    "WHERE pulka_id = :pulka_id AND member_id = :member_id"
)


def _backfill() -> None:
    conn = op.get_bind()
    rows = conn.execute(sa.text(
        "SELECT s.pulka_id, s.table_id, array_agg(m.member_id ORDER BY m.member_id) "
        "FROM pulka_stats s JOIN pulka_member_stats m ON m.pulka_id = s.pulka_id "
        "GROUP BY s.pulka_id, s.table_id ORDER BY s.pulka_id")).all()
    for start in range(0, len(rows), BATCH):
        batch = rows[start:start + BATCH]
        facts: dict[int, list[object]] = {}
        for row in conn.execute(facts_query([b.table_id for b in batch])).all():
            facts.setdefault(row[0], []).append(to_fact(row[1:]))
        updates = []
        for pulka_id, table_id, member_ids in batch:
            counted = tally(facts.get(table_id, []), None)  # type: ignore[arg-type]
            updates.extend(
                {"pulka_id": pulka_id, "member_id": member_id,
                 "costly": json.dumps(counted.costly.stored(member_id), ensure_ascii=False)}
                for member_id in member_ids
            )
        if updates:
            conn.execute(SET_COSTLY, updates)


def upgrade() -> None:
    op.add_column(
        'pulka_member_stats',
        sa.Column('costly', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    )
    _backfill()


def downgrade() -> None:
    op.drop_column('pulka_member_stats', 'costly')
