"""The list of server English the Russian-page checks look for (tests/support/server_messages.py)
must hold the server's real refusals, or those checks would pass on anything (issue 11)."""

from __future__ import annotations

from tests.support.server_messages import english_in, english_messages


def test_the_collected_messages_hold_the_servers_refusals() -> None:
    found = english_messages()
    # a raise's detail, an f-string's literal part, a deal_refused reason (R-S1, R-S2)
    assert "this session is over" in found
    assert "the pulka at this table has ended" in found
    assert any(m.startswith("it is past 22:15: no new deal starts") for m in found)
    assert not any('"""' in m or "\n" in m for m in found)


def test_a_russian_text_with_server_english_or_a_rule_id_is_caught() -> None:
    assert english_in("Сдача 3 · торговля · Ваш ход") == []
    assert english_in("Стол ждёт: the session has ended (R-S3)") != []
    assert english_in("вист по правилу R-W4") == ["R-W4"]
    assert english_in("Ошибка: please try again later") != []
