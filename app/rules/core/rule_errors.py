"""Typed errors of the rules core.

Every illegal action or malformed input raises a subclass of :class:`RulesError`, which is a
``ValueError``; its message is written for a player to read ("you must follow ♥").
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every error the rules core raises."""


class IllegalActionError(RulesError):
    """An action that the rules do not allow at this moment (out of turn, wrong card, low bid)."""


class InvalidConventionError(RulesError):
    """An unknown convention name or a value the convention does not accept."""


class InvalidRecordError(RulesError):
    """A pulka record or deal outcome that cannot have happened under the rules.

    ``deal`` is the index of the offending deal (``None`` for errors outside the deals) and
    ``field`` names the offending field, as the ``pulka/1`` error object reports them;
    ``facts`` the figures the message names (``{"total": 11}``), for a page to say them in words.
    """

    def __init__(
        self,
        message: str,
        *,
        deal: int | None = None,
        field: str | None = None,
        facts: dict[str, int] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.deal = deal
        self.field = field
        self.facts = dict(facts or {})
