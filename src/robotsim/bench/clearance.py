"""``robotsim bench clearance``: ellipsoid-ellipsoid distance throughput, capsule- and
box-ellipsoid distance per pair (``core_ellipsoid``), the three-PUMA scenario at 10,000
samples, the fitted-volumes scenario (``two_puma_fitted_volumes``: box, capsules and
ellipsoids, in-process and as a ``robotsim clearance`` process), and N robots on a
floor at 1,000 samples (10 to 100).
Peers (coal, python-fcl) are timed on the same ellipsoid pairs and their error against
ours is reported when they are installed. ``ellipsoid_pairs_per_s_1thread_cpu``: one
thread's figure from its CPU time instead of wall time (what it would be on an otherwise
idle core; the machine may be shared)."""

from __future__ import annotations

import importlib.util
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.bench.timing import median_time
from robotsim.kinematics.threads import default_threads

__all__ = ["bench_pairs", "core_pairs", "run"]

SCENARIO = "three_puma_clearance"  # the shipped scenario, by name
FITTED = "two_puma_fitted_volumes"  # the shipped mixed-shape scenario, by name


def _rotations(n: int, rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    from robotsim.spatial import quat_to_R

    return quat_to_R(q)


def bench_pairs(n: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """``n`` random ellipsoid pairs (semi-axes 0.05-0.5 m, random orientations), every
    other pair overlapping (centres closer than the two smallest radii) and the rest
    separated (farther than the two largest radii, plus up to 0.5 m)."""
    rng = np.random.default_rng(seed)
    R = _rotations(2 * n, rng)
    rad = rng.uniform(0.05, 0.5, (2 * n, 3))
    u = rng.normal(size=(n, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    near = rad[:n].min(1) + rad[n:].min(1)
    far = rad[:n].max(1) + rad[n:].max(1)
    k = np.where(np.arange(n) % 2 == 0, rng.uniform(0, 1, n) * near, far + rng.uniform(0, 0.5, n))
    cA = rng.uniform(-1, 1, (n, 3))
    return cA, R[:n], rad[:n], cA + u * k[:, None], R[n:], rad[n:]


def core_pairs(kind: str, n: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """``n`` random pairs of a ``kind`` (``"capsule"``: radius 0.02-0.15 m, half length
    0-0.3 m; ``"box"``: half extents 0.02-0.3 m) and an ellipsoid (semi-axes 0.05-0.5
    m), random orientations, as ``(size, R, c)`` per side in the packed form of
    :mod:`robotsim.geometry.shapes`. Every other pair overlaps (centres closer than the
    two inscribed balls' radii), the rest are apart (farther than the two bounding
    balls' radii, plus up to 0.5 m)."""
    rng = np.random.default_rng(seed)
    R = _rotations(2 * n, rng)
    if kind == "capsule":
        rho = rng.uniform(0.02, 0.15, n)
        half = rng.uniform(0.0, 0.3, n)
        size = np.stack([rho, rho, half], axis=1)
        inner, outer = rho, rho + half
    else:
        size = rng.uniform(0.02, 0.3, (n, 3))
        inner, outer = size.min(1), np.linalg.norm(size, axis=1)
    rad = rng.uniform(0.05, 0.5, (n, 3))
    u = rng.normal(size=(n, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    near = inner + rad.min(1)
    far = outer + rad.max(1)
    k = np.where(np.arange(n) % 2 == 0, rng.uniform(0, 1, n) * near, far + rng.uniform(0, 0.5, n))
    c = rng.uniform(-1, 1, (n, 3))
    return size, R[:n], c, rad, R[n:], c + u * k[:, None]


def _core(quick: bool) -> dict[str, Any]:
    """Per-pair microseconds of capsule- and box-ellipsoid distances in one batch,
    separated and overlapping pairs apart (one thread)."""
    from robotsim.geometry.core_ellipsoid import box_ellipsoid, capsule_ellipsoid

    n = 2_000 if quick else 10_000
    out: dict[str, Any] = {"core_pairs": n}
    for kind, fn in (("capsule", capsule_ellipsoid), ("box", box_ellipsoid)):
        pairs = core_pairs(kind, n)
        fn(*(p[:10] for p in pairs))  # load the compiled kernels
        overlapping = np.arange(n) % 2 == 0
        for tag, sel in (("separated", ~overlapping), ("overlapping", overlapping)):
            sub = [p[sel] for p in pairs]
            t = median_time(partial(fn, *sub), repeats=3 if quick else 7)
            out[f"{kind}_ellipsoid_{tag}_us"] = t / len(sub[0]) * 1e6
    return out


def _fitted(repeats: int, warm_up: bool = True) -> dict[str, Any]:
    """The fitted-volumes scenario as ``robotsim clearance`` runs it (load, fit, sample,
    write the files): in this process (after a warm-up run) and as a fresh process
    (start-up and loading the compiled kernels included; the runs in this process have
    filled their cache), wall and CPU seconds, medians of ``repeats``. ``warm_up=False``
    (``--quick``): no warm-up, the in-process figure then includes loading the kernels."""
    from robotsim.clearance.report import stream_outputs
    from robotsim.clearance.scenario import load_scenario

    def in_process() -> tuple[float, float]:
        t0, c0 = time.perf_counter(), time.process_time()
        sc = load_scenario(FITTED)
        with tempfile.TemporaryDirectory() as tmp:
            stream_outputs(
                sc.scene, sc.trajectories, sc.dt, Path(tmp), t_end=sc.t_end, cutoff=sc.cutoff
            )
        return time.perf_counter() - t0, time.process_time() - c0

    def cli(tmp: str) -> tuple[float, float]:
        args = [sys.executable, "-m", "robotsim", "clearance", FITTED, "--out", tmp]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(args, cwd=tmp, env=_env(), stdout=subprocess.DEVNULL, check=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime

    if warm_up:
        in_process()  # warm-up: compiled kernels, file caches
    runs = [in_process() for _ in range(repeats)]
    with tempfile.TemporaryDirectory() as tmp:
        procs = [cli(tmp) for _ in range(repeats)]
    return {
        "fitted_volumes_s": statistics.median(w for w, _ in runs),
        "fitted_volumes_cpu_s": statistics.median(c for _, c in runs),
        "fitted_volumes_cli_s": statistics.median(w for w, _ in procs),
        "fitted_volumes_cli_cpu_s": statistics.median(c for _, c in procs),
    }


def _env() -> dict[str, str]:
    """This process's environment, with the robotsim being measured first on the path."""
    src = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": src if not path else f"{src}{os.pathsep}{path}"}


def _ellipsoids(quick: bool) -> dict[str, Any]:
    from robotsim.geometry import ellipsoid_distance

    n = 20_000 if quick else 100_000
    threads = default_threads()
    pairs = bench_pairs(n)
    ellipsoid_distance(*(p[:10] for p in pairs))
    t, t1, c1 = [], [], []
    cpu = time.thread_time
    for _ in range(3 if quick else 7):  # interleaved, so machine load hits both alike
        t.append(median_time(lambda: ellipsoid_distance(*pairs, check=False), 1, 0))
        t1.append(median_time(lambda: ellipsoid_distance(*pairs, check=False, threads=1), 1, 0))
        c1.append(
            median_time(lambda: ellipsoid_distance(*pairs, check=False, threads=1), 1, 0, clock=cpu)
        )
    res = ellipsoid_distance(*pairs)
    sep = res.distance > 0
    sub_s = [p[sep][:20_000] for p in pairs]
    sub_o = [p[~sep][:20_000] for p in pairs]
    ts = median_time(lambda: ellipsoid_distance(*sub_s, check=False, threads=1), repeats=5)
    to = median_time(lambda: ellipsoid_distance(*sub_o, check=False, threads=1), repeats=5)
    out: dict[str, Any] = {
        "ellipsoid_pairs": n,
        "ellipsoid_overlapping_fraction": float(np.mean(~sep)),
        "ellipsoid_pairs_per_s": n / float(np.median(t)),
        "ellipsoid_pairs_per_s_1thread": n / float(np.median(t1)),
        "ellipsoid_pairs_per_s_1thread_cpu": n / float(np.median(c1)),
        "ellipsoid_threads": threads,
        "ellipsoid_separated_us": ts / len(sub_s[0]) * 1e6,
        "ellipsoid_overlapping_us": to / len(sub_o[0]) * 1e6,
    }
    out["peers"] = _peers(pairs, res.distance, 2_000 if quick else 10_000)
    for peer in out["peers"].values():
        if isinstance(peer, dict):
            peer["ours_over_theirs_pairs_per_s"] = (
                out["ellipsoid_pairs_per_s"] / peer["pairs_per_s"]
            )
    return out


def _peers(pairs: tuple[np.ndarray, ...], ours: np.ndarray, m: int) -> dict[str, Any]:
    peers: dict[str, Any] = {}
    cA, RA, rA, cB, RB, rB = (p[:m] for p in pairs)
    ref = ours[:m]
    if importlib.util.find_spec("coal") is not None:
        import coal

        def coal_loop() -> np.ndarray:
            out = np.empty(m)
            req = coal.DistanceRequest()
            for i in range(m):
                res = coal.DistanceResult()
                ga = coal.Ellipsoid(*rA[i])
                gb = coal.Ellipsoid(*rB[i])
                out[i] = coal.distance(
                    ga, coal.Transform3s(RA[i], cA[i]), gb, coal.Transform3s(RB[i], cB[i]), req, res
                )
            return out

        peers["coal"] = _peer_figures(coal_loop, ref, "python loop over coal.distance (GJK/EPA)")
    if importlib.util.find_spec("fcl") is not None:
        import fcl

        def fcl_loop() -> np.ndarray:
            out = np.empty(m)
            req = fcl.DistanceRequest(enable_signed_distance=True)
            for i in range(m):
                oa = fcl.CollisionObject(fcl.Ellipsoid(*rA[i]), fcl.Transform(RA[i], cA[i]))
                ob = fcl.CollisionObject(fcl.Ellipsoid(*rB[i]), fcl.Transform(RB[i], cB[i]))
                out[i] = fcl.distance(oa, ob, req, fcl.DistanceResult())
            return out

        peers["python-fcl"] = _peer_figures(fcl_loop, ref, "python loop over fcl.distance")
    if not peers:
        peers["note"] = "neither coal nor python-fcl is installed"
    return peers


def _peer_figures(loop: Any, ref: np.ndarray, method: str) -> dict[str, Any]:
    d = loop()
    t = median_time(loop, repeats=3, warmup=0)
    sep = ref > 0
    err = np.abs(d - ref)
    # fcl reports penetration without a depth (often -1 or 0): count those apart
    return {
        "pairs_per_s": len(ref) / t,
        "method": method,
        "per_pair_us": t / len(ref) * 1e6,
        "separated_max_abs_error_m": float(err[sep].max()) if sep.any() else None,
        "separated_median_abs_error_m": float(np.median(err[sep])) if sep.any() else None,
        "overlapping_max_abs_error_m": float(err[~sep].max()) if (~sep).any() else None,
        "overlapping_median_abs_error_m": float(np.median(err[~sep])) if (~sep).any() else None,
    }


def _three_puma(quick: bool) -> float:
    from robotsim.clearance import run
    from robotsim.clearance.scenario import load_scenario

    sc = load_scenario(SCENARIO)
    end = max(t.end for t in sc.trajectories.values())
    dt = end / 9_999
    run(sc.scene, sc.trajectories, end / 99)
    return median_time(lambda: run(sc.scene, sc.trajectories, dt), repeats=3 if quick else 5)


def floor_scene(n_robots: int, seed: int = 0):  # type: ignore[no-untyped-def]
    """``n_robots`` PUMA 560 on a square grid 1.1 m apart, each with the paper's
    forearm ellipsoid and a fitted upper-arm ellipsoid, moving between random
    configurations (quintic, 4 s)."""
    from robotsim.clearance import (
        JointQuintic,
        PlacedRobot,
        Scene,
        Trajectory,
        fit_link_volume,
        paper_puma_end_link,
    )
    from robotsim.model import load_robot

    model = load_robot("puma560")
    vols = (paper_puma_end_link(), fit_link_volume(model, "link2"))
    rng = np.random.default_rng(seed)
    side = math.ceil(math.sqrt(n_robots))
    robots, trajs = [], {}
    lo = np.maximum(model.lower, -1.5)
    hi = np.minimum(model.upper, 1.5)
    for k in range(n_robots):
        T = np.eye(4)
        T[:2, 3] = [1.1 * (k % side), 1.1 * (k // side)]
        name = f"R{k:03d}"
        robots.append(PlacedRobot(name, model, vols, T))
        trajs[name] = Trajectory((JointQuintic(rng.uniform(lo, hi), rng.uniform(lo, hi), 4.0),))
    return Scene(tuple(robots)), trajs


def _floor(n_robots: int, quick: bool) -> dict[str, Any]:
    from robotsim.clearance import run

    scene, trajs = floor_scene(n_robots)
    dt = 4.0 / 999
    t0 = time.perf_counter()
    result = run(scene, trajs, dt, cutoff=0.5)
    t = time.perf_counter() - t0  # --quick: this run's time, no second run
    if not quick:
        t = median_time(lambda: run(scene, trajs, dt, cutoff=0.5), repeats=3, warmup=0)
    collide = sum(1 for p in result.pairs.values() if p.collision_intervals)
    return {
        "s": t,
        "pairs_checked": len(result.pairs),
        "all_pairs": n_robots * (n_robots - 1) // 2,
        "pairs_colliding": collide,
    }


def run(quick: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    out.update(_ellipsoids(quick))
    out.update(_core(quick))
    out["three_puma_10k_s"] = _three_puma(quick)
    out.update(_fitted(1 if quick else 5, warm_up=not quick))  # --quick: one of each
    growth = {}
    for n in (10, 25, 50, 100):
        growth[str(n)] = _floor(n, quick)
    out["robots100_1k_s"] = growth["100"]["s"]
    out["robots_1k_growth"] = growth
    out["threads"] = out["ellipsoid_threads"]
    return out
