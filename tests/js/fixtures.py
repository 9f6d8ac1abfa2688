"""The fixtures the JavaScript unit tests (``node --test tests/js``) read, made by the engine.

``python -m tests.js.fixtures`` writes ``tests/js/fixtures/reveals.json``; the test
``tests/rules/test_js_fixtures.py`` fails when the file is not what the engine makes now, so the
page's own deal check (static/js/table/verify.js, R-D3/R-D4) is proven against the server's.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from app.rules.core.deck import reveal, shuffled_deck

FIXTURE = Path(__file__).parent / "fixtures" / "reveals.json"
SEED = 20261203
VERSION = 1


def reveals() -> dict[str, Any]:
    """Seeded deals of every table size and dealer, with cuts from the least to the most."""
    rng = random.Random(SEED)
    deals = []
    for players in (3, 4, 5):
        for dealer in range(players):
            for cut in (4, 4 + rng.randrange(24), 28):
                deck = shuffled_deck(rng)
                salt = bytes(rng.randrange(256) for _ in range(16))
                deals.append(reveal(deck, salt, cut, players, dealer).to_json())
    return {"version": VERSION, "seed": SEED, "reveals": deals}


def render() -> str:
    """The fixture file's text."""
    return json.dumps(reveals(), indent=1) + "\n"


if __name__ == "__main__":
    FIXTURE.write_text(render(), encoding="utf-8")
