"""Denavit-Hartenberg tables -> RobotModel.

Standard DH (Denavit & Hartenberg; Corke's ``DHRobot``)::

    T_{j-1,j} = Rz(theta_j) Tz(d_j) Tx(a_j) Rx(alpha_j)

Modified DH (Craig; Corke's ``RevoluteMDH``), where row j holds ``a_{j-1}, alpha_{j-1}``::

    T_{j-1,j} = Rx(alpha_{j-1}) Tx(a_{j-1}) Rz(theta_j) Tz(d_j)

For a revolute joint ``theta_j = q_j + offset_j``; for a prismatic one
``d_j = q_j + offset_j``. In both conventions the link frame of link j *is* DH frame
j: Rz and Tz commute, so the joint is written ``origin @ Rz(q) @ post`` with
``post = Tx(a) Rx(alpha)`` (standard) or ``post = I`` (modified). ``base`` multiplies
on the left of the first joint, ``tool`` is the frame ``tool`` on the last link.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError
from robotsim.model.builder import RobotBuilder
from robotsim.model.geometry import Shape
from robotsim.model.robot import Inertial, JointDynamics, RobotModel
from robotsim.spatial import make_T, rot_x, rot_z

__all__ = ["DHJoint", "dh_builder", "from_dh"]


@dataclass(frozen=True)
class DHJoint:
    """One row of a DH table, SI units (m, rad).

    ``theta`` is the constant angle of a prismatic joint (ignored for revolute);
    ``qlim`` the position limits of q (rad or m).
    """

    d: float = 0.0
    a: float = 0.0
    alpha: float = 0.0
    offset: float = 0.0
    theta: float = 0.0
    prismatic: bool = False
    qlim: tuple[float, float] = (-np.inf, np.inf)
    velocity: float = np.inf
    effort: float = np.inf
    name: str | None = None
    link: str | None = None
    visuals: tuple[Shape, ...] = field(default_factory=tuple)
    inertial: Inertial | None = None
    dynamics: JointDynamics | None = None

    def __post_init__(self) -> None:
        for k in ("d", "a", "alpha", "offset", "theta"):
            v = getattr(self, k)
            if not np.isfinite(v):
                raise InputError(f"DH parameter {k} must be finite, got {v!r}")
        if np.isnan(self.qlim[0]) or np.isnan(self.qlim[1]):
            raise InputError("DH joint limits must not be NaN")


def dh_builder(
    joints: Sequence[DHJoint],
    convention: str = "standard",
    name: str = "dh_robot",
    base: ArrayLike | None = None,
    tool: ArrayLike | None = None,
    base_visuals: Sequence[Shape] = (),
    kind: str = "arm",
) -> RobotBuilder:
    """A RobotBuilder holding the DH chain (add frames and poses, then ``build()``)."""
    if convention not in ("standard", "modified"):
        raise InputError(f"DH convention {convention!r}; valid: standard, modified")
    if not joints:
        raise InputError("a DH table needs at least one joint")
    b = RobotBuilder(name, kind=kind)
    b.link("base_link", visuals=base_visuals)
    parent = "base_link"
    T_base = np.eye(4) if base is None else np.asarray(base, float)
    for j, row in enumerate(joints, start=1):
        jname = row.name or f"joint{j}"
        lname = row.link or f"link{j}"
        if row.prismatic:
            along_z = make_T(rot_z(row.theta), [0.0, 0.0, row.offset])
        else:
            along_z = make_T(rot_z(row.offset), [0.0, 0.0, row.d])
        if convention == "standard":
            origin = along_z
            post = make_T(rot_x(row.alpha), [row.a, 0.0, 0.0])
        else:
            origin = make_T(rot_x(row.alpha), [row.a, 0.0, 0.0]) @ along_z
            post = np.eye(4)
        if j == 1:
            origin = T_base @ origin
        b.link(lname, visuals=row.visuals, inertial=row.inertial)
        b.joint(
            jname,
            "prismatic" if row.prismatic else "revolute",
            parent,
            lname,
            origin=origin,
            post=post,
            lower=row.qlim[0],
            upper=row.qlim[1],
            velocity=row.velocity,
            effort=row.effort,
            dynamics=row.dynamics,
        )
        parent = lname
    b.frame("tool", parent, None if tool is None else np.asarray(tool, float))
    b.default_frame = "tool"
    return b


def from_dh(joints: Sequence[DHJoint], convention: str = "standard", **kwargs: Any) -> RobotModel:
    """Build a serial RobotModel from DH rows (see the module doc for the maths).

    Keyword arguments as :func:`dh_builder`: ``name``, ``base`` (4x4), ``tool`` (4x4),
    ``base_visuals``, ``kind``.
    """
    return dh_builder(joints, convention, **kwargs).build()
