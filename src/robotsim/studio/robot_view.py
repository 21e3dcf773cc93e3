"""One robot in the 3D view: its link nodes, shapes, frames and kinematic state.

Each link is one viser scene node at ``/robots/<name>/<link>`` whose pose is the link's
world pose; visual shapes, collision shapes and axes are children of that node with
fixed local transforms. A pose update therefore sends one position and one orientation
per link that moved, whatever the number of shapes.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import viser

from robotsim.kinematics.floating import AnchoredState
from robotsim.model.geometry import Box, Mesh, Shape
from robotsim.model.robot import RobotModel
from robotsim.spatial import R_to_quat
from robotsim.studio.shapes import geometry_mesh, geometry_parts, mesh_bounds

__all__ = ["COLLISION_RGB", "RobotView", "ShapeNode"]

COLLISION_RGB = (255, 140, 40)
_DEFAULT_RGBA = (0.7, 0.7, 0.75, 1.0)
_SERIAL = itertools.count(1)


@dataclass(frozen=True)
class ShapeNode:
    """A shape drawn in the scene: its node name, link and kind (visual/collision)."""

    name: str
    link: str
    kind: str


def _pose_args(T: np.ndarray) -> dict[str, np.ndarray]:
    return {"wxyz": R_to_quat(T[:3, :3]), "position": T[:3, 3].copy()}


class RobotView:
    """A robot placed in the studio scene.

    Args:
        server: the viser server.
        name: unique instance name (scene path ``/robots/<name>``).
        model: the robot.
        T_world_base: pose ``(4, 4)`` of the root link in the world (m).
        q: initial configuration ``(nq,)`` (rad/m); the model's zero pose if None.
    """

    def __init__(
        self,
        server: viser.ViserServer,
        name: str,
        model: RobotModel,
        T_world_base: np.ndarray | None = None,
        q: np.ndarray | None = None,
    ) -> None:
        self.server = server
        self.name = name
        self.serial = next(_SERIAL)  # tells apart views that reuse a name
        self.model = model
        self.root_path = f"/robots/{name}"
        T0 = np.eye(4) if T_world_base is None else np.asarray(T_world_base, float)
        self.initial_q = model.zero() if q is None else np.asarray(q, float).copy()
        self.initial_T_world_root = T0.copy()
        self.state = AnchoredState(model, self.initial_q.copy(), T0)
        self.shapes: list[ShapeNode] = []
        self._shape_handles: dict[str, list[viser.SceneNodeHandle]] = {
            "visual": [], "collision": [], "frames": [],
        }  # fmt: skip
        self.show = {"visual": True, "collision": False, "frames": False}
        self._bounds_local: dict[str, np.ndarray] = {}
        self._override: np.ndarray | None = None  # link poses set by a physics engine
        self.dirty = True
        self._root = server.scene.add_frame(self.root_path, show_axes=False)
        self.link_handles = self._build()

    # --------------------------------------------------------------- building
    def _build(self) -> list[viser.FrameHandle]:
        scene = self.server.scene
        handles = []
        poses = self.state.link_poses()
        frames_by_link: dict[str, list] = {}
        for fr in self.model.frames:
            frames_by_link.setdefault(fr.link, []).append(fr)
        size = self.characteristic_length()
        for link, T in zip(self.model.links, poses):
            path = f"{self.root_path}/{link.name}"
            h = scene.add_frame(path, show_axes=False, **_pose_args(T))
            handles.append(h)
            for i, shape in enumerate(link.visuals):
                self._add_shape(f"{path}/visual_{i}", link.name, shape, "visual")
            for i, shape in enumerate(link.collisions):
                self._add_shape(f"{path}/collision_{i}", link.name, shape, "collision")
            axes = scene.add_frame(
                f"{path}/axes", axes_length=0.12 * size, axes_radius=0.006 * size,
                origin_radius=0.01 * size, visible=False,
            )  # fmt: skip
            self._shape_handles["frames"].append(axes)
            for fr in frames_by_link.get(link.name, []):
                fh = scene.add_frame(
                    f"{path}/frame_{fr.name}", axes_length=0.08 * size,
                    axes_radius=0.004 * size, visible=False, **_pose_args(fr.T_link_frame),
                )  # fmt: skip
                self._shape_handles["frames"].append(fh)
        return handles

    def _add_shape(self, node: str, link: str, shape: Shape, kind: str) -> None:
        mesh = geometry_mesh(shape.geometry)
        pose = _pose_args(np.asarray(shape.T_link_shape))
        b = mesh_bounds(mesh, np.asarray(shape.T_link_shape))
        prev = self._bounds_local.get(link)
        self._bounds_local[link] = (
            b if prev is None else np.stack([np.minimum(prev[0], b[0]), np.maximum(prev[1], b[1])])
        )
        scene = self.server.scene
        visible = self.show[kind]
        if kind == "collision":
            h = scene.add_mesh_simple(
                node, np.asarray(mesh.vertices, np.float32), np.asarray(mesh.faces, np.uint32),
                color=COLLISION_RGB, opacity=0.45, visible=visible, cast_shadow=False, **pose,
            )  # fmt: skip
        elif tuple(shape.rgba) == _DEFAULT_RGBA and geometry_parts(shape.geometry):
            # one mesh per material of the file (3DS/X): every texture shows
            h = scene.add_frame(node, show_axes=False, visible=visible, **pose)
            for i, part in enumerate(geometry_parts(shape.geometry)):
                scene.add_mesh_trimesh(f"{node}/part{i}", part)
        elif (
            isinstance(shape.geometry, Mesh)
            and tuple(shape.rgba) == _DEFAULT_RGBA
            and getattr(mesh.visual, "kind", None) is not None
        ):
            h = scene.add_mesh_trimesh(node, mesh, visible=visible, **pose)
        else:
            rgba = np.clip(np.asarray(shape.rgba, float), 0.0, 1.0)
            h = scene.add_mesh_simple(
                node, np.asarray(mesh.vertices, np.float32), np.asarray(mesh.faces, np.uint32),
                color=tuple(int(c * 255 + 0.5) for c in rgba[:3]),
                opacity=None if rgba[3] >= 1.0 else float(rgba[3]),
                flat_shading=isinstance(shape.geometry, Box),
                visible=visible, **pose,
            )  # fmt: skip
        self._shape_handles[kind].append(h)
        self.shapes.append(ShapeNode(node, link, kind))

    # ------------------------------------------------------------ geometry
    def characteristic_length(self) -> float:
        """A length scale (m) for axes and handles: the span of the link origins at the
        initial pose, at least 0.3 m."""
        p = self.state.link_poses()[:, :3, 3]
        return float(max(0.3, np.ptp(p, axis=0).max()))

    def world_bounds(self) -> np.ndarray:
        """Axis-aligned bounds ``(2, 3)`` (m) of the visual and collision shapes (link
        origins for links without shapes) at the current pose."""
        pts = []
        for link, T in zip(self.model.link_names, self.link_poses()):
            b = self._bounds_local.get(link)
            if b is None:
                pts.append(T[:3, 3][None])
                continue
            corners = np.array(np.meshgrid(*b.T)).reshape(3, -1).T
            pts.append(corners @ T[:3, :3].T + T[:3, 3])
        allp = np.concatenate(pts)
        return np.stack([allp.min(axis=0), allp.max(axis=0)])

    # -------------------------------------------------------------- state
    @property
    def q(self) -> np.ndarray:
        return self.state.q

    def set_q(self, q: Sequence[float] | np.ndarray) -> None:
        """Move the joints (rad/m, clipped into the limits); the view updates on the next
        :meth:`push`."""
        qa = np.clip(np.asarray(q, dtype=np.float64), self.model.lower, self.model.upper)
        self.state.set_q(qa)
        self._override = None
        self.dirty = True

    def set_base(self, T_world_root: np.ndarray) -> None:
        self.state.set_root(T_world_root)
        self._override = None
        self.dirty = True

    def set_link_poses(self, poses: np.ndarray) -> None:
        """Show link world poses ``(L, 4, 4)`` computed elsewhere (a physics engine)
        instead of the kinematics; the next :meth:`set_q` or :meth:`reset` ends it."""
        P = np.asarray(poses, dtype=np.float64)
        if P.shape != (len(self.model.links), 4, 4):
            raise ValueError(f"expected ({len(self.model.links)}, 4, 4) poses, got {P.shape}")
        self._override = P
        self.dirty = True

    def reset(self) -> None:
        self.state = AnchoredState(self.model, self.initial_q.copy(), self.initial_T_world_root)
        self._override = None
        self.dirty = True

    def link_poses(self) -> np.ndarray:
        """World poses ``(L, 4, 4)`` of the links (``model.link_names`` order): the
        kinematics, or the poses given to :meth:`set_link_poses`."""
        return self.state.link_poses() if self._override is None else self._override

    def frame_pose(self, name: str) -> np.ndarray:
        """World pose ``(4, 4)`` of a link or frame as shown: the kinematics, or the
        link poses a physics driver gave (:meth:`set_link_poses`)."""
        if self._override is None:
            return self.state.pose(name)
        li, T_link_frame = self.model.tree.frame(name)
        return self._override[li] @ T_link_frame

    def push(self, force: bool = False) -> int:
        """Send the link poses to the clients; returns the number of links sent."""
        if not (self.dirty or force):
            return 0
        poses = self.link_poses()
        quats = R_to_quat(poses[:, :3, :3])
        pos = poses[:, :3, 3]
        for h, qw, p in zip(self.link_handles, quats, pos):
            h.wxyz = qw
            h.position = p
        self.dirty = False
        return len(self.link_handles)

    def scene_link_poses(self) -> np.ndarray:
        """What the scene nodes hold now: ``(L, 7)`` rows ``[x, y, z, qw, qx, qy, qz]``."""
        return np.array([np.concatenate([h.position, h.wxyz]) for h in self.link_handles])

    # ------------------------------------------------------------ visibility
    def set_visible(self, kind: str, visible: bool) -> None:
        """Show or hide ``kind``: ``visual``, ``collision`` or ``frames``."""
        self.show[kind] = visible
        for h in self._shape_handles[kind]:
            h.visible = visible

    def count(self, kind: str) -> int:
        return len(self._shape_handles[kind])

    def remove(self) -> None:
        self._root.remove()

    def __repr__(self) -> str:
        return f"RobotView({self.name!r}, {self.model.name!r})"
