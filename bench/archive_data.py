"""Many finished pulkas, fast: the archive benchmark's data (and the archive query tests').

A live table stores its pulka as ``table_events`` (pulka_started, deal_started, action …,
deal_ended …, pulka_ended) plus the ``tables``, ``table_seats`` and ``pulkas`` rows. Here the
same events are produced by the same code live tables use (:mod:`app.realtime.game`: the engine
deals, checks every action and scores every deal), with the house bots' strategy choosing the
moves, but without sockets or one transaction per move: a few *template* pulkas are played in
memory, then every generated pulka copies one template under its own table, members and dates,
and all rows go in with ``COPY``.

The copies differ from their template in the seated members (ids and names in the seating
events, seats and summaries) and dates; cards, bids and scores repeat. That keeps the rows as
large and as many as real ones, which is what the archive's queries feel.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import psycopg

from app.bots.strategy import Strategy
from app.realtime import engine, game
from app.rules import TALLY_KINDS, Conventions, LogFact, Pulka, PulkaTally, sheet_lines, tally
from app.services.pulka_stats import FACT_FIELDS, TOTALS_FROM_ROWS, rows_of

NAMES_MARK = '"@@NAMES@@"'
IDS_MARK = '"@@IDS@@"'
SEATED_KINDS = ("pulka_started", "deal_started", "player_joined", "player_replaced")


@dataclass
class Template:
    """One pulka played in memory: its events (COPY-escaped JSON with seat placeholders)."""

    players: int
    deals: int
    events: list[tuple[str, str]]
    state: dict[str, Any]
    sheet: dict[str, Any]
    record: dict[str, Any]
    settlement: dict[str, Any]
    ended: str
    facts: list[tuple[int, str, dict[str, Any]]]
    lines: list[dict[str, Any]]
    """The events the archive's tally reads: ``seq``, kind and the payload fields it reads."""


def _copy_text(value: str) -> str:
    """Escape for COPY's text format (JSON text has no raw tabs or newlines)."""
    return value.replace("\\", "\\\\")


def _seated(kind: str, payload: dict[str, Any]) -> str:
    """The payload as JSON, with the seating lists replaced by placeholders."""
    if kind in SEATED_KINDS and "names" in payload:
        payload = {**payload, "names": "@@NAMES@@", "member_ids": "@@IDS@@"}
    return _copy_text(json.dumps(payload, ensure_ascii=False, separators=(",", ":")))


def play_events(
    rng: random.Random,
    pulka: Pulka,
    names: list[str],
    member_ids: list[int | None],
    strategies: Sequence[Strategy],
    deals: int,
) -> tuple[list[tuple[str, dict[str, Any]]], game.TableState]:
    """``deals`` deals of ``pulka`` (seat ``i`` played by ``strategies[i]``), then its end by
    agreement: the events a live table would store, and the final state."""
    raw: list[tuple[str, dict[str, Any]]] = []

    def add(state: game.TableState | None, event: tuple[str, dict[str, Any]]) -> game.TableState:
        raw.append(event)
        return game.fold(state, 0, len(raw), *event)

    state = add(None, game.pulka_started(pulka, names, member_ids))
    for _ in range(deals):
        state = add(state, game.deal_started(state, rng))
        for _step in range(400):
            ended = game.deal_ended(state)
            if ended is not None:
                state = add(state, ended)
                break
            deal = state.deal
            seats = (
                [engine.to_move(deal)] if engine.to_move(deal) is not None else range(pulka.players)
            )
            for seat in seats:
                assert seat is not None
                legal = engine.legal_json(deal, seat)
                if not legal:
                    continue
                view = {"deal": engine.view(deal, seat), "legal": legal}
                choice = strategies[seat].choose(view, legal, seat) or dict(legal[0])
                state = add(state, game.action_event(state, seat, choice))
                break
            else:
                raise RuntimeError("a deal stalled with nobody to move")
    return raw, add(state, game.pulka_ended(state, "agreement"))


def play_template(rng: random.Random, players: int, deals: int) -> Template:
    """Play ``deals`` deals of a fresh pulka with the bots' strategy, then end it by agreement."""
    names = [f"Player {i + 1}" for i in range(players)]
    member_ids: list[int | None] = list(range(1, players + 1))
    pulka = Pulka.new(
        players,
        names=names,
        conventions=Conventions.preset_named("club"),
        target=500,
        stake=Decimal("0.50"),
        first_dealer=rng.randrange(players),
    )
    strategy = Strategy(rng)
    raw, state = play_events(rng, pulka, names, member_ids, [strategy] * players, deals)
    final = state.pulka
    end = raw[-1][1]
    facts = [
        (seq, kind, {k: payload[k] for k in FACT_FIELDS if k in payload})
        for seq, (kind, payload) in enumerate(raw, start=1)
        if kind in TALLY_KINDS
    ]
    return Template(
        players,
        deals,
        [(kind, _seated(kind, payload)) for kind, payload in raw],
        final.to_json(),
        end["sheet"],
        end["record"],
        end["settlement"],
        str(final.ended),
        facts,
        sheet_lines(final.entries),
    )


def tallied(play: Template, seated: list[int], names: list[str]) -> PulkaTally:
    """The archive's tally of one copy of ``play`` (its seats taken by ``seated``), computed
    by the code a live table runs when its pulka ends."""
    facts = []
    for seq, kind, fields in play.facts:
        if kind in SEATED_KINDS and "names" in fields:
            fields = {**fields, "names": names, "member_ids": seated}
        facts.append(
            LogFact(
                seq,
                kind,
                fields.get("member_ids"),
                fields.get("names"),
                fields.get("outcome"),
                fields.get("deal_no"),
                fields.get("entries"),
            )
        )
    return tally(facts, play.settlement)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _next_id(conn: psycopg.Connection[Any], table: str) -> int:
    row = conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()
    assert row is not None
    return int(row[0])


def _copy_stats(conn: psycopg.Connection[Any], plan: list[Any], names_of: dict[int, str]) -> None:
    """The archive rows a live table writes when its pulka ends, one pulka at a time."""
    pulka_rows, member_rows = [], []
    for table_id, pulka_id, play, seated, finished, began, practice in plan:
        one, many = rows_of(
            pulka_id,
            table_id,
            practice,
            finished,
            began,
            tallied(play, seated, [names_of[m] for m in seated]),
            play.lines,
        )
        pulka_rows.append(one)
        member_rows.extend(many)
    with conn.cursor().copy(
        "COPY pulka_stats (pulka_id, table_id, practice, finished_at, names, member_ids, "
        "deal_seqs, lines) FROM STDIN"
    ) as copy:
        for r in pulka_rows:
            copy.write_row(
                (
                    r["pulka_id"],
                    r["table_id"],
                    r["practice"],
                    r["finished_at"],
                    _json(r["names"]),
                    _json(r["member_ids"]),
                    _json(r["deal_seqs"]),
                    _json(r["lines"]),
                )
            )
    columns = (
        "pulka_id",
        "member_id",
        "practice",
        "finished_at",
        "started_at",
        "seat",
        "name",
        "deals",
        "declared",
        "made",
        "failed",
        "miseres",
        "miseres_made",
        "whists",
        "money",
        "costly",
    )
    with conn.cursor().copy(f"COPY pulka_member_stats ({', '.join(columns)}) FROM STDIN") as copy:
        for r in member_rows:
            copy.write_row(tuple(_json(r[c]) if c == "costly" else r[c] for c in columns))
    conn.execute(TOTALS_FROM_ROWS.text)


def generate(
    libpq_url: str,
    pulkas: int,
    *,
    templates: int = 40,
    members: int = 60,
    deals: tuple[int, int] = (20, 30),
    practice_share: float = 0.1,
    seed: int = 7,
) -> dict[str, Any]:
    """Insert ``pulkas`` finished pulkas (3–4 players, ``deals`` deals each) and their members;
    returns the ids made (``pulka_ids``, ``member_ids``, ``table_ids``)."""
    rng = random.Random(seed)
    plays = [
        play_template(rng, 4 if i % 4 == 3 else 3, rng.randint(*deals))
        for i in range(min(templates, pulkas))
    ]
    start = datetime(2022, 1, 1, 18, tzinfo=timezone.utc)  # noqa: UP017
    with psycopg.connect(libpq_url) as conn:
        try:
            # The rows are consistent by construction: skip the per-row foreign-key checks,
            # which COPY would otherwise queue by the million and run at its end.
            with conn.transaction():
                conn.execute("SET LOCAL session_replication_role = replica")
        except psycopg.errors.InsufficientPrivilege:
            pass  # not a superuser: the checks run, only slower
        first_member = _next_id(conn, "members")
        member_ids = list(range(first_member, first_member + members))
        with conn.cursor().copy(
            "COPY members (id, login, display_name, role, is_bot, active, "
            "must_change_password) FROM STDIN"
        ) as copy:
            for mid in member_ids:
                copy.write_row(
                    (mid, f"archive-{mid}", f"Member {mid}", "member", False, True, False)
                )
        first_table = _next_id(conn, "tables")
        first_pulka = _next_id(conn, "pulkas")
        names_of = {mid: f"Member {mid}" for mid in member_ids}
        conventions = json.dumps(Conventions.preset_named("club").to_mapping())
        plan = []
        for n in range(pulkas):
            play = plays[n % len(plays)]
            finished = start + timedelta(hours=3 * n)
            plan.append(
                (
                    first_table + n,
                    first_pulka + n,
                    play,
                    rng.sample(member_ids, play.players),
                    finished,
                    finished - timedelta(hours=3),
                    rng.random() < practice_share,
                )
            )
        with conn.cursor().copy(
            "COPY tables (id, practice, preset, conventions, target, stake, players, "
            "first_dealer, version, status, finished_at, created_at) FROM STDIN"
        ) as copy:
            for table_id, _, play, _, finished, began, practice in plan:
                copy.write_row(
                    (
                        table_id,
                        practice,
                        "club",
                        conventions,
                        500,
                        "0.50",
                        play.players,
                        0,
                        len(play.events),
                        "finished",
                        finished,
                        began,
                    )
                )
        with conn.cursor().copy("COPY table_seats (table_id, seat, member_id) FROM STDIN") as copy:
            for table_id, _, _, seated, _, _, _ in plan:
                for seat, mid in enumerate(seated):
                    copy.write_row((table_id, seat, mid))
        with conn.cursor().copy(
            "COPY pulkas (id, table_id, status, ended, deals, state, sheet, record, "
            "settlement, finished_at, created_at) FROM STDIN"
        ) as copy:
            for table_id, pulka_id, play, _, finished, began, _ in plan:
                copy.write_row(
                    (
                        pulka_id,
                        table_id,
                        "finished",
                        play.ended,
                        play.deals,
                        json.dumps(play.state),
                        json.dumps(play.sheet),
                        json.dumps(play.record),
                        json.dumps(play.settlement),
                        finished,
                        began,
                    )
                )
        with conn.cursor().copy(
            "COPY table_events (table_id, seq, kind, payload, created_at) FROM STDIN"
        ) as copy:
            for table_id, _, play, seated, _, began, _ in plan:
                names = _copy_text(json.dumps([names_of[m] for m in seated], ensure_ascii=False))
                ids = json.dumps(seated)
                when = began.isoformat()
                lines = []
                for seq, (kind, payload) in enumerate(play.events, start=1):
                    if kind in SEATED_KINDS:
                        payload = payload.replace(NAMES_MARK, names).replace(IDS_MARK, ids)
                    lines.append(f"{table_id}\t{seq}\t{kind}\t{payload}\t{when}\n")
                copy.write("".join(lines))
        _copy_stats(conn, plan, names_of)
        for table in ("members", "tables", "pulkas"):
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT max(id) FROM {table}))"
            )
        conn.commit()
    return {
        "templates": len(plays),
        "member_ids": member_ids,
        "table_ids": [p[0] for p in plan],
        "pulka_ids": [p[1] for p in plan],
        "deals": {p[1]: p[2].deals for p in plan},
        "events": sum(len(p[2].events) for p in plan),
    }
