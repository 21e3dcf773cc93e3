"""``ShapeSpec``: a shape as files write it (robot files, scenario objects), one schema.

``type`` picks the fields it needs: box ``size`` (full edge lengths), sphere
``radius``, cylinder/capsule ``radius`` + ``length``, ellipsoid ``radii``, mesh ``file``.
``scale`` applies to meshes only and multiplies the mesh file's coordinates: one number
scales all three axes alike, three numbers scale x, y, z. Lengths are in the file's
length unit (the caller's ``unit``, metres per unit).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Geometry, Mesh, Sphere
from robotsim.ranges import MAX_LENGTH

__all__ = ["REQUIRED", "ShapeSpec"]

#: A size (file units): positive and finite, at most :data:`robotsim.ranges.MAX_LENGTH`
#: (a box of 1e308 overflows every computation on it).
Size = Annotated[float, Field(gt=0, le=MAX_LENGTH, allow_inf_nan=False)]
Vec3 = Annotated[list[Size], Field(min_length=3, max_length=3)]

REQUIRED: dict[str, tuple[str, ...]] = {
    "box": ("size",),
    "sphere": ("radius",),
    "cylinder": ("radius", "length"),
    "capsule": ("radius", "length"),
    "ellipsoid": ("radii",),
    "mesh": ("file",),
}


class ShapeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["box", "sphere", "cylinder", "capsule", "ellipsoid", "mesh"]
    size: Vec3 | None = None
    radius: float | None = Field(None, gt=0, le=MAX_LENGTH, allow_inf_nan=False)
    length: float | None = Field(None, ge=0, le=MAX_LENGTH, allow_inf_nan=False)
    radii: Vec3 | None = None
    file: str | None = None
    scale: Annotated[float, Field(gt=0, le=MAX_LENGTH, allow_inf_nan=False)] | Vec3 = 1.0

    def missing(self) -> str | None:
        """The first field this ``type`` needs that the file left out (else ``None``)."""
        return next((k for k in REQUIRED[self.type] if getattr(self, k) is None), None)

    def mesh_scale(self) -> tuple[float, float, float]:
        """``scale`` as three per-axis factors."""
        if isinstance(self.scale, int | float):
            s = float(self.scale)
            return (s, s, s)
        return (float(self.scale[0]), float(self.scale[1]), float(self.scale[2]))

    def geometry(self, unit: float = 1.0, mesh_path: Path | None = None) -> Geometry:
        """The shape in metres (``unit``: metres per file length unit); a mesh reads
        ``mesh_path`` (the caller resolves ``file`` and checks that it exists). Call
        :meth:`missing` first: a missing field raises ``TypeError`` here."""
        if self.type == "box":
            return Box(tuple(v * unit for v in self.size))  # type: ignore[arg-type,union-attr]
        if self.type == "sphere":
            return Sphere(self.radius * unit)  # type: ignore[operator]
        if self.type == "cylinder":
            return Cylinder(self.radius * unit, self.length * unit)  # type: ignore[operator]
        if self.type == "capsule":
            return Capsule(self.radius * unit, self.length * unit)  # type: ignore[operator]
        if self.type == "ellipsoid":
            return Ellipsoid(tuple(v * unit for v in self.radii))  # type: ignore[arg-type,union-attr]
        if mesh_path is None:
            raise TypeError("a mesh ShapeSpec needs the resolved mesh_path")
        sx, sy, sz = self.mesh_scale()
        return Mesh(mesh_path, (sx * unit, sy * unit, sz * unit))
