"""Posing: one slider per joint (degrees for revolute joints, millimetres for
prismatic ones, within the joint limits), named poses, reset, and IK drag handles."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.model.robot import JointType
from robotsim.studio.coalesce import Coalesced
from robotsim.studio.ik_handles import IKHandles

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["PosePanel", "slider_spec"]

_FREE_DEG = 180.0  # range shown for revolute joints without limits
_FREE_MM = 1000.0


def slider_spec(lower: float, upper: float, prismatic: bool) -> tuple[float, float, float, float]:
    """(min, max, step, factor) of a joint slider in display units; ``factor`` turns
    SI values (rad, m) into display values (deg, mm)."""
    factor = 1000.0 if prismatic else 180.0 / np.pi
    free = _FREE_MM if prismatic else _FREE_DEG
    lo = lower * factor if np.isfinite(lower) else -free
    hi = upper * factor if np.isfinite(upper) else free
    step = 1.0 if prismatic else 0.5
    return round(lo, 3), round(hi, 3), step, factor


class PosePanel:
    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        gui = studio.gui
        self.handles = IKHandles(studio)
        self.robot = gui.add_dropdown("Robot", ("",), initial_value="")
        self.pose_name = gui.add_dropdown("Named pose", ("",), initial_value="")
        self.apply_pose = gui.add_button("Apply pose", icon="check")
        self.reset = gui.add_button("Reset robot", icon="refresh")
        self.drag = gui.add_checkbox("Drag handles (IK)", initial_value=False,
                                     hint="Gizmos on the tool, hands and feet")  # fmt: skip
        self.readout = gui.add_markdown("")
        self.folder = gui.add_folder("Joints")
        self.sliders: dict[str, tuple[Any, float]] = {}
        self._shown: str | None = None
        self._lock = threading.RLock()
        self._sync = Coalesced(lambda _force: self._draw())
        self._was_playing = False  # the studio played at the last clock event

        @self.robot.on_update
        @studio.guarded("choose robot")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.build_sliders()

        @self.apply_pose.on_click
        @studio.guarded("apply pose")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            view = studio.find_robot(self.robot.value)
            if view is not None and self.pose_name.value:
                studio.set_q(view.name, view.model.pose(self.pose_name.value))

        @self.reset.on_click
        @studio.guarded("reset robot")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            view = studio.find_robot(self.robot.value)
            if view is not None:
                studio.set_q(view.name, view.initial_q)

        @self.drag.on_update
        @studio.guarded("drag handles")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.handles.set_enabled(self.drag.value)

        studio.on("robots", self.on_robots)
        studio.on("state", self.sync)
        studio.on("clock", self._sync_if_playing)
        self.on_robots()

    # ----------------------------------------------------------------- building
    def on_robots(self) -> None:
        with self._lock:
            names = self.studio.robot_names() or ("",)
            self.robot.options = names
            if self.robot.value not in names:
                self.robot.value = names[0]
            self.build_sliders()

    def build_sliders(self) -> None:
        """Sliders for the chosen robot (rebuilt only when the robot changed; the page
        may echo a dropdown change from another thread, hence the lock)."""
        with self._lock:
            self._build_sliders()

    def _build_sliders(self) -> None:
        st = self.studio
        view = st.find_robot(self.robot.value)
        # A robot replaced under the same name is a new view: new sliders.
        key = None if view is None else f"{view.name}:{view.serial}"
        if key == self._shown:
            return
        self._shown = key
        for slider, _ in self.sliders.values():
            slider.remove()
        self.sliders = {}
        poses = ("",) if view is None else (tuple(view.model.poses) or ("",))
        self.pose_name.options = poses
        self.pose_name.value = poses[0]
        if view is None:
            self.readout.content = "_no robot_"
            return
        gui = st.gui
        m = view.model
        with self.folder:
            for name, value in zip(m.joint_names, view.q):
                j = m.joint(name)
                prismatic = j.type is JointType.PRISMATIC
                lo, hi, step, factor = slider_spec(j.limits.lower, j.limits.upper, prismatic)
                unit = "mm" if prismatic else "°"
                s = gui.add_slider(
                    f"{name} ({unit})", min=lo, max=hi, step=step,
                    initial_value=float(np.clip(round(value * factor, 3), lo, hi)),
                )  # fmt: skip
                s.on_update(st.guarded(f"joint {name}")(self._on_slider(view.name, name)))
                self.sliders[name] = (s, factor)
        self.sync()

    def _on_slider(self, robot: str, joint: str):  # type: ignore[no-untyped-def]
        def cb(event) -> None:  # type: ignore[no-untyped-def]
            if event.client is None:  # our own sync, not a user
                return
            slider, factor = self.sliders[joint]
            self.studio.set_joint(robot, joint, slider.value / factor)

        return cb

    # ------------------------------------------------------------------- sync
    def _sync_if_playing(self) -> None:
        """Follow the robots while the clock runs, and once more on the first clock
        event after it stopped (a pause, or a driver at its end): the ticks run since
        the last periodic sync are shown too. While paused the sliders are the user's."""
        playing = self.studio.playing
        was, self._was_playing = self._was_playing, playing
        if playing or was:
            self.sync()

    def sync(self) -> None:
        """Sliders and the readout follow the robot's configuration. Called from the
        studio loop and from any thread that changes a robot: one thread draws at a
        time, and a call during a draw is served by one more draw after it."""
        self._sync()

    def _draw(self) -> None:
        view = self.studio.find_robot(self.robot.value)
        sliders = self.sliders
        if view is None or set(sliders) != set(view.model.joint_names):
            return
        for name, value in zip(view.model.joint_names, view.q):
            slider, factor = sliders[name]
            shown = float(np.clip(round(value * factor, 3), slider.min, slider.max))
            if abs(slider.value - shown) > 1e-6:
                slider.value = shown
        root = view.model.root
        frames = [root, *(f for f in self.handles_frames(view) if f != root)]
        lines = []
        for f in frames:  # where the robot is shown, also when a physics run moves it
            p = view.frame_pose(f)[:3, 3]
            lines.append(f"`{f}` at ({p[0]:.3f}, {p[1]:.3f}, {p[2]:.3f}) m")
        self.readout.content = "<br>".join(lines)

    @staticmethod
    def handles_frames(view: Any) -> list[str]:
        from robotsim.studio.ik_handles import handle_frames

        return handle_frames(view.model)
