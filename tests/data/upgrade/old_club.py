"""A small club played by the code of an OLDER commit; run by :mod:`build_dumps`, never imported.

``python old_club.py DATABASE_URL MANIFEST`` with ``PYTHONPATH`` (and the working directory) at
an old checkout: ``app`` here is that commit's package. It migrates the empty database with that
commit's migrations and plays through that commit's services, exactly as its server did:
members of every role with known test passwords, one table of every preset the commit knows
played to its end by the commit's own bots (``app.bots.strategy``), a fourth player joining
(R-T4) and a replacement (R-T5), a recorded (real-cards) table where the commit has them, a
live table left in the middle of a deal, the fund's R-F1 debts, payments, a proposal with its
votes and its payout. Then it writes a JSON manifest of what THIS code says: each finished
pulka's sheet and settlement (stored and re-scored from its record), the fund's balance and
every member's account, the live table's state. Only the services every chosen commit shares
are used; where they differ the script asks the module (``inspect``), never the commit id.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import random
import sys
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select

from app.bots.strategy import Strategy
from app.db.migrate import upgrade
from app.db.models.member import Member, Role
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table
from app.realtime import game
from app.realtime.store import load_state

try:  # before the modules were named by what they hold (issue 29)
    from app.db.session import make_engine, make_sessionmaker, session_scope
except ImportError:
    from app.db.engine import make_engine, make_sessionmaker, session_scope
try:  # before the rule sets became folders (issue 25)
    from app.rules.conventions import PRESET_NAMES
    from app.rules.record import score_document

    from app.rules import record as old_record
except ImportError:
    from app.rules.core.conventions import PRESET_NAMES
    from app.rules.scoring import record as old_record
    from app.rules.scoring.record import score_document
from app.security.passwords import hash_password
from app.services import fund, pulkas, seat_changes, table_commands
from app.services.tables import create_table

NOW = datetime(2026, 11, 23, 16, 30, tzinfo=UTC)  # a Monday, 19:30 in Moscow
ZONE = ZoneInfo("Europe/Moscow")
TARGET = 2
MAX_DEALS = 6
"""A pulka not ended by its target after this many deals is closed by agreement (R-P9)."""
LIVE_MOVES = 7
"""Moves of the live table's third deal played before the dump: a deal in the middle of play."""
MAX_COMMANDS = 4000

MEMBERS = [
    ("admin", "Админ", Role.admin),
    ("treasurer", "Казначей", Role.treasurer),
    *((f"m{i}", f"Игрок {i}", Role.member) for i in range(1, 9)),
]


def password(login: str) -> str:
    """The test-only password of ``login`` (the manifest repeats it)."""
    return f"upgrade-{login}-pw"


class Club:
    """The database, the members and the moments the script plays at."""

    def __init__(self, url: str) -> None:
        self.engine = make_engine(url)
        self.sessions = make_sessionmaker(self.engine)
        self.ids: dict[str, int] = {}
        self.clock = NOW
        self.rng = random.Random(23)
        self.strategy = Strategy(random.Random(7))

    def now(self) -> datetime:
        self.clock += timedelta(seconds=1)
        return self.clock

    async def member(self, db: Any, login: str) -> Member:
        found = await db.get(Member, self.ids[login])
        assert found is not None
        return found

    async def members(self) -> None:
        async with session_scope(self.sessions) as db:
            for login, name, role in MEMBERS:
                m = Member(
                    login=login,
                    display_name=name,
                    role=role,
                    is_bot=False,
                    active=True,
                    must_change_password=False,
                    password_hash=hash_password(password(login)),
                )
                db.add(m)
                await db.flush()
                self.ids[login] = m.id

    async def table(
        self, logins: list[str], preset: str, target: int = TARGET, **extra: Any
    ) -> int:
        async with session_scope(self.sessions) as db:
            t = await create_table(
                db,
                seat_member_ids=[self.ids[x] for x in logins],
                preset=preset,
                practice=False,
                club_session_id=None,
                target=target,
                now=self.now(),
                **extra,
            )
            return int(t.id)

    async def state(self, table_id: int) -> Any:
        async with self.sessions() as db:
            table = await db.get(Table, table_id)
            return await load_state(db, table, None)

    async def move(self, table_id: int) -> bool:
        """One command of the seat to move; False when nobody is to move."""
        state = await self.state(table_id)
        if state.status != "playing":
            return False
        for seat in range(state.players):
            shown = game.seat_view(state, seat)
            legal = [a for a in shown["legal"] if a.get("type") != "claim"] or shown["legal"]
            if not legal:
                continue
            view = {**shown, "table": game.table_info(state), "seat": seat}
            choice = self.strategy.choose(view, legal, seat) or dict(self.rng.choice(legal))
            if choice.get("type") == "claim":
                choice = dict(self.rng.choice(legal))
            kwargs: dict[str, Any] = {}
            if "after_deal" in inspect.signature(table_commands.execute).parameters:
                kwargs["after_deal"] = seat_changes.apply_waiting
            try:
                await table_commands.execute(
                    self.sessions,
                    None,
                    table_id=table_id,
                    member_id=state.member_ids[seat],
                    seat=seat,
                    name=state.names[seat],
                    command={"id": uuid.uuid4().hex, **choice},
                    now=self.now(),
                    **kwargs,
                )
            except game.CommandRejected:
                choice = dict(self.rng.choice(shown["legal"]))
                await table_commands.execute(
                    self.sessions,
                    None,
                    table_id=table_id,
                    member_id=state.member_ids[seat],
                    seat=seat,
                    name=state.names[seat],
                    command={"id": uuid.uuid4().hex, **choice},
                    now=self.now(),
                    **kwargs,
                )
            return True
        return False

    async def play(
        self, table_id: int, *, until_deal: int | None = None, moves: int | None = None
    ) -> None:
        """Play until the pulka ends (or deal ``until_deal`` starts, then ``moves`` more);
        when deal ``MAX_DEALS + 1`` starts, the players agree to end (it is abandoned)."""
        for _ in range(MAX_COMMANDS):
            state = await self.state(table_id)
            if until_deal is None and state.deal_no > MAX_DEALS and state.status == "playing":
                async with session_scope(self.sessions) as db:
                    await pulkas.close_pulka(db, table_id, "agreement", self.now())
                return
            if until_deal is not None and state.deal_no >= until_deal:
                for _ in range(moves or 0):
                    await self.move(table_id)
                return
            if not await self.move(table_id):
                return
        raise RuntimeError(f"table {table_id} did not finish in {MAX_COMMANDS} commands")

    async def ask_join(self, table_id: int, newcomer: str) -> None:
        """R-T4: ``newcomer`` asks to join; every player agrees (applied at the deal's end)."""
        async with session_scope(self.sessions) as db:
            who = await self.member(db, newcomer)
            change = await seat_changes.request_join(db, table_id, who, who, self.now())
            for mid in list(change.required):
                voter = await db.get(Member, mid)
                change = await seat_changes.answer(db, change, voter, True, self.now())

    async def ask_replace(self, table_id: int, seat: int, newcomer: str) -> None:
        """R-T5: ``newcomer`` takes over ``seat``; everyone concerned agrees."""
        async with session_scope(self.sessions) as db:
            who = await self.member(db, newcomer)
            change = await seat_changes.request_replace(db, table_id, seat, who, who, self.now())
            for mid in list(change.required):
                voter = await db.get(Member, mid)
                change = await seat_changes.answer(db, change, voter, True, self.now())

    async def recorded(self) -> int | None:
        """A real-cards table (§10) where the commit has them: deals entered by its scorer."""
        try:
            from app.services import recording
        except ImportError:
            return None
        table_id = await self.table(["m1", "m2", "m3"], "club", mode="recorded")
        dealer = 0
        for deal_no in range(40):
            state = await self.state(table_id)
            if state.status != "playing":
                break
            declarer = (dealer + 1 + deal_no % 2) % 3
            whister, passer = [s for s in range(3) if s != declarer][:2]
            if deal_no % 5 == 3:
                deal: dict[str, Any] = {"type": "pass_out", "tricks": {"0": 4, "1": 3, "2": 3}}
            else:
                level = state.pulka.next_min_level()
                taken = level - 1 if deal_no % 5 == 4 else level
                deal = {
                    "type": "game",
                    "declarer": declarer,
                    "contract": f"{level}C",
                    "defence": {str(whister): "whist", str(passer): "pass"},
                    "tricks": {str(declarer): taken, str(whister): 10 - taken, str(passer): 0},
                }
            async with session_scope(self.sessions) as db:
                await recording.enter_deal(
                    db, table_id, state.member_ids[0], deal_no, deal, self.now()
                )
            dealer = (dealer + 1) % 3
        return table_id

    async def recorded_arabic(self) -> int | None:
        """A recorded arabic pulka scored by readings issue 26 changed: its first deal is a
        checked ten that failed (9 tricks, A-15), its second dealer is warned for a dealing
        fault and, at his next deal, faults again, so the deal passes to his left (R-X2 under
        001 3.2.17); then made games to its end."""
        if "arabic" not in PRESET_NAMES:
            return None
        try:
            from app.services import recording
        except ImportError:
            return None
        table_id = await self.table(
            ["m4", "m5", "m6"], "arabic", target=6, mode="recorded", overrides={"opening_bombs": 0}
        )
        warned: int | None = None
        fined = False
        for deal_no in range(60):
            state = await self.state(table_id)
            if state.status != "playing":
                break
            dealer = state.pulka.next_dealer
            extra: dict[str, Any] = {}
            if deal_no == 1:
                warned = dealer
                extra["penalties"] = [{"seat": dealer, "rule": "dealing_procedure"}]
            elif dealer == warned and not fined:
                fined = True
                dealer = (dealer + 1) % 3
                extra = {
                    "dealer": dealer,
                    "penalties": [{"seat": warned, "rule": "dealing_procedure"}],
                }
            declarer = (dealer + 1 + deal_no) % 3
            first, second = [(declarer + k) % 3 for k in (1, 2)]
            if deal_no == 0:
                deal: dict[str, Any] = {
                    "type": "game",
                    "declarer": declarer,
                    "contract": "10NT",
                    "defence": {str(first): "pass", str(second): "pass"},
                    "play": "open",
                    "tricks": {str(declarer): 9, str(first): 1, str(second): 0},
                }
            else:
                level = state.pulka.next_min_level()
                deal = {
                    "type": "game",
                    "declarer": declarer,
                    "contract": f"{level}C",
                    "defence": {str(first): "whist", str(second): "pass"},
                    "tricks": {str(declarer): level, str(first): 10 - level, str(second): 0},
                    **extra,
                }
            async with session_scope(self.sessions) as db:
                await recording.enter_deal(
                    db, table_id, state.member_ids[0], deal_no, deal, self.now()
                )
        assert fined, "the second dealing fault was entered"
        return table_id

    async def fund_story(self) -> None:
        """R-F1 debts are written by the pulkas; here payments, a proposal, votes, a payout."""
        async with session_scope(self.sessions) as db:
            treasurer = await self.member(db, "treasurer")
            for login in ("m1", "m2", "m3", "m4"):
                await fund.record_payment(
                    db,
                    member_id=self.ids[login],
                    amount=Decimal("3.50"),
                    by=treasurer,
                    now=self.now(),
                )
            await fund.record_payment(
                db,
                member_id=None,
                amount=Decimal("1.25"),
                by=treasurer,
                now=self.now(),
                reason="sponsor",
                kind=fund.EntryKind.adjustment,
            )
        async with session_scope(self.sessions) as db:
            proposer = await self.member(db, "m1")
            proposal = await fund.create_proposal(
                db,
                proposer=proposer,
                title="Новые карты",
                amount=Decimal("4.00"),
                now=self.now(),
                zone=ZONE,
            )
            proposal_id = proposal.id
        for login in ("m7", "admin", "treasurer", "m2", "m3", "m4", "m5", "m6", "m8"):
            try:
                async with session_scope(self.sessions) as db:
                    await fund.vote(
                        db,
                        proposal_id=proposal_id,
                        member=await self.member(db, login),
                        yes=login != "m7",
                        now=self.now(),
                    )
            except fund.FundError:  # R-F2 decided it already: later votes are refused
                break
        async with session_scope(self.sessions) as db:
            await fund.pay(
                db, proposal_id=proposal_id, by=await self.member(db, "treasurer"), now=self.now()
            )
        async with session_scope(self.sessions) as db:
            proposer = await self.member(db, "m2")
            await fund.create_proposal(
                db,
                proposer=proposer,
                title="Лампа",
                amount=Decimal("2.00"),
                now=self.now(),
                zone=ZONE,
            )

    async def manifest(self, live_table: int, recorded: int | None) -> dict[str, Any]:
        """What this (old) code says about everything it wrote."""
        finished = []
        async with self.sessions() as db:
            rows = (
                await db.execute(
                    select(PulkaRow, Table)
                    .join(Table, Table.id == PulkaRow.table_id)
                    .order_by(PulkaRow.id)
                )
            ).all()
            for row, table in rows:
                if row.status != "finished":
                    continue
                rescored = score_document(row.record)
                assert rescored["sheet"] == row.sheet and rescored["settlement"] == row.settlement
                finished.append(
                    {
                        "id": row.id,
                        "table_id": table.id,
                        "preset": table.preset,
                        "mode": getattr(table, "mode", "live"),
                        "players": table.players,
                        "deals": row.deals,
                        "ended": row.ended,
                        "sheet": row.sheet,
                        "settlement": row.settlement,
                    }
                )
            accounts = {
                d.member_id: {"owed": str(d.owed), "paid": str(d.paid)}
                for d in await fund.debts(db)
            }
            balance = str(await fund.balance(db))
        state = await self.state(live_table)
        live = {
            "table_id": live_table,
            "seq": state.seq,
            "deal_no": state.deal_no,
            "status": state.status,
            "names": list(state.names),
            "sheet": state.pulka.sheet.to_json(),
            "to_move": next(
                (s for s in range(state.players) if game.seat_view(state, s)["legal"]), None
            ),
        }
        return {
            "format": "upgrade-manifest/1",
            "members": [
                {
                    "id": self.ids[login],
                    "login": login,
                    "password": password(login),
                    "role": str(role),
                }
                for login, _, role in MEMBERS
            ],
            "presets": list(PRESET_NAMES),
            "pulkas": finished,
            "fund": {"balance": balance, "accounts": {str(k): v for k, v in accounts.items()}},
            "live": live,
            "recorded_table": recorded,
        }


async def main(url: str, manifest: Path) -> None:
    await asyncio.to_thread(upgrade, url)
    club = Club(url)
    await club.members()
    players = ["m1", "m2", "m3"]
    # Before pulka/1 had seat_changes a joined pulka could not be exported, so could not end:
    # that commit's join is made at the live table, which stays unfinished.
    joins_export = hasattr(old_record, "_parse_seat_changes")
    for i, preset in enumerate(PRESET_NAMES):
        seats = players if preset != "club" else ["m4", "m5", "m6"]
        table_id = await club.table(seats, preset)
        if preset == "club" and joins_export:
            await club.play(table_id, until_deal=1, moves=3)
            await club.ask_join(table_id, "m7")  # the newcomer deals the next deal (R-T4)
        elif i == 1:
            await club.play(table_id, until_deal=2)
            await club.ask_replace(table_id, 1, "m8")  # applied when deal 2 ends (R-T5)
        await club.play(table_id)
    four = await club.table(["m1", "m2", "m3", "m4"], "club")
    await club.play(four)
    recorded = await club.recorded()
    await club.recorded_arabic()
    live = await club.table(["m5", "m6", "m8"], "club", target=30)
    if not joins_export:
        await club.play(live, until_deal=1, moves=3)
        await club.ask_join(live, "m7")
    await club.play(live, until_deal=3, moves=LIVE_MOVES)
    await club.fund_story()
    document = await club.manifest(live, recorded)
    manifest.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    await club.engine.dispose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2])))
