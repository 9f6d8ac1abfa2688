"""How many tricks a hand takes as declarer: a linear model fitted on solved deals.

:func:`declarer_tricks` scores a 10-card hand with a given trump suit from a few features
(trump length and honours, side aces, guarded kings and queens, side length). The constants in
:data:`WEIGHTS` were fitted by ``python -m bench.bots_fit`` (least squares): random deals, the
declarer on lead with his longest suit as trumps, each deal solved exactly with
:func:`app.rules.best_tricks`; the script prints the weights and the fit's error, and the
numbers below are its output (see docs/bots.md to refit).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.rules import parse_card

FEATURES = (
    "bias",
    "trump_len",
    "trump_A",
    "trump_K",
    "trump_Q",
    "trump_J",
    "side_A",
    "side_K",
    "side_Q",
    "side_long",
)
WEIGHTS: dict[str, float] = {
    "bias": -3.996,
    "trump_len": 1.322,
    "trump_A": 1.387,
    "trump_K": 0.957,
    "trump_Q": 0.547,
    "trump_J": 0.164,
    "side_A": 1.312,
    "side_K": 0.519,
    "side_Q": 0.542,
    "side_long": 0.0,
}
"""Output of ``python -m bench.bots_fit --deals 200 --seed 1`` (root-mean-square error 0.73
tricks). ``side_long`` fits to zero: with the longest suit as trumps a long side suit is rare."""
FIT_INFO: dict[str, float] = {"deals": 200, "rmse": 0.732}


def features(cards: Sequence[str], trump: int | None) -> dict[str, float]:
    """The model's inputs for ``cards`` (protocol texts) with ``trump`` (0..3, None = NT)."""
    suits: dict[int, list[int]] = {s: [] for s in range(4)}
    for text in cards:
        card = parse_card(text)
        suits[card >> 3].append(card & 7)
    out = dict.fromkeys(FEATURES, 0.0)
    out["bias"] = 1.0
    for suit, ranks in suits.items():
        have = set(ranks)
        n = len(ranks)
        if suit == trump:
            out["trump_len"] += n
            out["trump_A"] += 7 in have
            out["trump_K"] += 6 in have
            out["trump_Q"] += 5 in have
            out["trump_J"] += 4 in have
        else:
            out["side_A"] += 7 in have
            out["side_K"] += 6 in have and n >= 2
            out["side_Q"] += 5 in have and n >= 3
            out["side_long"] += max(0, n - 4)
    return out


def declarer_tricks(
    cards: Sequence[str], trump: int | None, weights: dict[str, float] | None = None
) -> float:
    """Expected tricks of ``cards`` as declarer on lead with ``trump`` (the fitted model)."""
    w = weights or WEIGHTS
    return sum(w[name] * value for name, value in features(cards, trump).items())


def best_strain(cards: Sequence[str]) -> tuple[float, int | None]:
    """The trump suit (None: no-trumps is never preferred here) giving the most tricks."""
    return max(
        ((declarer_tricks(cards, t), t) for t in range(4)),
        key=lambda pair: (pair[0], -1 if pair[1] is None else pair[1]),
    )


__all__ = ["FEATURES", "WEIGHTS", "best_strain", "declarer_tricks", "features"]
