"""Engine benchmark: complete random deals per second on one core.

    python -m bench.engine --json [--seconds 3]

Each deal is dealt from a seeded shuffle, cut, bid, played to the end by a random policy that
picks among :func:`app.rules.legal_actions` (cuts and discards are drawn directly: listing all
66 discards just to pick one would measure the policy, not the engine). Three- and four-player
deals and all four presets alternate. Prints ``{"deals_per_second": N, ...}`` and writes
``bench/results/engine.json``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import random
import sys
import time

from app.rules import (
    Bid,
    Claim,
    Conventions,
    Cut,
    DealConfig,
    Discard,
    PlayCard,
    apply,
    legal_actions,
    legal_cards_now,
    mask_cards,
    new_deal,
    shuffled_deck,
)

PRESETS = ("club", "sochi", "leningrad", "rostov")


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
        elif phase == "discard":
            cards = rng.sample(mask_cards(state.hands[seat]), 2)
            action = Discard(seat, (cards[0], cards[1]))
        elif phase == "auction" and rand() < 0.6:
            action = Bid(seat, "pass")
        else:
            options = [a for a in legal_actions(state, seat) if not isinstance(a, Claim)]
            action = rng.choice(options)
        state, _ = apply(state, action)  # type: ignore[arg-type]
        actions += 1
    return actions


def run(seconds: float, seed: int = 1) -> dict[str, object]:
    """Play deals for about ``seconds`` and measure the rate."""
    rng = random.Random(seed)
    presets = [Conventions.preset_named(p) for p in PRESETS]
    deals = actions = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            actions += play_deal(rng, 3 + deals % 2, presets[deals % 4])
            deals += 1
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    # Rates are per CPU second of this single-threaded process, so a busy machine (other
    # processes competing for the core) does not lower them; wall-clock rates are given too.
    return {
        "benchmark": "engine",
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


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent / "results" / "engine.json")
    args = parser.parse_args(argv)
    result = run(args.seconds, args.seed)
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['deals_per_second']} deals/s ({result['deals']} deals)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
