"""``prefclub``'s module loads light: a command imports what it uses when it runs.

Every worker a process pool of the server starts (``spawn``) re-imports the running
``__main__``: ``app.cli`` under ``python -m app.cli serve``, or the ``prefclub`` script that
imports it. Were the web app loaded at the top of ``app.cli``, each claim solver, hint or
print worker, and each ``prefclub score`` or ``verify``, would pay for all of it.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.server import PROJECT_ROOT

HEAVY = ("app.main", "fastapi", "uvicorn", "sqlalchemy.orm", "alembic", "fpdf", "app.api")
BESIDE_THE_RULES = (
    "app.config",
    "app.db",
    "pydantic",
    "pydantic_settings",
    "asyncio",
    "sqlalchemy",
)
"""What a spawned worker of the solver, the analyses or the hints (which import the rules
themselves) would load only because ``app.cli`` did: a quarter of a second of every worker's
start on a fast box."""


def _under(loaded: set[str], packages: tuple[str, ...]) -> list[str]:
    """The modules of ``loaded`` that are one of ``packages`` or inside one."""
    return sorted(m for m in loaded if any(m == p or m.startswith(p + ".") for p in packages))


def _loaded_after(statement: str) -> set[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_importing_the_command_line_loads_no_web_app() -> None:
    loaded = _loaded_after("import app.cli")
    assert "app.cli" in loaded
    assert _under(loaded, HEAVY) == []
    assert _under(loaded, BESIDE_THE_RULES) == []


def test_the_web_app_loads_fpdf_only_for_a_print_out() -> None:
    """``serve`` imports the whole web app; fpdf2 (with fontTools and Pillow) is loaded by the
    print worker when it makes a file, not by every server start."""
    loaded = _loaded_after("import app.main")
    assert "app.services.print_pdf" in loaded
    assert not {m for m in loaded if m.split(".")[0] in {"fpdf", "fontTools", "PIL"}}
    printed = _loaded_after(
        "from app.services.print_pdf import night_pdf\n"
        "from app.config import get_settings\n"
        "night = {'session': {'id': 1, 'starts_at': '2026-12-07 19:00'}, 'status': 'final',\n"
        "         'players': [], 'tables': [], 'fund': {'share': '0'}, 'corrections': []}\n"
        "assert night_pdf(night, str(get_settings().pdf_font)).startswith(b'%PDF')"
    )
    assert "fpdf" in printed


def test_the_luck_worker_loads_only_the_rules() -> None:
    """The analysis pool's luck worker imports the module of the function it runs
    (``app.services.luck_weighing.weigh_stored``): no SQLAlchemy, no models, no other service
    (``app.services.deal_luck``, which schedules the pass, made a worker's start about a second
    longer)."""
    loaded = _loaded_after("from app.services.luck_weighing import weigh_stored")
    assert "app.rules" in loaded
    assert not {m for m in loaded if m.split(".")[0] == "sqlalchemy"}
    assert not {m for m in loaded if m.startswith(("app.db", "app.api")) or m in HEAVY}
    assert {m for m in loaded if m.startswith("app.services.")} == {"app.services.luck_weighing"}
