"""A clearance study in the run store, so that it replays in 3D like any run
(``robotsim export RUN --format mcap|rerun|mp4|gif|html``, ``docs/export.md``).

:class:`ClearanceRecording` writes, once, the study's scene (every robot at its
placement, its bounding volumes drawn with their links, a floor when every robot
stands on or above it) and then, chunk by chunk as the study is computed, every
robot's root pose and joints at the study's sample times (the replay signals of
:mod:`robotsim.recording.scene`) and every pair's distance (group ``A-B``, signal
``distance``, m; NaN where the pair was beyond the cutoff). At the end each collision
interval becomes two events, ``collision`` at its start (``pair``, ``start``, ``end``,
``duration`` in s) and ``collision_end`` at its end, and each pair's refined minimum
an event ``closest`` (``distance`` m, the closest volumes).

A recorder that keeps no scenes (CSV, none) gets nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from robotsim.clearance.monitor import ClearanceResult
from robotsim.clearance.scene import Scene
from robotsim.clearance.stream import ClearanceSummary
from robotsim.clearance.trajectory import Trajectory
from robotsim.recording.scene import (
    FLOOR,
    keeps_scenes,
    record_poses,
    robot_doc,
    scene_doc,
    volume_doc,
    write_scene,
)

__all__ = ["ClearanceRecording", "clearance_scene_doc", "record_study"]


def clearance_scene_doc(scene: Scene, trajectories: Mapping[str, Trajectory]) -> dict[str, Any]:
    """The scene document of a study: its robots at their first configuration, their
    volumes, a floor under robots that all stand at or above ``z = 0``."""
    robots = []
    for r in scene.robots:
        q0 = np.asarray(trajectories[r.name].q(np.zeros(1)), dtype=np.float64).reshape(-1)
        vols = [volume_doc(v.link, v.shape, v.T_link_volume) for v in r.volumes]
        robots.append(robot_doc(r.name, r.model, r.T_world_base, q0, vols))
    lowest = min(float(r.T_world_base[2, 3]) for r in scene.robots)
    return scene_doc(robots, ground=FLOOR if lowest >= -1e-9 else None, engine="kinematic")


class ClearanceRecording:
    """Records a study into ``recorder`` (see the module doc): :meth:`chunk` for every
    block of samples, :meth:`finish` with the study's summary."""

    def __init__(self, recorder: Any, scene: Scene, trajectories: Mapping[str, Trajectory]) -> None:
        self.recorder, self.scene, self.trajectories = recorder, scene, trajectories
        self.active = keeps_scenes(recorder) and write_scene(
            recorder, clearance_scene_doc(scene, trajectories)
        )

    def values_per_sample(self) -> int:
        """Values one sample adds to the store."""
        if not self.active:
            return 0
        robots = self.scene.robots
        return sum(7 + r.model.nq for r in robots) + len(robots) * (len(robots) - 1) // 2

    def check_space(self, samples: int, dt: float) -> None:
        """Refuse (before anything is computed) a study whose rows would not fit the
        free space of an SQLite run store's folder (a lower estimate)."""
        from robotsim.budget import check_free_space
        from robotsim.run_io import STORE_VALUE_BYTES, store_folder

        folder = store_folder(self.recorder) if self.active else None
        if folder is None:
            return
        need = float(samples) * self.values_per_sample() * STORE_VALUE_BYTES
        check_free_space(
            folder,
            need,
            f"clearance: {samples:.3g} samples of {dt:g} s would write about "
            "{need} into the run store, more than the {free} free in {folder}; "
            "use a larger dt or a shorter run",
        )

    def chunk(self, times: np.ndarray, distance: Mapping[str, np.ndarray]) -> None:
        """Samples ``times`` (m,) s with each pair's distances (m,) m."""
        if not self.active:
            return
        times = np.asarray(times, dtype=np.float64)
        for r in self.scene.robots:
            q = self.trajectories[r.name].q(times)
            record_poses(self.recorder, r.name, r.model, times, r.T_world_base, q)
        for pair, d in distance.items():
            d = np.asarray(d, dtype=np.float64)
            d = np.where(np.isfinite(d), d, np.nan)[:, None]
            self.recorder.signals(pair, times, ("distance",), d)

    def finish(self, summary: ClearanceSummary | ClearanceResult) -> None:
        """The collision intervals and each pair's minimum, as events."""
        if not self.active:
            return
        rec = self.recorder
        for name, p in summary.pairs.items():
            for a, b in p.collision_intervals:
                data = {"pair": name, "start": a, "end": b, "duration": b - a}
                rec.event(a, "collision", name, data)
                rec.event(b, "collision_end", name, data)
            if np.isfinite(p.min_distance) and np.isfinite(p.t_min):
                data = {"pair": name, "distance": p.min_distance, "volumes": list(p.closest)}
                rec.event(p.t_min, "closest", name, data)


def record_study(
    recorder: Any,
    scene: Scene,
    trajectories: Mapping[str, Trajectory],
    dt: float,
    *,
    t_end: float | None = None,
    cutoff: float = float("inf"),
) -> ClearanceSummary | None:
    """Compute a study chunk by chunk (:class:`~robotsim.clearance.stream.
    ClearanceStream`) only to record it (no files): what ``robotsim plan`` records of
    the planned scenario. Returns the summary, or None (and computes nothing) when the
    recorder keeps no scenes."""
    from robotsim.clearance.stream import ClearanceStream

    recording = ClearanceRecording(recorder, scene, trajectories)
    if not recording.active:
        return None
    stream = ClearanceStream(scene, trajectories, dt, t_end=t_end, cutoff=cutoff)
    recording.check_space(stream.samples, dt)
    for ch in stream.chunks():
        recording.chunk(ch.times, ch.distance)
    summary = stream.summary()
    recording.finish(summary)
    return summary
