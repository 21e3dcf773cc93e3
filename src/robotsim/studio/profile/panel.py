"""The Profile tab: what robotsim infers about the opened robot (legs and soles, arms
and tools, grippers and fingertips, wheels and drive; a profile file next to the robot
overrides parts), with markers on the robot in 3D, and a Drive button that opens a
wheeled base from a file in a small mobile scenario (the mobile driver: MuJoCo physics,
goal controller, clickable goal)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.errors import InputError
from robotsim.profile.types import Profile
from robotsim.spatial import R_to_quat
from robotsim.studio.profile.summary import (
    COLOURS,
    drive_scenario,
    profile_markdown,
    profile_markers,
)

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["ProfilePanel"]


class ProfilePanel:
    """The Profile tab (see the module docstring)."""

    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        gui = studio.gui
        self.robot = gui.add_dropdown("Robot", ("",), initial_value="")
        self.show = gui.add_checkbox("Show markers", initial_value=True)
        self.text = gui.add_markdown("")
        self.drive = gui.add_button("Drive this base", icon="steering-wheel", disabled=True)
        self.status = gui.add_markdown("")
        self.profiles: dict[str, Profile] = {}
        self.markers: list[Any] = []  # scene nodes
        self._serials: dict[str, int] = {}
        self._drawn_on: tuple[str, int] = ("", -1)  # robot name and view serial

        @self.robot.on_update
        @studio.guarded("profile")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.refresh()

        @self.show.on_update
        @studio.guarded("profile markers")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.draw()

        @self.drive.on_click
        @studio.guarded("drive")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.open_drive()

        studio.on("robots", self.on_robots)
        self.on_robots()

    # ------------------------------------------------------------------ state
    def profile(self, name: str) -> Profile:
        """The profile of robot ``name`` in the scene (inferred once per robot view)."""
        from robotsim.profile.resolve import resolve_profile

        view = self.studio.robot(name)
        if self._serials.get(name) != view.serial or name not in self.profiles:
            self.profiles[name] = resolve_profile(view.model)
            self._serials[name] = view.serial
        return self.profiles[name]

    def on_robots(self) -> None:
        names = tuple(self.studio.robot_names()) or ("",)
        self.robot.options = names
        if self.robot.value not in names:
            self.robot.value = names[0]
        self.refresh()

    def refresh(self) -> None:
        name = self.robot.value
        if not name or self.studio.find_robot(name) is None:
            self.text.content = "no robot"
            self.drive.disabled = True
            self.clear_markers()
            return
        p = self.profile(name)
        self.text.content = profile_markdown(p)
        self.drive.disabled = p.drive is None
        self.draw()

    # ---------------------------------------------------------------- markers
    def clear_markers(self) -> None:
        name, serial = self._drawn_on
        view = self.studio.find_robot(name) if name else None
        if view is not None and view.serial == serial:  # else they went with the robot
            for h in self.markers:
                if not h.name.endswith("/outline"):  # an outline goes with its frame
                    h.remove()
        self.markers = []
        self._drawn_on = ("", -1)

    def draw(self) -> None:
        """Markers of the selected robot, as children of its link nodes (they follow it)."""
        self.clear_markers()
        name = self.robot.value
        view = self.studio.find_robot(name) if name else None
        if view is None or not self.show.value:
            return
        scene = self.studio.scene
        size = view.characteristic_length()
        self._drawn_on = (name, view.serial)
        for i, m in enumerate(profile_markers(view.model, self.profile(name))):
            node = f"{view.root_path}/{m.link}/profile_{m.kind}_{i}"
            R, t = m.T_link_marker[:3, :3], m.T_link_marker[:3, 3]
            self.markers.append(
                scene.add_frame(
                    node,
                    wxyz=R_to_quat(R),
                    position=t,
                    axes_length=0.1 * size,
                    axes_radius=0.005 * size,
                    origin_radius=0.012 * size,
                    origin_color=COLOURS[m.kind],
                )
            )
            if len(m.outline) >= 3:
                pts = np.vstack([m.outline, m.outline[:1]])
                seg = np.stack([pts[:-1], pts[1:]], axis=1).astype(np.float32)
                self.markers.append(
                    scene.add_line_segments(
                        f"{node}/outline", seg, colors=COLOURS[m.kind], thickness=0.004 * size
                    )
                )

    # ------------------------------------------------------------------ drive
    def open_drive(self) -> str:
        """Open the selected wheeled base in a small mobile scenario (mobile driver)."""
        from robotsim.studio.mobile.driver import open_mobile

        name = self.robot.value
        p = self.profile(name)
        if p.drive is None:
            raise InputError(f"robot {name!r} has no wheel drive in its profile")
        model = self.studio.robot(name).model
        target = str(Path(model.source).resolve()) if model.source else model.name
        doc = drive_scenario(model, target)
        where = Path(model.source).with_suffix(".drive.yaml") if model.source else Path("drive")
        out = open_mobile(self.studio, where, doc)
        self.status.content = out
        return out
