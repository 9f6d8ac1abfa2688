"""The lock an ``alone`` test holds on the machine in a parallel run (tests/conftest.py,
docs/testing.md): exclusive while it measures, shared once it calls ``share()``; and the
garbage collector it holds off in its own process."""

from __future__ import annotations

import fcntl
import gc
from pathlib import Path
from typing import IO

import pytest

from tests.conftest import MachineShare, collector_held


def _can_take(path: Path, mode: int) -> bool:
    """Whether another worker (another open file) could take ``path``'s lock now."""
    with path.open("a") as other:
        try:
            fcntl.flock(other, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(other, fcntl.LOCK_UN)
        return True


def _held(path: Path, mode: int) -> IO[str]:
    handle = path.open("a")
    fcntl.flock(handle, mode)
    return handle


def test_an_alone_test_keeps_the_machine_until_it_shares_it(tmp_path: Path) -> None:
    intent_path, run_path = tmp_path / "intent", tmp_path / "run"
    intent, run = _held(intent_path, fcntl.LOCK_EX), _held(run_path, fcntl.LOCK_EX)
    share = MachineShare(intent, run)
    assert not _can_take(intent_path, fcntl.LOCK_SH)  # no other test starts
    assert not _can_take(run_path, fcntl.LOCK_SH)
    share.share()
    assert _can_take(intent_path, fcntl.LOCK_SH)  # other tests run beside the rest of it
    assert _can_take(run_path, fcntl.LOCK_SH)
    assert not _can_take(run_path, fcntl.LOCK_EX)  # another alone test still waits for it
    share.share()  # a second call changes nothing
    assert not _can_take(run_path, fcntl.LOCK_EX)
    intent.close()
    run.close()
    assert _can_take(run_path, fcntl.LOCK_EX)


def test_a_measuring_test_holds_the_collector_off_and_gives_it_back() -> None:
    assert gc.isenabled()
    with collector_held(False):
        assert gc.isenabled()
    with collector_held(True):
        assert not gc.isenabled()  # no collection pauses the measuring process
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_held(True):
        raise RuntimeError("a failing measurement")
    assert gc.isenabled()
