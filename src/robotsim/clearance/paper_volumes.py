"""The seed paper's ellipsoid on every link (seed 004, section 2, Figs. 3-4).

The paper reduces the PUMA 560 to its first three links and encloses each in an
ellipsoid: "the principal axis is set by the link length, the centre is the link's
midpoint; each ellipsoid stands for its link", and gives the end link's numbers:
semi-axes 250 mm along the 431.8 mm forearm, 120 mm and 125 mm across it.

We apply that construction to any model:

- A link's **segment** runs between the points where it is jointed: from its own joint
  axis point (the parent joint's origin, a point of both links; the root: its frame
  origin) to each child joint's axis point. Segments shorter than ``min_length`` are
  skipped (the PUMA's shoulder housing and its wrist links, which the paper's
  three-link model leaves out); a link with several children gets one ellipsoid per
  child segment.
- The **ellipsoid** of a segment of length ``L`` is the paper's end-link ellipsoid
  scaled by ``L / 0.4318``: centre at the midpoint, long semi-axis ``250 mm * L /
  0.4318`` along the segment, ``120`` and ``125 mm * L / 0.4318`` across it, the first
  along the link frame's x axis made perpendicular to the segment (its y axis when x
  runs along the segment). On the PUMA's forearm this is the paper's ellipsoid (to the
  2 cm shoulder offset ``a3``, which shifts its centre by 1 cm).

On the ``puma560`` this gives three ellipsoids, the paper's Fig. 4: the column
(base to shoulder, 0.672 m), the upper arm (shoulder to elbow, 0.457 m) and the forearm
(elbow to wrist centre, 0.432 m).
"""

from __future__ import annotations

import numpy as np

from robotsim.clearance.volumes import LinkVolume
from robotsim.model.geometry import Ellipsoid
from robotsim.model.robot import RobotModel

__all__ = ["PAPER_END_LINK", "paper_link_volumes"]

#: The paper's end-link ellipsoid: (semi-axes across x, across y, along) m, link length m.
PAPER_END_LINK = ((0.120, 0.125, 0.250), 0.4318)


def _joint_point_in_child(post: np.ndarray) -> np.ndarray:
    """The joint frame's origin (on the axis) in the child link's frame: ``post^-1 0``."""
    R, t = post[:3, :3], post[:3, 3]
    return -R.T @ t


def paper_link_volumes(model: RobotModel, min_length: float = 0.05) -> tuple[LinkVolume, ...]:
    """One ellipsoid per link segment by the paper's construction (see the module)."""
    (sx, sy, sz), L0 = PAPER_END_LINK
    start: dict[str, np.ndarray] = {model.root: np.zeros(3)}
    for j in model.joints:
        start[j.child] = _joint_point_in_child(np.asarray(j.post))
    out: list[LinkVolume] = []
    for lk in model.links:
        for j in model.joints:
            if j.parent != lk.name:
                continue
            p0 = start[lk.name]
            p1 = np.asarray(j.origin)[:3, 3]  # the child joint's axis point, in this link
            axis = p1 - p0
            length = float(np.linalg.norm(axis))
            if length < min_length:
                continue
            z = axis / length
            x = np.array([1.0, 0.0, 0.0])
            if abs(x @ z) > 0.95:
                x = np.array([0.0, 1.0, 0.0])
            x = x - (x @ z) * z
            x /= np.linalg.norm(x)
            T = np.eye(4)
            T[:3, :3] = np.column_stack([x, np.cross(z, x), z])
            T[:3, 3] = 0.5 * (p0 + p1)
            k = length / L0
            out.append(LinkVolume(lk.name, Ellipsoid((sx * k, sy * k, sz * k)), T))
    return tuple(out)
