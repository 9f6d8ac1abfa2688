"""Password-guessing limits by progressive delays, stored in the database so they hold across
server processes.

Every password check (a login, or the current password of a password change) is recorded as a
failure *before* the Argon2 check runs, inside a transaction that holds an advisory lock per
login name and per client address, and that transaction is committed before the check starts.
So concurrent guesses cannot all slip through on a count read before any of them was recorded:
each sees the ones before it. A check that succeeds turns its record into the pair's good login
(and deletes the earlier rows of the same login from the same address).

Nothing is ever locked for good. After failures, the *next* attempt must wait, growing
exponentially and capped, counted over a sliding window of :data:`WINDOW`:

- per login name and client address (one guesser): 1 s after the first failure, then 2, 4 …
  up to 60 s;
- per login name from every address (a distributed guesser): the first 10 failures are free,
  then 1, 2, 4 s, capped at 5 s, so someone else's failures cost the real member at most a
  few seconds;
- per client address over every login (password spraying): the first 20 failures are free, then
  1, 2, 4 … up to 30 s. Behind a reverse proxy set ``FORWARDED_ALLOW_IPS`` (see
  :mod:`app.security.addresses`), otherwise the whole club shares the proxy's address.

A member who logged in successfully from this address lately (:data:`TRUSTED_FOR`; the row of
that good login is kept, marked ``success``), or who holds a live session of the same login, is
*trusted*: the per-login budget does not apply to him (a distributed guesser's failures cost
him nothing; his own address's limits still do), and his password check takes the hashing
pool's trusted lane (:mod:`app.security.passwords`), which a flood cannot fill.

A refused attempt is not recorded (it does not extend the wait) and answers 429 with
``Retry-After``. Login names and addresses are stored only as HMACs keyed by ``SECRET_KEY``: the
table never shows who tried from where (a plain hash of an IPv4 address is reversed by trying all
2³² of them) nor what was typed into the login field (sometimes a password).
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import LoginAttempt

WINDOW = timedelta(minutes=15)
TRUSTED_FOR = timedelta(days=30)
"""How long a good login of a login name from an address makes the pair trusted."""
LOGIN_LOCK_CLASS = 0x4C474E31  # "LGN1": advisory-lock namespace of login names
ADDRESS_LOCK_CLASS = 0x4C495031  # "LIP1": advisory-lock namespace of client addresses


@dataclass(frozen=True)
class Policy:
    """How one key slows down: ``free`` attempts may run back to back; once that many failures
    are counted, the next attempt waits 1 s, then 2, 4 … up to ``cap`` seconds."""

    free: int
    cap: int
    what: str

    def delay(self, failures: int) -> int:
        """Seconds the next attempt must wait after the latest of ``failures`` failures."""
        over = failures - self.free
        if over < 0:
            return 0
        return min(self.cap, int(2 ** min(over, 30)))


PAIR = Policy(free=1, cap=60, what="this login from your address")
LOGIN = Policy(free=10, cap=5, what="this login")
ADDRESS = Policy(free=20, cap=30, what="your address")


class TrustedPairs:
    """The pairs (login, address) this process saw log in well lately, in memory: a request
    can be told it is trusted before it costs a database round trip (a full hashing queue is
    refused that cheaply for everyone else). Bounded: the oldest entries go first."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._seen: OrderedDict[tuple[str, str], datetime] = OrderedDict()

    def remember(self, login_key: str, address_key: str, now: datetime) -> None:
        key = (login_key, address_key)
        self._seen.pop(key, None)
        self._seen[key] = now
        while len(self._seen) > self.size:
            self._seen.popitem(last=False)

    def knows(self, secret: str, login: str, address: str, now: datetime) -> bool:
        """Whether ``login`` logged in well from ``address`` within :data:`TRUSTED_FOR`."""
        key = (keyed(secret, "login", login), keyed(secret, "address", address))
        at = self._seen.get(key)
        return at is not None and at > now - TRUSTED_FOR


TRUSTED = TrustedPairs()


@dataclass(frozen=True)
class Limited:
    """A refused attempt: how long to wait and why."""

    retry_after: int
    reason: str
    code: str = "login_throttled"


@dataclass(frozen=True)
class Attempt:
    """A recorded attempt (counted as a failure until :func:`succeeded` clears it)."""

    id: int
    login_key: str
    address_key: str
    trusted: bool = False
    """The pair logged in well lately, or the caller holds the login's live session."""


def keyed(secret: str, kind: str, value: str) -> str:
    """The stored form of a login name or address: HMAC-SHA256 under ``secret``."""
    return hmac.new(secret.encode(), f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()


async def _lock(db: AsyncSession, login_key: str, address_key: str) -> None:
    """Serialise attempts on the same login name or address until the transaction ends.

    Always the login first, then the address: every caller takes them in that order, so two
    attempts cannot deadlock.
    """
    for cls, key in ((LOGIN_LOCK_CLASS, login_key), (ADDRESS_LOCK_CLASS, address_key)):
        await db.execute(select(func.pg_advisory_xact_lock(cls, func.hashtext(key))))


def _wait(policy: Policy, failures: int, last: datetime | None, now: datetime) -> float:
    """Seconds still to wait (0 when free); ``now`` may be a little older than ``last`` when
    the request waited for the lock, hence no delay means no wait at all."""
    delay = policy.delay(failures)
    if last is None or delay == 0:
        return 0.0
    return (last + timedelta(seconds=delay) - now).total_seconds()


async def begin(
    db: AsyncSession, secret: str, login: str, address: str, now: datetime, *, vouched: bool = False
) -> Attempt | Limited:
    """Record a password check about to run, or refuse it (nothing recorded) while a delay runs.

    ``vouched``: the request carries a live session of this very login (the caller checked).
    The caller must commit before checking the password, so concurrent attempts see this one.
    """
    login_key = keyed(secret, "login", login)
    address_key = keyed(secret, "address", address)
    await _lock(db, login_key, address_key)
    pair = and_(LoginAttempt.login == login_key, LoginAttempt.ip == address_key)
    failed = and_(LoginAttempt.success.is_(False), LoginAttempt.at > now - WINDOW)
    by_login = and_(LoginAttempt.login == login_key, failed)
    by_address = and_(LoginAttempt.ip == address_key, failed)
    pair_failed = and_(pair, failed)
    pair_good = and_(pair, LoginAttempt.success.is_(True))
    row = (
        await db.execute(
            select(
                func.count().filter(pair_failed),
                func.max(LoginAttempt.at).filter(pair_failed),
                func.count().filter(by_login),
                func.max(LoginAttempt.at).filter(by_login),
                func.count().filter(by_address),
                func.max(LoginAttempt.at).filter(by_address),
                func.count().filter(pair_good),
            ).where(
                or_(LoginAttempt.login == login_key, LoginAttempt.ip == address_key),
                LoginAttempt.at > now - TRUSTED_FOR,
            )
        )
    ).one()
    trusted = vouched or bool(row[6])
    if row[6]:
        TRUSTED.remember(login_key, address_key, now)
    checks = [(PAIR, row[0], row[1]), (ADDRESS, row[4], row[5])]
    if not trusted:
        checks.append((LOGIN, row[2], row[3]))
    worst: tuple[float, Policy] = (0.0, PAIR)
    for policy, count, last in checks:
        wait = _wait(policy, int(count or 0), last, now)
        if wait > worst[0]:
            worst = (wait, policy)
    if worst[0] > 0:
        seconds = max(1, math.ceil(worst[0]))
        return Limited(
            seconds,
            f"too many failed password attempts for {worst[1].what}; try again in {seconds} s",
        )
    attempt = LoginAttempt(login=login_key, ip=address_key, at=now, success=False)
    db.add(attempt)
    await db.flush()
    return Attempt(attempt.id, login_key, address_key, trusted)


async def succeeded(db: AsyncSession, attempt: Attempt, now: datetime) -> None:
    """The password was right: keep this attempt as the pair's one good login (it makes the
    pair trusted for :data:`TRUSTED_FOR`), forget the pair's earlier rows (not other
    addresses' failures), and old rows of everyone."""
    TRUSTED.remember(attempt.login_key, attempt.address_key, now)
    pair = and_(LoginAttempt.login == attempt.login_key, LoginAttempt.ip == attempt.address_key)
    await db.execute(delete(LoginAttempt).where(pair, LoginAttempt.id != attempt.id))
    await db.execute(
        update(LoginAttempt).where(LoginAttempt.id == attempt.id).values(success=True, at=now)
    )
    await db.execute(
        delete(LoginAttempt).where(
            or_(
                and_(LoginAttempt.success.is_(False), LoginAttempt.at < now - 2 * WINDOW),
                LoginAttempt.at < now - TRUSTED_FOR,
            )
        )
    )


async def abandoned(db: AsyncSession, attempt: Attempt) -> None:
    """The check never ran (e.g. the hashing pool was busy): the attempt does not count."""
    await db.execute(delete(LoginAttempt).where(LoginAttempt.id == attempt.id))
