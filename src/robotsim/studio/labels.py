"""Robot names in the 3D view: a label above each robot that moves with it.

Each label is a child of the robot's root link node (so a driving base or a walking
humanoid carries its name along), placed just above the robot's top (a gap sized from
its height) at the pose it was added in. :class:`RobotLabels` keeps one label per robot
of the scene (added and removed with the robots) and shows or hides them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio
    from robotsim.studio.robot_view import RobotView

__all__ = ["RobotLabels", "label_gap", "label_offset"]

ABOVE = 0.15  # m: the largest gap between a robot's top and its name
GAP = 0.04  # of the robot's height: the gap (a fixed 0.15 m left a 1 m robot's name afloat)


def label_gap(bounds: np.ndarray) -> float:
    """The gap (m) between a robot's top and its name, from its world bounds ``(2, 3)``:
    4 % of its height, between 2 cm and :data:`ABOVE`."""
    height = float(bounds[1, 2] - bounds[0, 2])
    return float(np.clip(GAP * height, 0.02, ABOVE))


def label_offset(view: RobotView) -> np.ndarray:
    """Where the name sits in the root link's frame ``(3,)`` (m): just above the robot's
    highest point (:func:`label_gap`), over the root link's origin."""
    T = view.link_poses()[0]
    bounds = view.world_bounds()
    top = bounds[1, 2] + label_gap(bounds)
    p_world = np.array([T[0, 3], T[1, 3], top])
    return T[:3, :3].T @ (p_world - T[:3, 3])


class RobotLabels:
    """One name label per robot of ``studio`` (see module docs)."""

    def __init__(self, studio: Studio, visible: bool = True) -> None:
        self.studio = studio
        self.visible = visible
        self.handles: dict[tuple[str, int], Any] = {}  # (name, view serial) -> label
        studio.on("robots", self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """A label for every robot now in the scene (those of removed robots went with
        their nodes)."""
        st = self.studio
        with st.locked():
            keep = {}
            for name, view in st.views():
                key = (name, view.serial)
                h = self.handles.get(key)
                if h is None:
                    root = view.model.link_names[0]
                    h = st.scene.add_label(
                        f"{view.root_path}/{root}/name_label", name,
                        position=tuple(label_offset(view)), anchor="bottom-center",
                        font_screen_scale=1.3, visible=self.visible,
                    )  # fmt: skip
                keep[key] = h
            self.handles = keep

    def show(self, visible: bool) -> None:
        self.visible = bool(visible)
        for h in self.handles.values():
            h.visible = self.visible

    def text(self) -> dict[str, str]:
        """Robot name -> its label's text."""
        return {name: h.text for (name, _), h in self.handles.items()}
