"""Levels by name, the practice-table setting, and the hint a player may ask for."""

from __future__ import annotations

import pytest

from app.bots.levels import LEVELS, SearchStrategy, bot_level_of, hint, make_strategy
from app.bots.runner import BotRunner
from app.bots.strategy import Strategy
from tests.support.bot_deals import declarer_to_play, message, play_until


def test_each_level_makes_its_player() -> None:
    assert LEVELS == ("beginner", "club", "strong")
    assert type(make_strategy("beginner")) is Strategy
    club, strong = make_strategy("club"), make_strategy("strong")
    assert isinstance(club, SearchStrategy) and not club.evaluated
    assert isinstance(strong, SearchStrategy) and strong.evaluated
    assert strong.samples > club.samples
    with pytest.raises(ValueError, match="unknown bot level"):
        make_strategy("grandmaster")


@pytest.mark.parametrize(
    ("setting", "level"),
    [
        (None, "beginner"),
        ("beginner", "beginner"),
        ("club", "club"),
        ("strong", "strong"),
        ("STRONG", "beginner"),
        (3, "beginner"),
        ("", "beginner"),
    ],
)
def test_a_tables_setting_gives_its_level_and_anything_else_the_default(
    setting: object, level: str
) -> None:
    assert bot_level_of(setting) == level


async def test_the_runner_starts_bots_at_the_tables_level() -> None:
    runner = BotRunner(port=1)  # no server behind it: the bots only fail to connect
    seen: list[str] = []

    async def fake_table(
        table_id: int, cookies: list[str], claimed: bool, level: str = "beginner"
    ) -> None:
        seen.append(level)

    runner._table = fake_table  # type: ignore[method-assign]
    runner.spawn(1, [], "strong")
    runner.spawn(2, [])
    runner.spawn(3, [], "nonsense")
    for task in list(runner.tasks.values()):
        await task
    assert seen == ["strong", "beginner", "beginner"]


def test_a_hint_is_one_of_the_legal_moves_and_uses_only_the_message() -> None:
    for seed in range(200):
        state = play_until(seed, declarer_to_play(4))
        if state is not None:
            break
    assert state is not None and state.declarer is not None
    sent = message(state, state.declarer)
    move = hint(sent, seed=1)
    assert move in sent["legal"]
    assert hint(sent["deal"], sent["legal"], seed=1) == move  # a bare view with legal
    assert hint({"deal": sent["deal"], "legal": []}) is None  # nothing to do, no hint


def test_a_hint_during_the_auction_is_a_bid() -> None:
    state = play_until(3, lambda s: s.phase == "auction")
    assert state is not None and state.to_move is not None
    sent = message(state, state.to_move)
    move = hint(sent, seed=2)
    assert move is not None and move["type"] == "bid" and move in sent["legal"]
