"""``python -m bench.analysis`` (the deal analysis benchmark) deals whole, legal games and ends
with one JSON object."""

from __future__ import annotations

import json
import random

import pytest

from app.rules.core.play import legal_cards
from bench.analysis import bench_deal, main


def test_the_bench_deals_are_whole_legal_games() -> None:
    """32 cards once each; the declarer plays his twelve less the discard; every card followed
    suit when it could (R-W7)."""
    rng = random.Random(3)
    for _ in range(5):
        facts = bench_deal(rng)
        assert facts.declarer is not None
        seen = sum(facts.dealt.values()) | 1 << facts.talon[0] | 1 << facts.talon[1]
        assert seen == (1 << 32) - 1 and sum(h.bit_count() for h in facts.dealt.values()) == 30
        hands = dict(facts.dealt)
        hands[facts.declarer] |= 1 << facts.talon[0] | 1 << facts.talon[1]
        hands[facts.declarer] &= ~facts.discard
        assert facts.discard.bit_count() == 2 and len(facts.tricks) == 10
        trump = "SCDH".index(str(facts.contract)[-1])
        for trick in facts.tricks:
            led = trick[0][1] >> 3
            for position, card in trick:
                assert (
                    legal_cards(
                        hands[position], None if (position, card) == trick[0] else led, trump
                    )
                    >> card
                    & 1
                )
                hands[position] ^= 1 << card
        assert not any(hands.values())


def test_the_entry_point_ends_with_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--deals", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["deals"] == 1 and result["plays_complete"] in (0, 1)
    assert result["cpu_seconds_per_deal"]["median"] > 0
    assert result["seconds_per_deal"]["max"] >= result["seconds_per_deal"]["median"] > 0
