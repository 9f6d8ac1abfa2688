"""The defence: whist, pass, half-whist, a returned whist, open or closed play (R-W1..R-W6).

Stages (``state.stage``): ``first`` and ``second`` are the two defenders' calls; after a
half-whist the other defender may return the whist (``return``, at four and five players then the
dealer,
``return_dealer``); on 8+ after two passes the four-player dealer may whist (``dealer``, R-W5).
With one whister the deal moves to phase ``play_mode``, where he chooses open or closed play
(R-W3). :func:`defence_options` is the one list of what the seat to move may call;
:func:`apply_defend` accepts exactly those calls.
"""

from __future__ import annotations

from app.rules.core.actions import Action, ChoosePlay, Defend, Event, ReturnWhist
from app.rules.core.outcome import Contract, DefenceCall
from app.rules.core.rule_errors import IllegalActionError
from app.rules.core.seats import dealer_on_talon
from app.rules.deal.deal_rules import deal_rules_of
from app.rules.deal.phases.ending import finish
from app.rules.deal.phases.tricks import start_play
from app.rules.deal.state import (
    DealState,
    Transition,
    defenders_of,
    evolve,
    require_turn,
)

_STALINGRAD = (Contract(6, "S"), Contract(6, "S", no_talon=True))
"""R-W6: 6♠, with or without the talon (A-15), is whisted by both defenders."""


def defence_options(state: DealState) -> list[Action]:
    """Every defence action of the seat to move."""
    seat = state.to_move
    assert seat is not None and isinstance(state.contract, Contract)
    level = state.contract.level
    conv = state.config.conventions
    stalingrad = (conv.stalingrad and state.contract in _STALINGRAD) or _forced(state) is not None
    calls = dict(state.calls)
    d1, _ = defenders_of(state)
    if state.stage == "first":
        if stalingrad:
            return [Defend(seat, "whist")]  # R-W6
        return [Defend(seat, "whist"), Defend(seat, "pass")]
    if state.stage == "second":
        if stalingrad:
            return [Defend(seat, "whist")]  # R-W6
        options: list[Action] = [Defend(seat, "whist"), Defend(seat, "pass")]
        if calls[d1] == "pass" and level in (6, 7) and conv.half_whist:
            options.append(Defend(seat, "half"))  # R-W4
        return options
    if state.stage in ("return", "return_dealer"):
        return [ReturnWhist(seat), Defend(seat, "pass")]  # R-W4
    if state.stage == "dealer":
        return [Defend(seat, "whist"), Defend(seat, "pass")]  # R-W5
    return []


def play_mode_options(state: DealState, seat: int) -> list[Action]:
    """The lone whister's choices: open or closed play (R-W3), or gentleman's half (R-W4)."""
    out: list[Action] = [ChoosePlay(seat, "open"), ChoosePlay(seat, "closed")]
    if may_half_first(state):
        out.append(Defend(seat, "half"))
    return out


def apply_defend(state: DealState, action: Defend) -> Transition:
    """A defender's whist, pass or half-whist, if :func:`defence_options` lists it."""
    if state.phase == "play_mode" and action.call == "half":
        return _gentleman_half(state, action)
    require_turn(state, action.seat, "defence")
    if action not in defence_options(state):
        raise IllegalActionError(_why_not_call(state, action.call))
    seat, call = action.seat, action.call
    events = [Event("defended", {"seat": seat, "call": call})]
    state = evolve(state, defence=(*state.defence, (seat, call)))
    d1, d2 = defenders_of(state)
    assert isinstance(state.contract, Contract)
    level = state.contract.level
    if state.stage == "first":
        state = evolve(state, calls=((d1, call),), stage="second", to_move=d2)
        return state, tuple(events)
    if state.stage == "second":
        c1 = dict(state.calls)[d1]
        state = evolve(state, calls=((d1, c1), (d2, call)))
        whisters = tuple(s for s, c in ((d1, c1), (d2, call)) if c == "whist")
        if len(whisters) == 2:
            return start_play(state, events, whisters=whisters, mode="closed")
        if len(whisters) == 1:
            state = evolve(
                state, phase="play_mode", stage="", whisters=whisters, to_move=whisters[0]
            )
            return state, tuple(events)
        if call == "half":
            return evolve(state, stage="return", half_from=d2, to_move=d1), tuple(events)
        if level >= 8 and dealer_on_talon(state.players):
            return evolve(state, stage="dealer", to_move=state.dealer), tuple(events)  # R-W5
        return finish(state, events, "without_play")
    if state.stage == "return":
        if dealer_on_talon(state.players):
            return evolve(state, stage="return_dealer", to_move=state.dealer), tuple(events)
        return finish(state, events, "half_whist")
    if state.stage == "return_dealer":
        return finish(state, events, "half_whist")
    # stage "dealer": R-W5, the four-player dealer whists on 8+ after two passes.
    if call == "whist":
        dealer = state.dealer
        state = evolve(state, calls=(*state.calls, (dealer, "whist")))
        return start_play(state, events, whisters=(dealer,), mode="open", controller=dealer)
    return finish(state, events, "without_play")


def may_half_first(state: DealState) -> bool:
    """Gentleman's whist (000): a first defender who whisted, the second having passed, may
    still go for half-whist on 6 and 7; the passer may then return the whist (R-W4)."""
    contract = state.contract
    conv = state.config.conventions
    return (
        state.phase == "play_mode"
        and isinstance(contract, Contract)
        and contract.level in (6, 7)
        and conv.half_whist
        and conv.whist_style == "gentleman"
        and state.whisters == (defenders_of(state)[0],)
    )


def _gentleman_half(state: DealState, action: Defend) -> Transition:
    require_turn(state, action.seat, "play_mode")
    if not may_half_first(state):
        raise IllegalActionError(
            "half-whist after whisting is only for the first defender when the second passed, "
            "on 6 and 7, under gentleman's whist"
        )
    d1, d2 = defenders_of(state)
    events = [Event("defended", {"seat": d1, "call": "half"})]
    state = evolve(
        state,
        phase="defence",
        defence=(*state.defence, (d1, "half")),
        calls=((d1, "half"), (d2, "pass")),
        whisters=(),
        stage="return",
        half_from=d1,
        to_move=d2,
    )
    return state, tuple(events)


def _forced(state: DealState) -> str | None:
    """Why both defenders must whist under the deal's rule set (its ``forced_whist`` hook)."""
    return deal_rules_of(state.config).forced_whist(state)


def _why_not_call(state: DealState, call: str) -> str:
    assert isinstance(state.contract, Contract)
    if state.config.conventions.stalingrad and state.contract in _STALINGRAD:
        return "6♠ is Stalingrad: both defenders must whist (R-W6)"
    forced = _forced(state)
    if forced is not None:
        return forced
    if call == "half":
        if state.stage != "second":
            return "only the second defender may take half-whist (R-W4)"
        if state.contract.level not in (6, 7):
            return "half-whist exists only on 6 and 7 (R-W4)"
        if not state.config.conventions.half_whist:
            return "half-whist is not played under these conventions"
        return "half-whist only after the first defender passed (R-W4)"
    if state.stage in ("return", "return_dealer"):
        return "after a half-whist you may only return the whist or pass (R-W4)"
    return f"{call} is not a defence call"


def apply_return_whist(state: DealState, action: ReturnWhist) -> Transition:
    """Return a half-whist: the returner alone whists, and the game is played open (R-W4)."""
    require_turn(state, action.seat, "defence")
    if state.stage not in ("return", "return_dealer"):
        raise IllegalActionError("a whist can be returned only after a half-whist (R-W4)")
    d1, d2 = defenders_of(state)
    seat = action.seat
    half = state.half_from
    assert half is not None
    events = [Event("whist_returned", {"seat": seat, "from": half})]
    calls: dict[int, DefenceCall] = {d1: "pass", d2: "pass"}
    calls[seat] = "whist"
    state = evolve(
        state,
        defence=(*state.defence, (seat, "return")),
        calls=tuple(calls.items()),
        returned_from=half,
    )
    # R-W4: after a returned whist the game is played open, the returner the only whister.
    return start_play(state, events, whisters=(seat,), mode="open", controller=seat)


def apply_choose(state: DealState, action: ChoosePlay) -> Transition:
    """The lone whister chooses open or closed play (R-W3)."""
    require_turn(state, action.seat, "play_mode")
    if action.mode not in ("open", "closed"):
        raise IllegalActionError("choose open or closed play (R-W3)")
    events = [Event("play_chosen", {"seat": action.seat, "mode": action.mode})]
    if action.mode == "closed":
        return start_play(state, events, whisters=state.whisters, mode="closed")
    return start_play(state, events, whisters=state.whisters, mode="open", controller=action.seat)
