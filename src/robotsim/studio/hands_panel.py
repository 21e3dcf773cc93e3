"""The studio side of the hands: a driver that ticks a :class:`HandsTeleop` every
studio step, a driver that plays a ``hand_ball_transfer`` script, and a "Teleop" panel
with the devices, per-finger touch flags, grasp state, the speed step and the events.

``robotsim teleop`` registers :class:`HandsPanel` in the studio's ``TABS`` and the
driver in ``DRIVERS`` before starting the studio. Importing this module registers
:func:`open_hand_scenario` in ``SCENARIO_OPENERS`` (``robotsim studio FILE.yaml``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.hands.script import ScriptPlayer, ScriptStep
from robotsim.spatial import R_to_quat
from robotsim.studio.scenarios import SCENARIO_OPENERS

if TYPE_CHECKING:
    from robotsim.hands.script import HandsSim
    from robotsim.hands.teleop import HandsTeleop
    from robotsim.studio.app import Studio

__all__ = [
    "ROBOT_NAME",
    "HandsDriver",
    "HandsPanel",
    "ScriptDriver",
    "hands_status_markdown",
    "open_hand_scenario",
]

ROBOT_NAME = "hands"


class _HandsView:
    """Draws the ball and the tables of a hands simulation and moves robot and ball."""

    name = "hands"

    def __init__(self, sim: HandsSim, robot: str = ROBOT_NAME) -> None:
        self.sim = sim
        self.robot = robot
        self.ball: Any = None
        self.ticks = 0

    def attach(self, studio: Studio) -> None:
        """Draw the ball and the tables once (under ``/hands``)."""
        scene = self.sim.scene  # type: ignore[attr-defined]
        srv = studio.server.scene
        self.ball = srv.add_icosphere(
            "/hands/ball", radius=scene.ball.radius, color=(230, 120, 40), subdivisions=3
        )
        studio.objects.append(self.ball)  # removed with the scene (Studio.clear)
        for t in scene.tables:
            box = srv.add_box(f"/hands/{t.name}", dimensions=t.size, color=(150, 130, 110),
                              position=t.center)  # fmt: skip
            studio.objects.append(box)
        self._show(studio)

    def _show(self, studio: Studio) -> None:
        snap = self.sim.snapshot()
        view = studio.robots.get(self.robot)
        if view is not None:
            view.set_q(np.asarray(snap.q))
        if self.ball is not None:
            T = np.asarray(snap.ball_pose)
            self.ball.position = tuple(T[:3, 3])
            self.ball.wxyz = tuple(R_to_quat(T[:3, :3]))


class HandsDriver(_HandsView):
    """Ticks the teleoperated hands simulation; the robot and ball follow it."""

    name = "hands teleop"

    def __init__(self, teleop: HandsTeleop, robot: str = ROBOT_NAME) -> None:
        super().__init__(teleop.sim, robot)
        self.teleop = teleop

    def reset(self, studio: Studio) -> None:
        self.sim.reset()  # type: ignore[attr-defined]
        self._show(studio)

    def step(self, studio: Studio, t: float, dt: float) -> None:
        self.teleop.tick()
        self.ticks += 1
        self._show(studio)


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
        self._show(studio)

    def step(self, studio: Studio, t: float, dt: float) -> None:
        if self.player.tick():
            self.ticks += 1
        self._show(studio)


def open_hand_scenario(studio: Studio, path: Path, doc: dict[str, Any]) -> str:
    """Studio opener for ``kind: hand_ball_transfer``: the robot, the ball and the
    tables, with the script as the driver (press Play)."""
    from robotsim.hands.kinematic import KinematicHands
    from robotsim.hands.scenario_spec import hand_scenario_from_data
    from robotsim.studio.drivers import DRIVERS

    spec, scene = hand_scenario_from_data(doc, str(path))
    sim = KinematicHands(scene, studio.clock.dt)
    driver = ScriptDriver(sim, spec.steps(), spec.speed_rad)
    studio.clear()
    studio.add_robot(scene.robot, name=ROBOT_NAME, T_world_base=scene.T_world_robot, q=scene.q0)
    driver.attach(studio)
    DRIVERS[driver.name] = lambda: driver
    with studio.lock:
        studio.driver = driver
    studio.title = f"scenario {path.stem}"
    studio.frame_camera()
    return f"{studio.title}: scripted hand-to-hand transfer, {len(spec.script)} steps (Play)"


def _is_hand_scenario(doc: dict[str, Any]) -> bool:
    return doc.get("kind") == "hand_ball_transfer"


if (_is_hand_scenario, open_hand_scenario) not in SCENARIO_OPENERS:
    SCENARIO_OPENERS.append((_is_hand_scenario, open_hand_scenario))


def hands_status_markdown(teleop: HandsTeleop) -> str:
    """The panel text: devices, per-hand flags, the ball, the last events."""
    st = teleop.sim.snapshot()
    lines = [f"**mode**: {teleop.sim.mode} · t = {st.t:.2f} s"]
    lines += [f"- {d}" for d in teleop.devices()]
    for side, h in st.hands.items():
        fingers = " ".join("●" if b else "○" for b in h.touching)
        cmd = teleop.last_commands.get(side)
        speed = f"{np.degrees(cmd.speed):.0f}°/s" if cmd is not None else "-"
        flags = ", ".join(
            f for f, on in (("grasped", h.grasped), ("locked", not h.can_move),
                            ("blocked", h.blocked)) if on
        ) or "free"  # fmt: skip
        lines.append(f"**{side}** touch {fingers} · {flags} · speed {speed}")
    p = st.ball_position
    held = "both hands" if st.held_by_both else (", ".join(st.grasped_by) or "nobody")
    where = f"resting on {st.ball_surface}" if st.ball_resting else "moving"
    lines.append(f"**ball** ({p[0]:.3f}, {p[1]:.3f}, {p[2]:.3f}) m · held by {held} · {where}")
    events = teleop.sim.observable.events[-6:]
    if events:
        lines.append("**events**: " + "; ".join(
            f"{e.t:.2f} {e.type}{'' if e.hand is None else ' ' + e.hand}" for e in events
        ))  # fmt: skip
    return "\n\n".join(lines)


class HandsPanel:
    """The "Teleop" tab: what the hands are doing, refreshed with the studio clock."""

    def __init__(self, studio: Studio, teleop: HandsTeleop) -> None:
        self.studio = studio
        self.teleop = teleop
        gui = studio.server.gui
        self.text = gui.add_markdown("")
        from robotsim.studio.keyboard import BrowserKeyboard

        kb = teleop.keyboard_device
        self.keyboard = kb if isinstance(kb, BrowserKeyboard) else None
        if self.keyboard is not None:
            self.keyboard.install(gui)
        self.reset = gui.add_button("Reset hands and ball", icon="refresh")  # type: ignore[arg-type]

        @self.reset.on_click
        @studio.guarded("reset hands")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            studio.reset()
            studio.play(True)

        studio.on("clock", self.refresh)
        studio.on("state", self.refresh)
        self.refresh()

    def refresh(self) -> None:
        text = hands_status_markdown(self.teleop)
        if self.keyboard is not None:
            text += "\n\n" + self.keyboard.status()
        self.text.content = text
