"""The page's words for the refusals and closes of issue 24, in real Chromium: a late check-in
names the session's own start from the error's params (an extra session at 10:02, not 19:00),
the body cap and the table socket's 4409/4429 closes read in Russian, then in English."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_ui import new_page
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

WORDS = """async (lang) => {
  const i18n = await import("/static/js/i18n.js");
  const api = await import("/static/js/api.js");
  i18n.setLang(lang);
  return {
    late: api.errorText(409, "late_without_notice", {start: "10:02", starts_at: "x"}, "detail"),
    notice: api.errorText(409, "late_notice_closed", {start: "10:02"}, "detail"),
    opens: api.errorText(409, "check_in_not_open", {start: "10:02", opens: "04:02"}, "detail"),
    big: api.errorText(413, "too_large", {limit: 65536}, "detail"),
    flooded: i18n.t("table.flooded"),
    replaced: i18n.t("table.replaced"),
  };
}"""


def test_refusals_name_the_sessions_own_times_in_both_languages(
    server: ServerProcess, browser: Any
) -> None:
    page = new_page(browser)
    page.goto(server.base_url + "/")
    ru = page.evaluate(WORDS, "ru")
    assert "10:02" in ru["late"] and "19:00" not in ru["late"] and "опоздании" in ru["late"]
    assert "10:02" in ru["notice"] and "04:02" in ru["opens"]
    assert "слишком большой" in ru["big"]
    assert "сообщений" in ru["flooded"] and "вкладке" in ru["replaced"]
    en = page.evaluate(WORDS, "en")
    assert "10:02" in en["late"] and "detail" not in en["late"]
    assert "04:02" in en["opens"] and "too large" in en["big"]
    assert not page.js_errors
