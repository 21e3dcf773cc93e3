"""Walking scenarios (``kind: walk``, docs/walk.md) live in the studio.

Opening one puts the robot in the scene and makes :class:`WalkDriver` the studio's
driver: while the studio plays, it steps the walk in MuJoCo (:class:`~robotsim.walk.
simulate.WalkSim`: the online engine, balance feedback, re-anchoring) up to the
simulated time, applies the file's commands at their times and whatever velocity the
Walk panel sets (sliders, the page keyboard, a gamepad), copies the measured link poses
into the view and draws the planned footsteps (left sole blue, right orange; the step
in the air lighter). Scrubbing back replays what was shown (:class:`~robotsim.studio.
drivers.FrameLog`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.model.geometry import Box
from robotsim.studio.drivers import FrameLog
from robotsim.studio.shapes import geometry_mesh

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["WalkDriver", "open_walk"]

FOOT_RGB = ((60, 110, 220), (230, 140, 40))
FOOT_AIR_RGB = ((150, 180, 240), (245, 200, 150))
MAX_FOOTPRINTS = 8


class WalkDriver:
    """Steps a walk scenario's physics with the studio clock (module docs)."""

    name = "walk physics"

    def __init__(self, doc: dict[str, Any], source: str) -> None:
        from robotsim.errors import ScenarioError
        from robotsim.model.loader import load_robot
        from robotsim.validation import validate_as
        from robotsim.walk.biped import biped_of
        from robotsim.walk.run import WalkScenario, scenario_params, scenario_robot

        self.sc = validate_as(WalkScenario, doc, source, ScenarioError)
        self.source = source
        self.biped = biped_of(load_robot(scenario_robot(self.sc.robot, source)))
        self.params = scenario_params(self.sc.params, source)
        self.velocity = (0.0, 0.0, 0.0)  # what the panel asks (m/s, m/s, rad/s)
        self._steered = False
        self._footprints: list[Any] = []
        self._shown_plan: tuple[float, ...] = ()
        self.new_run()

    def new_run(self) -> None:
        from robotsim.walk.engine import WalkEngine
        from robotsim.walk.simulate import CommandDriver, Push, WalkSim

        self.driver = CommandDriver(WalkEngine(self.biped, self.params))
        pushes = tuple(Push(p.t, p.impulse, p.direction, p.duration) for p in self.sc.pushes)
        self.sim = WalkSim(self.driver, pushes=pushes, friction=self.sc.friction, record=False)
        self.commands = sorted(self.sc.commands, key=lambda c: c.t)
        self.log = FrameLog()
        self._steered = False
        self._shown_plan = ()

    @property
    def robot_name(self) -> str:
        return self.biped.name

    @property
    def limits(self) -> tuple[float, float, float]:
        """The fastest ``(vx, vy, wz)`` the step limits allow (m/s, m/s, rad/s)."""
        r = self.driver.res
        T = r.step_period
        return (r.max_step_length / T, r.max_step_side / (2 * T), r.max_turn / (2 * T))

    @property
    def cruise(self) -> tuple[float, float, float]:
        """What a full key or stick asks: half of :attr:`limits` (steps half as long as
        the legs allow: a speed the walk holds from a standstill; at three quarters of
        the limits humanoid17 fell within 3 s)."""
        return tuple(0.5 * v for v in self.limits)  # type: ignore[return-value]

    def set_velocity(self, vx: float, vy: float = 0.0, wz: float = 0.0) -> None:
        """Steer the walk (body frame, m/s, m/s, rad/s): the panel's sliders, keys or
        gamepad. All zero stops it."""
        v = (float(vx), float(vy), float(wz))
        if v != self.velocity or not self._steered:
            self.velocity = v
            self._steered = True
            self.driver.command(*v)

    # -------------------------------------------------------------- driver
    def attach(self, studio: Studio) -> None:
        self.apply(studio)

    def reset(self, studio: Studio) -> None:
        self.new_run()
        self.apply(studio)

    def recorded_end(self) -> float:
        return self.log.end

    def show_at(self, studio: Studio, t: float) -> None:
        view = studio.find_robot(self.robot_name)
        if view is not None:
            view.set_link_poses(self.log.at(t))

    def step(self, studio: Studio, t: float, dt: float) -> None:
        if t < self.log.end - 1e-9:  # scrubbed back: replay the recording
            self.show_at(studio, t)
            return
        sim = self.sim
        budget = 200  # ticks per call at most: the page stays responsive
        while sim.t < t - 1e-9 and budget > 0 and not (sim.fell and sim.t > sim.fell_at + 1.0):
            while self.commands and self.commands[0].t <= sim.t + 1e-9:
                c = self.commands.pop(0)
                if c.goal is not None:
                    self.driver.go_to(c.goal[0], c.goal[1], math.radians(c.goal[2]))
                else:
                    self.driver.command(c.vx, c.vy, math.radians(c.turn))
            sim.step()
            budget -= 1
        self.apply(studio, t)

    def apply(self, studio: Studio, t: float = 0.0) -> None:
        """Show the measured robot (recorded as time ``t``) and the planned footsteps."""
        view = studio.find_robot(self.robot_name)
        poses = self.sim.link_poses()
        if view is not None:
            view.set_link_poses(poses)
        if not len(self.log) or t > self.log.end + 1e-9:
            self.log.add(t, poses)
        self.draw_footsteps(studio)

    def draw_footsteps(self, studio: Studio) -> None:
        """The planned footsteps (module docs), redrawn when the plan changes."""
        eng = self.driver.engine
        steps = [s for s in eng.steps if s.t_land >= eng.t - eng.period][:MAX_FOOTPRINTS]
        key = tuple(round(v, 4) for s in steps for v in (s.t_lift, *s.pose))
        if key == self._shown_plan:
            return
        self._shown_plan = key
        scene = studio.scene
        for h in self._footprints:
            try:
                h.remove()
            except Exception:  # already gone with the scene
                pass
        self._footprints = []
        b = self.biped
        for i, s in enumerate(steps):
            poly = b.polygons[s.side]
            size = (float(np.ptp(poly[:, 0])), float(np.ptp(poly[:, 1])), 0.004)
            cx, cy = b.centres[s.side]
            m = geometry_mesh(Box(size))
            x, y, yaw = s.pose
            c, sn = math.cos(yaw), math.sin(yaw)
            pos = (x + c * cx - sn * cy, y + sn * cx + c * cy, 0.002)
            air = s.t_lift <= eng.t < s.t_land
            rgb = (FOOT_AIR_RGB if air else FOOT_RGB)[s.side]
            self._footprints.append(
                scene.add_mesh_simple(
                    f"/walk/footstep{i}",
                    np.asarray(m.vertices, np.float32),
                    np.asarray(m.faces, np.uint32),
                    color=rgb,
                    position=pos,
                    wxyz=(math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)),
                    cast_shadow=False,
                )
            )

    def status(self) -> str:
        sim, eng = self.sim, self.driver.engine
        T = sim.base.pose
        yaw = math.degrees(math.atan2(T[1, 0], T[0, 0]))
        vx, vy, wz = self.velocity
        state = (
            f"**FELL** at {sim.fell_at:.2f} s ({sim.reason})"
            if sim.fell
            else ("walking" if eng.walking else "standing")
        )
        lx, ly, lw = self.limits
        turn = f"{math.degrees(lw):.0f}°/s" if lw > 0 else "none (its steps cannot turn)"
        return (
            f"**{self.robot_name}** {state} · t {sim.t:.2f} s · at ({T[0, 3]:.2f}, "
            f"{T[1, 3]:.2f}) m, heading {yaw:.0f}° · command vx {vx:.2f} m/s, vy "
            f"{vy:.2f} m/s, turn {math.degrees(wz):.0f}°/s · planned steps {len(eng.steps)}"
            f" · step limits {lx:.2f} m/s forward, {ly:.2f} m/s sideways, turn {turn}"
        )


def open_walk(studio: Studio, path: Path, doc: dict[str, Any]) -> str:
    """The ``kind: walk`` studio opener (:mod:`robotsim.scenario.kinds`)."""
    from robotsim.studio.interface import SceneRobot

    driver = WalkDriver(doc, str(path))  # validates before the scene changes
    b = driver.biped
    q = driver.sim.joint_positions()
    T = driver.sim.base.pose
    h = b.sole_height
    return studio.load_scene(
        f"scenario {path.stem} (walk, physics)",
        [SceneRobot(b.model, b.name, T, q)],
        driver=driver,
        camera=np.array([[-0.5 * h, -1.0 * h, 0.0], [2.0 * h, 1.0 * h, 1.2 * h]]),
    )
