"""Engine benchmark: complete random deals per second on one core, and the claim solver.

    python -m bench.engine --json [--seconds 3] [--no-solver]

Each deal is dealt from a seeded shuffle, cut, bid, played to the end by a random policy that
picks among :func:`app.rules.legal_actions` (cuts and discards are drawn directly: listing all
66 discards just to pick one would measure the policy, not the engine). Three- and four-player
deals and every preset of every registered rule set alternate (``--presets club,sochi,…`` to
time a few; ``club,sochi,leningrad,rostov`` is the mix of the baselines before issue 25).
Prints ``{"deals_per_second": N, ...}`` and writes ``bench/results/engine.json``.

The claim solver (:func:`app.rules.search.solver.solve_counted`, behind
:func:`app.rules.best_tricks`)
is timed over :func:`solver_deals`, 50 fixed
whole deals (games and misère) from the first lead: the median and worst CPU time per deal and
the boundary positions searched per second, under ``"solver"``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import random
import statistics
import sys
import time

from app.rules import (
    PRESET_NAMES,
    Bid,
    Claim,
    Conventions,
    Cut,
    DealConfig,
    Discard,
    InviteMisere,
    LookAtHand,
    PlayCard,
    apply,
    legal_actions,
    legal_cards_now,
    mask_cards,
    new_deal,
    shuffled_deck,
)

_SKIPPED = (Claim, InviteMisere, LookAtHand)
"""Actions the random deals never take: claims (timed apart) and, to keep the deal mix of the
earlier baselines, the dealer's invitations and look (R-B9, R-W4)."""

SolverDeal = tuple[tuple[int, int, int], int | None, int, bool]
"""A claim-solver bench deal: three hands in playing order, trump, declarer position, misère."""


def _points(cards: int) -> int:
    """High-card points of a mask (A 4, K 3, Q 2, J 1), to pick plausible declarers."""
    return sum((cards >> (8 * suit + 4 + r) & 1) * (r + 1) for suit in range(4) for r in range(4))


def solver_deals(count: int = 50, seed: int = 14) -> list[SolverDeal]:
    """A fixed, seeded set of whole deals for the claim solver, from the first lead.

    Three hands of ten cards (the talon's two cards discarded); position 0 leads. Every fifth
    deal is a misère, played by the hand with the fewest high-card points (no trumps); the
    others are games played by the hand with the most high-card points plus trump length,
    trumps being its longest suit, except every eighth game, a no-trump game.
    """
    rng = random.Random(seed)
    deals: list[SolverDeal] = []
    for index in range(count):
        deck = list(range(32))
        rng.shuffle(deck)
        hands = tuple(sum(1 << c for c in deck[10 * p : 10 * p + 10]) for p in range(3))
        if index % 5 == 4:
            declarer = min(range(3), key=lambda p: _points(hands[p]))
            deals.append(((hands[0], hands[1], hands[2]), None, declarer, True))
            continue

        def suits(hand: int) -> list[tuple[int, int, int]]:
            """(length, points, suit) of each suit of ``hand``."""
            return [
                ((hand >> (8 * s) & 255).bit_count(), _points(hand & 255 << (8 * s)), s)
                for s in range(4)
            ]

        declarer = max(range(3), key=lambda p: _points(hands[p]) + max(suits(hands[p]))[0])
        trump: int | None = max(suits(hands[declarer]))[2]
        if index % 8 == 3:
            trump = None
        deals.append(((hands[0], hands[1], hands[2]), trump, declarer, False))
    return deals


def play_deal(rng: random.Random, players: int, conventions: Conventions) -> int:
    """Play one random deal to the end; return the number of actions applied."""
    config = DealConfig(players, rng.randrange(players), conventions, rng.choice((6, 6, 7, 8)))
    state = new_deal(config, shuffled_deck(rng), b"bench-salt")
    actions = 0
    cut_min = conventions.cut_min
    rand = rng.random
    while not state.finished:
        seat = state.to_move
        assert seat is not None
        phase = state.phase
        if phase == "play":
            legal = mask_cards(legal_cards_now(state))
            action: object = PlayCard(seat, legal[int(rand() * len(legal))])
        elif phase == "cut":
            action = Cut(seat, rng.randint(cut_min, 32 - cut_min))
        elif phase == "discard" and state.hands[seat].bit_count() == 12:
            cards = rng.sample(mask_cards(state.hands[seat]), 2)
            action = Discard(seat, (cards[0], cards[1]))
        elif phase == "auction" and rand() < 0.6:
            action = Bid(seat, "pass")
        else:
            options = [
                a  # the same deal mix as before R-B9/R-W4 (issue 12): no invitation, no look
                for a in legal_actions(state, seat)
                if not isinstance(a, _SKIPPED)
            ]
            action = rng.choice(options)
        state, _ = apply(state, action)  # type: ignore[arg-type]
        actions += 1
    return actions


def run(seconds: float, seed: int = 1, presets_named: list[str] | None = None) -> dict[str, object]:
    """Play deals for about ``seconds`` and measure the rate (every registered preset in turn,
    or those of ``presets_named``)."""
    rng = random.Random(seed)
    presets = [Conventions.preset_named(p) for p in presets_named or PRESET_NAMES]
    deals = actions = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            conventions = presets[deals % len(presets)]
            players = 3 + deals % 2
            if players not in conventions.table_sizes():
                players = conventions.table_sizes()[0]
            actions += play_deal(rng, players, conventions)
            deals += 1
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    # Rates are per CPU second of this single-threaded process, so a busy machine (other
    # processes competing for the core) does not lower them; wall-clock rates are given too.
    return {
        "benchmark": "engine",
        "presets": [c.preset for c in presets],
        "deals": deals,
        "actions": actions,
        "seconds": round(elapsed, 3),
        "cpu_seconds": round(cpu, 3),
        "deals_per_second": round(deals / cpu, 1),
        "actions_per_second": round(actions / cpu, 1),
        "wall_deals_per_second": round(deals / elapsed, 1),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }


def run_solver(deals: list[SolverDeal] | None = None) -> dict[str, object]:
    """Time the exact solver on every bench deal (CPU time: a busy machine does not count)."""
    from app.rules import solve_counted

    deals = solver_deals() if deals is None else deals
    times: list[float] = []
    by_kind: dict[str, list[float]] = {"game": [], "misere": []}
    positions = 0
    for hands, trump, declarer, misere in deals:
        start = time.process_time()
        positions += solve_counted(hands, 0, (), trump, declarer, misere)[1]
        times.append(time.process_time() - start)
        by_kind["misere" if misere else "game"].append(times[-1])
    times.sort()
    total = sum(times)
    return {
        "deals": len(deals),
        "median_ms": round(statistics.median(times) * 1000, 1),
        "worst_ms": round(times[-1] * 1000, 1),
        "total_seconds": round(total, 3),
        "positions": positions,
        "positions_per_second": round(positions / total) if total else 0,
        **{
            f"{kind}_{name}_ms": round(value(spent) * 1000, 1)
            for kind, spent in by_kind.items()
            if spent
            for name, value in (("median", statistics.median), ("worst", max))
        },
    }


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--presets",
        default="",
        help="comma-separated presets to time (default: every registered one)",
    )
    parser.add_argument("--no-solver", action="store_true", help="skip the claim solver timing")
    parser.add_argument(
        "--out",
        type=pathlib.Path,
        default=pathlib.Path(__file__).resolve().parent / "results" / "engine.json",
    )
    args = parser.parse_args(argv)
    named = [p for p in args.presets.split(",") if p] or None
    result = run(args.seconds, args.seed, named)
    if not args.no_solver:
        result["solver"] = run_solver()
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['deals_per_second']} deals/s ({result['deals']} deals)")
        if "solver" in result:
            print(f"claim solver: {result['solver']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
