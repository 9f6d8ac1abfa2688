"""The chain of deals (issue 23): ``deal_chain`` and the triggers that keep it.

Every ``deal_started`` row of ``table_events`` gets one entry in ``deal_chain``: its commitment
(recomputed by the database from the payload's deck and salt exactly as
:func:`app.rules.deck.commitment` computes it) and the SHA-256 of the entry's text with the hash
of the entry before it (docs/chain.md gives the exact inputs). A deferred constraint trigger
appends the entry at commit, under a transaction-level advisory lock (:data:`CHAIN_LOCK`), after
reading the last entry: whatever path wrote the deal (the command service, the direct writer's
one statement, a first deal), the entries serialise, and the lock is held only from the commit's
start to its end, after every table row lock the transaction takes (so it cannot deadlock
against them). There is no head row to update: a transaction that deals thousands of times
(an import) costs one index lookup per deal, not a growing chain of row versions.
``UPDATE``, ``DELETE`` and ``TRUNCATE`` of ``deal_chain`` are refused, and so is an ``INSERT``
that is not the trigger's own.

The upgrade chains the deals already played, in the order ``(created_at, table_id, seq)``.
It can be reversed (the downgrade drops the chain, which is derived from ``table_events``), but
not exactly: a new upgrade chains every deal again in that order, which is not the commit order
the live chain followed, so the hashes differ from copies members downloaded before.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0016'
down_revision: str | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GENESIS = "0" * 64
CHAIN_LOCK = 0x6465616C
"""The ``pg_advisory_xact_lock`` key that serialises the appends ('deal' in ASCII)."""

FUNCTIONS = r"""
CREATE FUNCTION deal_chain_commitment(deck jsonb, salt text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT encode(sha256(convert_to('deck/1:' || string_agg(
        (ARRAY['7','8','9','10','J','Q','K','A'])[(c.card::int & 7) + 1]
        || (ARRAY['S','C','D','H'])[(c.card::int >> 3) + 1], ' ' ORDER BY c.n)
        || ':' || salt, 'UTF8')), 'hex')
    FROM jsonb_array_elements_text(deck) WITH ORDINALITY AS c(card, n)
$$;
COMMENT ON FUNCTION deal_chain_commitment(jsonb, text) IS
    'R-D4 commitment of a deal_started payload: sha256("deck/1:" || card texts || ":" || salt)';

CREATE FUNCTION deal_chain_link(prev text, pos bigint, tbl integer, seq integer, com text)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT encode(sha256(convert_to('deal-chain/1' || E'\n' || prev || E'\n' || pos
        || E'\n' || tbl || E'\n' || seq || E'\n' || com, 'UTF8')), 'hex')
$$;
COMMENT ON FUNCTION deal_chain_link(text, bigint, integer, integer, text) IS
    'hash of a deal_chain entry (docs/chain.md)';

CREATE FUNCTION deal_chain_on_deal() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    com text := deal_chain_commitment(NEW.payload -> 'deck', NEW.payload ->> 'salt');
    pos bigint;
    prev text;
BEGIN
    IF com IS NULL THEN
        RAISE EXCEPTION 'deal_started %/% has no deck and salt to chain', NEW.table_id, NEW.seq
            USING ERRCODE = 'not_null_violation';
    END IF;
    PERFORM pg_advisory_xact_lock({lock});
    SELECT c."position", c.hash INTO pos, prev FROM deal_chain c
    ORDER BY c."position" DESC LIMIT 1;
    IF NOT FOUND THEN
        pos := 0;
        prev := '{genesis}';
    END IF;
    INSERT INTO deal_chain ("position", table_id, seq, commitment, prev_hash, hash, at)
    VALUES (pos + 1, NEW.table_id, NEW.seq, com, prev,
            deal_chain_link(prev, pos + 1, NEW.table_id, NEW.seq, com), NEW.created_at);
    RETURN NULL;
END $$;

CREATE FUNCTION deal_chain_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% of % refused: the chain of deals is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END $$;
""".replace("{lock}", str(CHAIN_LOCK)).replace("{genesis}", "0" * 64)

BACKFILL = r"""
DO $$
DECLARE
    r record;
    pos bigint := 0;
    prev text := '{genesis}';
    last text := '{genesis}';
    com text;
BEGIN
    FOR r IN SELECT table_id, seq, payload -> 'deck' AS deck, payload ->> 'salt' AS salt,
                    created_at
             FROM table_events WHERE kind = 'deal_started'
             ORDER BY created_at, table_id, seq
    LOOP
        pos := pos + 1;
        com := deal_chain_commitment(r.deck, r.salt);
        prev := last;
        last := deal_chain_link(prev, pos, r.table_id, r.seq, com);
        INSERT INTO deal_chain ("position", table_id, seq, commitment, prev_hash, hash, at)
        VALUES (pos, r.table_id, r.seq, com, prev, last, r.created_at);
    END LOOP;
END $$;
""".replace("{genesis}", GENESIS)

TRIGGERS = """
CREATE CONSTRAINT TRIGGER deal_chain_append AFTER INSERT ON table_events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.kind = 'deal_started')
    EXECUTE FUNCTION deal_chain_on_deal();
CREATE TRIGGER deal_chain_own_inserts BEFORE INSERT ON deal_chain
    FOR EACH ROW WHEN (pg_trigger_depth() < 1) EXECUTE FUNCTION deal_chain_refuse();
CREATE TRIGGER deal_chain_no_change BEFORE UPDATE OR DELETE ON deal_chain
    FOR EACH ROW EXECUTE FUNCTION deal_chain_refuse();
CREATE TRIGGER deal_chain_no_truncate BEFORE TRUNCATE ON deal_chain
    FOR EACH STATEMENT EXECUTE FUNCTION deal_chain_refuse();
"""


def upgrade() -> None:
    op.create_table(
        'deal_chain',
        sa.Column('position', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('table_id', sa.Integer(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('commitment', sa.String(length=64), nullable=False),
        sa.Column('prev_hash', sa.String(length=64), nullable=False),
        sa.Column('hash', sa.String(length=64), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint('position >= 1', name=op.f('ck_deal_chain_position')),
        sa.PrimaryKeyConstraint('position', name=op.f('pk_deal_chain')),
        sa.UniqueConstraint('table_id', 'seq', name='uq_deal_chain_table_id'),
        sa.UniqueConstraint('prev_hash', name='uq_deal_chain_prev_hash'),
    )
    op.execute(FUNCTIONS)
    op.execute(BACKFILL)
    op.execute(TRIGGERS)


def downgrade() -> None:
    op.execute("DROP TRIGGER deal_chain_append ON table_events")
    op.drop_table('deal_chain')
    op.execute("DROP FUNCTION deal_chain_refuse(), deal_chain_on_deal(), "
               "deal_chain_link(text, bigint, integer, integer, text), "
               "deal_chain_commitment(jsonb, text)")
