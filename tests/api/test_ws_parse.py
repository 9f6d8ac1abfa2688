"""The table socket reads a frame as ``json.loads`` would (app/api/ws.py ``_loads``): orjson
does the work when it can, and every frame it reads differently or refuses goes to ``json`` —
so the same frames are accepted, with the same values, and the same are refused."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.ws import _loads

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def _outcome(read: Any, frame: str) -> tuple[str, Any]:
    try:
        return "ok", read(frame)
    except (ValueError, RecursionError):
        return "refused", None


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same types (1 and 1.0 differ; NaN equals NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _check(frame: str) -> None:
    expected, got = _outcome(json.loads, frame), _outcome(_loads, frame)
    assert expected[0] == got[0], frame
    assert _same(expected[1], got[1]), frame


@settings(max_examples=500, deadline=None)
@given(VALUES, st.sampled_from([None, 0, 2]), st.booleans())
def test_json_texts_read_the_same(value: Any, indent: int | None, ascii_only: bool) -> None:
    _check(json.dumps(value, indent=indent, ensure_ascii=ascii_only))


@settings(max_examples=500, deadline=None)
@given(VALUES, st.integers(min_value=0, max_value=200), st.text(max_size=3))
def test_damaged_texts_read_or_fail_the_same(value: Any, cut: int, insert: str) -> None:
    text = json.dumps(value)
    _check(text[:cut] + insert + text[cut:])


def test_the_edges_read_the_same() -> None:
    for frame in [
        "",
        " ",
        "{}",
        "[1,]",
        "NaN",
        "-Infinity",
        "1e400",
        '"\\ud800"',
        '{"a":"\\udfff"}',
        '{"seq": 12345678901234567890123}',
        '{"a":1}{"b":2}',
        '{"a":"\\u0000"}',
        '{"a":1,"a":2}',
        "[" * 3000 + "]" * 3000,
        '{"a":"\t"}',
        '{"a": 01}',
        "\ufeff{}",
        '{"n": 9223372036854775807}',
        '{"n": -0.0}',
    ]:
        _check(frame)
