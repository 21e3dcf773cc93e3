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


def test_dumps_writes_null_with_the_reason_never_a_string_or_nan() -> None:
    import numpy as np

    from robotsim.jsonable import dumps, to_jsonable

    doc = {"margin": -np.inf, "t": [0.0, float("nan")], "ok": 1.5, "flag": np.bool_(True)}
    text = dumps(doc)
    back = json.loads(text)
    assert back["margin"] is None and back["t"] == [0.0, None] and back["flag"] is True
    assert back["null_reasons"] == {
        "margin": "-inf: not a finite number",
        "t[1]": "NaN: not a finite number",
    }
    assert "Infinity" not in text and "NaN" not in text.replace("NaN: not", "")
    assert to_jsonable(float("inf")) is None  # never the string "inf"
    assert json.loads(dumps({"a": 1})) == {"a": 1}  # nothing added when all is finite


def test_every_json_writer_is_strict() -> None:
    """Every ``json.dumps``/``json.dump`` in the package either is ``jsonable.dumps``
    or says ``allow_nan=False``: no file robotsim writes can hold NaN or Infinity."""
    import ast
    from pathlib import Path

    import robotsim

    root = Path(robotsim.__file__).parent
    loose = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "jsonable.py" and path.parent == root:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            f = node.func
            if not (isinstance(f.value, ast.Name) and f.value.id == "json"):
                continue
            if f.attr not in ("dumps", "dump"):
                continue
            strict = any(
                k.arg == "allow_nan"
                and isinstance(k.value, ast.Constant)
                and k.value.value is False
                for k in node.keywords
            )
            if not strict:
                loose.append(f"{path.relative_to(root)}:{node.lineno}")
    assert not loose, (
        "json.dumps without allow_nan=False (use robotsim.jsonable.dumps): " + ", ".join(loose)
    )
