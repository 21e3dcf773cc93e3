"""``robotsim bench sensors``: what simulated sensors cost and what lidar avoidance does.

- ``lidar_rays_per_s``: rays of 360-ray scans (``Lidar.sample``: the cast, the robot's
  own bodies skipped, range conversion) per second in the soccer scene, the robot at its
  start among the eight obstacles; ``lidar_scan_us`` one such scan.
- ``sensors_rtf_ratio``: the soccer scenario's real-time factor with one 360-ray lidar at
  10 Hz and an IMU at 100 Hz, recording on (SQLite, readings included), over its
  real-time factor with no sensors (recording on); runs of 30 s interleaved (9 pairs;
  ``--quick``: one of 5 s), medians of the pairs' ratios.
  ``soccer_rtf_sensors`` and ``soccer_rtf_no_sensors`` are the two; the ``*_cpu``
  figures divide by this process's CPU time instead of wall time (the figure on an
  otherwise idle core); ``sensors_rtf_ratio_imu50_cpu`` the same with the IMU at the
  control rate (50 Hz: no reading between two control ticks). ``load_average`` is the
  machine's one-minute load when the figures were taken: on a loaded machine the wall
  figures measure the other processes as much as robotsim, the ``*_cpu`` ones do not.
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


def _rtf(data: dict[str, Any], seconds: float) -> tuple[float, float]:
    """(wall RTF, CPU RTF) of a recorded soccer run of ``seconds``."""
    sc, robots, obstacles = load_mobile(data, "bench")
    with tempfile.TemporaryDirectory() as tmp:
        rec = Recorder(tmp)
        run = MobileRun(sc, robots, obstacles, recorder=rec)
        rec.start_run(sc.name)
        t0, c0 = time.perf_counter(), time.process_time()
        run.run(seconds)
        rec.finish("completed")
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        rec.close()
    sim = run.world.time
    return sim / wall, sim / max(cpu, 1e-9)


def _ratio(quick: bool) -> dict[str, float]:
    seconds = 5.0 if quick else 30.0
    plain, sensed, slow_imu = [], [], []
    imu50 = dict(IMU, rate=50)
    for _ in range(1 if quick else 9):  # interleaved, so machine load hits all alike
        plain.append(_rtf(_soccer(), seconds))
        sensed.append(_rtf(_soccer([LIDAR, IMU]), seconds))
        slow_imu.append(_rtf(_soccer([LIDAR, imu50]), seconds))
    ratios = [s[0] / p[0] for s, p in zip(sensed, plain)]
    ratios_cpu = [s[1] / p[1] for s, p in zip(sensed, plain)]
    return {
        "sensors_rtf_ratio": statistics.median(ratios),
        "sensors_rtf_ratio_cpu": statistics.median(ratios_cpu),
        "sensors_rtf_ratio_imu50_cpu": statistics.median(
            s[1] / p[1] for s, p in zip(slow_imu, plain)
        ),
        "soccer_rtf_sensors": statistics.median(s[0] for s in sensed),
        "soccer_rtf_no_sensors": statistics.median(p[0] for p in plain),
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
