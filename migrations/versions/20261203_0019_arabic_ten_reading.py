"""Arabic pulkas stored before issue 26's checked-ten reading keep the reading they were scored by.

Issue 26 reads 004's "Десятерная… Если не сыграна — игравший пишет в гору" as the hill only: the
``arabic`` preset now has ``ten_consolation = false``, where it used to write the consolation
whists as well (R-W9). Every stored arabic pulka was scored the old way, so the upgrade writes
``"ten_consolation": true`` into each stored copy of its conventions that does not name it yet:
the table's ``conventions``, the pulka's persisted ``state`` and finished ``record``, and the
``pulka`` / ``record`` of its events. Those pulkas then re-score and replay exactly as before
(docs/formats.md: nothing stored is re-read differently); a new pulka gets the preset's reading.

Reversible in part: the downgrade removes the key from every stored arabic copy (older code
refuses a convention it does not know). A pulka that started after the upgrade and was stored
without the key (the new default) would then be read by the older code with the consolation,
so a downgrade is safe only if no arabic pulka with a failed checked ten was played since.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-03 08:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0019'
down_revision: str | None = '0018'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEY = 'ten_consolation'

# (table, JSONB column, path of the conventions object inside it)
STORED_CONVENTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ('tables', 'conventions', ()),
    ('pulkas', 'state', ('conventions',)),
    ('pulkas', 'record', ('conventions',)),
    ('table_events', 'payload', ('pulka', 'conventions')),
    ('table_events', 'payload', ('record', 'conventions')),
)


def _object(column: str, path: tuple[str, ...]) -> str:
    return column + ''.join(f" -> '{step}'" for step in path)


def _set(column: str, path: tuple[str, ...], value: str) -> str:
    if not path:
        return f"{column} || '{{\"{KEY}\": {value}}}'::jsonb"
    steps = ','.join((*path, KEY))
    return f"jsonb_set({column}, '{{{steps}}}', '{value}'::jsonb)"


def _remove(column: str, path: tuple[str, ...]) -> str:
    if not path:
        return f"{column} - '{KEY}'"
    steps = ','.join((*path, KEY))
    return f"{column} #- '{{{steps}}}'"


def upgrade() -> None:
    for table, column, path in STORED_CONVENTIONS:
        conventions = _object(column, path)
        op.execute(
            f"UPDATE {table} SET {column} = {_set(column, path, 'true')} "
            f"WHERE {conventions} ->> 'preset' = 'arabic' AND {conventions} -> '{KEY}' IS NULL"
        )


def downgrade() -> None:
    for table, column, path in STORED_CONVENTIONS:
        conventions = _object(column, path)
        op.execute(
            f"UPDATE {table} SET {column} = {_remove(column, path)} "
            f"WHERE {conventions} ->> 'preset' = 'arabic' AND {conventions} -> '{KEY}' IS NOT NULL"
        )
