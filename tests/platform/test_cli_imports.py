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
    heavy = sorted(m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY))
    assert heavy == []
