"""The lock files pin every dependency of pyproject.toml, exactly and with hashes.

`make run`, `make test` and the Dockerfile install from ``requirements.lock`` /
``requirements-test.lock`` with ``--require-hashes`` (the Makefile with uv, which pip installs
first from ``requirements-uv.lock``); adding a dependency to pyproject.toml without `make lock`
must fail here, not on a newcomer's machine.
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
RUN_LOCK = ROOT / "requirements.lock"
TEST_LOCK = ROOT / "requirements-test.lock"
UV_LOCK = ROOT / "requirements-uv.lock"
BUILD_INPUT = ROOT / "requirements-build.in"
PIN = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)"
    r"(?:\s*;\s*(?P<marker>[^\\]+?))?\s*\\?$"
)
HASH = re.compile(r"^\s+--hash=sha256:[0-9a-f]{64}\s*\\?$")


@dataclass(frozen=True)
class Pin:
    """One locked requirement: exact version, optional environment marker, its hashes."""

    name: str
    version: Version
    marker: str | None
    hashes: int


def parse_lock(path: Path) -> dict[str, Pin]:
    """The pins of a uv/pip-tools lock file by canonical name; any other line is an error."""
    pins: dict[str, Pin] = {}
    current: dict[str, object] | None = None
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if HASH.match(line):
            assert current is not None, f"{path.name}:{number}: a hash without a requirement"
            current["hashes"] = int(str(current["hashes"])) + 1
            continue
        match = PIN.match(line)
        assert match, f"{path.name}:{number}: not an exact pin or a hash: {line!r}"
        if current is not None:
            _close(pins, current)
        current = {
            "name": match["name"],
            "version": match["version"],
            "marker": match["marker"],
            "hashes": 0,
        }
    if current is not None:
        _close(pins, current)
    return pins


def _close(pins: dict[str, Pin], entry: dict[str, object]) -> None:
    name = canonicalize_name(str(entry["name"]))
    assert name not in pins, f"{name} is pinned twice"
    pins[name] = Pin(
        name,
        Version(str(entry["version"])),
        str(entry["marker"]) if entry["marker"] else None,
        int(str(entry["hashes"])),
    )


def pyproject() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)


def declared(extra: str | None) -> list[Requirement]:
    """What pyproject.toml asks for: the dependencies, the build requirements and the build
    tools of requirements-build.in, plus the ``extra`` when given."""
    data = pyproject()
    project = data["project"]
    build = data["build-system"]
    assert isinstance(project, dict) and isinstance(build, dict)
    names = list(project["dependencies"]) + list(build["requires"])
    names += [
        line.strip()
        for line in BUILD_INPUT.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    if extra is not None:
        names += list(project["optional-dependencies"][extra])
    return [Requirement(name) for name in names]


LOCKS = [
    pytest.param(RUN_LOCK, None, id="requirements.lock"),
    pytest.param(TEST_LOCK, "test", id="requirements-test.lock"),
]


@pytest.mark.parametrize(("lock", "extra"), LOCKS)
def test_every_line_is_an_exact_pin_with_hashes(lock: Path, extra: str | None) -> None:
    pins = parse_lock(lock)
    assert pins, f"{lock.name} pins nothing"
    unhashed = [pin.name for pin in pins.values() if pin.hashes == 0]
    assert not unhashed, f"{lock.name}: pins without a hash: {unhashed}"


@pytest.mark.parametrize(("lock", "extra"), LOCKS)
def test_lock_covers_every_declared_dependency(lock: Path, extra: str | None) -> None:
    pins = parse_lock(lock)
    problems = []
    for requirement in declared(extra):
        pin = pins.get(canonicalize_name(requirement.name))
        if pin is None:
            problems.append(f"{requirement} is not locked (run `make lock`)")
        elif not requirement.specifier.contains(pin.version, prereleases=True):
            problems.append(f"{requirement} but {lock.name} pins {pin.version} (run `make lock`)")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("lock", "extra"), LOCKS)
def test_lock_holds_every_transitive_dependency_installed_here(
    lock: Path, extra: str | None
) -> None:
    """Walk the installed packages' own requirements (extras included, markers of this
    machine): each one is locked, at the version that is installed."""
    pins = parse_lock(lock)
    environment = {str(k): str(v) for k, v in default_environment().items()}
    pending = [(requirement, "") for requirement in declared(extra)]
    seen: set[tuple[str, str]] = set()
    problems = []
    while pending:
        requirement, extra_of_parent = pending.pop()
        if requirement.marker and not requirement.marker.evaluate(
            {**environment, "extra": extra_of_parent}
        ):
            continue
        name = canonicalize_name(requirement.name)
        wanted_extras = sorted(requirement.extras) or [""]
        if all((name, e) in seen for e in wanted_extras):
            continue
        seen.update((name, e) for e in wanted_extras)
        pin = pins.get(name)
        if pin is None:
            problems.append(f"{name} (needed here) is not in {lock.name}")
            continue
        installed = Version(importlib.metadata.version(name))
        if installed != pin.version:
            problems.append(
                f"{name} {installed} is installed but {lock.name} pins "
                f"{pin.version}: reinstall with `make` or re-lock"
            )
        for line in importlib.metadata.requires(name) or []:
            pending.extend((Requirement(line), e) for e in wanted_extras)
    assert not problems, "\n".join(problems)


def test_runtime_pins_are_the_tested_pins() -> None:
    """The test install runs the same versions the server runs with."""
    run, test = parse_lock(RUN_LOCK), parse_lock(TEST_LOCK)
    differing = {
        name: (pin.version, test[name].version if name in test else None)
        for name, pin in run.items()
        if name not in test or test[name].version != pin.version
    }
    assert not differing, differing


def test_the_installer_is_the_tested_uv_with_the_same_hashes() -> None:
    """``requirements-uv.lock`` (what pip installs before uv installs the rest) is uv's pin of
    the test lock, line for line: a re-lock that moves uv moves it too (`make lock`)."""
    assert list(parse_lock(UV_LOCK)) == ["uv"]

    def uv_lines(path: Path) -> list[str]:
        lines = path.read_text().splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("uv=="))
        end = next(i for i in range(start, len(lines)) if not lines[i].endswith("\\"))
        return lines[start : end + 1]

    assert uv_lines(UV_LOCK) == uv_lines(TEST_LOCK)


def test_make_and_docker_install_from_the_locks_with_hashes() -> None:
    makefile = (ROOT / "Makefile").read_text()
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "INSTALL_LOCK = $(UV_INSTALL) --compile-bytecode --require-hashes -r" in makefile
    assert "INSTALL_UV = $(PIP) install --require-hashes -r $(UV_LOCK)" in makefile
    assert "$(INSTALL_UV) && $(INSTALL_LOCK) $(RUN_LOCK)" in makefile
    assert "$(INSTALL_UV) && $(INSTALL_LOCK) $(TEST_LOCK)" in makefile
    assert re.search(r"^\$\(RUN_STAMP\): pyproject.toml \$\(RUN_LOCK\)", makefile, re.M)
    assert re.search(r"^\$\(TEST_STAMP\): pyproject.toml \$\(TEST_LOCK\)", makefile, re.M)
    assert re.search(r"^lock:", makefile, re.M)
    assert "pip install --no-cache-dir --require-hashes -r requirements.lock" in dockerfile
    assert "--no-deps" in dockerfile
