"""The deals the JavaScript deal check is tested on are the engine's own (R-D3, R-D4)."""

from __future__ import annotations

from app.rules.core.deck import DealReveal, verify_deal
from tests.js.fixtures import FIXTURE, render, reveals


def test_the_js_fixture_is_what_the_engine_deals_now() -> None:
    assert FIXTURE.read_text(encoding="utf-8") == render(), (
        "tests/js/fixtures/reveals.json is stale: python -m tests.js.fixtures"
    )


def test_every_fixture_deal_passes_the_engines_own_check() -> None:
    data = reveals()["reveals"]
    assert len(data) == 3 * (3 + 4 + 5)
    for item in data:
        fields = {k: v for k, v in item.items()}
        fields["deck"] = tuple(fields["deck"])
        fields["hands"] = tuple(tuple(h) for h in fields["hands"])
        fields["talon"] = tuple(fields["talon"])
        assert verify_deal(DealReveal(**fields))
