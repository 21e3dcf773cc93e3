"""Clearance scenarios in the studio (seed 004): the robots move along their
trajectories on the studio clock, and each robot's bounding volumes are drawn as
translucent meshes that follow the links, each coloured by its own current distance to
the nearest volume of any other robot (red in contact, yellow near, green far): the
links in contact are the red ones. The
end-link path of every robot over the whole run (the paper's Fig. 9, as ``robotsim
clearance`` writes to ``paths.png``) is drawn as a polyline in the robot's colour,
labelled with its name at the start, a marker at the end.

The clearance result (:func:`robotsim.clearance.run`: distance curves, minima and
collision intervals) is computed once when the scenario opens; the Clearance tab
(:mod:`robotsim.studio.clearance.panel`) plots it. The live colours use the exact
distances at the current time (:func:`robotsim.clearance.instant.instant_distances`,
the run's kernels batched), computed once per new time.

:func:`open_clearance` is the ``kind: clearance`` opener of the registry
(:mod:`robotsim.scenario.kinds`; the files ``robotsim clearance`` reads).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.clearance import ClearanceResult, run
from robotsim.clearance.instant import instant_distances
from robotsim.clearance.report import end_paths
from robotsim.clearance.scenario import LoadedScenario, load_scenario
from robotsim.spatial import R_to_quat
from robotsim.studio.shapes import geometry_mesh

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = [
    "CONTACT_RGB",
    "FAR_RGB",
    "NEAR_RGB",
    "PATH_RGB",
    "ClearanceDriver",
    "distance_rgb",
    "open_clearance",
]

CONTACT_RGB = (220, 40, 40)
NEAR_RGB = (240, 200, 40)
FAR_RGB = (60, 180, 80)
FAR_DISTANCE = 0.5  # m above the contact threshold where the colour is fully green
VOLUME_OPACITY = 0.45
# the robots' path colours, in scene order (matplotlib's first cycle colours, as paths.png)
PATH_RGB = ((31, 119, 180), (255, 127, 14), (44, 160, 44), (148, 103, 189), (140, 86, 75),
            (227, 119, 194), (23, 190, 207))  # fmt: skip
PATH_THICKNESS = 3.0  # screen pixels
PATH_POINTS = 400  # at most this many points per path (the run's samples, thinned)


def distance_rgb(d: float, threshold: float = 0.0, far: float = FAR_DISTANCE) -> tuple[int, ...]:
    """The colour of a volume at distance ``d`` (m): red when ``d <= threshold`` (in
    contact), else yellow just above it blending to green at ``threshold + far``."""
    if d <= threshold:
        return CONTACT_RGB
    s = 1.0 if not math.isfinite(d) else min(1.0, (d - threshold) / far)
    return tuple(round(a + s * (b - a)) for a, b in zip(NEAR_RGB, FAR_RGB, strict=True))


class ClearanceDriver:
    """Moves every robot along its trajectory at the studio time and colours each
    bounding volume by its own current distance.

    Attributes:
        loaded: the validated scenario; ``result`` its clearance result.
        now: the current distance (m) of every pair ``"A-B"``, and ``t`` its time (s).
        volume_distance: robot name -> ``(nvol,)`` each volume's current distance (m) to
            the nearest volume of any other robot (the robot's volume order).
        volume_rgb: ``(robot, volume label)`` -> the colour that volume shows now (labels
            as :meth:`PlacedRobot.volume_label`: the link, ``link#k`` when it has several).
        robot_rgb: robot name -> the colour of its nearest volume (its distance to its
            nearest other robot): a summary of the robot.
    """

    name = "clearance"

    def __init__(self, loaded: LoadedScenario, result: ClearanceResult, title: str) -> None:
        self.loaded = loaded
        self.result = result
        self.title = title
        self.robots = loaded.scene.robots
        self.threshold = float(loaded.scene.contact_threshold)
        self.end = float(result.times[-1])
        self.t = 0.0
        self.now: dict[str, float] = {}
        self.volume_distance: dict[str, np.ndarray] = {}
        self.volume_rgb: dict[tuple[str, str], tuple[int, ...]] = {}
        self.robot_rgb: dict[str, tuple[int, ...]] = {}
        self.volumes: dict[str, list[Any]] = {}  # robot -> mesh handles, in volume order
        self.paths: dict[str, np.ndarray] = self.end_paths()  # robot -> (N, 3) m
        self.path_handles: dict[str, list[Any]] = {}  # robot -> line, label, end marker
        self.finished = False
        self.labels = {r.name: [r.volume_label(k) for k in range(len(r.volumes))]
                       for r in self.robots}  # fmt: skip
        self._distances_t: float | None = None  # the time ``now`` was computed for

    def q_at(self, t: float) -> dict[str, np.ndarray]:
        """Every robot's configuration ``(nq,)`` at time ``t`` (s, held after the end)."""
        t = min(max(float(t), 0.0), self.end)
        return {n: tr.q(np.array([t]))[0] for n, tr in self.loaded.trajectories.items()}

    def robot_distance(self, robot: str) -> float:
        """The robot's distance (m) to its nearest other robot now."""
        ds = [d for pair, d in self.now.items() if robot in pair.split("-")]
        return min(ds, default=math.inf)

    def end_paths(self) -> dict[str, np.ndarray]:
        """World positions ``(N, 3)`` (m) of each robot's end frame over the run (the
        result's sample times, thinned to at most ``PATH_POINTS``, last one kept)."""
        times = np.asarray(self.result.times, dtype=float)
        step = max(1, -(-len(times) // PATH_POINTS))
        idx = np.unique(np.r_[np.arange(0, len(times), step), len(times) - 1])
        return end_paths(self.loaded.scene, self.loaded.trajectories, times[idx])

    def path_rgb(self, robot: str) -> tuple[int, int, int]:
        """The colour of ``robot``'s path (its index in the scene picks it)."""
        k = [r.name for r in self.robots].index(robot)
        return PATH_RGB[k % len(PATH_RGB)]

    # -------------------------------------------------------------- drawing
    def attach(self, studio: Studio) -> None:
        """Draw the volumes as children of the link nodes (they follow the links), then
        show time 0."""
        scene = studio.scene
        for r in self.robots:
            view = studio.robot(r.name)
            handles = []
            for k, vol in enumerate(r.volumes):
                m = geometry_mesh(vol.shape)
                T = np.asarray(vol.T_link_volume)
                h = scene.add_mesh_simple(
                    f"{view.root_path}/{vol.link}/clearance_{k}",
                    np.asarray(m.vertices, np.float32), np.asarray(m.faces, np.uint32),
                    color=FAR_RGB, opacity=VOLUME_OPACITY, cast_shadow=False,
                    wxyz=R_to_quat(T[:3, :3]), position=T[:3, 3].copy(),
                )  # fmt: skip
                handles.append(h)
            self.volumes[r.name] = handles
        self._distances_t = None  # new handles: colour them all
        self.volume_rgb.clear()
        self.apply(studio, 0.0)

    def draw_paths(self, studio: Studio) -> list[Any]:
        """Every robot's end-link path as line segments in its colour, its name at the
        start and a small sphere at the end (the direction of motion). Returns the scene
        nodes (the studio removes them with the scene)."""
        scene = studio.scene
        for r in self.robots:
            p = np.asarray(self.paths[r.name], np.float32)
            rgb = self.path_rgb(r.name)
            seg = np.stack([p[:-1], p[1:]], axis=1)  # (N-1, 2, 3)
            line = scene.add_line_segments(
                f"/clearance_paths/{r.name}/line", seg, colors=rgb,
                thickness=PATH_THICKNESS, thickness_units="screen",
            )  # fmt: skip
            label = scene.add_label(f"/clearance_paths/{r.name}/label", f"path {r.name}",
                                    position=p[0].copy(), anchor="bottom-left")  # fmt: skip
            end = scene.add_icosphere(f"/clearance_paths/{r.name}/end", radius=0.015,
                                      color=rgb, position=p[-1].copy())  # fmt: skip
            self.path_handles[r.name] = [line, label, end]
        return [h for hs in self.path_handles.values() for h in hs]

    def set_paths_visible(self, visible: bool) -> None:
        for handles in self.path_handles.values():
            for h in handles:
                h.visible = visible

    def set_volumes_visible(self, visible: bool) -> None:
        for handles in self.volumes.values():
            for h in handles:
                h.visible = visible

    # --------------------------------------------------------------- driver
    def reset(self, studio: Studio) -> None:
        self.finished = False
        self.apply(studio, 0.0)

    def step(self, studio: Studio, t: float, dt: float) -> None:
        if t >= self.end:
            self.finished = True
            studio.halt()
        self.apply(studio, t)

    def recorded_end(self) -> float:
        """The whole trajectory can be shown at any time (s)."""
        return self.end

    def show_at(self, studio: Studio, t: float) -> None:
        self.finished = t >= self.end
        self.apply(studio, t)

    def apply(self, studio: Studio, t: float) -> None:
        """Robots, distances and colours at time ``t`` (s); the distances only when the
        (clamped) time is new."""
        qs = self.q_at(t)
        for name, q in qs.items():
            view = studio.find_robot(name)
            if view is not None:
                view.set_q(q)
        self.t = min(max(float(t), 0.0), self.end)
        if self._distances_t == self.t:
            return
        now = instant_distances(self.robots, qs)
        self.now = dict(now.pairs)
        self.volume_distance = dict(now.volumes)
        self._distances_t = self.t
        for r in self.robots:
            handles = self.volumes.get(r.name, [])
            for k, d in enumerate(now.volumes[r.name]):
                key = (r.name, self.labels[r.name][k])
                rgb = distance_rgb(float(d), self.threshold)
                if self.volume_rgb.get(key) != rgb:
                    self.volume_rgb[key] = rgb
                    if k < len(handles):
                        handles[k].color = rgb
            self.robot_rgb[r.name] = distance_rgb(self.robot_distance(r.name), self.threshold)


def open_clearance(studio: Studio, path: Path, doc: dict[str, Any]) -> str:
    """The ``kind: clearance`` studio opener: validate, compute the clearance once,
    then replace the scene (a bad file leaves the scene as it was)."""
    from robotsim.studio.interface import SceneRobot

    loaded = load_scenario(path)
    result = run(
        loaded.scene, loaded.trajectories, loaded.dt, t_end=loaded.t_end, cutoff=loaded.cutoff
    )
    driver = ClearanceDriver(loaded, result, path.stem)
    q0 = driver.q_at(0.0)
    robots = [
        SceneRobot(r.model, r.name, np.asarray(r.T_world_base), q0[r.name])
        for r in loaded.scene.robots
    ]
    return studio.load_scene(
        f"scenario {path.stem} (clearance)", robots, draw=driver.draw_paths, driver=driver
    )
