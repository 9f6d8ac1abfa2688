"""Seasons, standings and the rating (issue 27).

``seasons`` (named spans of days that never overlap: an exclusion constraint on their date
ranges), ``member_nights`` (a member's finished club pulkas summed per night, what standings
add up), ``member_ratings`` and ``rated_pulkas`` (the OpenSkill Plackett-Luce rating and the
pulkas it took in), and the club setting ``min_pulkas`` (to qualify in the standings,
default 5).

The upgrade creates the tables empty; ``prefclub migrate`` and ``prefclub serve`` then fill
them from the archive once (:func:`app.services.standings.backfill`: the rating needs the
OpenSkill code, which a migration should not freeze), and ``prefclub rebuild-standings`` does it
on demand. The tables are derived, so the downgrade drops them without losing anything the
archive does not hold.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0018'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('club_settings', sa.Column('min_pulkas', sa.Integer(), server_default='5',
                                             nullable=False))
    op.create_check_constraint(op.f('ck_club_settings_min_pulkas'), 'club_settings',
                               'min_pulkas BETWEEN 0 AND 1000')
    op.create_table(
        'seasons',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('first_day', sa.Date(), nullable=False),
        sa.Column('last_day', sa.Date(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'),
                  nullable=False),
        sa.CheckConstraint('last_day >= first_day', name=op.f('ck_seasons_days_in_order')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_seasons')),
        sa.UniqueConstraint('name', name=op.f('uq_seasons_name')),
        postgresql.ExcludeConstraint((sa.text("daterange(first_day, last_day, '[]')"), '&&'),
                                     name='seasons_no_overlap', using='gist'),
    )
    op.create_table(
        'member_nights',
        sa.Column('member_id', sa.Integer(), nullable=False),
        sa.Column('night', sa.Date(), nullable=False),
        sa.Column('entries', sa.Integer(), nullable=False),
        sa.Column('pulkas', sa.Integer(), nullable=False),
        sa.Column('deals', sa.Integer(), nullable=False),
        sa.Column('whists', sa.Numeric(), nullable=False),
        sa.Column('money', sa.Numeric(), nullable=False),
        sa.PrimaryKeyConstraint('member_id', 'night', name=op.f('pk_member_nights')),
    )
    op.create_index('ix_member_nights_night', 'member_nights', ['night', 'member_id'])
    op.create_table(
        'member_ratings',
        sa.Column('member_id', sa.Integer(), nullable=False),
        sa.Column('mu', sa.Float(precision=53), nullable=False),
        sa.Column('sigma', sa.Float(precision=53), nullable=False),
        sa.Column('matches', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('member_id', name=op.f('pk_member_ratings')),
    )
    op.create_table(
        'rated_pulkas',
        sa.Column('pulka_id', sa.Integer(), nullable=False),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('result', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'),
                  nullable=False),
        sa.ForeignKeyConstraint(['pulka_id'], ['pulkas.id'],
                                name=op.f('fk_rated_pulkas_pulka_id_pulkas'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('pulka_id', name=op.f('pk_rated_pulkas')),
    )
    op.create_index('ix_rated_pulkas_order', 'rated_pulkas', ['finished_at', 'pulka_id'])


def downgrade() -> None:
    op.drop_index('ix_rated_pulkas_order', table_name='rated_pulkas')
    op.drop_table('rated_pulkas')
    op.drop_table('member_ratings')
    op.drop_index('ix_member_nights_night', table_name='member_nights')
    op.drop_table('member_nights')
    op.drop_table('seasons')
    op.drop_constraint(op.f('ck_club_settings_min_pulkas'), 'club_settings', type_='check')
    op.drop_column('club_settings', 'min_pulkas')
