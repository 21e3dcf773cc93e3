"""``robotsim bench physics``: real-time factors of the mobile-robot worlds and the cost of
our step loop over MuJoCo's.

- ``soccer_rtf``: the shipped ``soccer_obstacles`` scenario with its VFH + PID controller at
  50 Hz and run-store (SQLite) recording at 50 Hz (simulated seconds per wall second).
- ``loop_overhead_pct``: ``World.step`` per control tick (10 physics steps: motor targets,
  divergence checks) against a bare ``mujoco.mj_step(model, data, 10)`` on the same
  compiled model and state, in percent; ``loop_overhead_single_step_pct`` does the same
  one step per call (Python call overhead dominates there).
- ``soccer_rtf_2ms``: the same scenario stepped at 2 ms instead of its own 4 ms.
- ``mj_step_us``: one bare ``mj_step`` of the soccer scene (from the run's own state,
  warm start included); ``mj_step_bare_robot_us`` the same robot alone on the ground.
- ``robots10_rtf``: ten omni robots with VFH + PID controllers in one world (the soccer
  scenario's step, robots colliding with each other), recording on;
  ``mj_step_robots10_us`` one bare ``mj_step`` of that world driven 2 s (60 wheel
  contacts, solved as one problem, ``physics.compile.islands_for``) and
  ``mj_step_robots10_islands_us`` the same with MuJoCo's per-island solving forced on.
- ``integrator``: the MuJoCo integrator the soccer scene steps with by default
  (``Scene(integrator="auto")``: Euler for wheeled bases, see
  ``physics.compile.integrator_for`` and docs/performance.md);
  ``soccer_rtf_implicitfast`` and ``mj_step_implicitfast_us``: the same forced to
  ``implicitfast`` (the default before ``auto``).
- ``soccer_rtf_norec``: the soccer run without recording (what the run store costs).
- ``servo_hold_rtf_<feedforward>``: the library PUMA 560 (welded) holding a pose on
  position servos with ``feedforward`` ``none``, ``gravity`` (MuJoCo's gravity
  compensation every step) and ``inverse_dynamics`` (``mj_rne`` every 10 ms chunk),
  targets set every 10 ms; ``servo_stand_rtf_<feedforward>`` humanoid17 (floating)
  standing on its servos, ``none`` and ``gravity`` (subtree gravity torques every 10 ms
  chunk); CPU-time real-time factors (``physics.feedforward``).
- ``peers.pybullet``: the soccer robot rebuilt in PyBullet, bare steps against our bare
  ``mj_step`` (:mod:`robotsim.bench.pybullet_peer`), when PyBullet is installed.

Medians of repeats, measurements of ours and the bare loop interleaved so machine load
hits both alike. ``*_rtf_cpu`` divide by this process's CPU time instead of wall time
(what the figure would be on an otherwise idle core). ``*_rtf_unqueued`` (Linux) divide
by the wall time less the time the simulation thread was ready to run but waited for a
core (``/proc/self/task/TID/schedstat``): the figure on a machine that other processes
do not load, waits for the writer thread and the database included; ``loadavg`` is the
1-minute load average before and after the bench.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import tempfile
import threading
import time
from typing import Any

import numpy as np

from robotsim.mobile import MobileRun, load_mobile
from robotsim.recording import Recorder
from robotsim.scenario_yaml import read_scenario_yaml

__all__ = ["run"]


def _soccer_data() -> dict[str, Any]:
    return read_scenario_yaml("soccer_obstacles")  # the shipped scenario, by name


def _queued_s() -> float:
    """Seconds this thread has waited, ready to run, for a core (Linux; else 0)."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as f:
            return int(f.read().split()[1]) * 1e-9
    except (OSError, IndexError, ValueError):
        return 0.0


def _rtf(
    data: dict[str, Any], seconds: float, implicitfast: bool = False, record: bool = True
) -> tuple[float, float, float]:
    """(wall-clock RTF, CPU-time RTF, unqueued RTF) of a mobile scenario recording into the run
    store (SQLite, as ``robotsim run`` does by default; ``record=False``: no recording);
    ``implicitfast``: stepped with MuJoCo's ``implicitfast`` instead of the scene's
    own integrator (``auto``)."""
    import mujoco

    sc, robots, obstacles = load_mobile(data, "bench")
    with tempfile.TemporaryDirectory() as tmp:
        rec = Recorder(tmp) if record else None
        if rec is not None:
            rec.start_run(sc.name)
        run = MobileRun(sc, robots, obstacles, recorder=rec)
        if implicitfast:
            run.world.model.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
        q0, t0, c0 = _queued_s(), time.perf_counter(), time.process_time()
        run.run(seconds)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        queued = _queued_s() - q0
        if rec is not None:
            rec.finish("completed")
            rec.close()
    sim = run.world.time
    return sim / wall, sim / max(cpu, 1e-9), sim / max(wall - queued, 1e-9)


def _fleet(n: int, timestep: float) -> dict[str, Any]:
    return {
        "kind": "mobile", "name": f"fleet{n}", "duration": 10.0, "robots_collide": True,
        "timestep": timestep,
        "robots": [{"name": "omni", "model": "omni3", "start": [-8, -6, 0],
                    "goal": [6, -6, 90], "count": n, "spacing": [0, 1.2],
                    "controller": {"avoidance": "vfh"}}],
    }  # fmt: skip


def _settled(data: dict[str, Any]) -> Any:
    """A soccer-style run driven 2 s (wheels turning, contacts active)."""
    sc, robots, obstacles = load_mobile(data, "bench")
    run = MobileRun(sc, robots, obstacles)
    run.run(2.0)
    return run


def _overhead(quick: bool) -> dict[str, float]:
    """``World.step`` against bare ``mj_step`` on the same state, and the bare step of
    the soccer scene against a bare scene of the same robot (no obstacles).

    Each measurement restarts from the full integration state (``mj_setState`` with
    ``mjSTATE_INTEGRATION``: positions, velocities, controls and the solver's warm
    start), so every repeat solves the same contacts as the run did."""
    import mujoco

    data = _soccer_data()
    run = _settled(data)
    bare_run = _settled(dict(data, obstacles={"layout": "fixed", "positions": []}))
    fleet_run = _settled(_fleet(10, float(data.get("timestep", 0.002))))
    world = run.world
    spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)

    def snapshot(m: Any, d: Any) -> np.ndarray:
        state = np.empty(mujoco.mj_stateSize(m, spec))
        mujoco.mj_getState(m, d, state, spec)
        return state

    saved = snapshot(world.model, world.data)
    bare_saved = snapshot(bare_run.world.model, bare_run.world.data)
    fleet_saved = snapshot(fleet_run.world.model, fleet_run.world.data)
    n = run.steps_per_tick
    ticks = 200 if quick else 1000

    def restore(m: Any, d: Any, state: np.ndarray) -> None:
        mujoco.mj_setState(m, d, state, spec)
        mujoco.mj_forward(m, d)

    def ours(k: int) -> float:
        restore(world.model, world.data, saved)
        world._next_check = world.data.time + world.check_interval
        t0 = time.perf_counter()
        for _ in range(ticks):
            world.step(k)
        return time.perf_counter() - t0

    def bare(k: int, w: Any = world, state: np.ndarray = saved) -> float:
        m, d = w.model, w.data
        restore(m, d, state)
        t0 = time.perf_counter()
        for _ in range(ticks):
            mujoco.mj_step(m, d, k)
        return time.perf_counter() - t0

    out = {}
    for label, k in (("loop_overhead_pct", n), ("loop_overhead_single_step_pct", 1)):
        ratios = []
        for _ in range(5 if quick else 9):
            a, b = ours(k), bare(k)
            ratios.append(a / b)
        out[label] = (statistics.median(ratios) - 1.0) * 100.0
    scene, alone, implicit, fleet, fleet_islands = [], [], [], [], []
    own = world.model.opt.integrator
    fleet_opt = fleet_run.world.model.opt
    own_flags = int(fleet_opt.disableflags)
    for _ in range(3 if quick else 7):  # interleaved, so machine load hits all alike
        scene.append(bare(n))
        alone.append(bare(n, bare_run.world, bare_saved))
        world.model.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
        implicit.append(bare(n))
        world.model.opt.integrator = own
        fleet.append(bare(n, fleet_run.world, fleet_saved))
        fleet_opt.disableflags = own_flags & ~int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
        fleet_islands.append(bare(n, fleet_run.world, fleet_saved))
        fleet_opt.disableflags = own_flags
    out["mj_step_us"] = statistics.median(scene) / (ticks * n) * 1e6
    out["mj_step_bare_robot_us"] = statistics.median(alone) / (ticks * n) * 1e6
    out["mj_step_implicitfast_us"] = statistics.median(implicit) / (ticks * n) * 1e6
    out["mj_step_robots10_us"] = statistics.median(fleet) / (ticks * n) * 1e6
    out["mj_step_robots10_islands_us"] = statistics.median(fleet_islands) / (ticks * n) * 1e6
    out["mj_step_robots10_contacts"] = int(fleet_run.world.data.ncon)
    out["mj_step_contacts"] = int(world.data.ncon)
    out["mj_step_bare_robot_contacts"] = int(bare_run.world.data.ncon)
    return out


def _servo_rtf(robot: str, feedforward: str, seconds: float) -> float:
    """CPU-time real-time factor of ``robot`` holding its zero pose (or first named
    pose) on position servos with ``feedforward``, targets set every 10 ms."""
    from robotsim.model import load_robot
    from robotsim.physics import Motor, RobotPlacement, Scene, World
    from robotsim.physics.freebase import on_ground

    model = load_robot(robot)
    q = model.pose(next(iter(model.poses))) if model.poses else model.zero()
    motor = Motor("position", gain=200.0, damping=20.0, feedforward=feedforward)  # type: ignore[arg-type]
    T = on_ground(model, np.eye(4), q)  # a floating robot stands on the ground, not in it
    placement = RobotPlacement(
        "r", model, T_world_base=T, q0=dict(zip(model.joint_names, q)), default_motor=motor
    )
    world = World(Scene(robots=(placement,)))
    motors = [world.motor(f"r/{n}") for n in model.joint_names]
    t0 = time.process_time()
    for _ in range(round(seconds / 0.01)):
        for m, v in zip(motors, q):
            m.set(float(v))
        world.advance(0.01)
    return seconds / max(time.process_time() - t0, 1e-9)


def _servos(quick: bool) -> dict[str, float]:
    seconds, repeats = (2.0, 1) if quick else (5.0, 3)
    runs: dict[str, list[float]] = {}
    for _ in range(repeats):  # interleaved, so machine load hits all alike
        for ff in ("none", "gravity", "inverse_dynamics"):
            runs.setdefault(f"servo_hold_rtf_{ff}", []).append(_servo_rtf("puma560", ff, seconds))
        for ff in ("none", "gravity"):
            runs.setdefault(f"servo_stand_rtf_{ff}", []).append(
                _servo_rtf("humanoid17", ff, seconds)
            )
    return {k: statistics.median(v) for k, v in runs.items()}


def run(quick: bool = False) -> dict[str, Any]:
    seconds = 5.0 if quick else 20.0
    repeats = 1 if quick else 3
    load_before = _loadavg()
    data = _soccer_data()
    soccer, soccer_implicit, soccer_norec = [], [], []
    for _ in range(repeats):  # interleaved, so machine load hits all alike
        soccer.append(_rtf(data, seconds))
        soccer_implicit.append(_rtf(data, seconds, implicitfast=True))
        soccer_norec.append(_rtf(data, seconds, record=False))
    fine = dict(data, timestep=0.002)
    soccer_2ms = [_rtf(fine, seconds / 2) for _ in range(repeats)]
    step = float(data.get("timestep", 0.002))
    fleet = [_rtf(_fleet(10, step), seconds / 2) for _ in range(repeats)]
    out: dict[str, Any] = {
        "soccer_rtf": statistics.median(s[0] for s in soccer),
        "robots10_rtf": statistics.median(f[0] for f in fleet),
        "soccer_rtf_cpu": statistics.median(s[1] for s in soccer),
        "soccer_rtf_implicitfast": statistics.median(s[0] for s in soccer_implicit),
        "soccer_rtf_implicitfast_cpu": statistics.median(s[1] for s in soccer_implicit),
        "soccer_rtf_norec": statistics.median(s[0] for s in soccer_norec),
        "soccer_rtf_norec_cpu": statistics.median(s[1] for s in soccer_norec),
        "robots10_rtf_cpu": statistics.median(f[1] for f in fleet),
        "soccer_rtf_2ms": statistics.median(s[0] for s in soccer_2ms),
        "soccer_rtf_unqueued": statistics.median(s[2] for s in soccer),
        "soccer_rtf_norec_unqueued": statistics.median(s[2] for s in soccer_norec),
        "soccer_rtf_2ms_unqueued": statistics.median(s[2] for s in soccer_2ms),
        "robots10_rtf_unqueued": statistics.median(f[2] for f in fleet),
        **_overhead(quick),
        **_servos(quick),
        "soccer_sim_seconds": seconds,
        "soccer_timestep_s": float(data.get("timestep", 0.002)),
        "robots10_timestep_s": step,
        "control_hz": 50,
        "record_hz": 50,
        "note": "RTF = simulated s / wall s, controller and run-store recording included",
    }
    out["loop_overhead_pct"] = float(np.round(out["loop_overhead_pct"], 2))
    settled = _settled(data)
    out["integrator"] = ("euler", "rk4", "implicit", "implicitfast")[
        int(settled.world.model.opt.integrator)
    ]
    out["peers"] = _peers(settled, quick)
    out["loadavg"] = [load_before, _loadavg()]
    return out


def _loadavg() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:  # not available on this platform
        return None


def _peers(settled: Any, quick: bool) -> dict[str, Any]:
    """PyBullet on the same robot and obstacles when installed (``bench`` extra)."""
    if importlib.util.find_spec("pybullet") is None:
        return {"note": "pybullet is not installed (pip install 'robotsim[bench]')"}
    from robotsim.bench.pybullet_peer import pybullet_peer

    return {"pybullet": pybullet_peer(settled.world, settled.robots[0].name, quick)}
