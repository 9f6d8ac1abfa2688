"""Which Debian Chromium the browser tests drive, and how it is launched.

The tests drive Debian's ``chromium-headless-shell`` (the same Chromium build as the ``chromium``
package, without the desktop browser around it) when it is installed: a page opened and logged
in costs 0.76 CPU s against 1.9 s in ``chromium --headless``, and a launch 0.12 against 0.44 s
(docs/testing.md). ``PREFCLUB_TEST_CHROMIUM`` names another binary; without either, the full
``/usr/bin/chromium`` is used. ``bench.browser`` (what a member's browser does) keeps the full one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bench.chromium_flags import CONTAINER_FLAGS, FULL_CHROMIUM

HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")


def chromium_path() -> Path:
    """The binary the browser tests launch: ``PREFCLUB_TEST_CHROMIUM``, else the headless shell
    when it is installed, else Debian's full chromium."""
    chosen = os.environ.get("PREFCLUB_TEST_CHROMIUM")
    if chosen:
        return Path(chosen)
    return HEADLESS_SHELL if HEADLESS_SHELL.exists() else FULL_CHROMIUM


def require_chromium() -> Path:
    """The binary to launch; the calling test or fixture is skipped when it is missing."""
    path = chromium_path()
    if not path.exists():
        pytest.skip(f"Debian's chromium is not installed at {path}")
    return path


def launch(playwright: Any) -> Any:
    """A headless Chromium from ``playwright`` (an entered ``sync_playwright()``); Playwright adds
    ``--headless`` itself."""
    return playwright.chromium.launch(executable_path=str(require_chromium()), args=CONTAINER_FLAGS)
