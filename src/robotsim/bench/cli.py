"""``robotsim bench cli``: how long the command line takes to start.

Each figure is the median over repeats of a fresh ``python -m robotsim ...`` process,
run to completion: wall time (what a user waits, inflated by a busy machine) and the
CPU time the process used (user + system, steadier under load). ``python_start_s`` is
a bare ``python -c pass`` on the same machine, for scale. The target is <= 0.5 s for
``robotsim --help`` (``cli_start_s``) and ``robotsim robots`` (``cli_robots_s``).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["run"]

COMMANDS = {
    "python_start": ["-c", "pass"],
    "cli_start": ["-m", "robotsim", "--help"],
    "cli_robots": ["-m", "robotsim", "robots"],
}


def _env() -> dict[str, str]:
    """This process's environment, with the robotsim being measured first on the path."""
    src = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": src if not path else f"{src}{os.pathsep}{path}"}


def _time(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s) of one process running ``python args``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)  # fmt: skip
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def run(quick: bool = False) -> dict[str, Any]:
    repeats = 3 if quick else 7
    env = _env()
    out: dict[str, Any] = {"repeats": repeats}
    for key, args in COMMANDS.items():
        _time(args, env)  # warm-up: file caches, the library index
        samples = [_time(args, env) for _ in range(repeats)]
        out[f"{key}_s"] = statistics.median(w for w, _ in samples)
        out[f"{key}_cpu_s"] = statistics.median(c for _, c in samples)
    return out
