"""``GET /api/presets`` (issue 25): every registered rule set's presets, as the pages draw them."""

from __future__ import annotations

import httpx

from app.rules import PRESET_NAMES, Conventions, rule_set_of


async def test_presets_describe_every_registered_preset(client: httpx.AsyncClient) -> None:
    """The answer lists each preset of the registry once, in its order, with what the lobby,
    the bidding box and the recording form need; no login is needed."""
    answer = await client.get("/api/presets")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["format"] == "presets/1"
    presets = {p["name"]: p for p in body["presets"]}
    assert [p["name"] for p in body["presets"]] == list(PRESET_NAMES)
    for name, item in presets.items():
        assert item["family"] == rule_set_of(name).name
        assert item["table_sizes"] == list(Conventions.preset_named(name).table_sizes())
        assert item["title"]["ru"] and item["title"]["en"]
        assert item["title"]["ru"] != item["title"]["en"] or name == "club"
    club, sochi = presets["club"], presets["sochi"]
    assert club["family"] == sochi["family"] == "club"
    assert club["table_sizes"] == [3, 4, 5] and len(club["ladder"]) == 25
    assert club["special_calls"] == ["pass", "here", "misere"] and club["talon"] == "take"
    assert "opening_bombs" not in club["overridable"] and "stalingrad" in club["overridable"]
    classic = presets["classic"]
    assert classic["ladder"] == ["6S", "6C", "6D", "6H"] and classic["talon"] == "buy"
    assert classic["named_calls"] == {"6H": "table.preferans"}
    assert classic["special_calls"] == ["pass"] and "redeal" in classic["record_kinds"]
    arabic = presets["arabic"]
    assert arabic["dark_calls"] and arabic["ladder_no_talon"] and arabic["table_sizes"] == [3, 4]
    assert "preferans" in arabic["special_calls"]
