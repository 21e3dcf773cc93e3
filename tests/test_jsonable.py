"""``robotsim.jsonable``: the bounded JSON reader (nesting, constants, encodings)."""

from __future__ import annotations

import json

import pytest

from robotsim.errors import InputError
from robotsim.jsonable import MAX_JSON_DEPTH, json_depth, read_json


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('["[[[[", "{{{"]', 1),  # brackets inside strings do not count
        ('["\\"[[[", []]', 2),  # nor after an escaped quote
        ("[" * 5000, 5000),
    ],
)
def test_json_depth_counts_like_the_parser(text: str, depth: int) -> None:
    assert json_depth(text.encode()) == depth
    if depth < 500 and text.count("[") == text.count("]"):
        assert read_json(text, "x", max_depth=max(depth, 1)) == json.loads(text)


def test_read_json_refuses_deep_nesting_before_parsing() -> None:
    deep = "[" * 100_000 + "]" * 100_000  # json.loads alone raises RecursionError
    with pytest.raises(InputError, match=f"body: JSON nested deeper than {MAX_JSON_DEPTH}"):
        read_json(deep, "body")
    ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert json_depth(ok.encode()) == MAX_JSON_DEPTH
    read_json(ok, "body")


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "{", b"\xff\xfe"])
def test_read_json_refuses_what_is_not_json(text: str | bytes) -> None:
    with pytest.raises(InputError, match="frame: not valid JSON"):
        read_json(text, "frame")
