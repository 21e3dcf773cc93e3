"""What is drawn: visual and collision geometry, link frames, the ground grid, the
robots' names in 3D; the robots in the scene (remove one, frame the camera on all, a
camera that follows one of them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from robotsim.studio.follow import CameraFollow
from robotsim.studio.labels import RobotLabels

_OFF = "off"

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["ViewPanel"]


class ViewPanel:
    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        gui = studio.gui
        self.toggles = {
            "visual": gui.add_checkbox("Visual geometry", initial_value=True),
            "collision": gui.add_checkbox("Collision geometry", initial_value=False),
            "frames": gui.add_checkbox("Link frames", initial_value=False),
        }
        self.grid = gui.add_checkbox("Ground grid", initial_value=True)
        self.names = gui.add_checkbox("Robot names", initial_value=True,
                                      hint="Each robot's name above it in the 3D view")  # fmt: skip
        self.labels = RobotLabels(studio)
        self.camera = CameraFollow(studio)
        self.follow = gui.add_dropdown(
            "Camera follows", (_OFF,), initial_value=_OFF,
            hint="Keep this robot in the middle of the view while it moves",
        )  # fmt: skip
        self.robot_list = gui.add_markdown("")
        self.which = gui.add_dropdown("Robot", ("",), initial_value="")
        self.remove = gui.add_button("Remove robot", icon="trash")
        self.frame = gui.add_button("Frame camera on all", icon="focus-centered")

        for kind, box in self.toggles.items():
            box.on_update(studio.guarded(f"show {kind}")(self._toggle(kind)))

        @self.grid.on_update
        def _(_) -> None:  # type: ignore[no-untyped-def]
            studio.show_grid(self.grid.value)

        @self.names.on_update
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.labels.show(self.names.value)

        @self.follow.on_update
        @studio.guarded("camera follow")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            if event.client is not None:
                v = self.follow.value
                self.camera.follow(None if v == _OFF else v)

        @self.remove.on_click
        @studio.guarded("remove robot")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            if self.which.value in studio.robot_names():
                studio.remove_robot(self.which.value)

        @self.frame.on_click
        @studio.guarded("frame camera")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            studio.frame_camera()

        studio.on("robots", self.refresh)
        self.refresh()

    def _toggle(self, kind: str):  # type: ignore[no-untyped-def]
        def cb(_) -> None:  # type: ignore[no-untyped-def]
            self.apply(kind, self.toggles[kind].value)

        return cb

    def apply(self, kind: str, visible: bool) -> None:
        """Show or hide ``kind`` (visual/collision/frames) on every robot."""
        with self.studio.locked():
            for _, v in self.studio.views():
                v.set_visible(kind, visible)

    def refresh(self) -> None:
        st = self.studio
        for kind, box in self.toggles.items():
            self.apply(kind, box.value)  # new robots follow the toggles
        lines = [
            f"- **{n}**: {v.model.name}, {v.model.nq} joints, {len(v.model.links)} links, "
            f"{v.count('visual')} visual / {v.count('collision')} collision shapes"
            for n, v in st.views()
        ]
        self.robot_list.content = "\n".join(lines) or "_no robots_"
        names = st.robot_names() or ("",)
        self.which.options = names
        if self.which.value not in names:
            self.which.value = names[0]
        follow = (_OFF, *st.robot_names())
        self.follow.options = follow
        if self.follow.value not in follow:
            self.follow.value = _OFF
