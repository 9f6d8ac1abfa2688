"""Classic pulkas stored before the ``once`` closing keep the club's ``double`` closing.

Issue 26 settles a classic pulka as 003 30-31 counts it, "по тому же расчёту": a point written
off the stake is worth one remiz, so at the end every pool point over or short of the target
comes off or goes on the hill once (``closing = once``, K-12). The ``classic`` preset used the
club's ``double`` closing, under which a pulka ended early put every point short on the hill
twice. Every stored classic pulka was settled that way, so the upgrade writes
``"closing": "double"`` into each stored copy of classic conventions that does not name a
closing: the table's ``conventions``, the pulka's ``state`` and ``record``, and the ``pulka`` /
``record`` of its events (the same copies as revision 0019). Those pulkas then re-score, replay
and rebuild exactly as before (docs/formats.md); a new classic pulka gets ``once``.

Reversible in part: the downgrade removes ``"closing": "double"`` from classic copies again
(older code refuses any override under classic). A classic pulka started after the upgrade
reads ``once`` only by its preset, so older code would settle it the old way.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-03 14:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0020'
down_revision: str | None = '0019'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CLASSIC_COPIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ('tables', 'conventions', ()),
    ('pulkas', 'state', ('conventions',)),
    ('pulkas', 'record', ('conventions',)),
    ('table_events', 'payload', ('pulka', 'conventions')),
    ('table_events', 'payload', ('record', 'conventions')),
)
"""Each stored conventions copy: its table, its JSONB column and its path inside the column."""


def _path(*steps: str) -> str:
    """A PostgreSQL text-array path such as ``'{pulka,conventions,closing}'``."""
    return "'{" + ",".join(steps) + "}'"


def upgrade() -> None:
    for table, column, path in CLASSIC_COPIES:
        kept = f"({column} #> {_path(*path)}) || '{{\"closing\": \"double\"}}'::jsonb"
        written = f"jsonb_set({column}, {_path(*path)}, {kept})" if path else kept
        op.execute(
            f"UPDATE {table} SET {column} = {written} "
            f"WHERE {column} #>> {_path(*path, 'preset')} = 'classic' "
            f"AND {column} #> {_path(*path, 'closing')} IS NULL"
        )


def downgrade() -> None:
    for table, column, path in CLASSIC_COPIES:
        op.execute(
            f"UPDATE {table} SET {column} = {column} #- {_path(*path, 'closing')} "
            f"WHERE {column} #>> {_path(*path, 'preset')} = 'classic' "
            f"AND {column} #>> {_path(*path, 'closing')} = 'double'"
        )
