"""Settings from the environment (pydantic-settings).

Every knob an operator turns is an environment variable: ``DATABASE_URL``, ``SECRET_KEY``,
``CLUB_TZ``, ``ALLOWED_ORIGINS``, ``HOST``, ``PORT``, ``PREFCLUB_ENV``, ``PREFCLUB_DATA_DIR``,
``FORWARDED_ALLOW_IPS``, ``PREFCLUB_DOCS``, ``PREFCLUB_METRICS_TOKEN``, ``PREFCLUB_BACKUP_DIR``,
``PREFCLUB_BACKUP_TIME``, ``PREFCLUB_BACKUP_KEEP``, ``PREFCLUB_LUCK``,
``PREFCLUB_ARGON2_MEMORY_KIB``, ``PREFCLUB_ARGON2_TIME_COST``.
Without ``DATABASE_URL`` the app runs an embedded PostgreSQL in the data folder. ``SECRET_KEY``
keys the HMACs under which login names and client addresses of password attempts are stored
(:mod:`app.security.ratelimit`); session and CSRF tokens are random and stored as SHA-256 hashes,
they are not signed. Without ``SECRET_KEY`` a development server generates one and keeps it in
the data folder (created 0700, the file 0600); production refuses to start without a real secret.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from datetime import time
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PLACEHOLDER_SECRETS = frozenset({"", "changeme", "change-me", "secret", "CHANGE_ME", "changethis"})
MIN_METRICS_TOKEN = 16
"""The shortest ``PREFCLUB_METRICS_TOKEN`` accepted (a bearer token must not be guessable)."""
SECRET_FILE_NAME = "secret_key"
ARGON2_LEAST_MEMORY_KIB = 7 * 1024
"""The least Argon2 memory accepted (KiB): OWASP's smallest recommended configuration."""
ARGON2_LEAST_WORK = 7 * 1024 * 5
"""The least memory × passes accepted (KiB): OWASP's recommended configurations of one lane
(47 MiB × 1, 19 MiB × 2, 12 MiB × 3, 9 MiB × 4, 7 MiB × 5) all reach it."""


class InsecureSettingsError(RuntimeError):
    """Raised when production is started with a missing or placeholder secret."""


class Settings(BaseSettings):
    """The server's configuration, read once from the environment."""

    model_config = SettingsConfigDict(env_file=None, extra="ignore", case_sensitive=False)

    database_url: str | None = Field(default=None, validation_alias="DATABASE_URL")
    data_dir: Path = Field(default=Path("var"), validation_alias="PREFCLUB_DATA_DIR")
    secret_key: str | None = Field(default=None, validation_alias="SECRET_KEY")
    environment: Literal["development", "production", "test"] = Field(
        default="development", validation_alias="PREFCLUB_ENV"
    )
    club_tz: str = Field(default="Europe/Moscow", validation_alias="CLUB_TZ")
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias="ALLOWED_ORIGINS"
    )
    host: str = Field(default="127.0.0.1", validation_alias="HOST")
    port: int = Field(default=8000, validation_alias="PORT")
    session_hours: int = Field(default=12 * 24, validation_alias="SESSION_HOURS")
    log_level: str = Field(default="INFO", validation_alias="LOG_LEVEL")
    log_format: Literal["auto", "json", "text"] = Field(
        default="auto", validation_alias="LOG_FORMAT"
    )
    """``auto``: readable lines on a terminal, JSON lines otherwise (app/logging_setup.py)."""
    forwarded_allow_ips: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias="FORWARDED_ALLOW_IPS"
    )
    """Reverse proxies (addresses or networks, or ``*``) whose ``X-Forwarded-For`` /
    ``Forwarded`` headers name the client; by default none is trusted."""
    docs_enabled: bool | None = Field(default=None, validation_alias="PREFCLUB_DOCS")
    """Serve ``/docs``, ``/redoc`` and ``/openapi.json``; by default everywhere but production."""
    metrics_token: str | None = Field(default=None, validation_alias="PREFCLUB_METRICS_TOKEN")
    """The bearer token ``/metrics`` asks for; unset (or empty): ``/metrics`` is off (404)."""
    header_timeout: float = Field(default=10.0, gt=0, validation_alias="HEADER_TIMEOUT")
    """Seconds a client has to send a request's headers (app.commands.http_protocol)."""
    incomplete_per_address: int = Field(default=8, ge=0, validation_alias="INCOMPLETE_PER_ADDRESS")
    """Stalled connections (waiting over 0.5 s for their headers) per client address; while
    that many stall a new one is closed at once (0: no limit, e.g. behind a reverse proxy)."""
    ws_frame_rate: float = Field(default=20.0, gt=0, validation_alias="WS_FRAME_RATE")
    """Frames per second a table socket may send, sustained (app.realtime.budget)."""
    ws_frame_burst: int = Field(default=40, ge=1, validation_alias="WS_FRAME_BURST")
    """Frames a table socket may send at once above :attr:`ws_frame_rate`."""
    ws_hello_timeout: float = Field(default=15.0, gt=0, validation_alias="WS_HELLO_TIMEOUT")
    """Seconds a new table socket has to send its ``hello`` before it is told so and closed."""
    ws_per_member: int = Field(default=8, ge=1, validation_alias="WS_PER_MEMBER")
    """Open table sockets per member (this process); the next one closes his oldest (4409)."""
    ws_per_address: int = Field(default=32, ge=1, validation_alias="WS_PER_ADDRESS")
    """Open table sockets per client address (this process); the next closes the oldest."""
    test_clock_file: Path | None = Field(default=None, validation_alias="PREFCLUB_TEST_CLOCK")
    """A file holding seconds to add to the server's clock (app.clock.FileOffsetClock); honoured
    only when ``PREFCLUB_ENV=test``, so browser tests can move a real server to 19:00 or 22:15."""

    backup_dir_setting: Path | None = Field(default=None, validation_alias="PREFCLUB_BACKUP_DIR")
    """Where the server's backups are kept; ``<data dir>/backups`` when unset (see
    :attr:`backup_dir`)."""
    backup_time: time = Field(default=time(4, 0), validation_alias="PREFCLUB_BACKUP_TIME")
    """The club's local time (``CLUB_TZ``) of the daily automatic backup, ``HH:MM``."""
    backup_keep: int = Field(default=14, ge=0, validation_alias="PREFCLUB_BACKUP_KEEP")
    """How many automatic backups (daily and after a session) the folder keeps; 0 turns the
    server's automatic backups off."""

    night_correction_seconds: int = Field(
        default=3600, ge=0, le=30 * 24 * 3600, validation_alias="NIGHT_CORRECTION_SECONDS"
    )
    """The correction window of a night's results (app.services.nights): seconds after the
    session end (or its last pulka's close, if later) during which the results are
    provisional; a correction after it is marked as made after the results were final."""
    luck_pass: bool = Field(default=True, validation_alias="PREFCLUB_LUCK")
    """Weigh every finished club deal in the background (docs/luck.md): its double-dummy
    analysis and the luck figures, newest deals first, then the archive's older ones."""
    pdf_font: Path = Field(
        default=Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
        validation_alias="PREFCLUB_PDF_FONT",
    )
    """A TrueType font with Cyrillic and the card suits for the PDF print-outs (Debian's
    ``fonts-dejavu-core``); when it is missing a PDF answers 503 ``pdf_font_missing``."""

    argon2_memory_kib: int = Field(
        default=64 * 1024, le=1024 * 1024, validation_alias="PREFCLUB_ARGON2_MEMORY_KIB"
    )
    """The memory (KiB) of one password hash (app.security.passwords): the library's 64 MiB by
    default; a small server may take less, never below OWASP's recommendations (see
    :data:`ARGON2_LEAST_WORK`). A member's stored hash is rewritten with the new cost at his
    next good login."""
    argon2_time_cost: int = Field(
        default=3, ge=1, le=20, validation_alias="PREFCLUB_ARGON2_TIME_COST"
    )
    """The passes of one password hash over its memory (3 by default)."""

    @model_validator(mode="after")
    def _argon2_floor(self) -> Settings:
        memory, passes = self.argon2_memory_kib, self.argon2_time_cost
        if memory < ARGON2_LEAST_MEMORY_KIB or memory * passes < ARGON2_LEAST_WORK:
            raise ValueError(
                f"PREFCLUB_ARGON2_MEMORY_KIB={memory} with PREFCLUB_ARGON2_TIME_COST={passes} "
                f"is below OWASP's least: at least {ARGON2_LEAST_MEMORY_KIB} KiB, and KiB × "
                f"passes at least {ARGON2_LEAST_WORK} (e.g. 19456 KiB × 2)"
            )
        return self

    @property
    def backup_dir(self) -> Path:
        """The backup folder: ``PREFCLUB_BACKUP_DIR``, else ``backups`` in the data folder."""
        return self.backup_dir_setting or self.data_dir / "backups"

    @field_validator("backup_time", mode="before")
    @classmethod
    def _clock_time(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                hours, minutes = (int(part) for part in value.strip().split(":"))
                return time(hours, minutes)
            except ValueError:
                raise ValueError(
                    f"PREFCLUB_BACKUP_TIME {value!r} is not a time of day such as 04:00"
                ) from None
        return value

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip().rstrip("/") for part in value.split(",") if part.strip()]
        return value

    @field_validator("forwarded_allow_ips", mode="before")
    @classmethod
    def _split_proxies(cls, value: object) -> object:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list):
            for entry in value:
                if entry != "*":
                    try:
                        ipaddress.ip_network(str(entry).strip(), strict=False)
                    except ValueError:
                        raise ValueError(
                            f"FORWARDED_ALLOW_IPS: {entry!r} is not an address or network"
                        ) from None
        return value

    @field_validator("metrics_token", mode="before")
    @classmethod
    def _metrics_token(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.strip()
            if not value:
                return None
            if len(value) < MIN_METRICS_TOKEN or value in PLACEHOLDER_SECRETS:
                raise ValueError(
                    f"PREFCLUB_METRICS_TOKEN must be at least {MIN_METRICS_TOKEN} "
                    "characters and not a placeholder (generate one with: python -c "
                    "'import secrets; print(secrets.token_urlsafe(32))')"
                )
        return value

    @property
    def production(self) -> bool:
        """Whether this is a production server (Secure cookies, HSTS, no public API docs)."""
        return self.environment == "production"

    @property
    def docs(self) -> bool:
        """Whether the interactive API docs are served."""
        return self.docs_enabled if self.docs_enabled is not None else not self.production

    @field_validator("club_tz")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"CLUB_TZ {value!r} is not a known IANA time zone") from None
        return value

    @property
    def zone(self) -> ZoneInfo:
        """The club's local time zone (R-S1)."""
        return ZoneInfo(self.club_tz)

    def origins(self) -> list[str]:
        """Origins allowed to open websockets: the configured list plus the server's own."""
        own = {
            f"http://{self.host}:{self.port}",
            f"http://localhost:{self.port}",
            f"http://127.0.0.1:{self.port}",
        }
        return sorted(own | set(self.allowed_origins))

    def resolved_secret(self) -> str:
        """The signing secret; generated and stored in the data folder when not configured."""
        if self.secret_key and self.secret_key not in PLACEHOLDER_SECRETS:
            return self.secret_key
        if self.environment == "production":
            raise InsecureSettingsError(
                "SECRET_KEY is missing or a placeholder; production refuses to start without a "
                "real secret (generate one with: python -c 'import secrets; "
                "print(secrets.token_urlsafe(48))')"
            )
        path = self.data_dir / SECRET_FILE_NAME
        if path.exists():
            stored = path.read_text().strip()
            if stored:
                return stored
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        generated = secrets.token_urlsafe(48)
        try:
            # Created readable by the owner only from its first byte, and never overwritten.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            stored = path.read_text().strip()  # another process was first
            if stored:
                return stored
            raise
        with os.fdopen(fd, "w") as out:
            out.write(generated + "\n")
        return generated


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (tests build their own Settings instead)."""
    return Settings()
