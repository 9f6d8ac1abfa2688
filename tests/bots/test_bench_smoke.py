"""``python -m bench.bots`` end to end on a few deals: the JSON it prints and writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.bots import ROTATIONS, interval, main


def test_twenty_deals_duplicate_run_prints_the_documented_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bots.json"
    main(
        [
            "--deals",
            "20",
            "--seed",
            "3",
            "--pairs",
            "strong:beginner",
            "--workers",
            "1",
            "--budget",
            "0.05",
            "--json",
            "--out",
            str(out),
        ]
    )
    last = capsys.readouterr().out.strip().splitlines()[-1]
    result = json.loads(last)
    assert result == json.loads(out.read_text())
    assert result["deals"] == 24 and result["boards"] == 4  # 20 deals asked: 4 boards × 6
    (pair,) = result["pairs"]
    assert (pair["a"], pair["b"]) == ("strong", "beginner")
    lo, hi = pair["ci95"]
    assert lo <= pair["whists_per_deal"] <= hi and lo < hi
    assert pair["seconds_per_card"] > 0


def test_each_strategy_sits_in_every_seat_alone_and_in_pairs() -> None:
    for seat in range(3):
        assert {r[seat] for r in ROTATIONS} == {"a", "b"}
    assert sorted(r.count("a") for r in ROTATIONS) == [1, 1, 1, 2, 2, 2]


def test_the_interval_is_mean_plus_minus_1_96_standard_errors() -> None:
    mean, lo, hi = interval([1.0, 3.0, 5.0, 7.0])
    assert mean == 4.0
    assert hi - mean == pytest.approx(1.96 * (20 / 3) ** 0.5 / 2)
    assert mean - lo == pytest.approx(hi - mean)


def test_unknown_levels_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--deals", "2", "--pairs", "strong:grandmaster"])
    assert exit_info.value.code == 2
    assert "unknown level" in capsys.readouterr().err
