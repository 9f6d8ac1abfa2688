"""The facts of a 422 ``invalid_input`` a page needs to say what is wrong in words (issue 28).

Pydantic's field errors come as a list of ``{loc, msg, type, ctx}`` in English. The page must
name the field and the limit in the member's language («Имя: не длиннее 100 символов»), so the
answer's ``params`` carry, for the first field at fault, its name, the kind of problem and the
limit: ``{"field": "display_name", "problem": "too_long", "limit": 100}``. The problems are a
small stable vocabulary (:data:`PROBLEMS`); the page keys its texts by them
(``static/js/i18n/common.js`` ``err.input.<problem>``). The input itself is never echoed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

PROBLEMS: dict[str, tuple[str, str | None]] = {
    "missing": ("required", None),
    "string_too_short": ("too_short", "min_length"),
    "string_too_long": ("too_long", "max_length"),
    "too_short": ("too_few", "min_length"),
    "too_long": ("too_many", "max_length"),
    "greater_than_equal": ("too_small", "ge"),
    "greater_than": ("too_small", "gt"),
    "less_than_equal": ("too_big", "le"),
    "less_than": ("too_big", "lt"),
    "string_pattern_mismatch": ("bad_format", None),
    "int_parsing": ("not_a_number", None),
    "int_from_float": ("not_a_whole_number", None),
    "float_parsing": ("not_a_number", None),
    "decimal_parsing": ("not_a_number", None),
    "bool_parsing": ("not_a_choice", None),
    "enum": ("not_a_choice", None),
    "literal_error": ("not_a_choice", None),
    "date_parsing": ("not_a_date", None),
    "date_from_datetime_parsing": ("not_a_date", None),
    "date_from_datetime_inexact": ("not_a_date", None),
    "time_parsing": ("not_a_time", None),
    "bad_character": ("bad_character", None),
}
"""Pydantic's error ``type`` → (our ``problem``, the ``ctx`` key holding its limit). Anything
else is ``invalid`` (a wrong type, a refused character...)."""

_WRAPPERS = frozenset({"body", "query", "path", "header", "cookie"})


def _field(loc: Sequence[Any]) -> str | None:
    """The innermost named field of ``loc`` (``["body", "seats", 2]`` → ``"seats"``)."""
    names = [part for part in loc if isinstance(part, str) and part not in _WRAPPERS]
    return names[-1] if names else None


def field_params(errors: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The ``params`` of a 422 for pydantic's ``errors``: the first field at fault, its problem
    and (when the rule has one) its limit; None when no error names a field."""
    for err in errors:
        field = _field(err.get("loc", ()))
        if field is None:
            continue
        problem, limit_key = PROBLEMS.get(str(err.get("type", "")), ("invalid", None))
        params: dict[str, Any] = {"field": field, "problem": problem}
        ctx = err.get("ctx") or {}
        if problem == "too_short" and ctx.get("min_length") == 1:
            problem = params["problem"] = "required"
        elif limit_key is not None and limit_key in ctx:
            limit = ctx[limit_key]
            params["limit"] = limit if isinstance(limit, int | float) else str(limit)
        return params
    return None
