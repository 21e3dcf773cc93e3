"""URDF -> RobotModel (our own parser on ``xml.etree``).

What is read:

- links with ``<visual>``/``<collision>`` (several of each) of geometry ``box``,
  ``sphere``, ``cylinder``, ``mesh`` (with ``scale``) and the non-standard ``capsule``
  (``length`` = the cylindrical part, as PyBullet and Drake read it); ``<origin xyz
  rpy>``; colours from inline or top-level named ``<material>``; ``<inertial>`` (its
  tensor, given in the inertial origin's axes, is rotated into the link axes);
- joints ``revolute``, ``continuous``, ``prismatic``, ``fixed`` with ``<origin>``,
  ``<axis>`` (default ``1 0 0``), ``<limit>``, ``<mimic>`` and ``<dynamics damping
  friction>`` (viscous and Coulomb, :class:`JointDynamics`). An ``effort`` or
  ``velocity`` of 0 (a common way of writing "unspecified") means no limit. A
  ``floating`` joint whose parent is a link named ``world`` that carries nothing else
  makes the model floating (``RobotModel.floating``; that joint and link are dropped);
  any other ``floating`` or ``planar`` joint is an error.
- mesh paths: ``package://pkg/rest`` is found by walking up from the URDF's folder to a
  directory named ``pkg`` or one that contains ``pkg`` (the ROS source layout), then in
  the directories of ``ROS_PACKAGE_PATH`` and ``AMENT_PREFIX_PATH``/share; ``file://``
  and plain paths are taken relative to the URDF's folder.

Every error is a :class:`ModelFileError` naming the file and the element.
Export (:func:`to_urdf_string`, :func:`save_urdf`) is in :mod:`robotsim.model.urdf_export`
and re-exported here.
"""

from __future__ import annotations

import dataclasses
import math
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from robotsim.errors import InputError, ModelError, ModelFileError
from robotsim.file_scope import OutsideScopeError, check_readable
from robotsim.model.builder import RobotBuilder
from robotsim.model.geometry import Box, Capsule, Cylinder, Geometry, Mesh, Shape, Sphere
from robotsim.model.robot import Inertial, JointDynamics, RobotModel
from robotsim.model.urdf_export import save_urdf, to_urdf_string

__all__ = ["load_urdf", "parse_urdf_string", "resolve_mesh_path", "save_urdf", "to_urdf_string"]

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
DEFAULT_RGBA = (0.7, 0.7, 0.75, 1.0)


class _Ctx:
    """The file being read, for error messages and relative paths."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.folder = path.parent.resolve()

    def error(self, where: str, msg: str) -> ModelFileError:
        return ModelFileError(self.path, msg, where)

    def floats(self, el: ET.Element, attr: str, where: str, n: int | tuple[int, ...],
               default: str | None = None) -> np.ndarray:  # fmt: skip
        text = el.get(attr, default)
        if text is None:
            raise self.error(where, f"missing attribute {attr!r}")
        try:
            vals = [float(t) for t in text.split()]
        except ValueError:
            raise self.error(where, f"{attr}={text!r} is not a list of numbers") from None
        counts = (n,) if isinstance(n, int) else n
        if len(vals) not in counts:
            want = " or ".join(str(c) for c in counts)
            raise self.error(where, f"{attr}={text!r}: expected {want} numbers")
        if not all(map(math.isfinite, vals)):
            raise self.error(where, f"{attr}={text!r} contains NaN or inf")
        return np.array(vals, dtype=np.float64)

    def number(self, el: ET.Element, attr: str, where: str, default: float | None = None,
               allow_inf: bool = False) -> float:  # fmt: skip
        text = el.get(attr)
        if text is None:
            if default is None:
                raise self.error(where, f"missing attribute {attr!r}")
            return default
        try:
            v = float(text)
        except ValueError:
            raise self.error(where, f"{attr}={text!r} is not a number") from None
        if math.isnan(v) or (math.isinf(v) and not allow_inf):
            raise self.error(where, f"{attr}={text!r} is not a finite number")
        return v

    def origin(self, el: ET.Element, where: str) -> np.ndarray:
        o = el.find("origin")
        if o is None:
            return np.eye(4)
        xyz = self.floats(o, "xyz", where + "/origin", 3, "0 0 0")
        rpy = self.floats(o, "rpy", where + "/origin", 3, "0 0 0")
        return _xyz_rpy(xyz, rpy)


def _xyz_rpy(xyz: np.ndarray, rpy: np.ndarray) -> np.ndarray:
    """One URDF origin, ``R = Rz(yaw) Ry(pitch) Rx(roll)``, in scalar arithmetic (the
    batched :func:`robotsim.model.builder.xyz_rpy` costs ~30 us per call in NumPy
    overhead, which dominated parsing files with thousands of links)."""
    T = np.eye(4)
    T[:3, 3] = xyz
    r, p, y = (float(v) for v in rpy)
    if r == 0.0 and p == 0.0 and y == 0.0:
        return T
    cr, sr = math.cos(r), math.sin(r)
    cp, sp = math.cos(p), math.sin(p)
    cy, sy = math.cos(y), math.sin(y)
    T[:3, :3] = (
        (cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr),
        (sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr),
        (-sp, cp * sr, cp * cr),
    )
    return T


def resolve_mesh_path(filename: str, urdf_folder: Path) -> list[Path]:
    """Candidate files for a URDF mesh ``filename``, most likely first."""
    if filename.startswith("package://"):
        pkg, _, rest = filename[len("package://") :].partition("/")
        out: list[Path] = []
        for d in (urdf_folder, *urdf_folder.parents):
            if d.name == pkg:
                out.append(d / rest)
            if (d / pkg).is_dir():
                out.append(d / pkg / rest)
        for entry in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep):
            if entry:
                out.append(Path(entry) / pkg / rest)
        for entry in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
            if entry:  # ROS 2 installs packages under <prefix>/share/<pkg>
                out.append(Path(entry) / "share" / pkg / rest)
        return out or [urdf_folder / pkg / rest]
    if filename.startswith("file://"):
        filename = filename[len("file://") :]
    p = Path(filename)
    return [p if p.is_absolute() else urdf_folder / p]


def _geometry(ctx: _Ctx, geo_el: ET.Element | None, where: str) -> Geometry:
    if geo_el is None or len(geo_el) == 0:
        raise ctx.error(where, "missing <geometry>")
    g = geo_el[0]
    w = f"{where}/{g.tag}"
    try:
        if g.tag == "box":
            return Box(tuple(ctx.floats(g, "size", w, 3)))
        if g.tag == "sphere":
            return Sphere(ctx.number(g, "radius", w))
        if g.tag == "cylinder":
            return Cylinder(ctx.number(g, "radius", w), ctx.number(g, "length", w))
        if g.tag == "capsule":
            return Capsule(ctx.number(g, "radius", w), ctx.number(g, "length", w))
    except InputError as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ctx.error(w, str(exc)) from None
    if g.tag == "mesh":
        fname = g.get("filename")
        if not fname:
            raise ctx.error(w, "missing attribute 'filename'")
        scale = ctx.floats(g, "scale", w, (1, 3), "1 1 1")
        if len(scale) == 1:
            scale = np.repeat(scale, 3)
        if np.any(scale == 0):
            raise ctx.error(w, f"mesh scale {scale.tolist()} has a zero factor")
        candidates = resolve_mesh_path(fname, ctx.folder)
        try:
            for c in candidates:
                check_readable(c)
        except OutsideScopeError as exc:
            raise ctx.error(w, f"mesh filename: {exc}") from None
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise ctx.error(w, f"mesh file not found: {fname!r} (looked for {candidates[0]})")
        return Mesh(found.resolve(), (float(scale[0]), float(scale[1]), float(scale[2])))
    raise ctx.error(w, f"unknown geometry {g.tag!r}; valid: box, sphere, cylinder, capsule, mesh")


def _rgba(ctx: _Ctx, vis: ET.Element, materials: dict[str, tuple[float, ...]],
          where: str) -> tuple[float, float, float, float]:  # fmt: skip
    mat = vis.find("material")
    if mat is None:
        return DEFAULT_RGBA
    color = mat.find("color")
    if color is not None:
        c = ctx.floats(color, "rgba", where + "/material/color", 4)
        return (float(c[0]), float(c[1]), float(c[2]), float(c[3]))
    name = mat.get("name", "")
    return tuple(materials.get(name, DEFAULT_RGBA))  # type: ignore[return-value]


def _inertial(ctx: _Ctx, el: ET.Element | None, where: str) -> Inertial | None:
    if el is None:
        return None
    w = where + "/inertial"
    T = ctx.origin(el, w)
    mass_el = el.find("mass")
    mass = 0.0 if mass_el is None else ctx.number(mass_el, "value", w + "/mass")
    if mass < 0:
        raise ctx.error(w + "/mass", f"mass {mass} is negative")
    I = np.zeros((3, 3))
    ie = el.find("inertia")
    if ie is not None:
        v = {k: ctx.number(ie, k, w + "/inertia", 0.0)
             for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}  # fmt: skip
        I = np.array([[v["ixx"], v["ixy"], v["ixz"]],
                      [v["ixy"], v["iyy"], v["iyz"]],
                      [v["ixz"], v["iyz"], v["izz"]]])  # fmt: skip
    R = T[:3, :3]
    return Inertial(mass, T[:3, 3], R @ I @ R.T)


def _shapes(ctx: _Ctx, link: ET.Element, tag: str, lname: str,
            materials: dict[str, tuple[float, ...]]) -> list[Shape]:  # fmt: skip
    out = []
    for i, el in enumerate(link.findall(tag)):
        where = f"link {lname!r}/{tag}[{i}]"
        geo = _geometry(ctx, el.find("geometry"), where)
        rgba = _rgba(ctx, el, materials, where) if tag == "visual" else DEFAULT_RGBA
        out.append(Shape(geo, ctx.origin(el, where), rgba, el.get("name", "")))
    return out


def merge_capsules(shapes: list[Shape]) -> list[Shape]:
    """A cylinder with a sphere of its radius centred on each end cap is a capsule: URDF
    has none, so writers (robotsim's own export among them) spell one that way. Read
    back as three shapes, the ends' rims and the spheres touch the floor together where
    the capsule rolled on one smooth line (a humanoid's foot bars: Unitree H1 written
    to URDF and read back spun round on its toes and fell; as capsules it walks as its
    MJCF does). Other shapes stay as they are, in their order."""
    used: set[int] = set()
    out: dict[int, Shape] = {}
    spheres = [i for i, sh in enumerate(shapes) if isinstance(sh.geometry, Sphere)]
    for i, sh in enumerate(shapes):
        g = sh.geometry
        if not isinstance(g, Cylinder):
            continue
        T = np.asarray(sh.T_link_shape)
        ends = [
            T[:3, :3] @ np.array([0.0, 0.0, z]) + T[:3, 3] for z in (g.length / 2, -g.length / 2)
        ]
        tol = 1e-6 * max(g.radius, g.length)
        caps = []
        for end in ends:
            for k in spheres:
                r = shapes[k].geometry.radius  # type: ignore[union-attr]
                c = np.asarray(shapes[k].T_link_shape)[:3, 3]
                if (
                    k not in used
                    and k not in caps
                    and abs(r - g.radius) <= tol
                    and np.linalg.norm(c - end) <= tol
                ):
                    caps.append(k)
                    break
        if len(caps) == 2:
            used.update(caps)
            out[i] = dataclasses.replace(sh, geometry=Capsule(g.radius, g.length))
    return [out.get(i, sh) for i, sh in enumerate(shapes) if i not in used]


def _check_cycles(ctx: _Ctx, joint_specs: list) -> None:
    """Name the joints of a closed loop (URDF describes trees only)."""
    up: dict[str, tuple[str, str]] = {}  # child link -> (joint, parent link)
    for _, jname, _, ends, where in joint_specs:
        if ends["child"] in up:
            raise ctx.error(where, f"link {ends['child']!r} is already the child of joint "
                            f"{up[ends['child']][0]!r}; a link has one parent")  # fmt: skip
        up[ends["child"]] = (jname, ends["parent"])
    # Walk up from every link once: a link already known to reach the root is not
    # walked again, so the whole check is linear in the number of joints.
    done: set[str] = set()
    for start in up:
        path: dict[str, int] = {}  # joint -> position on this walk
        order: list[str] = []
        link = start
        while link in up and link not in done:
            jname, parent = up[link]
            if jname in path:
                loop = order[path[jname] :]
                raise ctx.error(f"joint {loop[0]!r}", "joints " + " -> ".join(repr(j) for j in loop)
                                + " form a cycle")  # fmt: skip
            path[jname] = len(order)
            order.append(jname)
            link = parent
        done.update(path_link for path_link in _links_on(up, start, link))


def _links_on(up: dict[str, tuple[str, str]], start: str, stop: str) -> list[str]:
    """The links walked from ``start`` up to (not including) ``stop``."""
    out = []
    link = start
    while link != stop and link in up:
        out.append(link)
        link = up[link][1]
    return out


def parse_urdf_string(text: str | bytes, path: str | Path = "<string>") -> RobotModel:
    """Parse URDF text; ``path`` names it in errors and anchors relative mesh paths."""
    p = Path(path)
    ctx = _Ctx(p)
    xacro_hint = "xacro is not expanded: run `xacro FILE > robot.urdf` and load the result"
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raw = text.encode() if isinstance(text, str) else text
        if b"xacro:" in raw:
            raise ctx.error("xml", f"xacro markup ({exc}); {xacro_hint}") from None
        raise ctx.error("xml", f"malformed XML: {exc}") from None
    for el in root.iter():
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag.startswith("{") and "xacro" in tag:
            short = "xacro:" + tag.rsplit("}", 1)[1]
            raise ctx.error(f"<{short}>", xacro_hint)
        if any("${" in v or "$(" in v for v in el.attrib.values()):
            raise ctx.error(f"<{tag}>", f"attribute with a xacro expression; {xacro_hint}")
    if root.tag != "robot":
        raise ctx.error(f"<{root.tag}>", "the root element must be <robot>")
    name = root.get("name") or p.stem
    materials: dict[str, tuple[float, ...]] = {}
    for mat in root.findall("material"):
        color = mat.find("color")
        if mat.get("name") and color is not None:
            c = ctx.floats(color, "rgba", f"material {mat.get('name')!r}/color", 4)
            materials[mat.get("name", "")] = tuple(float(x) for x in c)

    link_els: dict[str, ET.Element] = {}
    for i, le in enumerate(root.findall("link")):
        lname = le.get("name")
        if not lname:
            raise ctx.error(f"link[{i}]", "missing attribute 'name'")
        if lname in link_els:
            raise ctx.error(f"link {lname!r}", "link name is used twice")
        link_els[lname] = le
    if not link_els:
        raise ctx.error("robot", "no <link> elements")

    floating = False
    metadata: dict[str, object] = {"format": "urdf"}
    dropped: set[str] = set()
    joint_specs = []
    for i, je in enumerate(root.findall("joint")):
        jname = je.get("name") or ""
        where = f"joint {jname!r}" if jname else f"joint[{i}]"
        if not jname:
            raise ctx.error(where, "missing attribute 'name'")
        jtype = je.get("type", "")
        if jtype not in JOINT_TYPES:
            valid = "revolute, continuous, prismatic, fixed, floating (from 'world')"
            raise ctx.error(where, f"unknown joint type {jtype!r}; valid: {valid}")
        ends = {}
        for end in ("parent", "child"):
            el = je.find(end)
            lk = None if el is None else el.get("link")
            if not lk:
                raise ctx.error(where, f"missing <{end} link=...>")
            if lk not in link_els:
                raise ctx.error(where, f"{end} link {lk!r} is not defined")
            ends[end] = lk
        if jtype in ("floating", "planar"):
            parent_el = link_els[ends["parent"]]
            if jtype == "floating" and ends["parent"] == "world" and len(parent_el) == 0:
                floating = True
                dropped.add("world")
                metadata["T_world_root"] = ctx.origin(je, where)
                continue
            raise ctx.error(where, f"{jtype} joints are not supported (only a floating joint "
                            "from an empty link named 'world' to the root, which makes the "
                            "model floating)")  # fmt: skip
        joint_specs.append((je, jname, jtype, ends, where))
    if floating and any(s[3]["parent"] == "world" for s in joint_specs):
        raise ctx.error("link 'world'", "the floating joint's 'world' link has other children")
    _check_cycles(ctx, joint_specs)

    b = RobotBuilder(name, floating=floating)
    for lname, le in link_els.items():
        if lname in dropped:
            continue
        where = f"link {lname!r}"
        try:
            b.link(
                lname,
                visuals=_shapes(ctx, le, "visual", lname, materials),
                collisions=merge_capsules(_shapes(ctx, le, "collision", lname, materials)),
                inertial=_inertial(ctx, le.find("inertial"), where),
            )
        except InputError as exc:
            if isinstance(exc, ModelFileError):
                raise
            raise ctx.error(where, str(exc)) from None

    for je, jname, jtype, ends, where in joint_specs:
        origin = ctx.origin(je, where)
        axis_el = je.find("axis")
        axis = np.array([1.0, 0.0, 0.0])
        if axis_el is not None:
            axis = ctx.floats(axis_el, "xyz", where + "/axis", 3, "1 0 0")
        lower, upper, velocity, effort = -np.inf, np.inf, np.inf, np.inf
        lim = je.find("limit")
        if lim is not None:
            w = where + "/limit"
            if jtype in ("revolute", "prismatic"):
                lower = ctx.number(lim, "lower", w, 0.0, allow_inf=True)
                upper = ctx.number(lim, "upper", w, 0.0, allow_inf=True)
            velocity = ctx.number(lim, "velocity", w, 0.0, allow_inf=True)
            effort = ctx.number(lim, "effort", w, 0.0, allow_inf=True)
            velocity = np.inf if velocity <= 0 else velocity
            effort = np.inf if effort <= 0 else effort
        mimic = None
        mim = je.find("mimic")
        if mim is not None:
            leader = mim.get("joint")
            if not leader:
                raise ctx.error(where + "/mimic", "missing attribute 'joint'")
            mimic = (leader, ctx.number(mim, "multiplier", where + "/mimic", 1.0),
                     ctx.number(mim, "offset", where + "/mimic", 0.0))  # fmt: skip
        dynamics = None
        dyn = je.find("dynamics")
        if dyn is not None:
            w = where + "/dynamics"
            dynamics = JointDynamics(damping=ctx.number(dyn, "damping", w, 0.0),
                                     friction=ctx.number(dyn, "friction", w, 0.0))  # fmt: skip
        try:
            b.joint(jname, jtype, ends["parent"], ends["child"], origin=origin, axis=axis,
                    lower=lower, upper=upper, velocity=velocity, effort=effort,
                    mimic=mimic, dynamics=dynamics)  # fmt: skip
        except InputError as exc:
            raise ctx.error(where, str(exc)) from None
    b.metadata = metadata
    try:
        model = b.build()
    except (ModelError, InputError) as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ctx.error("robot", str(exc)) from None
    return dataclasses.replace(model, source=p if p.name != "<string>" else None)


def load_urdf(path: str | Path) -> RobotModel:
    """Read a URDF file (see the module doc)."""
    p = Path(path)
    check_readable(p)
    from robotsim.validation import read_input_bytes

    return parse_urdf_string(read_input_bytes(p, lambda m: ModelFileError(p, m)), p)
