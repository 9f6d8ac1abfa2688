"""Seed 003's own remizes in real-card records (K-14..K-16; issue 26), through the public engine
API and ``prefclub score``.

003, 19: «Если сдатчик или играющий посмотрит талон, то ставит ремиз в той масти, в которой
будет игра, и лишается права участвовать в игре на эту сдачу»; 25: «За объявление игры не по
порядку… ставится ремиз в той масти, в которой будут играть»; 26: «Точно так же ставится ремиз и
за пасовку прежде руки». One remiz of a suit is its value (K-9: ♠ 1, ♣ 2, ♦ 3, ♥ 4).
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from app.commands.score import run_score
from app.rules import Conventions, InvalidRecordError, score_document
from app.rules.scoring.penalties import catalogue_for

DEALS: list[dict[str, Any]] = [
    # Boris's 6♦, not whisted: 3 off (K-9). Anna (forehand) looked at the talon: one ♦ remiz, 3.
    {"dealer": 2, "type": "game", "declarer": 1, "contract": "6D",
     "defence": {"2": "pass", "0": "pass"},
     "penalties": [{"seat": 0, "rule": "talon_looked"}]},
    # Vera's 6♠ whisted by Anna, 6-2-2: made, 1 off; Anna has her two (K-11).
    # Boris called before his turn: one ♠ remiz, 1.
    {"dealer": 0, "type": "game", "declarer": 2, "contract": "6S",
     "defence": {"0": "whist", "1": "pass"}, "play": "closed",
     "tricks": {"2": 6, "0": 2, "1": 2},
     "penalties": [{"seat": 1, "rule": "declared_out_of_turn"}]},
    # Anna's 6♥ unwhisted: 4 off. Vera passed before her turn: one ♥ remiz, 4 (stated: checked).
    {"dealer": 1, "type": "game", "declarer": 0, "contract": "6H",
     "defence": {"1": "pass", "2": "pass"},
     "penalties": [{"seat": 2, "rule": "passed_out_of_turn", "hill": 4}]},
]  # fmt: skip


def record(deals: list[dict[str, Any]], players: int = 3) -> dict[str, Any]:
    return {
        "format": "pulka/1",
        "conventions": {"preset": "classic"},
        "players": ["Anna", "Boris", "Vera", "Gleb"][:players],
        "target": 20,
        "stake": "1",
        "first_dealer": deals[0]["dealer"],
        "deals": deals,
    }


def test_k14_k16_one_remiz_of_the_deals_suit_into_the_offenders_hill() -> None:
    """Hills: Anna 3 (K-14 on ♦), Boris 1 (K-15 on ♠), Vera 4 (K-16 on ♥). Pools: Boris 3
    (6♦), Vera 1 (6♠ made), Anna 4 (6♥). Nobody's whists (K-11): Anna took her two."""
    result = score_document(record(DEALS))
    assert result["sheet"]["hill"] == [3, 1, 4]
    assert result["sheet"]["pool"] == [4, 3, 1]
    assert result["sheet"]["whists"] == [[0, 0, 0]] * 3
    hills = [(e["deal"], e["seat"], e["amount"], e["rule"])
             for e in result["entries"] if e["column"] == "hill"]  # fmt: skip
    assert hills == [(0, 0, 3, "K-14"), (1, 1, 1, "K-15"), (2, 2, 4, "K-16")]


def test_prefclub_score_writes_003s_remizes() -> None:
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(record(DEALS)))) == 0
    assert json.loads(out.getvalue())["sheet"]["hill"] == [3, 1, 4]


def test_k14_the_seat_that_looked_at_the_talon_sat_the_deal_out() -> None:
    """He can neither declare nor whist that deal; the four-player dealer (R-T6, K-1) who
    looked is charged too ("сдатчик или играющий")."""
    declaring = {**DEALS[0], "penalties": [{"seat": 1, "rule": "talon_looked"}]}
    whisting = {**DEALS[1], "penalties": [{"seat": 0, "rule": "talon_looked"}]}
    for deal in (declaring, whisting):
        with pytest.raises(InvalidRecordError, match="out of the deal") as err:
            score_document(record([deal]))
        assert err.value.field == "penalties"
    dealer = {"dealer": 3, "type": "game", "declarer": 0, "contract": "6C",
              "defence": {"1": "pass", "2": "pass"},
              "penalties": [{"seat": 3, "rule": "talon_looked"}]}  # fmt: skip
    assert score_document(record([dealer], players=4))["sheet"]["hill"] == [0, 0, 0, 2]


def test_k15_k16_a_wrong_amount_or_a_redeal_is_refused() -> None:
    """A stated amount must be the suit's (♥ 4, not 2); a redeal has no suit (K-6); the
    sitting-out dealer made no call, so cannot have called out of turn."""
    wrong = {**DEALS[2], "penalties": [{"seat": 2, "rule": "passed_out_of_turn", "hill": 2}]}
    redeal = {"dealer": 0, "type": "redeal", "penalties": [{"seat": 1, "rule": "talon_looked"}]}
    dealer = {"dealer": 3, "type": "game", "declarer": 0, "contract": "6C",
              "defence": {"1": "pass", "2": "pass"},
              "penalties": [{"seat": 3, "rule": "declared_out_of_turn"}]}  # fmt: skip
    for deals, players in (([wrong], 3), ([redeal], 3), ([dealer], 4)):
        with pytest.raises(InvalidRecordError):
            score_document(record(deals, players))


def test_the_classic_catalogue_is_003s_and_the_scorers_correction_only() -> None:
    """K-13: the club's catalogue is not classic's; 004's entries are not either."""
    classic = catalogue_for(Conventions.preset_named("classic"))
    assert list(classic) == ["entry_error", "talon_looked", "declared_out_of_turn",
                             "passed_out_of_turn"]  # fmt: skip
    assert "talon_looked" not in catalogue_for(Conventions.preset_named("club"))
    assert "talon_looked" not in catalogue_for(Conventions.preset_named("arabic"))
