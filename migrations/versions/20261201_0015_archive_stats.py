"""The archive's summary rows (issue 14): ``pulka_stats``, ``pulka_member_stats``, ``member_stats``.

A finished pulka's list entry and per-member statistics are tallied once from its log
(:func:`app.rules.scoring.statistics.tally`) and stored, with each member's totals (``member_stats``), so the list and the statistics read small rows
instead of replaying every pulka's events per request. The upgrade backfills every pulka
already finished, with the same code the live tables use when a pulka ends
(:mod:`app.services.pulka_stats`), a few hundred pulkas per query.

Writes derived rows only (nothing existing is changed); reversible: downgrade drops the three
tables, and upgrading again tallies the same rows from the logs.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01 04:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from app.rules import Pulka
from app.rules.scoring.statistics import sheet_lines, tally
from app.services.pulka_stats import TOTALS, TOTALS_FROM_ROWS, facts_query, rows_of, to_fact

revision: str = '0015'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 200
"""Pulkas whose facts are read in one query during the backfill."""


def _create() -> tuple[sa.Table, sa.Table]:
    pulka = op.create_table(
        'pulka_stats',
        sa.Column('pulka_id', sa.Integer(), nullable=False),
        sa.Column('table_id', sa.Integer(), nullable=False),
        sa.Column('practice', sa.Boolean(), nullable=False),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('names', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('member_ids', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('deal_seqs', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('lines', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.ForeignKeyConstraint(['pulka_id'], ['pulkas.id'],
                                name='fk_pulka_stats_pulka_id_pulkas', ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['table_id'], ['tables.id'],
                                name='fk_pulka_stats_table_id_tables', ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('pulka_id', name='pk_pulka_stats'),
    )
    op.create_index('ix_pulka_stats_list', 'pulka_stats',
                    ['practice', sa.text('finished_at DESC'), sa.text('pulka_id DESC')])
    op.create_index('ix_pulka_stats_all', 'pulka_stats',
                    [sa.text('finished_at DESC'), sa.text('pulka_id DESC')])
    members = op.create_table(
        'pulka_member_stats',
        sa.Column('pulka_id', sa.Integer(), nullable=False),
        sa.Column('member_id', sa.Integer(), nullable=False),
        sa.Column('practice', sa.Boolean(), nullable=False),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=True),
        sa.Column('name', sa.Text(), nullable=False),
        sa.Column('deals', sa.Integer(), nullable=False),
        sa.Column('declared', sa.Integer(), nullable=False),
        sa.Column('made', sa.Integer(), nullable=False),
        sa.Column('failed', sa.Integer(), nullable=False),
        sa.Column('miseres', sa.Integer(), nullable=False),
        sa.Column('miseres_made', sa.Integer(), nullable=False),
        sa.Column('whists', sa.Numeric(), nullable=False),
        sa.Column('money', sa.Numeric(), nullable=False),
        sa.ForeignKeyConstraint(['pulka_id'], ['pulkas.id'],
                                name='fk_pulka_member_stats_pulka_id_pulkas',
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('pulka_id', 'member_id', name='pk_pulka_member_stats'),
    )
    op.create_index('ix_pulka_member_stats_member', 'pulka_member_stats',
                    ['member_id', 'finished_at', 'pulka_id'])
    op.create_table(
        'member_stats',
        sa.Column('member_id', sa.Integer(), nullable=False),
        *(sa.Column(c, sa.Integer(), nullable=False) for c in TOTALS[:-2]),
        sa.Column('whists', sa.Numeric(), nullable=False),
        sa.Column('money', sa.Numeric(), nullable=False),
        sa.PrimaryKeyConstraint('member_id', name='pk_member_stats'),
    )
    return pulka, members


def _backfill(pulka_table: sa.Table, member_table: sa.Table) -> None:
    conn = op.get_bind()
    finished = conn.execute(sa.text(
        "SELECT p.id, p.table_id, t.practice, p.finished_at, t.created_at, p.settlement, "
        "p.state "
        "FROM pulkas p JOIN tables t ON t.id = p.table_id "
        "WHERE p.status = 'finished' ORDER BY p.id")).all()
    for start in range(0, len(finished), BATCH):
        batch = finished[start:start + BATCH]
        facts: dict[int, list[object]] = {}
        for row in conn.execute(facts_query([b.table_id for b in batch])).all():
            facts.setdefault(row[0], []).append(to_fact(row[1:]))
        pulkas, members = [], []
        for b in batch:
            one, many = rows_of(b.id, b.table_id, b.practice, b.finished_at, b.created_at,
                                tally(facts.get(b.table_id, []), b.settlement),  # type: ignore[arg-type]
                                sheet_lines(Pulka.from_json(b.state).entries))
            pulkas.append(one)
            # only this revision's columns: today's rows_of may tally more (0022's ``costly``)
            members.extend({k: v for k, v in m.items() if k in member_table.c} for m in many)
        conn.execute(pulka_table.insert(), pulkas)
        if members:
            conn.execute(member_table.insert(), members)
    conn.execute(TOTALS_FROM_ROWS)


def upgrade() -> None:
    _backfill(*_create())


def downgrade() -> None:
    op.drop_table('member_stats')
    op.drop_index('ix_pulka_member_stats_member', table_name='pulka_member_stats')
    op.drop_table('pulka_member_stats')
    op.drop_index('ix_pulka_stats_all', table_name='pulka_stats')
    op.drop_index('ix_pulka_stats_list', table_name='pulka_stats')
    op.drop_table('pulka_stats')
