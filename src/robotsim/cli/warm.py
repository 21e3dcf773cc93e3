"""``robotsim warm``: compile the numerical kernels now, once per install.

robotsim's kernels (kinematics, ellipsoid and shape distances, the minimum-volume
ellipsoid fit, obstacle avoidance, the lidar's ray casting) are compiled by numba the
first time they run and cached next to their modules. Without a warm cache the first
``robotsim clearance`` takes 15-20 s and the first ``fk`` about two seconds; afterwards
they start at full speed. ``warm`` runs small versions of the shipped workloads in separate
processes, so the compiled code is exactly what those commands use, and writes nothing
but the cache (outputs go to a temporary folder). ``scripts/setup.sh`` runs it after
installing and whenever a kernel module changed.

The workloads are split in two lanes that share no kernels, one per core: the geometry
lane (both clearance scenarios) holds most of the compile time; two processes compiling
the same kernels at once would each take as long as one alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import click

from robotsim.cli.common import echo_json

__all__ = ["LANES", "WarmResult", "register", "warm"]

Task = tuple[str, ...]

# "{out}/NAME" is replaced by a folder of the run's temporary directory.
LANES: tuple[tuple[Task, ...], ...] = (
    (  # ellipsoid, capsule/box-ellipsoid and depth-bound kernels, the MVEE fit, chain FK
        ("clearance", "two_puma_fitted_volumes", "--dt", "0.1", "--out", "{out}/fitted"),
        ("clearance", "three_puma_clearance", "--dt", "0.1", "--out", "{out}/three"),
        # the walk's whole-body IK and preview kernels (they share none with the above)
        ("walk", "humanoid17", "--distance", "0.2", "--no-strip", "--out", "{out}/walkdyn"),
    ),
    (  # anchored FK of the walk, tree FK of the hands, VFH avoidance, IK and Jacobians
        ("motion", "play", "walk_forward", "--no-strip", "--out", "{out}/walk"),
        ("run", "soccer_obstacles", "--duration", "0.2", "--out", "{out}/soccer"),
        ("run", "soccer_lidar", "--duration", "0.2", "--out", "{out}/lidar"),  # ray casting
        ("run", "hand_ball_transfer", "--duration", "0.1", "--out", "{out}/hands"),
        ("ik", "puma560", "--target", "0.5,-0.15,0.8"),
    ),
)


@dataclass(frozen=True)
class WarmResult:
    """One workload: its command line (after ``robotsim``), wall seconds, and the last
    line of its error output when it failed (``None`` when it ran)."""

    command: str
    seconds: float
    error: str | None


def _run(task: Task, out: Path) -> WarmResult:
    args = [a.replace("{out}", str(out)) for a in task]
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "robotsim", *args],
        cwd=out,  # the workspace root of the run: its outputs stay in the temporary folder
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - t0
    error = None
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        error = f"exit {proc.returncode}: {lines[-1] if lines else '(no output)'}"
    return WarmResult(" ".join(task).replace("{out}/", ""), seconds, error)


def warm(
    lanes: tuple[tuple[Task, ...], ...] = LANES,
    parallel: int | None = None,
    report: Callable[[WarmResult], None] | None = None,
) -> list[WarmResult]:
    """Run every lane's workloads (in order within a lane; ``parallel`` lanes at a time,
    default the machine's cores, at most the number of lanes). ``report(result)`` is
    called as each workload ends. Returns the results in lane order."""
    width = max(1, min(len(lanes), parallel or os.cpu_count() or 1))
    lock = threading.Lock()  # one report at a time

    with tempfile.TemporaryDirectory(prefix="robotsim-warm-") as tmp:
        out = Path(tmp)

        def lane(tasks: tuple[Task, ...]) -> list[WarmResult]:
            done = []
            for task in tasks:
                done.append(_run(task, out))
                if report is not None:
                    with lock:
                        report(done[-1])
            return done

        with ThreadPoolExecutor(max_workers=width) as pool:
            per_lane = list(pool.map(lane, lanes))
    return [res for results in per_lane for res in results]


@click.command("warm")
@click.option("--quiet", is_flag=True, help="Print only failures.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def warm_cmd(quiet: bool, as_json: bool) -> None:
    """Compile the numerical kernels now (once per install; numba caches them), so the
    first fk, clearance, motion or mobile run starts at full speed. Exit status 1 when
    a workload failed."""

    def say(res: WarmResult) -> None:
        if as_json or (quiet and res.error is None):
            return
        state = "ok" if res.error is None else f"FAILED ({res.error})"
        click.echo(f"warm: {res.command}: {state}, {res.seconds:.1f} s")

    t0 = time.perf_counter()
    results = warm(LANES, report=say)
    failed = [r for r in results if r.error is not None]
    if as_json:
        echo_json({"seconds": time.perf_counter() - t0, "failed": len(failed),
                   "workloads": [r.__dict__ for r in results]})  # fmt: skip
    elif not quiet:
        click.echo(f"warm: {len(results) - len(failed)} of {len(results)} workloads ran in "
                   f"{time.perf_counter() - t0:.1f} s; the kernels are cached")  # fmt: skip
    if failed:
        raise click.exceptions.Exit(1)


def register(group: click.Group) -> None:
    group.add_command(warm_cmd)
