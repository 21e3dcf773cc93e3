"""The studio side of hand teleoperation: a driver that ticks a :class:`HandsTeleop`
every studio step and shows the robot and the ball, and a "Teleop" panel with the
devices, per-finger touch flags, grasp state, the speed step and the event log.

Used by ``robotsim teleop``: it registers :class:`HandsPanel` in the studio's ``TABS``
and the driver in ``DRIVERS`` before starting the studio.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from robotsim.spatial import R_to_quat

if TYPE_CHECKING:
    from robotsim.hands.teleop import HandsTeleop
    from robotsim.studio.app import Studio

__all__ = ["HandsDriver", "HandsPanel", "hands_status_markdown"]

ROBOT_NAME = "hands"


class HandsDriver:
    """Ticks the teleoperated hands simulation; the robot and ball follow it."""

    name = "hands teleop"

    def __init__(self, teleop: HandsTeleop, robot: str = ROBOT_NAME) -> None:
        self.teleop = teleop
        self.robot = robot
        self.ball = None
        self.ticks = 0

    def attach(self, studio: Studio) -> None:
        """Draw the ball and the tables once (under ``/hands``)."""
        scene = self.teleop.sim.scene
        srv = studio.server.scene
        self.ball = srv.add_icosphere(
            "/hands/ball", radius=scene.ball.radius, color=(230, 120, 40), subdivisions=3
        )
        for t in scene.tables:
            srv.add_box(f"/hands/{t.name}", dimensions=t.size, color=(150, 130, 110),
                        position=t.center)  # fmt: skip
        self._show(studio)

    def reset(self, studio: Studio) -> None:
        self.teleop.sim.reset()
        self._show(studio)

    def step(self, studio: Studio, t: float, dt: float) -> None:
        self.teleop.tick()
        self.ticks += 1
        self._show(studio)

    def _show(self, studio: Studio) -> None:
        sim = self.teleop.sim
        view = studio.robots.get(self.robot)
        if view is not None:
            view.set_q(np.asarray(sim.snapshot().q))
        if self.ball is not None:
            T = np.asarray(sim.snapshot().ball_pose)
            self.ball.position = tuple(T[:3, 3])
            self.ball.wxyz = tuple(R_to_quat(T[:3, :3]))


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
        self.reset = gui.add_button("Reset hands and ball", icon="refresh")

        @self.reset.on_click
        @studio.guarded("reset hands")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            studio.reset()
            studio.play(True)

        studio.on("clock", self.refresh)
        studio.on("state", self.refresh)
        self.refresh()

    def refresh(self) -> None:
        self.text.content = hands_status_markdown(self.teleop)
