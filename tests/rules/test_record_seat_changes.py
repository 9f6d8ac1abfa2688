"""``pulka/1`` ``seat_changes``: a pulka a fourth player joined (R-T4) or a player was replaced
(R-T5) in exports as pulka/1 and re-scores to the live pulka's sheet and settlement."""

from __future__ import annotations

import copy
import io
import json
from typing import Any

import pytest

from app.commands.score import EXIT_INVALID, EXIT_OK, run_score
from app.rules.core.outcome import DealOutcome
from app.rules.scoring.pulka import Pulka
from app.rules.scoring.record import export_document, parse_document, replay, score_pulka


def _pass_out(dealer: int, players: int) -> DealOutcome:
    """A pass-out dealt by ``dealer``; tricks for the seats that play (R-D1)."""
    if players == 3:
        seats = [(dealer + k) % 3 for k in range(3)]
        return DealOutcome(
            dealer=dealer, kind="pass_out", tricks={seats[0]: 2, seats[1]: 5, seats[2]: 3}
        )
    playing = [(dealer + k) % 4 for k in (1, 2, 3)]
    return DealOutcome(
        dealer=dealer, kind="pass_out", tricks={playing[0]: 4, playing[1]: 3, playing[2]: 3}
    )


def _live() -> Pulka:
    """Three players, a fourth joins after deal 3 (R-T4), seat 1 is replaced after deal 5 (R-T5)."""
    p = Pulka.new(3, names=("Anna", "Boris", "Vera"), target=20)
    for _ in range(3):
        p, _ = p.record(_pass_out(p.next_dealer, 3))
    p, _ = p.join_fourth(after_dealer_seat=(p.next_dealer - 1) % 3, name="Gleb")
    for _ in range(2):
        p, _ = p.record(_pass_out(p.next_dealer, 4))
    p = p.replace_player(seat=1, name="Dina")
    for _ in range(2):
        p, _ = p.record(_pass_out(p.next_dealer, 4))
    return p


def _score(doc: Any) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = run_score("-", out, io.StringIO(json.dumps(doc)))
    return code, json.loads(out.getvalue())


def test_export_of_join_and_replacement_rescores_as_the_live_pulka() -> None:
    live = _live()
    doc = export_document(live)
    assert doc["players"] == ["Anna", "Boris", "Vera"]
    changes = doc["seat_changes"]
    assert [(c["before_deal"], c["kind"]) for c in changes] == [(3, "join"), (5, "replace")]
    join = changes[0]
    assert join["name"] == "Gleb" and isinstance(join["pool"], int)
    assert isinstance(join["hill"], int) and join["hill"] > 0  # R-T4: the mean hill, rounded up
    assert changes[1] == {"before_deal": 5, "kind": "replace", "seat": 1, "name": "Dina"}
    code, scored = _score(doc)
    assert code == EXIT_OK
    assert scored == json.loads(json.dumps(score_pulka(live)))
    assert scored["players"] == list(live.names or ())


def test_round_trip_export_replay_export() -> None:
    live = _live()
    doc = json.loads(json.dumps(export_document(live)))
    again = replay(*parse_document(doc))
    assert again.names == live.names and again.sheet == live.sheet
    assert again.entries == live.entries
    assert export_document(again) == export_document(live)


def test_change_after_the_last_deal_and_unnamed_pulka() -> None:
    p = Pulka.new(3)
    p, _ = p.record(_pass_out(0, 3))
    p, _ = p.join_fourth(after_dealer_seat=0)
    doc = json.loads(json.dumps(export_document(p)))
    assert doc["seat_changes"][0]["before_deal"] == 1
    again = replay(*parse_document(doc))
    assert again.sheet == p.sheet and again.entries == p.entries
    assert again.settle() == p.settle()


def _invalid(mutate: Any) -> dict[str, Any]:
    doc = copy.deepcopy(export_document(_live()))
    mutate(doc)
    code, out = _score(doc)
    assert code == EXIT_INVALID
    assert out["error"]["field"] == "seat_changes", out
    return out["error"]


@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(lambda d: d["seat_changes"][0].update(before_deal=99), id="index-too-big"),
        pytest.param(lambda d: d["seat_changes"][0].update(before_deal=-1), id="index-negative"),
        pytest.param(lambda d: d["seat_changes"][0].update(before_deal="3"), id="index-not-int"),
        pytest.param(lambda d: d["seat_changes"][1].update(before_deal=2), id="out-of-order"),
        pytest.param(
            lambda d: d["seat_changes"].append({"before_deal": 7, "kind": "join", "name": "Ivan"}),
            id="join-at-four",
        ),
        pytest.param(lambda d: d["seat_changes"][1].update(seat=4), id="bad-seat"),
        pytest.param(lambda d: d["seat_changes"][1].update(seat=True), id="seat-bool"),
        pytest.param(lambda d: d["seat_changes"][1].pop("seat"), id="seat-missing"),
        pytest.param(lambda d: d["seat_changes"][0].update(hill=999), id="wrong-hill"),
        pytest.param(lambda d: d["seat_changes"][0].update(pool=-1), id="wrong-pool"),
        pytest.param(lambda d: d["seat_changes"][0].update(name=""), id="empty-name"),
        pytest.param(lambda d: d["seat_changes"][0].update(kind="leave"), id="unknown-kind"),
        pytest.param(lambda d: d["seat_changes"][0].update(seat=0), id="unknown-key"),
        pytest.param(lambda d: d.update(seat_changes={}), id="not-a-list"),
        pytest.param(lambda d: d["seat_changes"].__setitem__(0, 3), id="not-an-object"),
    ],
)
def test_invalid_seat_changes_exit_2(mutate: Any) -> None:
    error = _invalid(mutate)
    assert error["message"].startswith("seat_changes")


def test_without_join_the_deals_do_not_fit_four_seats() -> None:
    doc = copy.deepcopy(export_document(_live()))
    del doc["seat_changes"]
    code, out = _score(doc)
    assert code == EXIT_INVALID and out["error"]["deal"] == 3
