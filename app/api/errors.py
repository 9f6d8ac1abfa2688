"""Turning service errors into clear 4xx JSON errors (``{"detail": "..."}``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import HTTPException

from app.rules.errors import RulesError
from app.services.errors import ServiceError


@contextmanager
def service_errors() -> Iterator[None]:
    """Re-raise a :class:`ServiceError` (or a rules error) as an HTTPException.

    Raising rolls the request's transaction back, so a refused request changes nothing.
    """
    try:
        yield
    except ServiceError as exc:
        raise HTTPException(exc.status, str(exc)) from exc
    except RulesError as exc:
        raise HTTPException(400, str(exc)) from exc


ERROR_EXAMPLE = {"detail": "a player-readable reason"}
