"""The studio side of the hands: a driver that ticks a :class:`HandsTeleop` every
studio step, a driver that plays a ``hand_ball_transfer`` script, and the opener of
``kind: hand_ball_transfer`` files (:mod:`robotsim.scenario.kinds`). The Teleop tab is
:mod:`robotsim.studio.hands.panel`; ``robotsim teleop`` gives both to its studio.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.hands.script import ScriptPlayer, ScriptStep
from robotsim.spatial import R_to_quat
from robotsim.studio.drivers import FrameLog

if TYPE_CHECKING:
    from robotsim.hands.script import HandsSim
    from robotsim.hands.teleop import HandsTeleop
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["ROBOT_NAME", "HandsDriver", "ScriptDriver", "open_hand_scenario"]

ROBOT_NAME = "hands"


class _HandsView:
    """Draws the ball (or the object) and the tables of a hands simulation and moves robot
    and ball;
    records ``(q, ball pose)`` at every studio tick it simulates, so a time slider can
    show them again (``recorded_end``, ``show_at``)."""

    name = "hands"

    def __init__(self, sim: HandsSim, robot: str = ROBOT_NAME) -> None:
        self.sim = sim
        self.robot = robot
        self.ball: Any = None
        self.ticks = 0
        self.log = FrameLog()

    def attach(self, studio: Studio) -> None:
        """Draw the ball and the tables once (under ``/hands``)."""
        scene = self.sim.scene  # type: ignore[attr-defined]
        srv = studio.scene
        if scene.obj is not None:  # any object: its surface, moved as the ball is
            v, f = scene.obj.surface
            v32, f32 = np.asarray(v, np.float32), np.asarray(f, np.uint32)
            self.ball = srv.add_mesh_simple("/hands/ball", vertices=v32, faces=f32,
                                            color=(230, 120, 40))  # fmt: skip
        else:
            self.ball = srv.add_icosphere(
                "/hands/ball", radius=scene.ball.radius, color=(230, 120, 40), subdivisions=3
            )
        nodes = [self.ball]
        for t in scene.tables:
            nodes.append(srv.add_box(f"/hands/{t.name}", dimensions=t.size,
                                     color=(150, 130, 110), position=t.center))  # fmt: skip
        studio.keep_objects(nodes)  # removed with the scene (Studio.clear)
        self._show(studio)

    def _show(self, studio: Studio, t: float = 0.0) -> None:
        """Show the simulation's state, recorded as time ``t`` (s)."""
        snap = self.sim.snapshot()
        frame = (np.array(snap.q, dtype=float), np.array(snap.ball_pose, dtype=float))
        if not len(self.log) or t > self.log.end + 1e-9:
            self.log.add(t, frame)
        self._draw(studio, frame)

    def _draw(self, studio: Studio, frame: tuple[np.ndarray, np.ndarray]) -> None:
        q, T = frame
        view = studio.find_robot(self.robot)
        if view is not None:
            view.set_q(q)
        if self.ball is not None:
            self.ball.position = tuple(T[:3, 3])
            self.ball.wxyz = tuple(R_to_quat(T[:3, :3]))

    def recorded_end(self) -> float:
        """The last simulated tick (s)."""
        return self.log.end

    def show_at(self, studio: Studio, t: float) -> None:
        """Show robot and ball as recorded at time ``t`` (s); the simulation stays at
        :meth:`recorded_end`."""
        self._draw(studio, self.log.at(t))

    def replaying(self, studio: Studio, t: float) -> bool:
        """Scrubbed back before the last simulated tick: show the recording there."""
        if t < self.log.end - 1e-9:
            self.show_at(studio, t)
            return True
        return False


class HandsDriver(_HandsView):
    """Ticks the teleoperated hands simulation; the robot and ball follow it."""

    name = "hands teleop"

    def __init__(self, teleop: HandsTeleop, robot: str = ROBOT_NAME) -> None:
        super().__init__(teleop.sim, robot)
        self.teleop = teleop

    def reset(self, studio: Studio) -> None:
        self.sim.reset()  # type: ignore[attr-defined]
        self.log.clear()
        self._show(studio)

    def step(self, studio: Studio, t: float, dt: float) -> None:
        if self.replaying(studio, t):
            return
        self.teleop.tick(time_scaled=False)  # the studio clock runs at the time scale
        self.ticks += 1
        self._show(studio, t)


class ScriptDriver(_HandsView):
    """Plays a ``hand_ball_transfer`` script (kinematic mode) on the studio clock."""

    name = "hand transfer script"

    def __init__(self, sim: HandsSim, steps: list[ScriptStep], speed: float,
                 robot: str = ROBOT_NAME) -> None:  # fmt: skip
        super().__init__(sim, robot)
        self.steps, self.speed = steps, speed
        self.player = ScriptPlayer(sim, steps, speed)

    def reset(self, studio: Studio) -> None:
        self.sim.reset()  # type: ignore[attr-defined]
        self.player = ScriptPlayer(self.sim, self.steps, self.speed)
        self.log.clear()
        self._show(studio)

    def step(self, studio: Studio, t: float, dt: float) -> None:
        if self.replaying(studio, t):
            return
        if self.player.tick():
            self.ticks += 1
        self._show(studio, t)


def open_hand_scenario(studio: Studio, path: Path, doc: dict[str, Any]) -> str:
    """The ``kind: hand_ball_transfer`` studio opener: the robot, the ball and the
    tables, with the script as the driver (press Play). A single-arm ``gripper:`` file
    runs on MuJoCo physics only (:mod:`robotsim.hands.gripper_scenario`), which this view
    does not play: it is refused with the CLI command that runs it."""
    from robotsim.errors import ScenarioError
    from robotsim.hands.kinematic import KinematicHands
    from robotsim.hands.scenario_spec import hand_scenario_from_data
    from robotsim.studio.interface import SceneRobot

    if isinstance(doc, dict) and "gripper" in doc:
        raise ScenarioError(
            f"{path}: gripper: a single-arm gripper pick runs on MuJoCo physics only, which "
            f"the studio does not play yet; run it from the CLI: "
            f"robotsim run {path} --mode physics"
        )
    spec, scene = hand_scenario_from_data(doc, str(path))
    sim = KinematicHands(scene, studio.dt)
    driver = ScriptDriver(sim, spec.steps(), spec.speed_rad)
    robot = SceneRobot(scene.robot, ROBOT_NAME, scene.T_world_robot, scene.q0)
    studio.load_scene(f"scenario {path.stem}", [robot], driver=driver)
    return f"{studio.title}: scripted hand-to-hand transfer, {len(spec.script)} steps (Play)"
