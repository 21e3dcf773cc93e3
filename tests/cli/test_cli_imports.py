"""Importing the CLI (every command registered, ``--help`` printed) loads no engine and
no optional extra: they load when a command needs them, so start-up stays fast."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

# optional extras, engines and heavy libraries the CLI must not import up front
HEAVY = (
    "mujoco", "viser", "sqlalchemy", "pygame", "serial", "pyarrow", "psycopg",
    "numba", "matplotlib", "scipy", "trimesh", "dynamixel_sdk",
)  # fmt: skip
# ... nor, for help alone, the file validator (pydantic, ~0.1 s); listing the robots may
# need it, to build the library index when its cache is cold
AT_START = (*HEAVY, "pydantic")

PROBE = """
import contextlib, io, json, sys
import robotsim.cli
with contextlib.redirect_stdout(io.StringIO()) as out:
    rc = robotsim.cli.main(sys.argv[1:])
print(json.dumps({"rc": rc, "help": out.getvalue(),
                  "modules": sorted({m.split(".")[0] for m in sys.modules})}))
"""


def _imported_by(*argv: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], env=env, capture_output=True,
                          text=True, timeout=120, check=True)  # fmt: skip
    return json.loads(proc.stdout.splitlines()[-1])


def test_help_imports_no_engine_or_extra() -> None:
    got = _imported_by("--help")
    assert got["rc"] == 0
    assert "robots" in got["help"] and "motion" in got["help"]
    loaded = sorted(set(AT_START) & set(got["modules"]))
    assert not loaded, f"`robotsim --help` imported {loaded}"


def test_a_command_group_help_imports_no_engine_or_extra() -> None:
    for group in ("runs", "motion", "bench", "serve"):
        got = _imported_by(group, "--help")
        assert got["rc"] == 0, group
        loaded = sorted(set(AT_START) & set(got["modules"]))
        assert not loaded, f"`robotsim {group} --help` imported {loaded}"


def test_listing_robots_imports_no_engine_or_extra() -> None:
    got = _imported_by("robots", "--json")
    names = [r["name"] for r in json.loads(got["help"])["robots"]]
    assert "puma560" in names
    loaded = sorted(set(HEAVY) & set(got["modules"]))
    assert not loaded, f"`robotsim robots` imported {loaded}"
