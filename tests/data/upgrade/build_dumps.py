"""Rebuild the upgrade test's databases with the code of older commits (docs/formats.md).

    .venv/bin/python -m tests.data.upgrade.build_dumps [REVISION ...]

For each chosen commit (:data:`COMMITS`, or only the revisions named) this exports the commit
with ``git archive`` into a temporary folder, creates an empty database on the embedded
PostgreSQL of ``var/upgrade-build``, and runs :mod:`old_club` with ``PYTHONPATH`` at the old
checkout: that commit's migrations and that commit's services play a small club. The database
is then written with ``pg_dump --format=plain --no-owner --no-privileges`` (plain SQL survives a
PostgreSQL upgrade; the wheel's pg_dump of the server's major version) to
``<revision>-<commit>.sql.gz``, beside
``<revision>-<commit>.json``, the manifest of what the old code said (sheets, settlements, the
fund, the live table, the members' test passwords). ``tests/platform/test_upgrade_dumps.py``
upgrades each with ``prefclub migrate`` and checks the current code agrees.

The current ``.venv``'s packages run the old code (every chosen commit imports and plays with
them). Needs ``git`` and the repository's history.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from app.db.embedded import start_embedded
from tests.support.databases import drop_database, libpq_url, pg_program, scratch_database

HERE = Path(__file__).resolve().parent
PROJECT_ROOT = HERE.parents[2]
BUILD_DIR = PROJECT_ROOT / "var" / "upgrade-build"


@dataclass(frozen=True)
class OldCommit:
    """A commit of main whose schema head is ``revision``, and why it was chosen."""

    revision: str
    commit: str
    why: str

    @property
    def stem(self) -> str:
        return f"{self.revision}-{self.commit}"


COMMITS = (
    OldCommit(
        "0009",
        "331120c",
        "before recorded tables: fund (0004), seats and seat changes "
        "(0005), fund keys (0006), ws revocation (0008); four presets",
    ),
    OldCommit(
        "0013",
        "96a1648",
        "recorded tables (0010), analysis (0011), bot levels (0012), "
        "extension refusal (0013); four presets",
    ),
    OldCommit(
        "0014",
        "d64e7ec",
        "club settings (0014), the classic preset, before the archive "
        "rows of 0015 and before arabic",
    ),
    OldCommit(
        "0018",
        "787c2eb",
        "the deal chain (0016), the audit log (0017), seasons (0018); "
        "every preset with arabic, whose recorded pulka opens with a "
        "failed checked ten scored before issue 26's reading (0019)",
    ),
)


def build(old: OldCommit, base_url: str) -> None:
    """Play the club with ``old``'s code and write its dump and manifest under ``HERE``."""
    url, name = scratch_database(base_url)
    try:
        with tempfile.TemporaryDirectory(prefix=f"prefclub-{old.stem}-") as tmp:
            archive = subprocess.run(
                ["git", "archive", old.commit], cwd=PROJECT_ROOT, check=True, capture_output=True
            ).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            env = {
                **os.environ,
                "PYTHONPATH": tmp,
                "PREFCLUB_ENV": "test",
                "PREFCLUB_DATA_DIR": str(Path(tmp) / "var"),
            }
            manifest = HERE / f"{old.stem}.json"
            subprocess.run(
                [sys.executable, str(HERE / "old_club.py"), url, str(manifest)],
                cwd=tmp,
                env=env,
                check=True,
            )
        dump = subprocess.run(
            [
                pg_program(url, "pg_dump"),
                "--format=plain",
                "--no-owner",
                "--no-privileges",
                "--dbname",
                libpq_url(url),
            ],
            check=True,
            stdout=subprocess.PIPE,
        ).stdout
        (HERE / f"{old.stem}.sql.gz").write_bytes(gzip.compress(dump, mtime=0))
        print(f"{old.stem}: {len(dump) // 1024} KiB of SQL", flush=True)
    finally:
        drop_database(base_url, name)


def main(argv: list[str]) -> int:
    chosen = [c for c in COMMITS if not argv or c.revision in argv]
    if not chosen:
        print(
            f"unknown revision; choose from {', '.join(c.revision for c in COMMITS)}",
            file=sys.stderr,
        )
        return 2
    base_url = start_embedded(BUILD_DIR, "postgres")
    for old in chosen:
        build(old, base_url)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
