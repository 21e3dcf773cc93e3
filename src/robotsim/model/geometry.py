"""Geometric shapes attached to links (visual, collision, bounding volumes).

All shapes are frozen values in SI units, centred on their own frame: boxes by full
side lengths, cylinders and capsules along their local z axis, ellipsoids by their
three semi-axes. A :class:`Shape` places one of them on a link with ``T_link_shape``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from robotsim.errors import InputError

__all__ = [
    "Box",
    "Capsule",
    "Cylinder",
    "Ellipsoid",
    "Geometry",
    "Mesh",
    "Shape",
    "Sphere",
    "readonly",
]


def readonly(a: object, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """A float64 copy of ``a`` that callers cannot write to."""
    arr = np.array(a, dtype=np.float64)
    if shape is not None and arr.shape != shape:
        raise InputError(f"expected shape {shape}, got {arr.shape}")
    arr.setflags(write=False)
    return arr


def _positive(name: str, *values: float) -> None:
    for v in values:
        if not np.isfinite(v) or v <= 0:
            raise InputError(f"{name} must be finite and > 0, got {v!r}")


@dataclass(frozen=True)
class Box:
    """Axis-aligned box with full side lengths ``size`` (m)."""

    size: tuple[float, float, float]

    def __post_init__(self) -> None:
        _positive("box size", *self.size)


@dataclass(frozen=True)
class Sphere:
    radius: float

    def __post_init__(self) -> None:
        _positive("sphere radius", self.radius)


@dataclass(frozen=True)
class Cylinder:
    """Cylinder along local z, ``length`` is the full height (m)."""

    radius: float
    length: float

    def __post_init__(self) -> None:
        _positive("cylinder radius/length", self.radius, self.length)


@dataclass(frozen=True)
class Capsule:
    """Capsule along local z; ``length`` is the cylindrical part (m), caps excluded."""

    radius: float
    length: float

    def __post_init__(self) -> None:
        _positive("capsule radius", self.radius)
        if not np.isfinite(self.length) or self.length < 0:
            raise InputError(f"capsule length must be finite and >= 0, got {self.length!r}")


@dataclass(frozen=True)
class Ellipsoid:
    """Ellipsoid with semi-axes ``radii`` (m) along local x, y, z."""

    radii: tuple[float, float, float]

    def __post_init__(self) -> None:
        _positive("ellipsoid radii", *self.radii)


@dataclass(frozen=True)
class Mesh:
    """A triangle mesh file (OBJ, STL, DAE, GLB, PLY, 3DS, X) with a per-axis scale."""

    path: Path
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)


Geometry = Box | Sphere | Cylinder | Capsule | Ellipsoid | Mesh


@dataclass(frozen=True, eq=False)
class Shape:
    """A geometry placed on a link: ``T_link_shape`` ``(4, 4)``, colour ``rgba``."""

    geometry: Geometry
    T_link_shape: np.ndarray = field(default_factory=lambda: readonly(np.eye(4)))
    rgba: tuple[float, float, float, float] = (0.7, 0.7, 0.75, 1.0)
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "T_link_shape", readonly(self.T_link_shape, (4, 4)))
