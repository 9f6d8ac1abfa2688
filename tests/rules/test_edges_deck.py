"""Issue 12 rule edge: deal verification (R-D4) checks the talon's order and, by default, the
table's own ``cut_min`` (R-D2)."""

from __future__ import annotations

import dataclasses

from app.rules import Conventions, DealConfig, apply, new_deal, verify_deal, view
from app.rules.core.actions import Cut
from app.rules.core.deck import DealReveal, reveal
from tests.support.engine import play_out


def test_r_d4_swapped_talon_order_fails_verification() -> None:
    """R-D4 + R-R2: the first talon card leads the first pass-out trick, so order matters."""
    data = reveal(tuple(range(32)), b"salt", 10, 3, 0)
    assert verify_deal(data)
    swapped = dataclasses.replace(data, talon=(data.talon[1], data.talon[0]))
    assert not verify_deal(swapped)


def test_r_d4_verification_uses_the_tables_cut_min_by_default() -> None:
    """R-D2: a cut the table forbids (a part shorter than its ``cut_min``) does not verify."""
    data = reveal(tuple(range(32)), b"salt", 5, 3, 0, cut_min=4)
    assert verify_deal(data)
    strict = dataclasses.replace(data, cut_min=6)  # a table that needs 6 cards each side
    assert not verify_deal(strict)
    assert verify_deal(strict, cut_min=4)  # an explicit value still wins


def test_r_d4_live_reveal_carries_the_tables_cut_min() -> None:
    """The reveal of a live deal names its table's ``cut_min`` and verifies by it alone."""
    conventions = Conventions.from_mapping({"preset": "club", "cut_min": 6})
    state = new_deal(DealConfig(3, 0, conventions), tuple(range(32)), b"salt")
    state, _ = apply(state, Cut(state.cutter, 6))
    state = play_out_any(state)
    shown = view(state, None)["reveal"]
    assert shown["cut_min"] == 6
    data = DealReveal(
        commitment=shown["commitment"],
        deck=tuple(shown["deck"]),
        salt=shown["salt"],
        cut=shown["cut"],
        players=shown["players"],
        dealer=shown["dealer"],
        hands=tuple(tuple(h) for h in shown["hands"]),
        talon=tuple(shown["talon"]),  # type: ignore[arg-type]
        cut_min=shown["cut_min"],
    )
    assert verify_deal(data)
    assert not verify_deal(dataclasses.replace(data, cut=5))


def play_out_any(state):  # type: ignore[no-untyped-def]
    """Pass the auction out and play it to the end."""
    from app.rules import Bid

    while state.phase == "auction":
        state, _ = apply(state, Bid(state.to_move, "pass"))
    return play_out(state)
