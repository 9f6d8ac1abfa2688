"""The one guard of a move (app/services/move_guard.py): both paths of a move — the ordinary
path under the row lock and the one statement of a move decided in advance — take their
conditions and what follows an action from it, and the realtime store states none of them."""

from __future__ import annotations

import hashlib
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from app.db.engine import session_scope
from app.db.group_commit import GroupCommit
from app.db.models.auth import AuthSession
from app.db.models.table import TableEvent
from app.realtime.game import CommandRejected
from app.realtime.store import StateCache, WriteGuard, moves_statement
from app.services.move_guard import (
    FAST_PATH_GUARD,
    FAST_WRITER,
    CommandResult,
    Next,
    what_follows,
)
from app.services.table_commands import execute
from tests.realtime.conftest import live_db, sessions
from tests.realtime.test_direct_writes import (
    Sessions,
    _hub_committer,
    _practice,
    _warm,
    committers,
)
from tests.realtime.test_hot_path import NOW

__all__ = ["committers", "live_db", "sessions"]


def test_the_store_places_the_guard_and_states_none_of_it() -> None:
    """The realtime store knows nothing of logins, seat changes or club sessions: with a guard
    of plain TRUEs its statement names none of them; the server's writer places the guard's
    own conditions."""
    bare = moves_statement(WriteGuard(table="TRUE", move="TRUE")).lower()
    for use_case in ("auth_sessions", "members", "seat_changes", "club_session", "practice"):
        assert use_case not in bare, use_case
    assert FAST_PATH_GUARD.table in FAST_WRITER.statement
    assert FAST_PATH_GUARD.move in FAST_WRITER.statement
    assert "auth_sessions" in FAST_PATH_GUARD.move and "seat_changes" in FAST_PATH_GUARD.move


async def _login(sessions: Sessions, member_id: int) -> int:
    async with session_scope(sessions) as db:
        login = AuthSession(
            member_id=member_id,
            token_hash=hashlib.sha256(uuid.uuid4().bytes).hexdigest(),
            csrf_hash=hashlib.sha256(uuid.uuid4().bytes).hexdigest(),
            expires_at=NOW + timedelta(days=1),
        )
        db.add(login)
        await db.flush()
        return login.id


async def _event_count(sessions: Sessions, table_id: int) -> int:
    async with sessions() as db:
        count = await db.scalar(
            select(func.count()).select_from(TableEvent).where(TableEvent.table_id == table_id)
        )
    return int(count or 0)


async def test_a_revoked_login_is_refused_by_the_statement_and_then_the_lock_alike(
    sessions: Sessions, committers: list[GroupCommit]
) -> None:
    """One session check on both paths: while the logins are live a move decided in advance is
    written by the one statement; once they are revoked the statement writes nothing, and the
    ordinary path, taking the same check beside the row lock, refuses ``session_ended``."""
    committer = _hub_committer(committers, sessions)
    table = await _practice(sessions, StateCache(owner="guard"), committer)
    await _warm(table)
    logins = {member: await _login(sessions, member) for member in table.members}

    async def send() -> CommandResult:
        seat, choice = table.next_move()
        table.sent += 1
        assert table.state is not None
        member = table.members[seat]
        return await execute(
            sessions,
            table.cache,
            table_id=table.id,
            member_id=member,
            seat=seat,
            name="p",
            command={**choice, "id": f"g{table.sent}", "seq": table.state.seq},
            now=NOW,
            session_id=logins[member],
            committer=committer,
        )

    writes = committer.direct_writes
    result = await send()
    assert committer.direct_writes == writes + 1 and not result.duplicate
    table.state = result.state
    async with session_scope(sessions) as db:
        await db.execute(
            update(AuthSession).where(AuthSession.id.in_(logins.values())).values(revoked_at=NOW)
        )
    events = await _event_count(sessions, table.id)
    with pytest.raises(CommandRejected) as refused:
        await send()
    assert refused.value.code == "session_ended"
    assert committer.direct_writes == writes + 1
    assert await _event_count(sessions, table.id) == events


async def test_what_follows_is_what_the_ordinary_path_appends(sessions: Sessions) -> None:
    """A short practice pulka played to its end on the ordinary path: after every action the
    guard's answer matches the events ``live_table.advance`` appended — nothing while a deal
    is played (PLAY_ON), the next ``deal_started`` after a scored deal (NEW_DEAL), and
    ``pulka_ended`` after the last one (PULKA_ENDS)."""
    table = await _practice(sessions, StateCache(owner="follows"), None, target=6)
    seen: set[Next] = set()
    for _ in range(3000):
        assert table.state is not None
        if table.state.status != "playing":
            break
        seat, choice = table.next_move()
        result = await table.play(seat, choice)
        kinds = [e.kind for e in result.events]
        if "deal_ended" not in kinds:
            assert kinds == ["action"]
            assert what_follows(result.events[-1].state) is Next.PLAY_ON
            seen.add(Next.PLAY_ON)
            continue
        scored = result.events[kinds.index("deal_ended")].state
        follows = what_follows(scored)
        following = kinds[kinds.index("deal_ended") + 1 :]
        expected = {"deal_started": Next.NEW_DEAL, "pulka_ended": Next.PULKA_ENDS}
        assert follows is expected[following[-1]], following
        seen.add(follows)
    assert table.state is not None and table.state.status == "finished"
    assert what_follows(table.state) is Next.STOPPED
    assert seen == {Next.PLAY_ON, Next.NEW_DEAL, Next.PULKA_ENDS}
