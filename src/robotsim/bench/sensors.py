"""``robotsim bench sensors``: what simulated sensors cost and what lidar avoidance does.

- ``lidar_rays_per_s``: rays of 360-ray scans (``Lidar.sample``: the cast, the robot's
  own bodies skipped, range conversion) per second in the soccer scene, the robot at its
  start among the eight obstacles; ``lidar_scan_us`` one such scan.
- ``sensors_rtf_ratio``: the soccer scenario's real-time factor with one 360-ray lidar at
  10 Hz and an IMU at 100 Hz (``sensors_rtf_imu_rate_hz``), recording on (SQLite,
  readings included), over its real-time factor with no sensors (recording on). What is
  timed is the same in both arms: ``MobileRun.run`` stepping the run, and the
  recorder's ``finish`` (its last commit); building the scene, the world, the rig and
  the recorder is not timed in either. The arms are 30 s runs built side by side in one
  process and stepped in turns of 1 s of simulated time (the order rotating), so a
  drifting machine load hits them alike (separate runs one after the other spread the
  ratio by tens of per cent on a shared machine); 5 such rounds (``--quick``: one of
  5 s), medians of the rounds' ratios. ``soccer_rtf_sensors`` and
  ``soccer_rtf_no_sensors`` are the two (wall clock); the ``*_cpu`` figures divide by
  CPU time instead: the simulation thread's in the timed parts plus the recorder's
  writer thread's (each arm's own, from the thread's clock): the figure on an otherwise
  idle machine. ``sensors_rtf_ratio_sim_thread_cpu`` counts the simulation thread only;
  ``sensors_rtf_ratio_imu50_cpu`` the IMU at 50 Hz. ``load_average`` is the machine's
  one-minute load when the figures were taken: on a loaded machine the wall figures
  measure the other processes as much as robotsim, the ``*_cpu`` ones do not.
- ``camera_fps``: 320 x 240 RGB + depth frames per second rendered offscreen (MuJoCo's
  renderer on EGL; software rendering without a GPU) from a camera on the soccer robot,
  read back into arrays (depth in metres); ``camera_fps_cpu`` per second of this
  process's CPU time (llvmpipe's own threads included: the figure on an idle machine);
  ``camera_gl`` names the renderer.
- ``lidar_vfh_reached`` / ``lidar_vfh_collisions``: the shipped ``soccer_lidar`` (VFH on
  the scans) over random layouts (seeds 0..19: 20 layouts; ``--quick``: 3), runs that
  reached the goal and collision episodes in all; ``truth_vfh_*`` the same layouts
  avoided from the obstacle list; ``lidar_vfh_min_clearance_m`` the closest approach to
  a true obstacle.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from typing import Any

import numpy as np

from robotsim.bench.timing import median_time
from robotsim.mobile import MobileRun, load_mobile
from robotsim.recording import Recorder
from robotsim.scenario_yaml import read_scenario_yaml

__all__ = ["run"]

LIDAR = {"type": "lidar", "position": [0, 0, 0.2], "rays": 360, "rate": 10}
IMU = {"type": "imu", "rate": 100}


def _soccer(sensors: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    data = read_scenario_yaml("soccer_obstacles")
    if sensors:
        data["robots"][0]["sensors"] = sensors
    return data


class _Arm:
    """One recorded soccer run of the ratio: built (not timed), stepped window by window
    (timed) and finished (timed: the recorder's last commit included)."""

    def __init__(self, sensors: list[dict[str, Any]] | None, folder: str) -> None:
        sc, robots, obstacles = load_mobile(_soccer(sensors), "bench")
        self.rec = Recorder(folder)
        self.run = MobileRun(sc, robots, obstacles, recorder=self.rec)
        self.rec.start_run(sc.name)
        self.wall = self.cpu = 0.0  # seconds of the simulation thread, timed parts

    def window(self, seconds: float) -> None:
        t0, c0 = time.perf_counter(), time.thread_time()
        self.run.run(seconds)  # the user's loop, continued from where it stopped
        self.wall += time.perf_counter() - t0
        self.cpu += time.thread_time() - c0

    def finish(self) -> tuple[float, float, float]:
        """(wall RTF, CPU RTF, simulation-thread CPU RTF) of the whole run."""
        t0, c0 = time.perf_counter(), time.thread_time()
        self.rec.finish("completed")
        self.wall += time.perf_counter() - t0
        self.cpu += time.thread_time() - c0
        self.rec.close()
        sim = self.run.world.time
        cpu = self.cpu + self.rec.writer_cpu  # the recorder's writer thread: its own clock
        return sim / self.wall, sim / max(cpu, 1e-9), sim / max(self.cpu, 1e-9)


def _interleaved(
    arms: dict[str, Any], seconds: float, window: float
) -> dict[str, tuple[float, float, float]]:
    """The runs of ``arms`` (name: sensors), each ``seconds`` long, stepped in turns of
    ``window`` simulated seconds (the order rotating), so that the machine's load
    drifting hits every arm alike."""
    with tempfile.TemporaryDirectory() as tmp:
        runs = {k: _Arm(v, os.path.join(tmp, k)) for k, v in arms.items()}
        names = list(runs)
        for w in range(round(seconds / window)):
            r = w % len(names)
            for k in names[r:] + names[:r]:
                runs[k].window(window)
        return {k: a.finish() for k, a in runs.items()}


def _ratio(quick: bool) -> dict[str, float]:
    """See the module doc: the soccer run with and without sensors, recording on in
    both, the same timed parts (stepping and the recorder's finish) in both."""
    seconds = 5.0 if quick else 30.0
    imu50 = dict(IMU, rate=50)
    arms = {"plain": None, "sensed": [LIDAR, IMU], "imu50": [LIDAR, imu50]}
    rounds = [_interleaved(arms, seconds, 1.0) for _ in range(1 if quick else 5)]

    def med(arm: str, i: int, over: str | None = None) -> float:
        if over is None:
            return statistics.median(r[arm][i] for r in rounds)
        return statistics.median(r[arm][i] / r[over][i] for r in rounds)

    return {
        "sensors_rtf_ratio": med("sensed", 0, "plain"),
        "sensors_rtf_ratio_cpu": med("sensed", 1, "plain"),
        "sensors_rtf_ratio_sim_thread_cpu": med("sensed", 2, "plain"),
        "sensors_rtf_ratio_imu50_cpu": med("imu50", 1, "plain"),
        "soccer_rtf_sensors": med("sensed", 0),
        "soccer_rtf_no_sensors": med("plain", 0),
        "soccer_rtf_sensors_cpu": med("sensed", 1),
        "soccer_rtf_no_sensors_cpu": med("plain", 1),
        "sensors_rtf_imu_rate_hz": float(IMU["rate"]),
    }


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:  # not on this platform
        return None


def _lidar(quick: bool) -> dict[str, float]:
    sc, robots, obstacles = load_mobile(_soccer([LIDAR]), "bench")
    run = MobileRun(sc, robots, obstacles)
    assert run.sensors is not None
    lidar = run.sensors.sensor("omni", "lidar")
    run.sensors.sample_now()
    inner = 50 if quick else 400
    wall = median_time(lidar.sample, repeats=3 if quick else 9, inner=inner)
    cpu = median_time(lidar.sample, repeats=3 if quick else 9, inner=inner, clock=time.thread_time)
    return {
        "lidar_rays_per_s": lidar.n / wall,
        "lidar_rays_per_s_cpu": lidar.n / cpu,
        "lidar_scan_us": wall * 1e6,
    }


def _camera(quick: bool) -> dict[str, Any]:
    cam = {"type": "camera", "position": [0.2, 0, 0.25], "width": 320, "height": 240}
    sc, robots, obstacles = load_mobile(_soccer([cam]), "bench")
    run = MobileRun(sc, robots, obstacles)
    assert run.sensors is not None
    try:
        run.run(1.0)
        camera = run.sensors.sensor("omni", "camera")
        inner = 10 if quick else 50
        wall = median_time(camera.sample, repeats=3 if quick else 7, inner=inner)
        # the renderer (llvmpipe) draws on threads of its own: this process's CPU time
        cpu = median_time(camera.sample, repeats=3 if quick else 7, inner=inner,
                          clock=time.process_time)  # fmt: skip
        frame = camera.sample()
        return {
            "camera_fps": 1.0 / wall,
            "camera_fps_cpu": 1.0 / cpu,
            "camera_frame_ms": wall * 1e3,
            "camera_gl": _gl_renderer(run.sensors.renderer),
            "camera_finite_depth_share": float(np.isfinite(frame["depth"]).mean()),
        }
    finally:
        run.sensors.close()


def _gl_renderer(renderer: Any) -> str:
    try:
        from OpenGL import GL

        from robotsim.physics.gl import release_gl

        renderer._ctx.make_current()
        try:
            name = GL.glGetString(GL.GL_RENDERER)
        finally:
            release_gl(renderer._ctx)
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception as exc:  # the figure stands without the name
        return f"unknown ({type(exc).__name__})"


def _avoidance(quick: bool) -> dict[str, Any]:
    layouts = range(3 if quick else 20)
    out: dict[str, Any] = {"layouts": len(layouts)}
    for source, label in (("lidar", "lidar_vfh"), ("ground_truth", "truth_vfh")):
        reached, collisions, clearance, times = 0, 0, [], []
        for seed in layouts:
            data = read_scenario_yaml("soccer_lidar")
            data["obstacles"]["layout"] = "random"
            data["robots"][0]["controller"]["source"] = source
            sc, robots, obstacles = load_mobile(data, "bench", seed)
            run = MobileRun(sc, robots, obstacles, seed=seed)
            run.run()
            res = run.results()["omni"]
            reached += bool(res["reached_goal"])
            collisions += int(res["collisions"])
            if res["min_obstacle_clearance"] is not None:
                clearance.append(res["min_obstacle_clearance"])
            if res["time_to_goal"] is not None:
                times.append(res["time_to_goal"])
        out[f"{label}_reached"] = reached
        out[f"{label}_collisions"] = collisions
        out[f"{label}_min_clearance_m"] = min(clearance) if clearance else None
        out[f"{label}_median_time_s"] = statistics.median(times) if times else None
    return out


def run(quick: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"load_average": _load()}
    out.update(_lidar(quick))
    out.update(_camera(quick))
    out.update(_ratio(quick))
    out.update(_avoidance(quick))
    return out
