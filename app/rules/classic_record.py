"""What a recorded deal may be under classic preferans; a redeal is classic only (K-3..K-6).

:meth:`app.rules.pulka.Pulka.record` asks :func:`classic_refusal` before its own checks; the
answer is ``(field, message)`` for the ``pulka/1`` field at fault, or ``None``.
"""

from __future__ import annotations

from app.rules.classic import CLASSIC_CONTRACTS
from app.rules.outcome import DealOutcome


def classic_refusal(o: DealOutcome, classic: bool) -> tuple[str, str] | None:
    """Why ``o`` cannot be a deal of this pulka (``classic``: played under that preset)."""
    if not classic:
        if o.kind == "redeal":
            return "type", "a redeal is written only in classic preferans (K-6)"
        return None
    if o.kind == "pass_out":
        return "type", "classic preferans has no pass-outs: the cards are dealt again (K-6)"
    if any(p.rule != "entry_error" for p in o.penalties):
        return "penalties", (
            "the penalty catalogue (RULES.md §10) is the club's; a classic record carries only a "
            "scorer's entry_error correction (K-13)"
        )
    if o.kind in ("misere", "conceded"):
        return "type", f"classic preferans has no {o.kind.replace('misere', 'misère')} (K-3, K-8)"
    if o.kind == "redeal":
        if o.declarer is not None or o.contract is not None or o.defence or o.tricks is not None:
            return "type", "a redeal has no declarer, contract, defence or tricks (K-6)"
        if o.penalties or o.talon_returned or o.misere_partner is not None:
            return "type", "a redeal carries nothing to score (K-6)"
        return None
    if o.contract not in CLASSIC_CONTRACTS:
        return "contract", "a classic game is six tricks in a suit: 6S, 6C, 6D or 6H (K-3)"
    if "half" in o.defence.values() or o.returned_from is not None:
        return "defence", "classic preferans has whist or pass only (K-7)"
    return None
