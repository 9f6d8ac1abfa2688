"""The 19th-century remiz scoring of classic preferans (seed 003, 27-31; K-9..K-11).

There are no whists on the old sheet: a made game is written off the stake (the pool column, the
declarer's progress towards the target) and every shortfall is a remiz (the hill column), priced
by the game's suit and counted per trick short ("с кадилями", seed 003, 29). Only the declarer
who made his game writes anything off; whisters never do (seed 003, 31).

:func:`classic_writes` gives the writes of one deal; :func:`app.rules.scoring.sheet.score_deal`
turns
them into sheet entries, so there is still one scoring path.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from app.rules.core.outcome import DealOutcome
from app.rules.variants.classic.classic_values import WHIST_TRICKS, classic_price

Write: TypeAlias = tuple[int, Literal["pool", "hill"], int, str]
"""One write: seat, column, amount, rule ID."""

GAME_TRICKS = 6
"""K-3: every classic game is six tricks."""


def classic_writes(outcome: DealOutcome) -> list[Write]:
    """Every write of one classic deal, declarer first, then the whisters in seat order."""
    if outcome.kind != "game":
        return []  # K-6: a redeal writes nothing
    assert outcome.declarer is not None and outcome.contract is not None
    declarer = outcome.declarer
    price = classic_price(outcome.contract)
    if outcome.tricks is None:
        return [(declarer, "pool", price, "K-9")]  # nobody whisted: the game is made unplayed
    tricks = outcome.tricks
    short = max(0, GAME_TRICKS - tricks[declarer])
    out: list[Write] = []
    if short:
        out.append((declarer, "hill", short * price, "K-10"))
    else:
        out.append((declarer, "pool", price, "K-9"))
    for seat in sorted(outcome.defence):
        if outcome.defence[seat] == "whist":
            missing = max(0, WHIST_TRICKS - tricks.get(seat, 0))
            if missing:
                out.append((seat, "hill", missing * price, "K-11"))
    return out
