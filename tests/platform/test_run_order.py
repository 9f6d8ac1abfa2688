"""The order a parallel run hands its files out in (tests/conftest.py, docs/testing.md): the
slowest files first, then the browser and e2e files, then the short tests, with the files of
``alone`` tests spread among the short ones, each file's tests together and in their order."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.conftest import SLOW_FIRST, _spread_alone_files, _weight, file_of


@dataclass
class Item:
    """What the ordering reads of a collected test: its id and its markers."""

    nodeid: str
    markers: tuple[str, ...] = ()

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.markers else None


def _ordered(items: list[Item]) -> list[str]:
    items = sorted(items, key=_weight)
    return [i.nodeid for i in _spread_alone_files(items)]


def _short(count: int) -> list[Item]:
    return [Item(f"tests/api/test_f{n}.py::test_{t}") for n in range(count) for t in range(2)]


def test_alone_files_go_among_the_short_tests_evenly_and_whole() -> None:
    alone = [
        Item("tests/e2e/test_a.py::test_setup", ("e2e",)),
        Item("tests/e2e/test_a.py::test_measure", ("e2e", "alone")),
        Item("tests/e2e/test_b.py::test_measure", ("e2e", "alone")),
    ]
    slow = Item(f"{SLOW_FIRST[0]}::test_long")
    page = Item("tests/browser/test_page.py::test_page", ("browser",))
    order = _ordered([*alone, page, *_short(9), slow])
    assert order[:2] == [slow.nodeid, page.nodeid]
    a = order.index("tests/e2e/test_a.py::test_setup")
    b = order.index("tests/e2e/test_b.py::test_measure")
    assert order[a + 1] == "tests/e2e/test_a.py::test_measure"  # a file stays together, in order
    files = [file_of(n) for n in order]
    assert files[a - 1] != files[a + 2], "an alone file between two files, never inside one"
    short_before = {files[n] for n in range(2, a)}
    between = {files[n] for n in range(a + 2, b)}
    after = {files[n] for n in range(b + 1, len(files))}
    assert len(short_before) == len(between) == len(after) == 3  # 9 short files in thirds
    assert sorted(order) == sorted(i.nodeid for i in [*alone, page, *_short(9), slow])


@pytest.mark.parametrize("short_files", [0, 1])
def test_alone_files_are_kept_with_few_or_no_short_tests(short_files: int) -> None:
    alone = [
        Item("tests/e2e/test_a.py::test_measure", ("e2e", "alone")),
        Item("tests/e2e/test_b.py::test_measure", ("e2e", "alone")),
    ]
    items = [*alone, Item("tests/browser/test_page.py::test_page", ("browser",))]
    items += _short(short_files)
    order = _ordered(items)
    assert sorted(order) == sorted(i.nodeid for i in items)
    assert order[0] == "tests/browser/test_page.py::test_page"


def test_without_alone_tests_the_order_is_the_weights() -> None:
    items = [*_short(2), Item(f"{SLOW_FIRST[1]}::test_long")]
    assert _ordered(items)[0] == f"{SLOW_FIRST[1]}::test_long"
    assert _ordered(items)[1:] == [i.nodeid for i in _short(2)]
