"""Fit :data:`app.bots.evaluator.WEIGHTS` on solved random deals (least squares).

    python -m bench.bots_fit --deals 400 --seed 1

Each deal: 10 cards to each of three hands; the first hand declares with its longest suit as
trumps (ties: the suit with more honours) and leads; :func:`app.rules.best_tricks` gives the
tricks it takes with best play on both sides. Prints the weights as a Python dict and the fit's
root-mean-square error, to paste into ``app/bots/evaluator.py``.
"""

from __future__ import annotations

import argparse
import json
import math
import random

from app.bots.evaluator import FEATURES, features
from app.rules import best_tricks, card_text


def sample(rng: random.Random) -> tuple[list[float], float]:
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [deck[0:10], deck[10:20], deck[20:30]]
    mine = hands[0]
    trump = max(
        range(4),
        key=lambda s: (sum(c >> 3 == s for c in mine), sum(c & 7 for c in mine if c >> 3 == s)),
    )
    masks = tuple(sum(1 << c for c in h) for h in hands)
    got = best_tricks((masks[0], masks[1], masks[2]), 0, (), trump, 0)
    row = features([card_text(c) for c in mine], trump)
    return [row[name] for name in FEATURES], float(got)


def solve(rows: list[list[float]], ys: list[float], ridge: float = 1e-3) -> list[float]:
    """Least squares by the normal equations (Gauss-Jordan), a little ridge for stability."""
    k = len(rows[0])
    a = [
        [sum(r[i] * r[j] for r in rows) + (ridge if i == j else 0.0) for j in range(k)]
        for i in range(k)
    ]
    b = [sum(r[i] * y for r, y in zip(rows, ys, strict=True)) for i in range(k)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        b[col], b[pivot] = b[pivot], b[col]
        for r in range(k):
            if r != col and a[col][col]:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
                b[r] -= f * b[col]
    return [b[i] / a[i][i] if a[i][i] else 0.0 for i in range(k)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows, ys = [], []
    for _ in range(args.deals):
        x, y = sample(rng)
        rows.append(x)
        ys.append(y)
    w = solve(rows, ys)
    err = math.sqrt(
        sum(
            (sum(a * b for a, b in zip(r, w, strict=True)) - y) ** 2
            for r, y in zip(rows, ys, strict=True)
        )
        / len(ys)
    )
    print(
        json.dumps(
            {
                "weights": {n: round(v, 3) for n, v in zip(FEATURES, w, strict=True)},
                "deals": args.deals,
                "rmse": round(err, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
