"""Pulkas stored before issue 26's new readings keep the readings they were scored by.

Issue 26 reads two rules anew, each behind a convention whose preset value is the new reading:

* ``ten_consolation`` (A-15): 004's "Десятерная… Если не сыграна — игравший пишет в гору" is the
  hill only, so the ``arabic`` preset has it ``false``; it used to write the consolation whists
  as well (R-W9).
* ``dealing_fine`` (R-X2): 000's «Наказания за неправильную сдачу не применяется», so it is
  ``false`` everywhere; a dealer's second procedure fault used to write 5 and pass the deal on
  (001 3.2.17).

Every stored pulka was scored the old way, so the upgrade writes ``true`` into each stored copy
of the conventions that does not name the key yet: for ``ten_consolation`` every arabic copy,
for ``dealing_fine`` every copy of a table whose events record a ``dealing_procedure`` penalty.
The copies are the table's ``conventions``, the pulka's persisted ``state`` and finished
``record``, and the ``pulka`` / ``record`` of its events. Those pulkas then re-score, replay and
rebuild exactly as before (docs/formats.md: nothing stored is re-read differently); a new pulka
gets the new reading.

Reversible in part: the downgrade removes both keys from every stored copy (older code refuses
a convention it does not know). A pulka that started after the upgrade was stored without the
keys (the new readings are the defaults), so older code would read its failed checked tens and
repeated dealing faults the old way: a downgrade is safe only if none was played since.

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

# (table, JSONB column, path of the conventions object inside it, the column naming the table)
STORED_CONVENTIONS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ('tables', 'conventions', (), 'id'),
    ('pulkas', 'state', ('conventions',), 'table_id'),
    ('pulkas', 'record', ('conventions',), 'table_id'),
    ('table_events', 'payload', ('pulka', 'conventions'), 'table_id'),
    ('table_events', 'payload', ('record', 'conventions'), 'table_id'),
)

PENALISED_TABLES = (
    "(SELECT DISTINCT table_id FROM table_events "
    "WHERE payload::text LIKE '%\"dealing_procedure\"%')"
)
"""The tables whose log records an R-X2 fault (a ``recorded_deal`` or its correction)."""


def _object(column: str, path: tuple[str, ...]) -> str:
    return column + ''.join(f" -> '{step}'" for step in path)


def _set(column: str, path: tuple[str, ...], key: str) -> str:
    if not path:
        return f"{column} || '{{\"{key}\": true}}'::jsonb"
    steps = ','.join((*path, key))
    return f"jsonb_set({column}, '{{{steps}}}', 'true'::jsonb)"


def _remove(column: str, path: tuple[str, ...], key: str) -> str:
    if not path:
        return f"{column} - '{key}'"
    steps = ','.join((*path, key))
    return f"{column} #- '{{{steps}}}'"


def _keep(key: str, which: str) -> None:
    """Write ``key: true`` into every stored conventions copy that ``which`` selects."""
    for table, column, path, table_column in STORED_CONVENTIONS:
        conventions = _object(column, path)
        chosen = which.format(conventions=conventions, table_id=table_column)
        op.execute(
            f"UPDATE {table} SET {column} = {_set(column, path, key)} "
            f"WHERE {conventions} ->> 'preset' IS NOT NULL AND {conventions} -> '{key}' IS NULL "
            f"AND {chosen}"
        )


def upgrade() -> None:
    _keep('ten_consolation', "{conventions} ->> 'preset' = 'arabic'")
    _keep('dealing_fine', "{conventions} ->> 'preset' <> 'classic' "
                          f"AND {{table_id}} IN {PENALISED_TABLES}")


def downgrade() -> None:
    for key in ('ten_consolation', 'dealing_fine'):
        for table, column, path, _table_column in STORED_CONVENTIONS:
            conventions = _object(column, path)
            op.execute(
                f"UPDATE {table} SET {column} = {_remove(column, path, key)} "
                f"WHERE {conventions} -> '{key}' IS NOT NULL"
            )
