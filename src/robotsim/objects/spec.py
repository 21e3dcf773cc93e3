"""How files and the command line name an object: :class:`ObjectSpec`.

A scenario's ``object:`` (and ``robotsim grasp --object``) is a shape with its sizes,
a mesh file, or a single-link URDF/MJCF file, with a scale::

    object: {type: box, size: [0.05, 0.03, 0.08]}          # full edge lengths, m
    object: {type: cylinder, radius: 0.03, length: 0.1}
    object: {file: meshes/duck.obj, scale: 0.001, mass: 0.12}
    object: {file: mug.urdf, scale: 0.8}

``type`` is one of ``box, sphere, cylinder, capsule, ellipsoid`` (the sizes of
:class:`robotsim.model.shape_spec.ShapeSpec`), ``mesh`` (OBJ, STL, DAE, glTF, PLY,
.3ds, .x through :mod:`robotsim.model.meshes`), ``urdf`` or ``mjcf``; with ``file`` it
may be left out (the suffix decides). ``scale`` multiplies every length (one number,
or three for x, y, z). ``mass`` (kg) overrides the file's and the geometry's; else a
file's mass and inertia are used when plausible, otherwise the geometry's at
``density`` (kg/m^3). ``friction`` is the object's sliding friction; ``decomposition``
how a non-convex mesh is cut into convex pieces (:mod:`robotsim.objects.convex`).

On the command line (:func:`parse_object_arg`): a file path, or ``TYPE:SIZES`` with
comma-separated metres, e.g. ``box:0.05,0.03,0.08``, ``sphere:0.03``,
``cylinder:0.03,0.1`` (radius, length), ``capsule:0.02,0.06``,
``ellipsoid:0.03,0.02,0.04``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from robotsim.errors import InputError
from robotsim.model.meshes import MESH_SUFFIXES
from robotsim.model.shape_spec import REQUIRED

__all__ = ["OBJECT_TYPES", "SHAPE_TYPES", "ObjectSpec", "parse_object_arg"]

SHAPE_TYPES = ("box", "sphere", "cylinder", "capsule", "ellipsoid")
OBJECT_TYPES = (*SHAPE_TYPES, "mesh", "urdf", "mjcf")
_SIZES = {"box": "size", "sphere": "radius", "cylinder": "radius,length",
          "capsule": "radius,length", "ellipsoid": "radii"}  # fmt: skip

Vec3 = Annotated[list[float], Field(min_length=3, max_length=3)]
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
#: The largest length an object may have (m): a box of 1e308 m overflows the hull
#: computations, and nothing a hand grasps is a kilometre long.
MAX_OBJECT_SIZE = 1.0e3
#: The largest scale, mass (kg) and density (kg/m^3) an object may be given
#: (osmium, the densest element, is 22,590 kg/m^3).
MAX_OBJECT_SCALE = 1.0e3
MAX_OBJECT_MASS = 1.0e6
MAX_OBJECT_DENSITY = 1.0e5
Length = Annotated[float, Field(gt=0, le=MAX_OBJECT_SIZE, allow_inf_nan=False)]
Scale = Annotated[float, Field(gt=0, le=MAX_OBJECT_SCALE, allow_inf_nan=False)]


def type_of_file(file: str) -> str | None:
    suffix = Path(file).suffix.lower()
    if suffix in MESH_SUFFIXES:
        return "mesh"
    if suffix == ".urdf":
        return "urdf"
    if suffix in (".xml", ".mjcf"):
        return "mjcf"
    return None


class ObjectSpec(BaseModel):
    """An object as files write it (module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: (
        Literal["box", "sphere", "cylinder", "capsule", "ellipsoid", "mesh", "urdf", "mjcf"] | None
    ) = None
    size: Annotated[list[Length], Field(min_length=3, max_length=3)] | None = None
    radius: Length | None = None
    length: Annotated[float, Field(ge=0, le=MAX_OBJECT_SIZE, allow_inf_nan=False)] | None = None
    radii: Annotated[list[Length], Field(min_length=3, max_length=3)] | None = None
    file: str | None = None
    scale: Scale | Annotated[list[Scale], Field(min_length=3, max_length=3)] = 1.0
    mass: Positive | None = Field(
        None, le=MAX_OBJECT_MASS, description="kg; overrides the file and the geometry"
    )
    density: Positive = Field(
        1000.0, le=MAX_OBJECT_DENSITY, description="kg/m^3, when the mass comes from the geometry"
    )
    friction: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 1.0
    decomposition: Literal["auto", "vhacd", "coacd", "hull"] = "auto"
    name: str | None = None

    @model_validator(mode="after")
    def _complete(self) -> ObjectSpec:
        kind = self.kind
        if kind is None:
            if self.file is None:
                raise ValueError(f"give type ({', '.join(OBJECT_TYPES)}) or file")
            suffix = Path(self.file).suffix
            raise ValueError(f"file {self.file!r}: unknown object file type {suffix!r}; "
                             f"valid: {', '.join(MESH_SUFFIXES)}, .urdf, .xml, .mjcf")  # fmt: skip
        if kind in SHAPE_TYPES:
            missing = [k for k in REQUIRED[kind] if getattr(self, k) is None]
            if missing:
                raise ValueError(f"a {kind} needs {', '.join(missing)}")
            if self.file is not None:
                raise ValueError(f"a {kind} takes sizes, not a file")
        elif self.file is None:
            raise ValueError(f"a {kind} object needs file")
        return self

    @property
    def kind(self) -> str | None:
        """``type``, or the one the file's suffix implies."""
        if self.type is not None:
            return self.type
        return None if self.file is None else type_of_file(self.file)

    def scale3(self) -> tuple[float, float, float]:
        s = self.scale
        if isinstance(s, int | float):
            return (float(s), float(s), float(s))
        return (float(s[0]), float(s[1]), float(s[2]))

    def label(self) -> str:
        """A short name: ``name``, the file's stem, or the shape and its sizes."""
        if self.name:
            return self.name
        if self.file is not None:
            return Path(self.file).stem
        k = self.kind or "object"
        vals = [getattr(self, f) for f in _SIZES[k].split(",")]
        flat = [x for v in vals for x in (v if isinstance(v, list) else [v])]
        return k + "_" + "x".join(f"{x:g}" for x in flat)


def _validate(data: dict[str, Any], source: str) -> ObjectSpec:
    from robotsim.validation import format_validation_error

    try:
        return ObjectSpec.model_validate(data)
    except ValidationError as exc:
        raise InputError(format_validation_error(exc, ObjectSpec, source)) from None


def parse_object_arg(
    text: str,
    scale: float | tuple[float, float, float] | None = None,
    mass: float | None = None,
    density: float | None = None,
    friction: float | None = None,
    option: str = "--object",
) -> ObjectSpec:
    """An :class:`ObjectSpec` from ``--object TEXT`` (a file path or ``TYPE:SIZES``)
    and the command's ``--scale``, ``--mass``, ``--density``, ``--friction``; errors
    name ``option``."""
    extra: dict[str, Any] = {}
    if scale is not None:
        extra["scale"] = list(scale) if isinstance(scale, tuple) else scale
    for k, v in (("mass", mass), ("density", density), ("friction", friction)):
        if v is not None:
            extra[k] = v
    s = text.strip()
    head, sep, rest = s.partition(":")
    if sep and head.lower() in SHAPE_TYPES and not Path(s).exists():
        kind = head.lower()
        try:
            nums = [float(x) for x in rest.replace("x", ",").split(",") if x.strip()]
        except ValueError:
            raise InputError(f"{option} {text!r}: sizes must be numbers (m), e.g. "
                             f"{kind}:{_example(kind)}") from None  # fmt: skip
        fields = _SIZES[kind].split(",")
        want = 3 if fields in (["size"], ["radii"]) else len(fields)
        if len(nums) != want:
            raise InputError(f"{option} {text!r}: a {kind} takes {want} number(s) "
                             f"({_SIZES[kind]}), e.g. {kind}:{_example(kind)}")  # fmt: skip
        data: dict[str, Any] = {"type": kind}
        if want == 3 and len(fields) == 1:
            data[fields[0]] = nums
        else:
            data.update(dict(zip(fields, nums, strict=True)))
        return _validate({**data, **extra}, f"{option} {text}")
    if type_of_file(s) is None:
        raise InputError(f"{option} {text!r}: give a file ({', '.join(MESH_SUFFIXES)}, .urdf, "
                         f".xml) or TYPE:SIZES with TYPE one of {', '.join(SHAPE_TYPES)} "
                         f"(e.g. box:{_example('box')})")  # fmt: skip
    return _validate({"file": s, **extra}, f"{option} {text}")


def _example(kind: str) -> str:
    return {"box": "0.05,0.03,0.08", "sphere": "0.03", "cylinder": "0.03,0.1",
            "capsule": "0.02,0.06", "ellipsoid": "0.03,0.02,0.04"}[kind]  # fmt: skip
