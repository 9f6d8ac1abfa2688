"""No seat ever learns a card it should not see: 200+ random bot deals over real sockets, every
message sent to every seat and to a spectator checked against the deal as it stood.

The check is independent of ``view()``: from the engine state rebuilt from the event log at the
message's seq it lists what the seat must not know — other players' closed hands, the talon
before it is shown, the discard (except the declarer's own, before the first lead), every closed
trick but the last (R-W8), and during the cut the whole deck — and no such card may appear
anywhere in the message. Bots drop their sockets at random, so replays and snapshots are checked
too (a replayed message also against the state when it was replayed).
"""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.bots.client import BotClient
from app.bots.strategy import Strategy
from app.db.engine import make_engine, make_sessionmaker
from app.db.models.table import TableEvent
from app.realtime.game import TableState, fold
from app.rules.core.cards import ALL_CARDS, card_text, mask_cards, parse_card
from tests.support.live_servers import card_tokens, server, setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e

TABLES = ((3, 26), (3, 26), (3, 26), (3, 26), (4, 24), (4, 24), (4, 24), (4, 24))
"""(players, deals) per table: 200 deals in all."""


@pytest.fixture(scope="module")
def srv(live_db: str, data_dir: Path) -> Iterator[ServerProcess]:
    """The module's server: its 36 bot sockets all come from 127.0.0.1, over the default cap
    of 32 sockets per address (tests/e2e/test_socket_budget.py)."""
    process = server(live_db, data_dir)
    process.env["WS_PER_ADDRESS"] = "64"
    process.start()
    try:
        yield process
    finally:
        process.stop()


def forbidden(state: TableState, seat: int | None) -> int:
    """The cards ``seat`` (None: a spectator) must not learn at this moment."""
    deal = state.deal
    if deal is None or deal.phase == "cut":
        return ALL_CARDS
    if deal.phase == "done":
        return 0
    mask = 0
    for s in range(deal.players):
        if s != seat and not deal.open_seats >> s & 1:
            mask |= deal.hands[s]
    if deal.talon:
        hidden = (
            deal.talon[deal.talon_shown :]
            if deal.kind == "pass_out"
            else (deal.talon if deal.talon_shown < 2 else ())
        )
        for card in hidden:
            mask |= 1 << card
    sees_discard = (
        seat is not None and seat == deal.declarer and not deal.history and not deal.trick
    )
    if not sees_discard:
        mask |= deal.discard
    last = {card for _, card in deal.last_trick}
    for trick in deal.history:
        for _, card in trick:
            if card not in last:
                mask |= 1 << card
    if deal.kind != "pass_out" and deal.talon_shown == 2:
        # R-C1: the talon was turned face up for everyone; its cards are public from then on.
        for card in deal.talon:
            mask &= ~(1 << card)
    return mask


async def _states(url: str, table_id: int) -> dict[int, TableState]:
    engine = make_engine(url)
    try:
        async with make_sessionmaker(engine)() as db:
            rows = (
                await db.scalars(
                    select(TableEvent)
                    .where(TableEvent.table_id == table_id)
                    .order_by(TableEvent.seq)
                )
            ).all()
    finally:
        await engine.dispose()
    states: dict[int, TableState] = {}
    state: TableState | None = None
    for row in rows:
        state = fold(state, table_id, row.seq, row.kind, row.payload)
        states[row.seq] = state
    return states


async def test_no_message_ever_shows_a_card_its_seat_may_not_see(
    srv: ServerProcess, live_db: str
) -> None:
    rng = random.Random(2026)
    received: dict[int, list[tuple[int | None, dict[str, Any], int | None]]] = defaultdict(list)
    replay_until: dict[str, int] = {}
    tables = []
    bots: list[BotClient] = []

    def observe(bot: BotClient, message: dict[str, Any]) -> None:
        if message.get("type") == "welcome":
            replay_until[bot.name] = message["seq"] if message["resume"] == "replay" else -1
            return
        if "deal" not in message or not isinstance(message.get("seq"), int):
            return
        now = replay_until.get(bot.name, -1)
        also = now if message["seq"] < now else None
        received[bot.table_id].append((bot.seat, message, also))
        if bot.play and rng.random() < 0.01:
            asyncio.get_running_loop().create_task(bot.drop_connection())

    for index, (players, deals) in enumerate(TABLES):
        table_id, seats, watchers = await setup_table(
            live_db, players, spectators=1, first_dealer=index % players
        )
        tables.append((table_id, deals))
        for i, s in enumerate(seats):
            bots.append(
                BotClient(
                    f"ws://127.0.0.1:{srv.port}",
                    table_id,
                    s.cookie,
                    srv.base_url,
                    strategy=Strategy(random.Random(index * 10 + i)),
                    max_deals=deals,
                    observer=observe,
                    name=f"t{table_id}s{i}",
                )
            )
        bots.append(
            BotClient(
                f"ws://127.0.0.1:{srv.port}",
                table_id,
                watchers[0].cookie,
                srv.base_url,
                play=False,
                max_deals=deals,
                observer=observe,
                name=f"t{table_id}w",
            )
        )
    runs = [asyncio.create_task(b.run()) for b in bots]
    try:
        await asyncio.wait_for(asyncio.gather(*(b.finished.wait() for b in bots)), 240)
    finally:
        for b in bots:
            b.stop()
        await asyncio.gather(*runs, return_exceptions=True)

    checked = deals_seen = 0
    for table_id, deals in tables:
        states = await _states(live_db, table_id)
        played = max(s.pulka.deal_index for s in states.values())
        assert played == deals
        deals_seen += played
        for seat, message, also in received[table_id]:
            shown = {
                parse_card(c)
                for c in card_tokens(
                    {
                        "deal": message["deal"],
                        "legal": message["legal"],
                        "data": message.get("data"),
                    }
                )
            }
            for seq in (message["seq"], also):
                if seq is None or states[seq].deal_no != message["table"]["deal_no"]:
                    continue  # a replayed message about an earlier, finished deal
                secret = forbidden(states[seq], seat)
                leaked = [card_text(c) for c in shown if secret >> c & 1]
                assert not leaked, (
                    f"table {table_id} seat {seat} got {leaked} in {message['type']} "
                    f"seq {message['seq']} (checked at {seq}): "
                    f"{sorted(card_text(c) for c in mask_cards(secret))}"
                )
            checked += 1
    assert deals_seen >= 200
    assert checked > 5000
    assert sum(b.stats.reconnects for b in bots) > 0
