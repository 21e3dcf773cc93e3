"""Seeded mutators: bytes, YAML documents and XML trees, from valid seed files.

Each mutator takes a ``random.Random`` and returns new bytes; the corpus of a test is
``[mutator(rng) for _ in range(count)]`` with a fixed seed, so a failure is reproduced
by its seed and index alone.
"""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET
from typing import Any

import yaml

# values that broke or could break loaders: huge, tiny, non-finite, wrong type, deep
NASTY: list[Any] = [
    None, 0, -1, 1, 1e9, -1e9, 1e308, -1e308, 1e-300, 10**50, -(10**40), 0.5,
    float("nan"), float("inf"), "", "x" * 5000, "é\u202e\x00", True, [], {}, [1, 2],
    {"a": 1}, "1e9", "nan", "-inf", [[[[[[[[[[1]]]]]]]]]], list(range(300)),
]  # fmt: skip
NASTY_ATTR = [
    "", "nan", "inf", "-inf", "1e308", "-1e308", "1e-320", "0", "-1", "a", "1 2",
    "1 2 3 4 5", "0 0 0", "1e9 1e9 1e9", "${x}", " ", "0x10", "1,2,3", "\u00e9",
]  # fmt: skip


def flip_bytes(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if b:
            b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def splice(rng: random.Random, data: bytes) -> bytes:
    i, j = sorted(rng.randrange(len(data) + 1) for _ in range(2))
    return data[:i] + data[i:j] * rng.randint(0, 3) + data[j:]


def byte_mutation(rng: random.Random, data: bytes) -> bytes:
    return rng.choice([flip_bytes, truncate, splice])(rng, data)


def _paths(node: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*path, i))
    return out


def _get(node: Any, path: tuple) -> Any:
    for p in path:
        node = node[p]
    return node


def yaml_mutation(rng: random.Random, text: str) -> bytes:
    """Replace, delete, duplicate or add one node of the parsed document."""
    doc = yaml.safe_load(text)
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(doc)
        path = rng.choice(paths)
        op = rng.random()
        if not path:
            if op < 0.1:
                doc = rng.choice(NASTY)
            continue
        parent = _get(doc, path[:-1])
        key = path[-1]
        if op < 0.55:
            parent[key] = copy.deepcopy(rng.choice(NASTY))
        elif op < 0.7:
            del parent[key]
        elif op < 0.8 and isinstance(parent, list):
            parent.extend([copy.deepcopy(parent[key])] * rng.randint(1, 50))
        elif op < 0.9 and isinstance(parent, dict):
            parent[rng.choice(["extra", "name", "type", "joints", "links"])] = rng.choice(NASTY)
        else:
            v = parent[key]
            parent[key] = {"nested": v} if rng.random() < 0.5 else [v]
    try:
        return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False).encode()
    except yaml.YAMLError:
        return text.encode()


def xml_mutation(rng: random.Random, text: bytes) -> bytes:
    """Change attributes, drop, duplicate or rename elements of the XML tree."""
    root = ET.fromstring(text)
    elems = list(root.iter())
    for _ in range(rng.randint(1, 4)):
        el = rng.choice(elems)
        op = rng.random()
        if op < 0.5 and el.attrib:
            el.set(rng.choice(list(el.attrib)), rng.choice(NASTY_ATTR))
        elif op < 0.65:
            for parent in elems:
                if el in list(parent):
                    parent.remove(el)
                    break
        elif op < 0.8:
            for parent in elems:
                if el in list(parent):
                    parent.append(copy.deepcopy(el))
                    break
        elif op < 0.9:
            el.tag = rng.choice(["link", "joint", "body", "geom", "xacro:macro", "origin", "zz"])
        else:
            el.set(rng.choice(["name", "type", "xyz", "pos", "size"]), rng.choice(NASTY_ATTR))
        elems = list(root.iter())
    return ET.tostring(root)


def any_mutation(rng: random.Random, data: bytes, kind: str) -> bytes:
    r = rng.random()
    if r < 0.25:
        return byte_mutation(rng, data)
    try:
        if kind == "yaml":
            return yaml_mutation(rng, data.decode())
        return xml_mutation(rng, data)
    except Exception:  # a seed the structured mutator cannot read: bytes instead
        return byte_mutation(rng, data)
