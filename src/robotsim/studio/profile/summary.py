"""What the Profile tab shows of a robot's profile (:mod:`robotsim.profile`): a short
markdown summary, the markers to draw on the robot, and the mobile scenario that lets a
wheeled base from a file drive in the studio."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from robotsim.model.robot import RobotModel
from robotsim.profile.types import Profile

__all__ = ["Marker", "drive_scenario", "profile_markdown", "profile_markers"]

#: marker colours by kind (RGB 0..255), read-only
COLOURS = MappingProxyType(
    {
        "sole": (40, 160, 60),
        "tool": (220, 120, 20),
        "fingertip": (200, 40, 160),
        "wheel": (30, 110, 220),
    }
)


@dataclass(frozen=True)
class Marker:
    """A frame to draw on ``link``: ``T_link_marker`` ``(4, 4)``, its ``kind`` (sole,
    tool, fingertip, wheel) and ``name``; ``outline`` ``(k, 3)`` in the marker frame (a
    sole polygon), may be empty."""

    kind: str
    name: str
    link: str
    T_link_marker: np.ndarray
    outline: np.ndarray


def profile_markers(model: RobotModel, profile: Profile) -> list[Marker]:
    """Sole frames (with their polygons), tool and fingertip frames, and each wheel's
    ground contact (on the base link), in the links' own frames."""
    out = []
    for f in profile.feet:
        out.append(Marker("sole", f.sole.name, f.sole.link, f.sole.T, f.corners()))
    for a in profile.arms:
        out.append(Marker("tool", a.tool.name, a.tool.link, a.tool.T, np.zeros((0, 3))))
    for g in profile.grippers:
        for t in g.fingertips:
            out.append(Marker("fingertip", t.name, t.link, t.T, np.zeros((0, 3))))
    for w in profile.wheels:
        T = np.eye(4)
        T[:3, 3] = w.position
        out.append(Marker("wheel", w.joint, profile.base_link, T, np.zeros((0, 3))))
    return out


def _fmt(v: Any) -> str:
    return ", ".join(f"{x:.3g}" for x in v)


def profile_markdown(profile: Profile) -> str:
    """The profile in a few markdown lines (kind, base, mass, then each limb's parts)."""
    p = profile
    lines = [
        f"**{p.robot}**: {p.kind.value}; base `{p.base_link}`; {p.mass:.3g} kg, "
        f"CoM ({_fmt(p.com)}) m"
    ]
    for lg in p.legs:
        foot = p.foot(lg.foot)
        size = np.ptp(np.asarray(foot.polygon), axis=0)
        lines.append(
            f"- leg `{lg.name}`: {len(lg.joints)} joints; foot `{foot.link}`, sole "
            f"`{foot.sole.name}` {size[0] * 100:.1f} x {size[1] * 100:.1f} cm"
            + (f", toes {', '.join(foot.toes)}" if foot.toes else "")
        )
    for a in p.arms:
        lines.append(
            f"- arm `{a.name}`: {len(a.joints)} joints; tool `{a.tool.name}` on `{a.tool.link}`"
            + (f"; gripper `{a.gripper}`" if a.gripper else "")
        )
    for g in p.grippers:
        tips = ", ".join(f"`{t.name}`" for t in g.fingertips)
        lines.append(f"- gripper `{g.name}` on `{g.link}`: {len(g.fingers)} fingers, tips {tips}")
    for w in p.wheels:
        lines.append(f"- wheel `{w.joint}`: r {w.radius * 100:.1f} cm at ({_fmt(w.position)}) m"
                     + (f", {len(w.rollers)} passive rollers" if w.rollers else ""))  # fmt: skip
    if p.drive is not None:
        rows = "; ".join(_fmt(r) for r in p.drive.matrix)
        lines.append(
            f"- drive **{p.drive.type}** ({len(p.drive.wheels)} wheels"
            + (f", track {p.drive.track:.3g} m" if p.drive.track else "")
            + (f", casters {', '.join(p.drive.casters)}" if p.drive.casters else "")
            + f"): wheel rates = M [vx, vy, wz], M rows {rows}"
        )
    lines.extend(f"- note: {n}" for n in p.notes)
    return "\n".join(lines)


def drive_scenario(model: RobotModel, target: str, distance: float = 2.0) -> dict[str, Any]:
    """A ``kind: mobile`` scenario document for a wheeled base opened from ``target`` (a
    file path or a library name): the robot alone on a field with a goal ``distance`` m
    ahead, for the studio's mobile driver."""
    from robotsim.mobile.load import footprint_radius

    r = footprint_radius(model)
    size = max(6.0, 2 * distance + 8 * r)
    return {
        "format": "robotsim-scenario/1",
        "kind": "mobile",
        "name": f"drive_{model.name}",
        "field": {"size": [size, size * 2 / 3]},
        "robots": [
            {
                "name": "base",
                "model": target,
                "start": [-distance / 2, 0.0, 0.0],
                "goal": [distance / 2, 0.0, 0.0],
            }
        ],
    }
