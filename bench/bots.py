"""Bot strength, measured by duplicate play through the engine (no server, no socket).

    python -m bench.bots --deals 2000 --seed 1 --json [--workers 2] [--pairs strong:beginner]

Each board (a seeded shuffle, a fixed cut, three players, the ``club`` preset, dealer rotating)
is dealt six times with the *same cards at the same seats*: strategy A in one seat and B in the
other two, for each of the three seats, then B in one seat and A in the other two. So every
strategy holds every hand in every seat, and the luck of the cards cancels. ``--deals N`` asks
for N deals played, that is ``ceil(N / 6)`` boards; ``deals`` in the result counts the deals
played (six per finished board) and ``boards`` the boards.

Each play is scored by the engine's own code: its outcome is recorded as the only deal of a
fresh :class:`app.rules.Pulka` (target 20) and settled (:meth:`Pulka.settle`), giving each
seat's exact whists (they sum to zero). A play's value is A's mean whists per seat minus B's
mean whists per seat; a board's value is the mean over its six plays. ``whists_per_deal`` is the
mean over boards (the mean per deal played), ``ci95`` is mean ± 1.96·sd/√n over the boards'
values — the six deals of a board share their cards, so the board is the independent unit (> 0
means A is stronger). ``seconds_per_card`` is A's mean thinking time per card played (CPU seconds of
its process, so other load on the machine does not count), ``max_seconds_per_card`` its
slowest. ``--seconds`` bounds the run (the boards finished by then are reported). Writes
``bench/results/bots.json``; with ``--json`` the last line printed is that JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import pathlib
import platform
import random
import sys
import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from app.bots.levels import LEVELS, make_strategy
from app.bots.strategy import Strategy
from app.rules import (
    Conventions,
    Cut,
    DealConfig,
    Pulka,
    action_from_json,
    action_to_json,
    apply,
    legal_actions,
    new_deal,
    outcome,
    shuffled_deck,
    view,
)

CUT_POSITION = 16
PRESET = "club"
TARGET = 20
ROTATIONS: tuple[tuple[str, str, str], ...] = (
    ("a", "b", "b"),
    ("b", "a", "b"),
    ("b", "b", "a"),
    ("b", "a", "a"),
    ("a", "b", "a"),
    ("a", "a", "b"),
)


def message_for(state: Any, seat: int) -> dict[str, Any]:
    """The protocol message a websocket client at ``seat`` holds: its view and legal moves."""
    legal = []
    for action in legal_actions(state, seat):
        data = action_to_json(action)
        data.pop("seat", None)
        legal.append(data)
    return {"deal": view(state, seat), "legal": legal}


def play(
    deck: Sequence[int], dealer: int, players: Sequence[Strategy], timing: dict[int, list[float]]
) -> tuple[Fraction, ...]:
    """Play one deal with ``players[seat]`` at each seat; each seat's settled whists.
    ``timing[seat]`` collects the seconds each card decision of that seat took."""
    conventions = Conventions.preset_named(PRESET)
    state = new_deal(DealConfig(3, dealer, conventions, 6), list(deck), b"bench-bots")
    state, _ = apply(state, Cut(state.cutter, CUT_POSITION))
    for _ in range(500):
        if state.finished:
            break
        seat = state.to_move
        assert seat is not None
        message = message_for(state, seat)
        start = time.process_time()
        choice = players[seat].choose(message, message["legal"], seat)
        if message["deal"]["phase"] == "play":
            timing.setdefault(seat, []).append(time.process_time() - start)
        assert choice is not None, "a bot had nothing to do on its turn"
        state, _ = apply(state, action_from_json({**choice, "seat": seat}))
    result = outcome(state)
    assert result is not None, "the deal did not finish"
    pulka = Pulka.new(3, conventions=conventions, target=TARGET, first_dealer=dealer)
    pulka, _ = pulka.record(result)
    return pulka.settle().exact


def deal_value(task: tuple[int, int, str, str, float | None]) -> tuple[float, list[float]]:
    """One deal group (six plays): A-minus-B whists per seat, and A's card times."""
    seed, index, a, b, budget = task
    rng = random.Random(f"{seed}-{index}")
    deck = shuffled_deck(rng)
    dealer = index % 3
    total = 0.0
    times: list[float] = []
    for r, rotation in enumerate(ROTATIONS):
        players = [
            make_strategy(a if who == "a" else b, random.Random(f"{seed}-{index}-{r}-{s}"), budget)
            for s, who in enumerate(rotation)
        ]
        timing: dict[int, list[float]] = {}
        whists = play(deck, dealer, players, timing)
        a_seats = [s for s, who in enumerate(rotation) if who == "a"]
        b_seats = [s for s, who in enumerate(rotation) if who == "b"]
        total += float(
            sum(whists[s] for s in a_seats) / len(a_seats)
            - sum(whists[s] for s in b_seats) / len(b_seats)
        )
        for s in a_seats:
            times.extend(timing.get(s, []))
    return total / len(ROTATIONS), times


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95 % interval (mean ± 1.96·sd/√n)."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n > 1 else 0.0
    return mean, mean - half, mean + half


def boards_for(deals: int) -> int:
    """Boards needed for at least ``deals`` deals played (each board is dealt six times)."""
    return -(-deals // len(ROTATIONS))


def compare(
    a: str,
    b: str,
    boards: int,
    seed: int,
    workers: int,
    budget: float | None = None,
    seconds: float | None = None,
) -> dict[str, Any]:
    """Duplicate match of level ``a`` against level ``b`` over ``boards`` boards; with
    ``seconds``, it stops starting boards after that long and reports the boards finished."""
    tasks = [(seed, i, a, b, budget) for i in range(boards)]
    stop_at = None if seconds is None else time.monotonic() + seconds
    results: list[tuple[float, list[float]]] = []
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for item in pool.imap(deal_value, tasks, chunksize=1):
                results.append(item)
                if stop_at is not None and time.monotonic() > stop_at:
                    pool.terminate()
                    break
    else:
        for task in tasks:
            results.append(deal_value(task))
            if stop_at is not None and time.monotonic() > stop_at:
                break
    values = [v for v, _ in results]
    times = [t for _, ts in results for t in ts]
    mean, lo, hi = interval(values)
    return {
        "a": a,
        "b": b,
        "deals": len(values) * len(ROTATIONS),
        "boards": len(values),
        "whists_per_deal": round(mean, 3),
        "ci95": [round(lo, 3), round(hi, 3)],
        "seconds_per_card": round(sum(times) / len(times), 4) if times else 0.0,
        "max_seconds_per_card": round(max(times), 3) if times else 0.0,
    }


def run(
    deals: int,
    seed: int,
    pairs: Sequence[tuple[str, str]],
    workers: int,
    budget: float | None = None,
    seconds: float | None = None,
) -> dict[str, Any]:
    """Every pair's match; the JSON object the benchmark prints and writes. ``seconds`` is
    the whole run's time budget, shared by the pairs in turn (a pair that finishes early leaves
    its unused time to the next)."""
    start = time.perf_counter()
    out = []
    for index, (a, b) in enumerate(pairs):
        share = None
        if seconds is not None:  # what an earlier pair left unused goes to the later ones
            share = max(0.0, seconds - (time.perf_counter() - start)) / (len(pairs) - index)
        out.append(compare(a, b, boards_for(deals), seed, workers, budget, share))
    return {
        "deals": min(p["deals"] for p in out),
        "boards": min(p["boards"] for p in out),
        "deals_asked": deals,
        "seed": seed,
        "preset": PRESET,
        "pairs": out,
        "wall_seconds": round(time.perf_counter() - start, 1),
        "workers": workers,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--pairs",
        default="strong:beginner,club:beginner",
        help="comma-separated A:B pairs of levels",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds per card for the searching levels (default: theirs)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="time budget of the run: stop starting boards after it",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--out", default=str(pathlib.Path(__file__).parent / "results" / "bots.json")
    )
    args = parser.parse_args(argv)
    pairs = []
    for item in args.pairs.split(","):
        a, _, b = item.partition(":")
        if a not in LEVELS or b not in LEVELS:
            parser.error(f"unknown level in {item!r}: levels are {', '.join(LEVELS)}")
        pairs.append((a, b))
    if args.deals < 2:
        parser.error("--deals must be at least 2")
    result = run(args.deals, args.seed, pairs, args.workers, args.budget, args.seconds)
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    if not args.json:
        for pair in result["pairs"]:
            print(
                f"{pair['a']} vs {pair['b']}: {pair['whists_per_deal']:+.3f} whists/deal "
                f"(95% {pair['ci95'][0]:+.3f} .. {pair['ci95'][1]:+.3f}), "
                f"{pair['seconds_per_card']:.3f} s/card",
                file=sys.stderr,
            )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
