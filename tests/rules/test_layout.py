"""The shape of app/rules (issue 10): no import cycles, the record codec above the engine, one
place that copies a deal state, and only real field names handed to it.

These read the source (``ast``), so they fail on a layout regression, not on behaviour.
"""

from __future__ import annotations

import ast
import dataclasses
import pathlib

from app.rules import DealState

RULES = pathlib.Path(__file__).resolve().parents[2] / "app" / "rules"


def _modules() -> dict[str, ast.Module]:
    out: dict[str, ast.Module] = {}
    for path in sorted(RULES.rglob("*.py")):
        parts = path.relative_to(RULES.parent.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = ast.parse(path.read_text(encoding="utf-8"))
    return out


def _imports(tree: ast.Module, modules: set[str]) -> set[str]:
    """Every app.rules module ``tree`` imports, at any depth (function-level imports too)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if f"{node.module}.{alias.name}" in modules:
                    found.add(f"{node.module}.{alias.name}")
            if node.module in modules:
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    names = set(modules)
    # The package facade (app/rules/__init__.py) re-exports everything; it is the top, so its
    # edges cannot close a cycle unless a module imports the package itself, which is checked.
    return {name: _imports(tree, names) for name, tree in modules.items()}


def test_no_import_cycles_inside_app_rules() -> None:
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the stack, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = [*path[path.index(nxt) :], nxt] if nxt in path else [node, nxt]
                raise AssertionError(f"import cycle: {' -> '.join(cycle)}")
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_the_engine_never_imports_the_record_codec() -> None:
    graph = _graph()
    engine = [m for m in graph if m not in ("app.rules", "app.rules.scoring.record")]
    offenders = [m for m in engine if "app.rules.scoring.record" in graph[m]]
    assert offenders == []
    assert "app.rules" not in set().union(*graph.values())  # nothing imports the facade


def test_only_state_py_touches_a_dunder_dict() -> None:
    users = sorted(
        name
        for name, tree in _modules().items()
        if any(isinstance(n, ast.Attribute) and n.attr == "__dict__" for n in ast.walk(tree))
    )
    assert users == ["app.rules.deal.state"]


def test_every_evolve_call_names_real_fields() -> None:
    fields = {f.name for f in dataclasses.fields(DealState)}
    calls = 0
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "evolve"
            ):
                calls += 1
                named = {k.arg for k in node.keywords if k.arg is not None}
                assert named <= fields, f"{name}: evolve() with unknown fields {named - fields}"
    assert calls > 20  # the phases build every new state through it


def test_no_two_modules_of_the_engine_share_a_name() -> None:
    """Issue 25: one module per name in the whole engine (no ``auction.py`` beside
    ``phases/auction.py``), packages included."""
    names = [p.stem for p in RULES.rglob("*.py") if p.name != "__init__.py"]
    packages = [p.name for p in RULES.rglob("*") if p.is_dir() and p.name != "__pycache__"]
    duplicates = sorted({n for n in names + packages if (names + packages).count(n) > 1})
    assert duplicates == []
