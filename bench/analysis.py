"""Deal analysis benchmark: the seconds one analysis worker spends on a whole finished deal.

    python -m bench.analysis [--deals 6] [--seed 15] [--json] [--out FILE]

Each deal is dealt from a seeded shuffle: three hands of ten, the talon's two cards; the hand
with the most high-card points declares a six in its longest suit, takes the talon and discards
its two lowest cards; the ten tricks are played with random legal cards (forehand, position 0,
leads, R-W7). :func:`app.rules.search.deal_analysis.analyse_deal` runs on it in this process, as the
analysis
pool's one worker would (docs/analysis.md): wall-clock and CPU seconds per deal (median and
worst) and whether the per-card marks finished within their budget. With ``--json`` the last
line is one JSON object, also written to ``--out`` when given.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import statistics
import sys
import time
from typing import Any

from app.rules import DealFacts, analyse_deal, legal_cards, trick_winner
from bench.engine import _points


def _cards(mask: int) -> list[int]:
    return [c for c in range(32) if mask >> c & 1]


def bench_deal(rng: random.Random) -> DealFacts:
    """One whole game as :class:`DealFacts` (module docstring); seats are positions 0..2."""
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[10 * p : 10 * p + 10]) for p in range(3)]
    talon = (deck[30], deck[31])
    declarer = max(range(3), key=lambda p: _points(hands[p]))
    trump = max(range(4), key=lambda s: (hands[declarer] >> (8 * s) & 255).bit_count())
    twelve = hands[declarer] | 1 << talon[0] | 1 << talon[1]
    discard = sum(1 << c for c in sorted(_cards(twelve), key=lambda c: (c & 7, c))[:2])
    playing = list(hands)
    playing[declarer] = twelve & ~discard
    tricks: list[tuple[tuple[int, int], ...]] = []
    winners: list[int] = []
    leader = 0
    while playing[0]:
        trick: list[tuple[int, int]] = []
        for offset in range(3):
            position = (leader + offset) % 3
            led = trick[0][1] >> 3 if trick else None
            card = rng.choice(_cards(legal_cards(playing[position], led, trump)))
            playing[position] ^= 1 << card
            trick.append((position, card))
        leader = trick_winner(trick, trick[0][1] >> 3, trump)
        tricks.append(tuple(trick))
        winners.append(leader)
    return DealFacts(
        active=(0, 1, 2),
        dealt=dict(enumerate(hands)),
        talon=talon,
        kind="game",
        declarer=declarer,
        contract=f"6{'SCDH'[trump]}",
        discard=discard,
        tricks=tricks,
        winners=winners,
    )


def run(deals: int, seed: int) -> dict[str, Any]:
    """Analyse ``deals`` seeded deals; the timings as a JSON-ready dict."""
    rng = random.Random(seed)
    wall: list[float] = []
    cpu: list[float] = []
    complete = 0
    for _ in range(deals):
        facts = bench_deal(rng)
        started, started_cpu = time.perf_counter(), time.process_time()
        result = analyse_deal(facts)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        complete += bool(result["plays_complete"])
    return {
        "deals": deals,
        "seed": seed,
        "seconds_per_deal": {
            "median": round(statistics.median(wall), 3),
            "max": round(max(wall), 3),
        },
        "cpu_seconds_per_deal": {
            "median": round(statistics.median(cpu), 3),
            "max": round(max(cpu), 3),
        },
        "plays_complete": complete,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--out", type=pathlib.Path, default=None)
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    result = run(args.deals, args.seed)
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    if args.json:
        print(json.dumps(result))
    else:
        s, c = result["seconds_per_deal"], result["cpu_seconds_per_deal"]
        print(
            f"{args.deals} deals: {s['median']} s per deal (worst {s['max']} s), "
            f"CPU {c['median']} s (worst {c['max']} s); "
            f"marks complete in {result['plays_complete']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
