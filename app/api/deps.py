"""Dependency aliases the routers share (``SessionDep``, ``SettingsDep``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db.session import session_scope


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """A session per request that commits when the handler returns and rolls back on error."""
    async with session_scope(request.app.state.sessionmaker) as session:
        yield session


def get_app_settings(request: Request) -> Settings:
    """The settings the app was created with."""
    settings: Settings = request.app.state.settings
    return settings


SessionDep = Annotated[AsyncSession, Depends(get_session)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
