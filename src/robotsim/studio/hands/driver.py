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
    """Plays a ``hand_ball_transfer`` script on the studio clock, in the file's mode
    (kinematic unless it says ``mode: physics``); with ``plan`` (a
    :class:`robotsim.hands.run.StepSource`, e.g. ``script: planned``) the steps come
    from it phase by phase as the run goes, as ``robotsim run`` plays them. The
    transfer is measured tick by tick (:class:`robotsim.hands.transfer.TransferCheck`)
    and its verdict, with its numbers, is shown when the script ends."""

    name = "hand transfer script"

    def __init__(self, sim: HandsSim, steps: list[ScriptStep], speed: float,
                 robot: str = ROBOT_NAME, plan_factory: Any = None) -> None:  # fmt: skip
        super().__init__(sim, robot)
        self.steps, self.speed = steps, speed
        self.plan_factory = plan_factory
        self.verdict: dict[str, Any] | None = None
        self._start()

    def _start(self) -> None:
        from robotsim.hands.transfer import TransferCheck

        self.plan = None if self.plan_factory is None else self.plan_factory()
        self.player = ScriptPlayer(self.sim, list(self.steps), self.speed)
        self.check = TransferCheck(self.sim)
        self.verdict = None
        self._seen = 0

    def reset(self, studio: Studio) -> None:
        self.sim.reset()  # type: ignore[attr-defined]
        self._start()
        self.log.clear()
        self._show(studio)

    def _tick(self) -> bool:
        """One simulation tick (asking the plan for its next steps when the player ran
        out); False once the script is over."""
        if not self.player.tick():
            more = [] if self.plan is None else self.plan.next_steps(self.sim, self.player.result())
            if not more:
                return False
            self.player.extend(more)
            if not self.player.tick():
                return False
        events = tuple(self.player.events[self._seen :])
        self._seen = len(self.player.events)
        snap = self.sim.snapshot()
        self.check.tick(events, {s: h.touching for s, h in snap.hands.items()})
        return True

    def step(self, studio: Studio, t: float, dt: float) -> None:
        if self.replaying(studio, t):
            return
        if self.verdict is None:
            if self._tick():
                self.ticks += 1
            else:
                self._finish(studio)
        self._show(studio, t)

    def _finish(self, studio: Studio) -> None:
        from robotsim.hands.transfer import verdict_line

        v = self.check.result(self.sim.t)
        if self.plan is not None:
            v = self.plan.verdict(v)
        self.verdict = v
        studio.notify(f"transfer ({self.sim.mode})", verdict_line(v), error=not v["success"])


def open_hand_scenario(studio: Studio, path: Path, doc: dict[str, Any]) -> str:
    """The ``kind: hand_ball_transfer`` studio opener: the robot, the ball (or object)
    and the tables, with the script as the driver (press Play), in the file's ``mode``
    (kinematic by default). ``script: planned`` plans the transfer from the object
    phase by phase as it plays (:mod:`robotsim.grasp.transfer`). A single-arm
    ``gripper:`` file runs on MuJoCo physics only (:mod:`robotsim.hands.gripper_scenario`),
    which this view does not play: it is refused with the CLI command that runs it."""
    from robotsim.errors import ScenarioError
    from robotsim.hands.run import make_sim
    from robotsim.hands.scenario_spec import hand_scenario_from_data
    from robotsim.studio.interface import SceneRobot

    if isinstance(doc, dict) and "gripper" in doc:
        raise ScenarioError(
            f"{path}: gripper: a single-arm gripper pick runs on MuJoCo physics only, which "
            f"the studio does not play yet; run it from the CLI: "
            f"robotsim run {path} --mode physics"
        )
    spec, scene = hand_scenario_from_data(doc, str(path))
    mode = spec.mode or "kinematic"
    sim = make_sim(scene, mode, studio.dt, spec)
    robot = SceneRobot(scene.robot, ROBOT_NAME, scene.T_world_robot, scene.q0)
    if spec.script == "planned":
        from robotsim.grasp.transfer import PlannedTransfer

        driver = ScriptDriver(sim, [], spec.speed_rad, plan_factory=lambda: PlannedTransfer(scene))
        what = "hand-to-hand transfer planned from the object as it plays"
    else:
        driver = ScriptDriver(sim, spec.steps(), spec.speed_rad)
        what = f"scripted hand-to-hand transfer, {len(spec.script)} steps"
    studio.load_scene(f"scenario {path.stem}", [robot], driver=driver)
    return f"{studio.title}: {what}, {mode} (Play)"
