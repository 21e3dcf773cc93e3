"""One line per built-in robot (what ``robotsim robots`` lists), cached on disk.

Building every library model parses YAML and computes poses, which costs far more than
the listing is worth at start-up; the summaries are kept in a small JSON file keyed by
the size and modification time of every library file and of the model code, so any
change to either rebuilds them. The cache lives in ``$ROBOTSIM_CACHE_DIR``, else
``$XDG_CACHE_HOME/robotsim``, else ``~/.cache/robotsim``; when it cannot be read or
written the summaries are simply computed.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from robotsim.jsonable import read_json
from robotsim.model.loader import LIBRARY_DIR, library_names, load_robot

__all__ = ["CACHE_ENV", "cache_dir", "library_index", "robot_summary"]

CACHE_ENV = "ROBOTSIM_CACHE_DIR"
_FORMAT = 1


def cache_dir() -> Path:
    """Where robotsim keeps caches (see the module docstring)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "robotsim"


def robot_summary(name: str) -> dict[str, Any]:
    """``{name, dof, kind, links, description}`` of library robot ``name``."""
    m = load_robot(name)
    return {"name": name, "dof": m.nq, "kind": m.kind, "links": len(m.links),
            "description": m.metadata.get("description", "")}  # fmt: skip


def _key() -> list[list[Any]]:
    files = sorted(LIBRARY_DIR.glob("*.yaml")) + sorted(Path(__file__).parent.glob("*.py"))
    out: list[list[Any]] = [[_FORMAT]]
    for f in files:
        st = f.stat()
        out.append([f.name, st.st_size, st.st_mtime_ns])
    return out


def _cache_file() -> Path:
    where = hashlib.sha1(str(LIBRARY_DIR.resolve()).encode()).hexdigest()[:12]
    return cache_dir() / f"library-{where}.json"


def library_index() -> list[dict[str, Any]]:
    """:func:`robot_summary` of every built-in robot, in :func:`library_names` order."""
    key = _key()
    path = _cache_file()
    try:
        data = read_json(path.read_bytes(), str(path))
        if data["key"] == key:
            return list(data["robots"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    rows = [robot_summary(name) for name in library_names()]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": key, "robots": rows}, allow_nan=False), encoding="utf-8")
        tmp.replace(path)  # atomic: a concurrent reader sees the old or the new file
    except OSError:
        pass
    return rows
