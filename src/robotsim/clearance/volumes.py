"""Bounding volumes attached to robot links.

A :class:`LinkVolume` puts a sphere, capsule, box or ellipsoid on a link at
``T_link_volume``. Volumes are given explicitly (as in the seed paper) or fitted to the
link's collision geometry (visual geometry when there is none): the minimum-volume
enclosing ellipsoid of the shapes' enclosing points (Wolfe-Atwood), or an enclosing
sphere, capsule or box (:mod:`robotsim.geometry.fit`).

The paper's PUMA 560 end-link ellipsoid: the paper reduces the PUMA to its first three
joints, so its "end link" is the forearm from the elbow to the wrist centre. In our
``puma560`` (standard-DH link frames) that is ``link3``: its frame sits at the elbow
and the wrist centre is at ``(0, 0, d4)`` with ``d4 = 0.4318 m``. The ellipsoid is
centred at the midpoint ``(0, 0, d4/2)`` with the long semi-axis (250 mm) along z3 and
120 mm / 125 mm along x3 / y3 (:func:`paper_puma_end_link`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from robotsim.errors import InputError
from robotsim.geometry import fit
from robotsim.model.geometry import Box, Capsule, Ellipsoid, Sphere, readonly
from robotsim.model.robot import RobotModel
from robotsim.spatial import make_T

__all__ = ["LinkVolume", "VolumeKind", "fit_link_volume", "fit_link_volumes", "paper_puma_end_link"]

VolumeKind = Literal["ellipsoid", "sphere", "capsule", "box"]
Primitive = Sphere | Capsule | Box | Ellipsoid


@dataclass(frozen=True, eq=False)
class LinkVolume:
    """A primitive bounding volume on ``link`` at ``T_link_volume (4, 4)``."""

    link: str
    shape: Primitive
    T_link_volume: np.ndarray = field(default_factory=lambda: readonly(np.eye(4)))

    def __post_init__(self) -> None:
        if not isinstance(self.shape, Sphere | Capsule | Box | Ellipsoid):
            raise InputError(
                f"volume on {self.link!r}: must be a sphere, capsule, box or ellipsoid"
            )
        object.__setattr__(self, "T_link_volume", readonly(self.T_link_volume, (4, 4)))


def fit_link_volume(
    model: RobotModel,
    link: str,
    kind: VolumeKind = "ellipsoid",
    source: Literal["collision", "visual", "auto"] = "auto",
) -> LinkVolume:
    """Fit a bounding volume of ``kind`` to ``link``'s geometry (``auto``: collision
    shapes if any, else visual)."""
    lk = model.link(link)
    shapes = lk.collisions if source == "collision" else lk.visuals
    if source == "auto":
        shapes = lk.collisions or lk.visuals
    if not shapes:
        raise InputError(f"{model.name}: link {link!r} has no {source} geometry to fit a volume to")
    base = model.source.parent if model.source is not None else None
    pts = fit.shape_points(shapes, base)
    if kind == "ellipsoid":
        c, R, radii = fit.min_volume_ellipsoid(pts)
        return LinkVolume(
            link, Ellipsoid((float(radii[0]), float(radii[1]), float(radii[2]))), make_T(R, c)
        )
    if kind == "sphere":
        c, rho = fit.enclosing_sphere(pts)
        return LinkVolume(link, Sphere(max(rho, 1e-9)), make_T(np.eye(3), c))
    if kind == "capsule":
        c, R, rho, length = fit.enclosing_capsule(pts)
        return LinkVolume(link, Capsule(rho, length), make_T(R, c))
    if kind == "box":
        c, R, size = fit.enclosing_box(pts)
        return LinkVolume(link, Box((float(size[0]), float(size[1]), float(size[2]))), make_T(R, c))
    raise InputError(f"volume kind {kind!r}; valid: ellipsoid, sphere, capsule, box")


def model_link_volumes(model: RobotModel, link: str) -> tuple[LinkVolume, ...]:
    """The link's own collision shapes used as volumes, unchanged (they must all be
    spheres, capsules, boxes or ellipsoids)."""
    lk = model.link(link)
    if not lk.collisions:
        raise InputError(f"{model.name}: link {link!r} has no collision shapes to use as volumes")
    out = []
    for sh in lk.collisions:
        if not isinstance(sh.geometry, Sphere | Capsule | Box | Ellipsoid):
            raise InputError(
                f"{model.name}: link {link!r} collision shape is a {type(sh.geometry).__name__}"
                " (fit: model takes spheres, capsules, boxes and ellipsoids as they are); "
                "fit a volume to it instead: fit: capsule, ellipsoid, sphere or box"
            )
        out.append(LinkVolume(link, sh.geometry, sh.T_link_shape))
    return tuple(out)


def fit_link_volumes(model: RobotModel, kind: VolumeKind = "ellipsoid") -> tuple[LinkVolume, ...]:
    """One fitted volume per link that has any geometry."""
    return tuple(
        fit_link_volume(model, lk.name, kind) for lk in model.links if lk.collisions or lk.visuals
    )


def paper_puma_end_link(d4: float = 0.4318) -> LinkVolume:
    """The seed paper's PUMA 560 end-link ellipsoid on ``link3`` (see the module)."""
    T = np.eye(4)
    T[2, 3] = d4 / 2
    return LinkVolume("link3", Ellipsoid((0.120, 0.125, 0.250)), T)
