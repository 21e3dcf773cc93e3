"""Drag handles: transform gizmos on end effectors and feet, solved with the model's IK.

A handle sits at a frame (an arm's tool, a foot's sole: the robot profile's) in world
coordinates.
Dragging it asks :meth:`RobotModel.ik` for the configuration that puts the frame at the
handle, starting from the current one (no random restarts, so the arm follows the hand
smoothly); chains with fewer than six joints follow the position only. When the drag
ends, or the robot moves for another reason, the handle snaps back onto its frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import viser

from robotsim.model.robot import RobotModel
from robotsim.spatial import R_to_quat, inv_T, make_T, quat_to_R

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["IKHandles", "handle_frames"]

_MAX_HANDLES = 4


def handle_frames(model: RobotModel) -> list[str]:
    """Frames worth a drag handle: the file's default frame, then the robot profile's
    arm tools and foot soles (the same tool ``robotsim ik`` places by default; a frame
    the profile adds is handled at its link), else the last link (not for a mobile
    base)."""
    from robotsim.profile.resolve import resolve_profile

    if model.nq == 0:
        return []
    names: list[str] = []
    if model.default_frame:
        names.append(model.default_frame)
    have = set(model.frame_names) | set(model.link_names)
    prof = resolve_profile(model)
    for site in [a.tool for a in prof.arms] + [f.sole for f in prof.feet]:
        name = site.name if site.name in have else site.link
        if name not in names:
            names.append(name)
    if not names and model.kind != "mobile":
        names.append(model.link_names[-1])
    return names[:_MAX_HANDLES]


@dataclass
class _Handle:
    robot: str
    frame: str
    control: viser.TransformControlsHandle
    position_only: bool
    dragging: bool = False


class IKHandles:
    """Owns the gizmos of every robot in a studio; :attr:`enabled` shows or hides them."""

    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        self.enabled = False
        self.handles: list[_Handle] = []
        studio.on("robots", self.rebuild)
        studio.after_push(self.sync)

    def set_enabled(self, enabled: bool) -> None:
        self.enabled = enabled
        self.rebuild()

    def rebuild(self) -> None:
        for h in self.handles:
            h.control.remove()
        self.handles = []
        if not self.enabled:
            return
        st = self.studio
        with st.locked():
            for rname, view in st.views():
                size = view.characteristic_length()
                for frame in handle_frames(view.model):
                    J = view.model.jacobian(view.q, frame)
                    dof = int(np.sum(np.linalg.norm(J, axis=0) > 1e-9))
                    T = view.state.pose(frame)
                    ctl = st.scene.add_transform_controls(
                        f"/handles/{rname}/{frame}", scale=0.25 * size,
                        wxyz=R_to_quat(T[:3, :3]), position=T[:3, 3], depth_test=False,
                        disable_rotations=dof < 6,
                    )  # fmt: skip
                    h = _Handle(rname, frame, ctl, position_only=dof < 6)
                    ctl.on_update(self._callback(h))
                    self.handles.append(h)

    def _callback(self, h: _Handle):  # type: ignore[no-untyped-def]
        @self.studio.guarded(f"drag {h.frame}")
        def on_update(event: viser.TransformControlsEvent) -> None:
            h.dragging = event.phase != "end"
            T_world = make_T(quat_to_R(np.asarray(event.target.wxyz)), event.target.position)
            self.drag(h.robot, h.frame, T_world, position_only=h.position_only)
            if event.phase == "end":
                self.sync(force=True)

        return on_update

    def drag(self, robot: str, frame: str, T_world_target: np.ndarray,
             position_only: bool = False) -> float:  # fmt: skip
        """Move ``robot`` so ``frame`` reaches ``T_world_target`` ``(4, 4)`` as well as it
        can; returns the remaining position error (m)."""
        st = self.studio
        with st.locked():
            view = st.robot(robot)
            T_root_target = inv_T(view.state.T_world_root) @ T_world_target
            target = T_root_target[:3, 3] if position_only else T_root_target
            res = view.model.ik(target, link=frame, q0=view.q, tol=1e-5, max_iter=30,
                                restarts=0, max_step=0.2)  # fmt: skip
            view.set_q(res.q)
        st.emit("state")
        return float(res.position_error)

    def sync(self, force: bool = False) -> None:
        """Put every handle not being dragged back onto its frame."""
        st = self.studio
        for h in self.handles:
            if h.dragging and not force:
                continue
            view = st.find_robot(h.robot)
            if view is None:
                continue
            T = view.state.pose(h.frame)
            h.control.position = T[:3, 3]
            h.control.wxyz = R_to_quat(T[:3, :3])
