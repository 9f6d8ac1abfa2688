"""Debian's Chromium and the flags it needs in a container without a sandbox or a GPU, shared by
``bench.browser`` and the browser tests (tests/support/chromium.py)."""

from __future__ import annotations

import pathlib

FULL_CHROMIUM = pathlib.Path("/usr/bin/chromium")
"""Debian's desktop Chromium, run headless: what ``bench.browser`` measures a member's page in."""
CONTAINER_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""No sandbox or GPU here, and nothing fetched from the network behind a test's back."""
