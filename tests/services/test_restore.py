"""A restore script fitted to the server it runs on (app/services/restore.py): the client tools
are the wheel's newest, and their head's ``SET transaction_timeout`` is unknown to PostgreSQL
before 17 (``postgres:16`` of docker-compose.yml, a ``DATABASE_URL`` of 15)."""

from __future__ import annotations

from pathlib import Path

from app.services.restore import fit_script

UNKNOWN = b"SET transaction_timeout = 0;\n"
HEAD = b"--\n\\restrict abc\n\nSET statement_timeout = 0;\n" + UNKNOWN + b"SET x = 1;\n"
BODY = b"CREATE TABLE public.t (a text);\nCOPY public.t (a) FROM stdin;\n" + UNKNOWN + b"\\.\n"


def test_an_older_server_gets_the_head_without_the_setting_it_does_not_know(
    tmp_path: Path,
) -> None:
    script = tmp_path / "restore.sql"
    script.write_bytes(HEAD + BODY)
    fit_script(script, 160004)
    assert script.read_bytes() == HEAD.replace(UNKNOWN, b"") + BODY  # the data stays as it is


def test_a_server_that_knows_every_setting_gets_the_script_as_it_is(tmp_path: Path) -> None:
    script = tmp_path / "restore.sql"
    script.write_bytes(HEAD + BODY)
    fit_script(script, 170000)
    assert script.read_bytes() == HEAD + BODY
