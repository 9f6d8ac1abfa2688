"""What a recorded deal may be under classic preferans; a redeal is classic only (K-3..K-6).

:meth:`app.rules.scoring.pulka.Pulka.record` asks the rule set's ``record_refusal`` hook, which is
:func:`classic_refusal`, before its own checks; the answer is ``(field, message)`` for the
``pulka/1`` field at fault, or ``None``.
"""

from __future__ import annotations

from app.rules.core.outcome import DealOutcome
from app.rules.variants.classic.classic_penalties import IDS as CLASSIC_PENALTIES
from app.rules.variants.classic.classic_values import CLASSIC_CONTRACTS


def classic_refusal(o: DealOutcome) -> tuple[str, str] | None:
    """Why ``o`` cannot be a deal of a classic pulka."""
    if o.kind == "pass_out":
        return "type", "classic preferans has no pass-outs: the cards are dealt again (K-6)"
    if any(p.rule != "entry_error" and p.rule not in CLASSIC_PENALTIES for p in o.penalties):
        return "penalties", (
            "the penalty catalogue (RULES.md §10) is the club's; a classic record carries 003's "
            "own remizes (talon_looked, declared_out_of_turn, passed_out_of_turn: K-14..K-16) "
            "and a scorer's entry_error correction (K-13)"
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
