"""Mobile-robot scenarios (``kind: mobile``, seed 002) live in the studio.

Opening one builds the same physics run as ``robotsim run`` (:class:`MobileRun`: MuJoCo
world, wheel motors, PID/avoidance controllers). It then draws the field, the obstacles
and each robot's start and goal, and makes :class:`MobileDriver` the studio's driver.
While the studio plays, the driver steps the controllers and the physics up to the
simulated time. It copies every link's world pose from MuJoCo into the view and keeps
the traces the Mobile panel plots: the path, the distance to the goal, the wheel speeds.
Goals can be moved while it runs (:meth:`MobileDriver.set_goal`).

Memory stays bounded while the studio plays: the run's poses fold past a bound
(:mod:`robotsim.mobile.poselog`), the recorded link poses thin out past their share of
the memory budget (:class:`~robotsim.studio.drivers.FrameLog`), and the traces keep at
most :data:`TRACE_POINTS` points (past it every second one, from then on every
``trace_stride``-th tick: the plots span the whole run at a coarser resolution).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.model.geometry import Box, Cylinder
from robotsim.spatial import make_T, quat_to_R, rot_z
from robotsim.studio.drivers import FrameLog
from robotsim.studio.shapes import geometry_mesh

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["TRACE_POINTS", "MobileDriver", "open_mobile"]

#: Points the Mobile panel's traces (distance to goal, wheel speeds) keep at most.
TRACE_POINTS = 20_000

FIELD_RGB = (95, 150, 95)
OBSTACLE_RGB = (224, 112, 32)
START_RGB = (60, 110, 220)
GOAL_RGB = (240, 200, 40)


class MobileDriver:
    """Steps a mobile scenario's physics run with the studio clock (module docs)."""

    name = "mobile physics"

    def __init__(self, data: dict[str, Any], source: str) -> None:
        self.data, self.source = data, source
        self.goal_markers: dict[str, Any] = {}
        self.new_run()

    def new_run(self) -> None:
        from robotsim.mobile import MobileRun, load_mobile

        old = getattr(self, "run", None)
        if old is not None and old.sensors is not None:
            old.sensors.close()  # its camera renderer's GL context

        self.sc, self.robots, self.obstacles = load_mobile(self.data, self.source)
        goals = getattr(self, "goals", None)
        self.run = MobileRun(self.sc, self.robots, self.obstacles, self.source)
        self.goals = {rb.name: rb.goal.copy() for rb in self.robots}
        if goals:  # goals moved by the user survive a reset
            for i, rb in enumerate(self.robots):
                self.goals[rb.name] = goals[rb.name]
                self.run.controllers[i].goal = goals[rb.name].copy()
        self.t: list[float] = []  # the traces: every trace_stride-th physics tick
        self.ticks = 0  # physics ticks stepped
        self.trace_stride = 1
        self.trace_points = TRACE_POINTS
        self.error: dict[str, list[float]] = {rb.name: [] for rb in self.robots}
        self.wheels: dict[str, list[np.ndarray]] = {rb.name: [] for rb in self.robots}
        from robotsim.physics.drives import drive_kind, wheel_joints

        self.wheel_names = {
            rb.name: wheel_joints(rb.model, drive_kind(rb.model) or "") for rb in self.robots
        }
        self.finished = False
        from robotsim.studio.mobile.sensors import LidarDrawing

        #: the lidars' returns in the 3D view (None: no lidar)
        self.lidar_view = LidarDrawing(self.run.sensors) if self.run.sensors is not None else None
        self._bodies: dict[str, np.ndarray] = {}  # robot -> MuJoCo body index per link
        #: robot -> link world poses ``(nlinks, 4, 4)`` at every studio tick played
        self.log = FrameLog()

    @property
    def duration(self) -> float:
        return float(self.sc.duration)

    def index(self, robot: str) -> int:
        from robotsim.errors import UnknownNameError

        for i, rb in enumerate(self.robots):
            if rb.name == robot:
                return i
        raise UnknownNameError("mobile robot", robot, [rb.name for rb in self.robots])

    def set_goal(self, studio: Studio, robot: str, xy: tuple[float, float]) -> None:
        """Send ``robot`` to a new goal ``(x, y)`` (m), heading kept; the goal must lie
        on the field."""
        from robotsim.errors import InputError

        hx, hy = self.sc.field.size[0] / 2, self.sc.field.size[1] / 2
        x, y = float(xy[0]), float(xy[1])
        if not (abs(x) <= hx and abs(y) <= hy):
            raise InputError(
                f"goal ({x:.2f}, {y:.2f}) is off the field ({2 * hx:g} x {2 * hy:g} m)"
            )
        i = self.index(robot)
        goal = np.array([x, y, self.goals[robot][2]])
        self.goals[robot] = goal
        self.run.controllers[i].goal = goal.copy()
        self.run.reached_at[i] = None
        marker = self.goal_markers.get(robot)
        if marker is not None:
            marker.position = (x, y, 0.01)
        self.finished = False

    # -------------------------------------------------------------- driver
    def attach(self, studio: Studio) -> None:
        """Draw the field, the obstacles, each robot's start and goal (kept with the
        scene), then show the robots at their starts."""
        scene = studio.scene
        sx, sy = self.sc.field.size
        f = geometry_mesh(Box((float(sx), float(sy), 0.01)))
        objects = [
            scene.add_mesh_simple(
                "/objects/field",
                np.asarray(f.vertices, np.float32),
                np.asarray(f.faces, np.uint32),
                color=FIELD_RGB,
                position=(0.0, 0.0, -0.015),
                flat_shading=True,
                cast_shadow=False,
            )
        ]
        if self.sc.field.markings == "soccer":  # the lines the 2D map draws, on the grass
            from robotsim.plots import soccer_markings

            seg = soccer_markings(float(sx), float(sy))
            pts = np.concatenate([seg, np.full((*seg.shape[:2], 1), 0.003)], axis=2)
            objects.append(
                scene.add_line_segments(
                    "/objects/field_markings",
                    pts.astype(np.float32),
                    (255, 255, 255),
                    thickness=0.06,
                )
            )
        h = self.sc.obstacles.height
        for k, (x, y, r) in enumerate(self.obstacles):
            m = geometry_mesh(Cylinder(float(r), float(h)))
            objects.append(
                scene.add_mesh_simple(
                    f"/objects/obstacle{k + 1}",
                    np.asarray(m.vertices, np.float32),
                    np.asarray(m.faces, np.uint32),
                    color=OBSTACLE_RGB,
                    position=(x, y, h / 2),
                )
            )
        for rb in self.robots:
            objects.append(_disc(studio, f"/objects/start_{rb.name}", 0.15, START_RGB, rb.start))
            goal = _disc(studio, f"/objects/goal_{rb.name}", 0.2, GOAL_RGB, rb.goal)
            self.goal_markers[rb.name] = goal
            objects.append(goal)
        studio.keep_objects(objects)
        self.apply(studio)

    def reset(self, studio: Studio) -> None:
        self.new_run()
        self.apply(studio)

    def recorded_end(self) -> float:
        """The last simulated tick (s): earlier ticks are shown from the recording."""
        return self.log.end

    def show_at(self, studio: Studio, t: float) -> None:
        """Show the robots as recorded at time ``t`` (s); the run itself stays at
        :meth:`recorded_end`."""
        for name, poses in self.log.at(t).items():
            view = studio.find_robot(name)
            if view is not None:
                view.set_link_poses(poses)

    def step(self, studio: Studio, t: float, dt: float) -> None:
        if t < self.log.end - 1e-9:  # scrubbed back: replay the recording
            self.show_at(studio, t)
            return
        run = self.run
        self.follow_params(studio)
        while run.world.time < min(t, self.duration) - 1e-9:
            run.step()
            self.ticks += 1
            if self.ticks % self.trace_stride:
                continue
            self.t.append(run.world.time)
            for i, rb in enumerate(self.robots):
                pose = run.bases[i].pose()
                g = self.goals[rb.name]
                self.error[rb.name].append(math.hypot(g[0] - pose[0], g[1] - pose[1]))
                self.wheels[rb.name].append(
                    np.array(
                        [run.world.joint(f"{rb.name}/{j}").qd for j in self.wheel_names[rb.name]]
                    )
                )
            if len(self.t) > self.trace_points:
                self._thin_traces()
        if t >= self.duration:
            self.finished = True
            studio.halt()
        self.apply(studio, t)

    def follow_params(self, studio: Studio) -> None:
        """Apply the studio's live parameters (gamepad, page keyboard) to the run: the
        controllers' gains and speed limits, the robots' masses and friction
        (:meth:`robotsim.mobile.MobileRun.tune`; a change is an event of the run)."""
        p = studio.params
        self.run.tune(gain=p.gain_scale, max_speed=p.max_speed_scale,
                      mass=p.mass_scale, friction=p.friction_scale)  # fmt: skip

    def _thin_traces(self) -> None:
        """Keep every second point of the traces; from now on every second tick more."""
        self.trace_stride *= 2
        self.t = self.t[1::2]  # the points at multiples of the new stride
        for rb in self.robots:
            self.error[rb.name] = self.error[rb.name][1::2]
            self.wheels[rb.name] = self.wheels[rb.name][1::2]

    def apply(self, studio: Studio, t: float = 0.0) -> None:
        """Copy the physics link poses into the robot views (recorded as time ``t``,
        s, if it is after the last recorded tick)."""
        world = self.run.world
        xpos, xquat = world.data.xpos, world.data.xquat
        frame: dict[str, np.ndarray] = {}
        for rb in self.robots:
            view = studio.find_robot(rb.name)
            if view is None:
                continue
            idx = self._bodies.get(rb.name)
            if idx is None:
                names = world.body_names
                idx = np.array([names.index(f"{rb.name}/{link}") for link in view.model.link_names])
                self._bodies[rb.name] = idx
            frame[rb.name] = make_T(quat_to_R(xquat[idx]), xpos[idx])
            view.set_link_poses(frame[rb.name])
        if not len(self.log) or t > self.log.end + 1e-9:
            self.log.add(t, frame)
        if self.lidar_view is not None:
            self.lidar_view.draw(studio)

    # ---------------------------------------------------------------- data
    def trajectories(self) -> list[dict[str, Any]]:
        from robotsim.mobile.report import trajectories

        out = trajectories(self.run)
        for tr in out:
            tr["goal"] = self.goals[tr["name"]]
        return out

    def status(self) -> list[str]:
        lines = []
        for i, rb in enumerate(self.robots):
            pose = self.run.bases[i].pose()
            g = self.goals[rb.name]
            reached = self.run.reached_at[i]
            clear = self.run.min_clearance[i]
            lines.append(
                f"**{rb.name}** at ({pose[0]:.2f}, {pose[1]:.2f}) m, "
                f"{math.degrees(pose[2]):.0f}°; goal ({g[0]:.2f}, {g[1]:.2f}): "
                f"{math.hypot(g[0] - pose[0], g[1] - pose[1]):.2f} m to go"
                + (f", reached at {reached:.2f} s" if reached is not None else "")
                + f"; collisions {self.run.collisions[i]}"
                + (f"; min clearance {clear:.2f} m" if math.isfinite(clear) else "")
            )
        if self.run.parameter_events:
            t, _ = self.run.parameter_events[-1]
            f = self.run.factors
            lines.append(
                f"parameters (since {t:.2f} s): gains ×{f['gain']:.3g}, max speed "
                f"×{f['max_speed']:.3g}, mass ×{f['mass']:.3g}, friction ×{f['friction']:.3g}"
            )
        return lines


def _disc(studio: Studio, node: str, radius: float, rgb: tuple[int, int, int],
          xy: np.ndarray) -> Any:  # fmt: skip
    m = geometry_mesh(Cylinder(radius, 0.01))
    return studio.scene.add_mesh_simple(
        node, np.asarray(m.vertices, np.float32), np.asarray(m.faces, np.uint32), color=rgb,
        position=(float(xy[0]), float(xy[1]), 0.01), cast_shadow=False,
    )  # fmt: skip


def open_mobile(studio: Studio, path: Path, doc: dict[str, Any]) -> str:
    """The ``kind: mobile`` studio opener (:mod:`robotsim.scenario.kinds`)."""
    from robotsim.studio.interface import SceneRobot

    driver = MobileDriver(doc, str(path))  # validates before the scene changes
    robots = [
        SceneRobot(rb.model, rb.name, make_T(rot_z(rb.start[2]), [rb.start[0], rb.start[1], 0.0]))
        for rb in driver.robots
    ]
    sx, sy = driver.sc.field.size
    return studio.load_scene(
        f"scenario {path.stem} (mobile, physics)",
        robots,
        driver=driver,
        camera=np.array([[-sx / 2, -sy / 2, 0.0], [sx / 2, sy / 2, 0.5]]),  # the whole field
    )
