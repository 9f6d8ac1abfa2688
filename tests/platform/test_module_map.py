"""docs/architecture.md's module map matches the tree of app/ (issue 25): every module is named
there by its path, and every path it names is a module."""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"


def _modules() -> set[str]:
    return {
        str(p.relative_to(ROOT)) for p in (ROOT / "app").rglob("*.py") if p.name != "__init__.py"
    }


def _mapped() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Module map\n", 1)
    assert len(section) == 2, "docs/architecture.md has no '## Module map' section"
    return re.findall(r"^- `(app/[^`]+\.py)` — \S", section[1], flags=re.MULTILINE)


def test_every_module_of_app_is_in_the_module_map() -> None:
    missing = sorted(_modules() - set(_mapped()))
    assert missing == [], f"add to docs/architecture.md's module map: {missing}"


def test_the_module_map_names_only_modules_that_exist_and_each_once() -> None:
    mapped = _mapped()
    assert sorted(set(mapped) - _modules()) == []
    assert len(mapped) == len(set(mapped))
