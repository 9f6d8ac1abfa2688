"""``bench.browser`` (issue 28): one deal at a real table in three real Chromium pages, run as
the documented command is, ends with one JSON object whose figures are sane — every card clicked
was seen on the clicking page and on both other seats — and the figures are computed from what
the pages noted as documented (a card still on the cloth from before the click is not its
arrival)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.bots.harness import PROJECT_ROOT
from bench import browser
from tests.support.databases import drop_database, scratch_database

STATS = ("p50", "p90", "p99", "max")


@pytest.mark.browser
@pytest.mark.e2e
def test_one_deal_is_played_by_clicks_and_timed(database_url: str, tmp_path: Path) -> None:
    if not browser.CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium")
    pytest.importorskip("playwright.sync_api")
    url, name = scratch_database(database_url)
    out = tmp_path / "browser.json"
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.browser",
                "--deals",
                "1",
                "--think-ms",
                "0",
                "--engine-seconds",
                "0.3",
                "--stall",
                "20",
                "--out",
                str(out),
                "--json",
            ],
            cwd=PROJECT_ROOT,
            env={**os.environ, "DATABASE_URL": url},
            text=True,
            capture_output=True,
            timeout=150,
        )
    finally:
        drop_database(database_url, name)
    assert done.returncode == 0, done.stderr[-3000:]
    r = json.loads(done.stdout.strip().splitlines()[-1])
    assert json.loads(out.read_text()) == r  # the file is the same run's result
    # the first deal opens at six: everybody passes, and a pass-out plays every card by click
    assert (r["deals"], r["bids"], r["cards"]) == (1, 3, 30)
    assert r["missing_feedback"] == 0 and r["missing_on_other_seats"] == 0
    assert r["click_feedback_ms"]["n"] == r["cards"]
    assert r["card_to_other_seats_ms"]["n"] == 2 * r["cards"]
    assert r["bid_feedback_ms"]["n"] == 3
    for key in (
        "click_feedback_ms",
        "card_to_other_seats_ms",
        "click_feedback_paint_ms",
        "server_round_trip_ms",
        "event_to_dom_ms",
        "bid_feedback_ms",
    ):
        figures = [r[key][s] for s in STATS]
        assert figures[0] >= 0 and figures == sorted(figures), (key, r[key])
    # every command's first event came back to the clicking page and reached both others
    assert r["server_round_trip_ms"]["n"] == r["cards"]
    assert r["delivery_to_other_seats_ms"]["n"] == 2 * r["cards"]
    first = r["first_render_ms"]
    assert len(first["pages"]) == 3 and all(ms > 0 for ms in first["pages"])
    assert first["p50"] <= first["max"] == max(first["pages"])
    assert set(r["targets"]) == {
        "click_feedback_ms_p99_under_50",
        "card_to_other_seats_ms_p90_under_100",
        "first_render_ms_max_under_500",
    }
    assert all(isinstance(t["met"], bool) for t in r["targets"].values())
    assert r["server_errors"] == [] and r["page_errors"] == []
    assert r["engine_deals_per_s"] > 0


def test_a_card_is_timed_at_its_first_appearance_after_the_click() -> None:
    # page 0 clicks 7S at t=100; page 1 still shows 7S in the held trick of the last deal
    # (noted at t=50) and draws it in the new trick at t=130; page 2 draws it at t=140
    clicker = {
        "obs": [[120.0, 125.0, 40]],
        "appear": [["7S", 0, "trick"]],
        "gone": [["7S", 0]],
        "bidOff": [],
        "events": [[11, 110.0, "action"]],
        "acks": [["c1", 11, 121.0]],
        "clicks": [["card", "7S", 100.0, ["c1", "play_card", 10, 100.5]]],
    }
    held = {
        "obs": [[50.0, 60.0, 900], [130.0, 150.0, 900]],
        "appear": [["7S", 0, "trick-done"], ["7S", 1, "trick"]],
        "gone": [],
        "bidOff": [],
        "events": [[11, 125.0, "action"]],
        "acks": [],
        "clicks": [],
    }
    late = {
        "obs": [[140.0, None, 900]],
        "appear": [["7S", 0, "trick"]],
        "gone": [],
        "bidOff": [],
        "events": [[11, 128.0, "action"]],
        "acks": [],
        "clicks": [],
    }
    m = browser.measure([clicker, held, late])
    assert m["cards"] == 1 and m["missing_on_other_seats"] == 0
    assert m["click_feedback_ms"]["p50"] == 20.0
    assert m["click_feedback_paint_ms"]["p50"] == 25.0
    assert m["card_to_other_seats_ms"]["p50"] == 30.0 and m["card_to_other_seats_ms"]["max"] == 40
    assert m["card_to_other_seats_paint_ms"]["n"] == 1  # page 2 had not painted yet
    assert m["server_round_trip_ms"]["p50"] == 10.0 and m["server_ack_ms"]["p50"] == 21.0
    assert (
        m["delivery_to_other_seats_ms"]["n"] == 2 and m["delivery_to_other_seats_ms"]["max"] == 28
    )
    assert m["elements_built_per_card_event"]["p50"] == 900
    assert m["event_to_dom_ms"]["max"] == 12.0  # page 2: 140 - 128


def test_percentiles_are_nearest_rank() -> None:
    p = browser.percentiles([float(x) for x in range(1, 101)])
    assert (p["n"], p["p50"], p["p90"], p["p99"], p["max"]) == (100, 50, 90, 99, 100)
    assert browser.percentiles([])["n"] == 0
