"""Loading an object: shapes, mesh files and single-body URDF/MJCF files become one
:class:`GraspObject` (collision pieces, mass properties, a surface to draw), in metres,
in the object's own frame (the shape's centre, the mesh file's origin, the file's root
link).

What is read from where:

- **shape** (``box`` ...): the primitive itself collides (MuJoCo's exact primitive),
  mass at ``density``.
- **mesh file**: read by :func:`robotsim.model.meshes.load_mesh` (every format it
  knows), scaled; its convex pieces (:func:`robotsim.objects.convex.convex_pieces`)
  collide; mass at ``density`` from the closed surface (or the pieces).
- **URDF / MJCF**: the file's links must be one rigid body (fixed joints only; their
  shapes are merged into the root link's frame). Collision shapes collide (visual ones
  if there are none); mesh shapes go through the convex pieces as above, so a V-HACD
  collision file (one OBJ of convex parts) keeps its parts. The file's mass and inertia
  are used when plausible (:func:`robotsim.objects.mass.judge_inertial`), even if the
  robot loader would refuse the tensor (a zero or impossible placeholder), else the
  geometry's (one warning line, in :attr:`GraspObject.warnings`).

``scale`` multiplies every length: a file's mass is kept (its inertia scales with the
square of a uniform scale), the geometry's follows the volume. A non-uniform scale turns
a sphere into an ellipsoid and scales a box or an ellipsoid along its own axes when they
are the object's; other primitives become meshes (a stretched cylinder is none).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.errors import InputError, ModelError, ModelFileError
from robotsim.file_scope import check_readable
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Geometry, Mesh, Shape, Sphere
from robotsim.model.robot import Inertial, RobotModel
from robotsim.objects.convex import ConvexPiece, convex_pieces, hull_piece
from robotsim.objects.mass import (
    capped_inertial,
    combine,
    is_default_inertial,
    judge_inertial,
    mesh_inertial,
    primitive_inertial,
    scaled_inertial,
)
from robotsim.objects.query import PieceSet
from robotsim.objects.spec import SHAPE_TYPES, ObjectSpec, parse_object_arg

__all__ = ["GraspObject", "load_object"]

COLORS = (0.85, 0.55, 0.2, 1.0)


@dataclass(frozen=True, eq=False)
class GraspObject:
    """An object ready for grasping and physics (module docstring).

    Attributes:
        name, source: a short name and where it came from (file or shape).
        shapes: what collides in physics, each a model Shape in the object frame
            (primitives, or OBJ files of convex pieces in the cache).
        pieces: the convex pieces the planner queries (primitives tessellated).
        inertial: mass (kg), centre of mass (m) and inertia about it (kg m^2).
        mass_source, inertia_source: ``"file"``, ``"given"`` or ``"geometry"``.
        collision: ``"primitive"``, ``"hull"``, ``"pieces"`` (the file's convex parts),
            ``"vhacd"`` or ``"coacd"``.
        surface: ``(vertices (n, 3), faces (m, 3))`` to draw (the visual shapes).
        friction: sliding friction of the object's surface.
        warnings: one line per fallback taken (implausible file inertia...).
    """

    name: str
    source: str
    shapes: tuple[Shape, ...]
    pieces: tuple[ConvexPiece, ...]
    inertial: Inertial
    mass_source: str
    inertia_source: str
    collision: str
    surface: tuple[np.ndarray, np.ndarray]
    friction: float = 1.0
    density: float = 1000.0
    warnings: tuple[str, ...] = ()
    spec: ObjectSpec | None = None
    _set: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def mass(self) -> float:
        return float(self.inertial.mass)

    @property
    def piece_set(self) -> PieceSet:
        """The pieces' planes stacked for :mod:`robotsim.objects.query` (built once)."""
        ps = self._set.get("ps")
        if ps is None:
            ps = self._set["ps"] = PieceSet.of(self.pieces)
        return ps  # type: ignore[no-any-return]

    @property
    def hull_points(self) -> np.ndarray:
        """Every piece's hull vertices ``(n, 3)`` (m, object frame)."""
        return np.concatenate([p.vertices for p in self.pieces])

    @property
    def bounds(self) -> np.ndarray:
        """``(2, 3)``: the lowest and highest corner of the collision shape (m)."""
        v = self.hull_points
        return np.stack([v.min(axis=0), v.max(axis=0)])

    @property
    def extents(self) -> np.ndarray:
        b = self.bounds
        return b[1] - b[0]

    def describe(self) -> dict[str, Any]:
        """JSON-ready facts: sizes, mass properties and their sources, collision."""
        i = self.inertial
        return {
            "name": self.name,
            "source": self.source,
            "extents_m": [float(x) for x in self.extents],
            "mass_kg": float(i.mass),
            "com_m": [float(x) for x in i.com],
            "inertia_kg_m2": np.asarray(i.inertia).tolist(),
            "mass_source": self.mass_source,
            "inertia_source": self.inertia_source,
            "collision": self.collision,
            "pieces": len(self.pieces),
            "friction": self.friction,
            "warnings": list(self.warnings),
        }


# ----------------------------------------------------------------------- parts
def _tessellate(g: Geometry) -> tuple[np.ndarray, np.ndarray]:
    import trimesh

    if isinstance(g, Box):
        m = trimesh.creation.box(extents=g.size)
    elif isinstance(g, Sphere):
        m = trimesh.creation.icosphere(subdivisions=2, radius=g.radius)
    elif isinstance(g, Ellipsoid):
        m = trimesh.creation.icosphere(subdivisions=2, radius=1.0)
        m.vertices = m.vertices * np.asarray(g.radii)
    elif isinstance(g, Cylinder):
        m = trimesh.creation.cylinder(radius=g.radius, height=g.length, sections=24)
    elif isinstance(g, Capsule):
        m = trimesh.creation.capsule(height=g.length, radius=g.radius, count=[16, 8])
    else:  # pragma: no cover - Mesh handled by the caller
        raise InputError(f"cannot tessellate a {type(g).__name__}")
    return np.asarray(m.vertices, float), np.asarray(m.faces, np.int64)


def _mesh_vertices(g: Mesh) -> tuple[np.ndarray, np.ndarray]:
    from robotsim.model.meshes import load_mesh

    m = load_mesh(g.path)
    return np.asarray(m.vertices, float) * np.asarray(g.scale), np.asarray(m.faces, np.int64)


def _check_solid(v: np.ndarray, f: np.ndarray, where: str) -> None:
    """Refuse a shape that cannot be a rigid body: non-finite vertices, a size past
    :data:`MAX_OBJECT_SIZE`, or all its vertices on a line or a plane (no volume:
    a decomposition would inflate it into a solid that is not in the file)."""
    from robotsim.objects.spec import MAX_OBJECT_SIZE

    used = v[np.unique(f)] if len(f) else v
    if not len(used) or not np.isfinite(used).all():
        raise InputError(f"{where}: the mesh has no finite vertices to make a solid of")
    ext = used.max(axis=0) - used.min(axis=0)
    if not float(ext.max()) <= MAX_OBJECT_SIZE:
        raise InputError(
            f"{where}: the object is {float(ext.max()):.3g} m across (scale included); "
            f"an object may be at most {MAX_OBJECT_SIZE:g} m (check the file's units or --scale)"
        )
    centred = used - used.mean(axis=0)
    sv = np.linalg.svd(centred, compute_uv=False) if len(used) >= 3 else np.zeros(3)
    sv = np.pad(sv, (0, 3 - len(sv)))
    if not sv[0] > 0 or sv[2] <= 1e-9 * sv[0]:
        raise InputError(
            f"{where}: the mesh is flat (its {len(used)} vertices lie on "
            f"{'a point' if not sv[0] > 0 else 'a line' if sv[1] <= 1e-9 * sv[0] else 'a plane'}"
            f", extents {' x '.join(f'{x:.3g}' for x in ext)} m): an object needs a volume"
        )


def _scaled_exactly(
    g: Geometry, T: np.ndarray, s3: np.ndarray
) -> tuple[Geometry, np.ndarray] | None:
    """A primitive placed at ``T`` and scaled by ``s3`` (object axes) as a primitive
    again, when it stays one: any primitive under a uniform scale, a sphere under any
    scale (an ellipsoid), a box or an ellipsoid whose axes are the object's."""
    Ts = np.array(T, float)
    Ts[:3, 3] = Ts[:3, 3] * s3
    if np.allclose(s3, s3[0]):
        return _scaled(g, float(s3[0])), Ts
    if isinstance(g, Sphere):
        Ts[:3, :3] = np.eye(3)
        return Ellipsoid(tuple(float(g.radius * k) for k in s3)), Ts  # type: ignore[arg-type]
    R = np.asarray(T)[:3, :3]
    if isinstance(g, Box | Ellipsoid) and np.allclose(np.abs(R), np.round(np.abs(R)), atol=1e-9):
        axes = np.abs(R.T) @ s3  # each own axis along one object axis
        sizes = g.size if isinstance(g, Box) else g.radii
        scaled = tuple(float(a * k) for a, k in zip(sizes, axes, strict=True))
        return (Box(scaled) if isinstance(g, Box) else Ellipsoid(scaled)), Ts  # type: ignore[arg-type]
    return None


def _scaled(g: Geometry, s: float) -> Geometry:
    if isinstance(g, Box):
        return Box(tuple(x * s for x in g.size))  # type: ignore[arg-type]
    if isinstance(g, Sphere):
        return Sphere(g.radius * s)
    if isinstance(g, Ellipsoid):
        return Ellipsoid(tuple(x * s for x in g.radii))  # type: ignore[arg-type]
    if isinstance(g, Cylinder):
        return Cylinder(g.radius * s, g.length * s)
    if isinstance(g, Capsule):
        return Capsule(g.radius * s, g.length * s)
    raise InputError(f"cannot scale a {type(g).__name__}")  # pragma: no cover


@dataclass
class _Parts:
    """Geometry gathered from a spec, in the object frame, before scaling."""

    shapes: list[Shape]
    visuals: list[Shape]
    file_inertial: Inertial | None = None
    file_problem: str | None = None
    where: str = ""


def _apply(T: np.ndarray, v: np.ndarray) -> np.ndarray:
    return v @ T[:3, :3].T + T[:3, 3]


# ---------------------------------------------------------------- file readers
def _raw_urdf_inertials(path: Path, text: str) -> dict[str, Inertial]:
    """Each link's ``<inertial>`` exactly as written (no validity test), link frame."""
    from robotsim.model.builder import xyz_rpy

    out: dict[str, Inertial] = {}
    root = ET.fromstring(text)
    for link in root.findall("link"):
        el = link.find("inertial")
        if el is None:
            continue
        try:
            o = el.find("origin")
            xyz = [float(x) for x in (o.get("xyz", "0 0 0") if o is not None else "0 0 0").split()]
            rpy = [float(x) for x in (o.get("rpy", "0 0 0") if o is not None else "0 0 0").split()]
            m_el = el.find("mass")
            mass = float(m_el.get("value", "0")) if m_el is not None else 0.0
            ie = el.find("inertia")
            v = {k: float(ie.get(k, "0")) if ie is not None else 0.0
                 for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}  # fmt: skip
        except (ValueError, AttributeError) as exc:
            raise ModelFileError(path, f"link {link.get('name')!r}/inertial: {exc}") from None
        T = xyz_rpy(xyz, rpy)
        R = T[:3, :3]
        I = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]],
                      [v["ixz"], v["iyz"], v["izz"]]])  # fmt: skip
        if not (np.isfinite(mass) and mass >= 0 and np.all(np.isfinite(I))):
            mass, I = 0.0, np.zeros((3, 3))
        out[link.get("name", "")] = Inertial(mass, T[:3, 3], R @ I @ R.T)
    return out


def _strip_inertials(text: str) -> str:
    root = ET.fromstring(text)
    for link in root.findall("link"):
        for el in link.findall("inertial"):
            link.remove(el)
    return ET.tostring(root, encoding="unicode")


def _read_urdf(path: Path) -> tuple[RobotModel, dict[str, Inertial]]:
    from robotsim.model.urdf import parse_urdf_string

    try:
        text = path.read_text()
        raw = _raw_urdf_inertials(path, text)
        stripped = _strip_inertials(text)
    except ET.ParseError as exc:
        raise ModelFileError(path, f"malformed XML: {exc}") from None
    except OSError as exc:
        raise ModelFileError(path, f"cannot read: {exc}") from None
    return parse_urdf_string(stripped, path), raw


def _read_mjcf(path: Path) -> tuple[RobotModel, str | None]:
    """The MJCF model; if its inertia is impossible (the loader refuses it), the same
    file without its ``<inertial>`` elements (mass from the geoms) and the reason."""
    from robotsim.model.mjcf import load_mjcf, model_from_tables
    from robotsim.model.mjcf_reader import Unsupported, parse_xml, read_mjcf

    try:
        return load_mjcf(path), None
    except ModelError as exc:
        if "inertia" not in str(exc) and "mass" not in str(exc):
            raise
        problem = str(exc).split(": ")[-1]
        root = parse_xml(path)
    for body in root.iter("body"):
        for el in body.findall("inertial"):
            body.remove(el)
    try:
        tables = read_mjcf(path, root)
    except Unsupported as why:
        raise ModelFileError(path, f"{problem}; without its <inertial> the file is not readable "
                             f"here either ({why})") from None  # fmt: skip
    return model_from_tables(tables, source=path, reader="robotsim"), problem


def _file_parts(path: Path, kind: str) -> _Parts:
    if kind == "urdf":
        model, raw = _read_urdf(path)
        problem = None
    else:
        model, problem = _read_mjcf(path)
        raw = {lk.name: lk.inertial for lk in model.links if lk.inertial is not None}
    moving = [j for j in model.joints if j.movable]
    if moving:
        j = moving[0]
        raise ModelFileError(path, f"an object is one rigid body; joint {j.name!r} is "
                             f"{j.type.value} (only fixed joints may join its links)")  # fmt: skip
    T_all = model.fk_all(model.zero())
    idx = {n: i for i, n in enumerate(model.link_names)}
    shapes: list[Shape] = []
    visuals: list[Shape] = []
    masses: list[tuple[Inertial, np.ndarray]] = []
    for lk in model.links:
        T = T_all[idx[lk.name]]
        for src, dst in ((lk.collisions, shapes), (lk.visuals, visuals)):
            for s in src:
                dst.append(Shape(s.geometry, T @ s.T_link_shape, s.rgba, s.name))
        ine = raw.get(lk.name)
        if ine is not None and ine.mass > 0:
            masses.append((ine, T))
    if not shapes and not visuals:
        raise ModelFileError(path, "the file has no geometry (no collision or visual shape)")
    file_inertial = None
    if masses:
        try:
            file_inertial = combine(masses)
        except InputError:
            file_inertial = None
    return _Parts(shapes or visuals, visuals or shapes, file_inertial, problem, str(path))


def _spec_parts(spec: ObjectSpec, base_dir: Path | None) -> _Parts:
    kind = spec.kind
    if kind in SHAPE_TYPES:
        from robotsim.model.shape_spec import ShapeSpec

        ss = ShapeSpec(type=kind, size=spec.size, radius=spec.radius,
                       length=spec.length, radii=spec.radii)  # type: ignore[arg-type]  # fmt: skip
        g = ss.geometry()
        return _Parts(
            [Shape(g, np.eye(4), COLORS)], [Shape(g, np.eye(4), COLORS)], where=spec.label()
        )
    assert spec.file is not None
    path = Path(spec.file)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    check_readable(path)
    from robotsim.validation import check_input_file

    check_input_file(path, lambda m: ModelFileError(path, m), None)
    path = path.resolve()
    if kind == "mesh":
        g = Mesh(path)
        return _Parts([Shape(g, np.eye(4), COLORS)], [Shape(g, np.eye(4), COLORS)], where=str(path))
    return _file_parts(path, kind or "urdf")


# ----------------------------------------------------------------------- load
def load_object(
    spec: ObjectSpec | str | dict[str, Any],
    base_dir: str | Path | None = None,
    cache: str | Path | None = None,
) -> GraspObject:
    """Load an object (module docstring). ``spec``: an :class:`ObjectSpec`, its dict
    (a scenario's ``object:``) or ``--object`` text; relative files are taken from
    ``base_dir``; ``cache``: where convex pieces are kept (default: robotsim's cache)."""
    if isinstance(spec, str):
        spec = parse_object_arg(spec)
    elif isinstance(spec, dict):
        from robotsim.objects.spec import _validate

        spec = _validate(spec, "object")
    base = Path(base_dir) if base_dir is not None else None
    parts = _spec_parts(spec, base)
    s3 = np.asarray(spec.scale3())
    cache_p = Path(cache) if cache is not None else None
    shapes: list[Shape] = []
    pieces: list[ConvexPiece] = []
    masses: list[tuple[Inertial, np.ndarray]] = []
    how: set[str] = set()
    rho = float(spec.density)
    S = np.diag([*s3, 1.0])
    for sh in parts.shapes:
        g, T = sh.geometry, np.asarray(sh.T_link_shape)
        exact = None if isinstance(g, Mesh) else _scaled_exactly(g, T, s3)
        if exact is not None:
            gs, Ts = exact
            shapes.append(Shape(gs, Ts, COLORS))
            v, _ = _tessellate(gs)
            pieces.append(hull_piece(_apply(Ts, v)))
            masses.append((primitive_inertial(gs, rho), Ts))
            how.add("primitive")
            continue
        v, f = _mesh_vertices(g) if isinstance(g, Mesh) else _tessellate(g)
        v = _apply(S @ T, v)
        _check_solid(v, f, parts.where)
        ps, kind = convex_pieces(v, f, spec.decomposition, cache_p)
        how.add(kind)
        pieces += ps
        shapes += [Shape(Mesh(p.file), np.eye(4), COLORS) for p in ps if p.file is not None]
        solid = mesh_inertial(v, f, rho)
        if solid is None:  # an open surface: the solid its pieces make
            solid = combine(
                [(mesh_inertial(p.vertices, p.faces, rho) or _zero(), np.eye(4)) for p in ps]
            )
        masses.append((solid, np.eye(4)))
    geometry = combine(masses)
    volume = geometry.mass / rho
    hull_pts = np.concatenate([p.vertices for p in pieces])
    warnings: list[str] = []
    material_note = ""
    if spec.kind in ("urdf", "mjcf") and parts.visuals is not parts.shapes:
        mat = _material(parts.visuals, s3, rho, hull_pts, volume)
        if mat is not None:
            material_note = (f" (the visual shape's material, {mat.mass / rho * 1e6:.3g} cm^3: "
                             f"the collision shape, {volume * 1e6:.3g} cm^3, fills its "
                             f"cavities)")  # fmt: skip
            geometry, volume = mat, mat.mass / rho
    if spec.mass is not None:
        inertial, msrc, isrc = scaled_inertial(geometry, spec.mass), "given", "geometry"
    elif spec.kind in ("urdf", "mjcf"):
        fi, problem = parts.file_inertial, parts.file_problem
        if fi is not None and is_default_inertial(fi):
            fi, problem = None, ("mass 1 kg with inertia diag(1, 1, 1) is SDFormat's default "
                                 "inertial, not a measurement")  # fmt: skip
        if fi is not None:
            fi = Inertial(fi.mass, np.asarray(fi.com) * s3,
                          np.asarray(fi.inertia) * float(np.prod(s3)) ** (2 / 3))  # fmt: skip
        verdict = judge_inertial(fi, geometry, hull_pts, volume, rho, parts.where, problem)
        inertial, msrc, isrc = verdict.inertial, verdict.mass_source, verdict.inertia_source
        if verdict.warning:
            warnings.append(verdict.warning + material_note)
    else:
        inertial, msrc, isrc = geometry, "geometry", "geometry"
    surface = _surface(parts.visuals, S, pieces)
    collision = "+".join(sorted(how))
    return GraspObject(
        name=spec.label(),
        source=parts.where,
        shapes=tuple(shapes),
        pieces=tuple(pieces),
        inertial=inertial,
        mass_source=msrc,
        inertia_source=isrc,
        collision=collision,
        surface=surface,
        friction=float(spec.friction),
        density=rho,
        warnings=tuple(warnings),
        spec=spec,
    )


def _material(
    visuals: list[Shape], s3: np.ndarray, rho: float, hull_pts: np.ndarray, volume: float
) -> Inertial | None:
    """The visual shapes as a solid at ``rho`` (scaled by ``s3``), when they are closed
    (a mesh's holes capped), span the collision shapes' bounds (10 % or 2 mm) and enclose
    under 0.9 x their ``volume``: a collision shape that fills a mug's cavity (as a
    simplified collision mesh often does) would weigh the mug as if full."""
    S = np.diag([*s3, 1.0])
    parts: list[tuple[Inertial, np.ndarray]] = []
    pts: list[np.ndarray] = []
    for sh in visuals:
        g, T = sh.geometry, np.asarray(sh.T_link_shape)
        exact = None if isinstance(g, Mesh) else _scaled_exactly(g, T, s3)
        try:
            if exact is not None:
                gs, Ts = exact
                parts.append((primitive_inertial(gs, rho), Ts))
                pts.append(_apply(Ts, _tessellate(gs)[0]))
                continue
            v, f = _mesh_vertices(g) if isinstance(g, Mesh) else _tessellate(g)
        except (InputError, ModelError, OSError, ValueError):
            return None
        v = _apply(S @ T, v)
        solid = capped_inertial(v, f, rho)
        if solid is None:
            return None
        parts.append((solid, np.eye(4)))
        pts.append(v)
    if not parts:
        return None
    mat = combine(parts)
    P = np.concatenate(pts)
    lo, hi = hull_pts.min(axis=0), hull_pts.max(axis=0)
    tol = np.maximum(0.1 * (hi - lo), 0.002)
    if np.any(np.abs(P.min(axis=0) - lo) > tol) or np.any(np.abs(P.max(axis=0) - hi) > tol):
        return None
    return mat if mat.mass / rho < 0.9 * volume else None


def _zero() -> Inertial:
    return Inertial(0.0, np.zeros(3), np.zeros((3, 3)))


def _surface(
    visuals: list[Shape], S: np.ndarray, pieces: list[ConvexPiece]
) -> tuple[np.ndarray, np.ndarray]:
    vs, fs, n = [], [], 0
    try:
        for sh in visuals:
            g = sh.geometry
            v, f = _mesh_vertices(g) if isinstance(g, Mesh) else _tessellate(g)
            vs.append(_apply(S @ np.asarray(sh.T_link_shape), v))
            fs.append(f + n)
            n += len(v)
    except (InputError, ModelError):
        vs = []
    if not vs:
        for p in pieces:
            vs.append(p.vertices)
            fs.append(p.faces + n)
            n += len(p.vertices)
    v, f = np.concatenate(vs), np.concatenate(fs)
    v.setflags(write=False)
    f.setflags(write=False)
    return v, f
