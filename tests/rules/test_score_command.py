"""``prefclub score FILE|-`` as :func:`app.commands.score.run_score` (PULKA_FORMAT.md)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.commands.score import run_score
from tests.rules.test_record import EXAMPLE

ROOT = Path(__file__).resolve().parents[2]
RUN = "import sys; from app.commands.score import run_score; " \
      "sys.exit(run_score(sys.argv[1], sys.stdout, sys.stdin))"  # fmt: skip


def _run(arg: str, stdin: str = "") -> tuple[int, dict]:
    proc = subprocess.run(
        [sys.executable, "-c", RUN, arg],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    return proc.returncode, json.loads(proc.stdout)


def test_scores_a_file(tmp_path: Path) -> None:
    path = tmp_path / "pulka.json"
    path.write_text(json.dumps(EXAMPLE, ensure_ascii=False), encoding="utf-8")
    code, out = _run(str(path))
    assert code == 0
    assert out["format"] == "pulka-score/1" and sum(out["settlement"]["rounded"]) == 0


def test_scores_stdin_and_reports_errors_as_one_json_object() -> None:
    code, out = _run("-", json.dumps(EXAMPLE))
    assert code == 0 and out["players"] == ["Anna", "Boris", "Vera"]
    bad = json.loads(json.dumps(EXAMPLE))
    bad["deals"][3]["tricks"]["0"] = 6
    code, out = _run("-", json.dumps(bad))
    assert code == 2
    assert out == {
        "error": {"deal": 3, "field": "tricks", "message": "tricks sum to 11, expected 10"}
    }


@pytest.mark.parametrize("text", ["{not json", "", "[1, 2]", '{"format": "pulka/1"}', "NaN"])
def test_malformed_input_exit_2(text: str) -> None:
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(text)) == 2
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    error = json.loads(lines[0])["error"]
    assert "deal" not in error and error["message"]


def test_missing_file_is_one_json_error(tmp_path: Path) -> None:
    out = io.StringIO()
    assert run_score(str(tmp_path / "nope.json"), out, io.StringIO()) == 2
    assert set(json.loads(out.getvalue())["error"]) == {"message"}


def test_directory_and_binary_file(tmp_path: Path) -> None:
    out = io.StringIO()
    assert run_score(str(tmp_path), out, io.StringIO()) == 2
    blob = tmp_path / "blob.json"
    blob.write_bytes(b"\xff\xfe\x00garbage")
    out = io.StringIO()
    assert run_score(str(blob), out, io.StringIO()) == 2
    assert json.loads(out.getvalue())["error"]["message"]


def test_deeply_nested_json() -> None:
    out = io.StringIO()
    assert run_score("-", out, io.StringIO("[" * 100000 + "]" * 100000)) == 2
    assert len(out.getvalue().splitlines()) == 1
