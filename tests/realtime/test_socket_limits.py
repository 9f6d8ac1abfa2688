"""The table socket's limits as values (issue 24): the frame budget's token bucket, the caps
on sockets per member and per address (oldest first), and the chat lines this process
accepted lately. The served behaviour is tests/e2e/test_socket_budget.py."""

from __future__ import annotations

import pytest

from app.realtime.budget import FrameBudget
from app.realtime.chat_rate import RecentChats
from app.realtime.socket_caps import SocketCaps


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_budget_allows_its_burst_then_its_rate() -> None:
    clock = Clock()
    budget = FrameBudget(20, 40, clock)
    assert all(budget.take() for _ in range(40))
    assert not budget.take()
    clock.now += 0.5  # ten tokens back
    assert [budget.take() for _ in range(11)] == [True] * 10 + [False]
    clock.now += 60  # never more than the burst
    assert sum(budget.take() for _ in range(100)) == 40


def test_a_steady_client_just_under_the_rate_is_never_over() -> None:
    clock = Clock()
    budget = FrameBudget(20, 40, clock)
    for _ in range(2000):
        clock.now += 1 / 19
        assert budget.take()


def test_a_client_pacing_itself_by_wait_is_never_over() -> None:
    clock = Clock()
    server, client = FrameBudget(20, 40, clock), FrameBudget(15, 20, clock)
    for _ in range(500):
        clock.now += client.wait()
        assert client.take()
        assert server.take()
    assert clock.now - 100.0 >= (500 - 20) / 15 * 0.99


@pytest.mark.parametrize(("rate", "burst"), [(0, 40), (-1, 40), (20, 0)])
def test_a_budget_refuses_nonsense(rate: float, burst: int) -> None:
    with pytest.raises(ValueError):
        FrameBudget(rate, burst)


def test_caps_close_the_oldest_of_a_member_then_of_an_address() -> None:
    caps: SocketCaps[str] = SocketCaps(per_member=2, per_address=2)
    assert caps.admit("a1", 1, "10.0.0.1") == []
    assert caps.admit("a2", 1, "10.0.0.2") == []
    assert caps.admit("a3", 1, "10.0.0.1") == ["a1"]  # member 1's third: his oldest goes
    assert caps.count(member_id=1) == 2
    assert caps.admit("b1", 2, "10.0.0.1") == []
    assert caps.admit("c1", 3, "10.0.0.1") == ["a3"]  # the address's third: its oldest goes
    assert caps.count(address="10.0.0.1") == 2
    caps.release("b1")
    caps.release("b1")  # idempotent
    assert caps.count(address="10.0.0.1") == 1
    assert caps.admit("d1", 4, "10.0.0.1") == []
    for socket in ("a2", "c1", "d1"):
        caps.release(socket)
    assert caps.count(member_id=1) == 0 and caps.count(address="10.0.0.1") == 0


def test_recent_chats_count_only_the_window() -> None:
    clock = Clock()
    chats = RecentChats(clock)
    assert chats.count(7, 1, 10) == 0
    for _ in range(5):
        chats.record(7, 1)
        clock.now += 1
    chats.record(7, 2)
    assert chats.count(7, 1, 10) == 5
    assert chats.count(8, 1, 10) == 0 and chats.count(7, 2, 10) == 1
    clock.now += 6  # the first two lines are now more than 10 s old
    assert chats.count(7, 1, 10) == 3
