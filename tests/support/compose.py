"""docker-compose.yml as the compose client resolves it, for the deployment tests.

``docker compose config`` (or Debian's ``docker-compose config``, which `make test` installs)
needs no Docker engine: it interpolates the ``.env`` file, validates the file against the
compose schema and prints the result. Without either client the file is loaded here with the
same ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?error}`` interpolation, so the structural
checks still run (only schema validation is then missing).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

PROJECT_ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = PROJECT_ROOT / "docker-compose.yml"
ENV_EXAMPLE = PROJECT_ROOT / "deploy" / "env.example"
VARIABLE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:-|:\?)(?P<arg>[^}]*))?\}")
TEST_SECRETS = {
    "SECRET_KEY": "a-test-secret-that-is-long-enough-for-the-app-to-accept",
    "POSTGRES_PASSWORD": "a-test-database-password",
}


class ComposeError(RuntimeError):
    """The compose client (or the fallback) refused the file."""


def compose_command() -> list[str] | None:
    """``docker compose`` when the plugin answers, else ``docker-compose``, else ``None``."""
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
        if probe.returncode == 0:
            return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


def filled_env_file(folder: Path, **overrides: str) -> Path:
    """deploy/env.example with its required secrets filled in (as an operator would)."""
    values = dict(TEST_SECRETS, **overrides)
    lines = []
    for line in ENV_EXAMPLE.read_text().splitlines():
        key = line.split("=", 1)[0]
        if not line.startswith("#") and "=" in line and key in values:
            line = f"{key}={values.pop(key)}"
        lines.append(line)
    lines += [f"{key}={value}" for key, value in values.items()]
    path = folder / ".env"
    path.write_text("\n".join(lines) + "\n")
    return path


def read_env_file(path: Path) -> dict[str, str]:
    """The ``KEY=value`` lines of an env file."""
    pairs = (
        line.split("=", 1)
        for line in path.read_text().splitlines()
        if line.strip() and not line.startswith("#") and "=" in line
    )
    return {key.strip(): value.strip() for key, value in pairs}


def _interpolate(text: str, env: dict[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        value = env.get(match["name"], "")
        if match["op"] == ":?" and not value:
            raise ComposeError(f"required variable {match['name']} is missing: {match['arg']}")
        if match["op"] == ":-" and not value:
            return match["arg"]
        return value

    return VARIABLE.sub(replace, text)


@dataclass(frozen=True)
class Resolved:
    """The resolved compose model and which client produced it."""

    model: dict[str, Any]
    client: str

    def service(self, name: str) -> dict[str, Any]:
        services = self.model["services"]
        assert name in services, f"no service {name!r} in docker-compose.yml"
        return dict(services[name])

    def environment(self, name: str) -> dict[str, str]:
        env = self.service(name).get("environment") or {}
        if isinstance(env, list):
            env = dict(item.split("=", 1) for item in env)
        return {str(key): str(value) for key, value in env.items()}

    def mounts(self, name: str) -> dict[str, str]:
        """Container path -> volume name or host path, for short and long volume syntax."""
        result = {}
        for volume in self.service(name).get("volumes") or []:
            if isinstance(volume, str):
                source, target = volume.split(":")[:2]
            else:
                source, target = str(volume.get("source")), str(volume["target"])
            result[target] = source
        return result

    def published_ports(self, name: str) -> set[tuple[int, int, str]]:
        """(host port, container port, protocol) of everything a service publishes."""
        ports = set()
        for port in self.service(name).get("ports") or []:
            if isinstance(port, str):
                spec, _, protocol = port.partition("/")
                host, container = spec.rsplit(":", 2)[-2:]
                ports.add((int(host), int(container), protocol or "tcp"))
            else:
                ports.add(
                    (int(port["published"]), int(port["target"]), str(port.get("protocol", "tcp")))
                )
        return ports


def resolve(env_file: Path, project_dir: Path = PROJECT_ROOT) -> Resolved:
    """``docker compose config`` of ``project_dir`` with ``env_file`` as its ``.env``."""
    command = compose_command()
    if command is None:
        env = read_env_file(env_file)
        text = _interpolate((project_dir / "docker-compose.yml").read_text(), env)
        return Resolved(yaml.safe_load(text), "fallback")
    result = subprocess.run(
        [
            *command,
            "--project-directory",
            str(project_dir),
            "--env-file",
            str(env_file),
            "-f",
            str(project_dir / "docker-compose.yml"),
            "config",
        ],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(env_file.parent)},
    )
    if result.returncode != 0:
        raise ComposeError(result.stderr.strip() or result.stdout.strip())
    return Resolved(yaml.safe_load(result.stdout), " ".join(command))
