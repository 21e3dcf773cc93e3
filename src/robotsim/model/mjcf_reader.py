"""A linear MJCF reader: the kinematics, inertia and geometry MuJoCo would compile.

:func:`read_mjcf` walks the XML once (``xml.etree``) and fills the same
:class:`~robotsim.model.mjcf_tables.MjcfTables` that :func:`tables_from_mjmodel` reads
from a compiled ``MjModel``, so :func:`robotsim.model.mjcf.load_mjcf` builds the same
RobotModel without MuJoCo's parser and compiler (which grow faster than linearly in
bodies). It reproduces, as MuJoCo does: ``<include>``; ``<compiler angle eulerseq meshdir
texturedir assetdir autolimits inertiafromgeom inertiagrouprange>``; ``<default>``
classes, ``class``/``childclass``; ``<frame>``; body, joint (hinge, slide, ball, free),
geom (primitives, ``fromto`` capsules and cylinders, meshes by file and scale), site,
``<inertial>``, inertia from primitive geoms; materials' colours; ``<equality><joint>``;
``<key>``.

Anything else that could change the model, or that MuJoCo would refuse, raises
:class:`~robotsim.model.mjcf_xml.Unsupported` with the reason, and the caller lets
MuJoCo read the file: a mesh-derived inertia, ``<replicate>``, ``<attach>``,
``<composite>``, flex, plug-ins, unusual compiler options, a massless moving body, an
invalid inertia, dangling names and the like. ``settotalmass`` scales every body's
mass and inertia, as MuJoCo's compiler does last.
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from robotsim.model.mjcf_actuators import joint_efforts_xml
from robotsim.model.mjcf_globals import check_globals
from robotsim.model.mjcf_inertia import PRIMITIVES, body_inertias
from robotsim.model.mjcf_meshes import check_mesh_file
from robotsim.model.mjcf_sections import (
    body_equalities,
    check_references,
    equalities,
    keys,
    unique,
)
from robotsim.model.mjcf_tables import MjcfTables, qpos_sizes
from robotsim.model.mjcf_xml import (
    IDENTITY,
    Attrs,
    Classes,
    Compiler,
    Quat,
    Unsupported,
    expand_includes,
    floats,
    merge,
    mul_quat,
    orientation,
    plain_numbers,
    read_compiler,
    read_defaults,
    rotate,
    z_to_quat,
)
from robotsim.spatial import make_T, quat_to_R

__all__ = ["Unsupported", "parse_xml", "read_mjcf"]

_SECTIONS = {"compiler", "option", "size", "visual", "statistic", "default", "asset",
             "worldbody", "contact", "equality", "tendon", "actuator", "sensor", "keyframe",
             "custom"}  # fmt: skip
_BARE_SECTIONS = {"asset", "worldbody", "contact", "equality", "tendon", "actuator", "sensor",
                  "keyframe", "custom"}  # fmt: skip
_ORIENT = {"quat", "axisangle", "euler", "xyaxes", "zaxis"}
_ALLOWED = {
    "body": {"name", "childclass", "pos", "mocap", "gravcomp", "user"} | _ORIENT,
    "frame": {"name", "childclass", "pos"} | _ORIENT,
    "joint": {"name", "class", "type", "group", "pos", "axis", "limited", "actuatorfrclimited",
              "solreflimit", "solimplimit", "solreffriction", "solimpfriction", "stiffness",
              "range", "actuatorfrcrange", "actuatorgravcomp", "margin", "ref", "springref",
              "armature", "damping", "frictionloss", "user"},
    "freejoint": {"name", "group", "align"},
    "geom": {"name", "class", "type", "contype", "conaffinity", "condim", "group", "priority",
             "size", "material", "rgba", "friction", "mass", "density", "shellinertia",
             "solmix", "solref", "solimp", "margin", "gap", "fromto", "pos", "mesh",
             "fluidshape", "fluidcoef", "user"} | _ORIENT,
    "site": {"name", "class", "type", "group", "pos", "size", "material", "rgba", "fromto",
             "user"} | _ORIENT,
    "inertial": {"pos", "mass", "diaginertia", "fullinertia"} | _ORIENT,
    "mesh": {"name", "class", "file", "scale", "content_type", "maxhullvert", "inertia",
             "smoothnormal"},
    "material": {"name", "class", "texture", "texrepeat", "texuniform", "emission",
                 "specular", "shininess", "reflectance", "metallic", "roughness", "rgba"},
    "equality": {"name", "class", "joint1", "joint2", "polycoef", "active", "solref",
                 "solimp", "body1", "body2", "site1", "site2", "anchor", "relpose",
                 "torquescale"},
}  # fmt: skip
_NOT_IN_DEFAULTS = {
    "joint": {"name", "class"}, "geom": {"name", "class"}, "site": {"name", "class"},
    "mesh": {"name", "class", "file"}, "material": {"name", "class"},
    "equality": _ALLOWED["equality"] - {"active", "solref", "solimp"},
}  # fmt: skip
_MESH_SUFFIXES = (".stl", ".STL", ".obj", ".OBJ")  # MuJoCo 4.0's decoders (and .msh in any case)
_DEFAULT_TAGS = {"joint", "geom", "site", "mesh", "material", "equality"}
_SIZES_NEEDED = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3}
_GREY = (0.5, 0.5, 0.5, 1.0)
_TEXTURE_FILES = ("file", "fileright", "fileleft", "fileup", "filedown", "filefront",
                  "fileback")  # fmt: skip


def _join(folder: str | None, name: str) -> str:
    """``folder/name`` unless ``name`` is absolute or there is no folder."""
    if not folder or Path(name).is_absolute():
        return name
    return folder + ("" if folder.endswith(("/", "\\")) else "/") + name


def _mesh_path(model_dir: str, meshdir: str | None, name: str) -> str:
    """The mesh file as MuJoCo stores it (``MjModel.paths``): the model file's folder as
    it was named, the mesh folder and the name, joined and normalised lexically."""
    return os.path.normpath(_join(model_dir, _join(meshdir, name)))


def _int(text: object, what: str) -> int:
    if type(text) is int:  # a default
        return text
    v = plain_numbers(str(text), integer=True)
    if v is None or len(v) != 1 or abs(v[0]) >= 2**31:
        raise Unsupported(f"{what}: not an integer: {str(text)[:40]!r}")
    return int(v[0])


def _float(a: Attrs, key: str, default: float, what: str) -> float:
    return floats(str(a[key]), 1, f"{what} {key}")[0] if key in a else default


def _vec(a: Attrs, key: str, default: list[float], what: str) -> list[float]:
    return floats(str(a[key]), len(default), f"{what} {key}") if key in a else list(default)


def _check(tag: str, a: Attrs | dict[str, str], what: str) -> None:
    extra = a.keys() - _ALLOWED[tag]
    if extra:
        raise Unsupported(f"{what}: attribute(s) {sorted(extra)}")


class _Reader:
    def __init__(self, path: Path, root: ET.Element) -> None:
        self.path = path
        self.folder = path.absolute().parent
        self.model_dir = "" if str(path.parent) == "." else str(path.parent)
        self.comp: Compiler = read_compiler(root)
        self.classes: Classes = read_defaults(root, _DEFAULT_TAGS)
        for cname, tags in self.classes.by_name.items():
            for tag, attrs in tags.items():
                extra = attrs.keys() - _ALLOWED[tag] | (attrs.keys() & _NOT_IN_DEFAULTS[tag])
                if extra:
                    raise Unsupported(f"<default class={cname!r}> <{tag}>: {sorted(extra)}")
        self.meshes: dict[str, tuple[str, tuple[float, float, float]]] = {}
        self.materials: dict[str, tuple[float, float, float, float]] = {}
        # bodies
        self.b_name: list[str] = []
        self.b_parent: list[int] = []
        self.b_pos: list[list[float]] = []
        self.b_quat: list[Quat] = []
        self.b_inertial: list[tuple[float, list[float], np.ndarray] | None] = []
        self.b_njnt: list[int] = []
        # joints
        self.j_name: list[str] = []
        self.j_type: list[str] = []
        self.j_body: list[int] = []
        self.j_pos: list[list[float]] = []
        self.j_axis: list[list[float]] = []
        self.j_limited: list[bool] = []
        self.j_range: list[list[float]] = []
        self.j_frclimited: list[bool] = []
        self.j_frcrange: list[list[float]] = []
        self.j_dyn: list[tuple[float, float, float, float, float]] = []
        self.qpos0: list[float] = []
        # geoms
        self.g_name: list[str] = []
        self.g_type: list[str] = []
        self.g_body: list[int] = []
        self.g_size: list[list[float]] = []
        self.g_pos: list[list[float]] = []
        self.g_quat: list[Quat] = []
        self.g_rgba: list[tuple[float, float, float, float]] = []
        self.g_col: list[tuple[int, int, int]] = []
        self.g_mesh: list[tuple[str, tuple[float, float, float]] | None] = []
        self.g_mass: list[float] = []  # nan: density * volume
        self.g_density: list[float] = []
        # sites
        self.s_name: list[str] = []
        self.s_body: list[int] = []
        self.s_pos: list[list[float]] = []
        self.s_quat: list[Quat] = []

    # ------------------------------------------------------------------ helpers
    def attrs(self, el: ET.Element, tag: str, cc: str | None, what: str) -> Attrs:
        cls = el.get("class") or cc or "main"
        a = merge(self.classes.get(cls, tag), el.attrib, what)
        _check(tag, a, what)
        return a

    def pose(self, a: Attrs, own: dict[str, str], what: str) -> tuple[list[float], Quat]:
        pos = _vec(a, "pos", [0.0, 0.0, 0.0], what)
        return pos, orientation(a, own, self.comp, what) or IDENTITY

    @staticmethod
    def place(frame: tuple[list[float], Quat] | None, pos: list[float], quat: Quat
              ) -> tuple[list[float], Quat]:  # fmt: skip
        if frame is None:
            return pos, quat
        fp, fq = frame
        r = rotate(fq, pos)
        return [fp[0] + r[0], fp[1] + r[1], fp[2] + r[2]], mul_quat(fq, quat)

    # ------------------------------------------------------------------ assets
    def assets(self, root: ET.Element) -> None:
        comp = self.comp
        meshdir = comp.meshdir if comp.meshdir is not None else comp.assetdir
        texdir = comp.texturedir if comp.texturedir is not None else comp.assetdir
        textures: set[str] = set()
        for sec in root.iter("asset"):
            for el in sec:
                what = f"<{el.tag} {el.get('name') or el.get('file') or ''}>"
                if el.tag == "texture":
                    for attr in _TEXTURE_FILES:
                        if el.get(attr) and not (self.folder / _join(texdir, el.get(attr, ""))
                                                 ).is_file():  # fmt: skip
                            raise Unsupported(f"{what}: texture file not found")
                    textures.add(el.get("name") or Path(el.get("file", "")).stem)
                elif el.tag == "mesh":
                    a = self.attrs(el, "mesh", None, what)
                    fname = str(a.get("file", ""))
                    if not fname:
                        raise Unsupported(f"{what}: a mesh without a file")
                    stored = _mesh_path(self.model_dir, meshdir, fname)
                    suffix = os.path.splitext(stored)[1]
                    known = suffix in _MESH_SUFFIXES or suffix.lower() == ".msh"
                    if not known or "content_type" in a:
                        raise Unsupported(f"{what}: mesh type MuJoCo may read differently")
                    name = str(a.get("name") or Path(fname).stem)
                    sx, sy, sz = _vec(a, "scale", [1.0, 1.0, 1.0], what)
                    check_mesh_file(self.path, f"<mesh name={name!r}>", Path(stored), (sx, sy, sz))
                    if name in self.meshes:
                        raise Unsupported(f"{what}: mesh name used twice")
                    self.meshes[name] = (stored, (sx, sy, sz))
                elif el.tag != "material":
                    raise Unsupported(f"<asset> <{el.tag}>")
        for sec in root.iter("asset"):
            for el in sec:
                if el.tag != "material":
                    continue
                what = f"<material {el.get('name', '')}>"
                a = self.attrs(el, "material", None, what)
                name = str(a.get("name", ""))
                if not name or name in self.materials:
                    raise Unsupported(f"{what}: unnamed or repeated material")
                if "texture" in a and a["texture"] not in textures:
                    raise Unsupported(f"{what}: unknown texture")
                r, g, b, al = _vec(a, "rgba", [1.0, 1.0, 1.0, 1.0], what)
                self.materials[name] = (r, g, b, al)

    # ------------------------------------------------------------------ bodies
    def worldbody(self, root: ET.Element) -> None:
        self.b_name.append("world")
        self.b_parent.append(0)
        self.b_pos.append([0.0, 0.0, 0.0])
        self.b_quat.append(IDENTITY)
        self.b_inertial.append(None)
        self.b_njnt.append(0)
        kids: list[tuple[ET.Element, int, tuple[list[float], Quat] | None, str | None]] = []
        worldbodies = [el for el in root if el.tag == "worldbody"]
        if len(worldbodies) > 1:
            raise Unsupported("several <worldbody> sections")
        for wb in worldbodies:
            self.contents(0, wb, None, None, kids)
        stack = kids[::-1]
        while stack:
            el, parent, frame, cc = stack.pop()
            bid = len(self.b_name)
            name = el.get("name", "")
            what = f"<body {name}>"
            _check("body", el.attrib, what)
            if el.get("mocap", "false") != "false":
                raise Unsupported(f"{what}: mocap body")
            pos, quat = self.place(frame, *self.pose(el.attrib, el.attrib, what))
            self.b_name.append(name)
            self.b_parent.append(parent)
            self.b_pos.append(pos)
            self.b_quat.append(quat)
            self.b_inertial.append(None)
            self.b_njnt.append(0)
            mine: list[tuple[ET.Element, int, tuple[list[float], Quat] | None, str | None]] = []
            self.contents(bid, el, None, el.get("childclass", cc), mine)
            stack.extend(mine[::-1])

    def contents(self, bid: int, el: ET.Element, frame: tuple[list[float], Quat] | None,
                 cc: str | None, kids: list) -> None:  # fmt: skip
        """A body's (or frame's) joints, geoms, sites and inertial; its child bodies go
        to ``kids`` with their frame and class."""
        for child in el:
            tag = child.tag
            if len(child) and tag not in ("body", "frame"):
                raise Unsupported(f"<{tag}> with child elements")
            if tag == "body":
                kids.append((child, bid, frame, cc))
            elif tag == "geom":
                self.geom(bid, child, frame, cc)
            elif tag in ("joint", "freejoint"):
                if bid == 0:
                    raise Unsupported("a joint in <worldbody>")
                self.joint(bid, child, frame, cc)
            elif tag == "site":
                self.site(bid, child, frame, cc)
            elif tag == "frame":
                what = f"<frame {child.get('name', '')}>"
                _check("frame", child.attrib, what)
                sub = self.place(frame, *self.pose(child.attrib, child.attrib, what))
                self.contents(bid, child, sub, child.get("childclass", cc), kids)
            elif tag == "inertial":
                if bid == 0 or frame is not None or self.b_inertial[bid] is not None:
                    raise Unsupported("<inertial> in the world, a frame, or twice")
                self.inertial(bid, child)
            elif tag not in ("camera", "light"):
                raise Unsupported(f"<{tag}> in a body")

    def inertial(self, bid: int, el: ET.Element) -> None:
        what = f"<inertial> of body {self.b_name[bid]!r}"
        a: Attrs = dict(el.attrib)
        _check("inertial", a, what)
        if "pos" not in a or "mass" not in a or ("diaginertia" in a) == ("fullinertia" in a):
            raise Unsupported(f"{what}: needs pos, mass and one of diaginertia/fullinertia")
        pos, quat = self.pose(a, el.attrib, what)
        mass = _float(a, "mass", 0.0, what)
        if "fullinertia" in a:
            if quat is not IDENTITY:
                raise Unsupported(f"{what}: fullinertia with an orientation")
            xx, yy, zz, xy, xz, yz = floats(str(a["fullinertia"]), 6, what)
            inertia = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
            ev = np.linalg.eigvalsh(inertia)  # MuJoCo checks these: keep clear of the edge
            ok = not inertia.any() or (ev[0] > 1e-12 * ev[2] and ev[0] + ev[1] > ev[2] * (1 + 1e-9))
        else:
            d = floats(str(a["diaginertia"]), 3, what)
            R = quat_to_R(np.array(quat))
            inertia = (R * np.array(d)) @ R.T
            # MuJoCo's own test on the given moments (a moving body's are checked later)
            ok = min(d) >= 0 and all(d[i] + d[(i + 1) % 3] >= d[(i + 2) % 3] for i in range(3))
        if not (mass >= 0 and ok):
            raise Unsupported(f"{what}: mass {mass} or an inertia MuJoCo may refuse")
        self.b_inertial[bid] = (mass, pos, inertia)

    def joint(self, bid: int, el: ET.Element, frame: tuple[list[float], Quat] | None,
              cc: str | None) -> None:  # fmt: skip
        name = el.get("name", "")
        what = f"<joint {name}>"
        if el.tag == "freejoint":
            _check("freejoint", el.attrib, what)
            if el.get("align", "false") != "false":
                raise Unsupported(f"{what}: align")
            a: Attrs = {"type": "free"}
        else:
            a = self.attrs(el, "joint", cc, what)
        kind = str(a.get("type", "hinge"))
        if kind not in ("hinge", "slide", "ball", "free"):
            raise Unsupported(f"{what}: type {kind!r}")
        if kind == "free" and self.b_parent[bid] != 0:
            raise Unsupported(f"{what}: a free joint below the top level")
        pos = _vec(a, "pos", [0.0, 0.0, 0.0], what)
        axis = _vec(a, "axis", [0.0, 0.0, 1.0], what)
        n = math.sqrt(sum(x * x for x in axis))
        if n < 1e-10:
            raise Unsupported(f"{what}: zero axis")
        axis = [x / n for x in axis]
        if frame is not None:
            pos, _ = self.place(frame, pos, IDENTITY)
            axis = rotate(frame[1], axis)
        angular = kind in ("hinge", "ball")
        scale = self.comp.angle_scale if angular else 1.0
        rng = _vec(a, "range", [0.0, 0.0], what)
        limited = self.limited(a, "limited", "range", rng, what)
        if limited and kind == "ball" and rng[0] != 0.0:
            raise Unsupported(f"{what}: ball range not starting at 0")
        frc = _vec(a, "actuatorfrcrange", [0.0, 0.0], what)
        frclimited = self.limited(a, "actuatorfrclimited", "actuatorfrcrange", frc, what)
        dyn = tuple(_float(a, k, 0.0, what) for k in ("armature", "damping", "frictionloss",
                                                       "stiffness"))  # fmt: skip
        if any(v < 0 for v in dyn):
            raise Unsupported(f"{what}: a negative armature, damping, friction or stiffness")
        ref = _float(a, "ref", 0.0, what) * (scale if kind == "hinge" else 1.0)
        springref = _float(a, "springref", 0.0, what) * (scale if kind == "hinge" else 1.0)
        if kind in ("hinge", "slide"):
            self.qpos0.append(ref)
        elif kind == "ball":
            self.qpos0.extend((1.0, 0.0, 0.0, 0.0))
        else:
            self.qpos0.extend([*self.b_pos[bid], *self.b_quat[bid]])
        self.j_name.append(name)
        self.j_type.append(kind)
        self.j_body.append(bid)
        self.j_pos.append(pos)
        self.j_axis.append(axis)
        self.j_limited.append(limited)
        self.j_range.append([rng[0] * scale, rng[1] * scale])
        self.j_frclimited.append(frclimited)
        self.j_frcrange.append(frc)
        self.j_dyn.append((*dyn, springref if kind in ("hinge", "slide") else 0.0))  # type: ignore[arg-type]
        self.b_njnt[bid] += 1

    def limited(self, a: Attrs, key: str, range_key: str, rng: list[float], what: str) -> bool:
        """MuJoCo's ``limited``/``autolimits`` rule (its errors: unsupported)."""
        flag = str(a.get(key, "auto"))
        if flag == "true":
            if not rng[0] < rng[1]:
                raise Unsupported(f"{what}: limited with range {rng}")
            return True
        if flag == "false":
            return False
        if flag != "auto":
            raise Unsupported(f"{what}: {key}={flag!r}")
        if self.comp.autolimits:
            return rng[0] < rng[1]
        if range_key in a:
            raise Unsupported(f"{what}: {range_key} without {key} and autolimits off")
        return False

    def geom(self, bid: int, el: ET.Element, frame: tuple[list[float], Quat] | None,
             cc: str | None) -> None:  # fmt: skip
        name = el.get("name", "")
        what = f"<geom {name}>"
        a = self.attrs(el, "geom", cc, what)
        kind = str(a.get("type", "sphere"))
        size = list(a["size"]) if "size" in a else [0.0, 0.0, 0.0]  # type: ignore[call-overload]
        if "mesh" in a and kind != "mesh":
            raise Unsupported(f"{what}: a primitive fitted to a mesh")
        if a.get("shellinertia", "false") != "false":
            raise Unsupported(f"{what}: shellinertia")
        if "fromto" in a:
            if kind not in ("capsule", "cylinder") or "pos" in a or _ORIENT & a.keys():
                raise Unsupported(f"{what}: fromto on a {kind} or with pos/orientation")
            pos, quat, size[1] = _fromto(a, what)
        else:
            pos, quat = self.pose(a, el.attrib, what)
        mesh = None
        if kind == "mesh":
            if str(a.get("mesh", "")) not in self.meshes:
                raise Unsupported(f"{what}: unknown mesh {a.get('mesh')!r}")
            mesh = self.meshes[str(a["mesh"])]
        elif kind in PRIMITIVES:
            if any(not s > 0 for s in size[: _SIZES_NEEDED[kind]]):
                raise Unsupported(f"{what}: size {size} of a {kind}")
        elif kind != "plane" or bid != 0 or not size[2] > 0:
            raise Unsupported(f"{what}: type {kind!r} (size {size})")
        rgba = _vec(a, "rgba", list(_GREY), what)
        if "material" in a:
            mat = self.materials.get(str(a["material"]))
            if mat is None:
                raise Unsupported(f"{what}: unknown material")
            if all(abs(x - y) <= 1e-8 + 1e-5 * abs(y) for x, y in zip(rgba, _GREY)):
                rgba = list(mat)
        mass = _float(a, "mass", math.nan, what)
        density = _float(a, "density", 1000.0, what)
        if mass < 0 or density < 0:
            raise Unsupported(f"{what}: negative mass or density")
        pos, quat = self.place(frame, pos, quat)
        self.g_name.append(name)
        self.g_type.append(kind)
        self.g_body.append(bid)
        self.g_size.append(size)
        self.g_pos.append(pos)
        self.g_quat.append(quat)
        self.g_rgba.append((rgba[0], rgba[1], rgba[2], rgba[3]))
        self.g_col.append((_int(a.get("contype", 1), what), _int(a.get("conaffinity", 1), what),
                           _int(a.get("group", 0), what)))  # fmt: skip
        self.g_mesh.append(mesh)
        self.g_mass.append(mass)
        self.g_density.append(density)

    def site(self, bid: int, el: ET.Element, frame: tuple[list[float], Quat] | None,
             cc: str | None) -> None:  # fmt: skip
        name = el.get("name", "")
        what = f"<site {name}>"
        a = self.attrs(el, "site", cc, what)
        kind = str(a.get("type", "sphere"))
        if kind not in PRIMITIVES:
            raise Unsupported(f"{what}: type {kind!r}")
        size = list(a["size"]) if "size" in a else [0.005, 0.005, 0.005]  # type: ignore[call-overload]
        if any(not x > 0 for x in size[: 1 if "fromto" in a else _SIZES_NEEDED[kind]]):
            raise Unsupported(f"{what}: size {size} of a {kind}")
        if "fromto" in a:
            if kind == "sphere" or "pos" in a or _ORIENT & a.keys():
                raise Unsupported(f"{what}: fromto on a {kind} or with pos/orientation")
            pos, quat, _ = _fromto(a, what)
            pos, quat = self.place(frame, pos, quat)
        else:
            pos, quat = self.place(frame, *self.pose(a, el.attrib, what))
        self.s_name.append(name)
        self.s_body.append(bid)
        self.s_pos.append(pos)
        self.s_quat.append(quat)


def _fromto(a: Attrs, what: str) -> tuple[list[float], Quat, float]:
    """Centre, orientation and half length of a ``fromto`` segment (MuJoCo's z axis
    points from "to" to "from")."""
    f = floats(str(a["fromto"]), 6, f"{what} fromto")
    d = [f[0] - f[3], f[1] - f[4], f[2] - f[5]]
    length = math.sqrt(sum(x * x for x in d))
    if length < 1e-9:
        raise Unsupported(f"{what}: fromto points too close")
    pos = [(f[0] + f[3]) / 2, (f[1] + f[4]) / 2, (f[2] + f[5]) / 2]
    return pos, z_to_quat(d, what), length / 2


def parse_xml(path: Path) -> ET.Element:
    """The XML tree of ``path`` (:class:`Unsupported` if it is not well-formed XML:
    MuJoCo's parser then says why)."""
    try:
        return ET.fromstring(path.read_bytes())
    except ET.ParseError as exc:
        raise Unsupported(f"XML: {exc}") from None


def read_mjcf(
    path: Path,
    root: ET.Element | None = None,
    includes: dict[Path, ET.Element] | None = None,
) -> MjcfTables:
    """The tables MuJoCo would compile from the MJCF file ``path``, read in one linear
    pass; :class:`Unsupported` (with the reason) whenever that is not certain.

    ``root``: the file's tree if the caller parsed it already (:func:`parse_xml`; it is
    changed in place), ``includes``: included files it parsed (resolved path -> tree)."""
    if root is None:
        root = parse_xml(path)
    if root.tag != "mujoco" or root.attrib.keys() - {"model"}:
        raise Unsupported("the root element is not <mujoco [model]>")
    if next(root.iter("include"), None) is not None:
        expand_includes(root, path.absolute().parent, includes)
    for sec in root:
        if sec.tag not in _SECTIONS:
            raise Unsupported(f"<{sec.tag}>")
        if sec.attrib and sec.tag in _BARE_SECTIONS:
            raise Unsupported(f"<{sec.tag}> with attributes")
    check_globals(root, path)
    r = _Reader(path, root)
    r.assets(root)
    r.worldbody(root)
    unique(r.b_name, "body")
    unique(r.j_name, "joint")
    unique(r.g_name, "geom")
    unique(r.s_name, "site")
    check_references(root, r)
    mass, com, inertia = body_inertias(r)
    qpos0 = np.array(r.qpos0, float)
    if len(qpos0) != int(qpos_sizes(r.j_type).sum()):
        raise Unsupported("internal: qpos size")
    g_quat = np.array(r.g_quat, float).reshape(-1, 4)
    s_quat = np.array(r.s_quat, float).reshape(-1, 4)
    dyn = np.array(r.j_dyn, float).reshape(-1, 5)
    col = np.array(r.g_col, int).reshape(-1, 3)
    return MjcfTables(
        model_name=root.get("model", "MuJoCo Model"),
        body_name=["world" if i == 0 else n for i, n in enumerate(r.b_name)],
        body_parent=np.array(r.b_parent, int),
        body_pos=np.array(r.b_pos, float),
        body_quat=np.array(r.b_quat, float),
        body_mass=mass,
        body_com=com,
        body_inertia=inertia,
        jnt_name=r.j_name,
        jnt_type=r.j_type,
        jnt_body=np.array(r.j_body, int),
        jnt_pos=np.array(r.j_pos, float).reshape(-1, 3),
        jnt_axis=np.array(r.j_axis, float).reshape(-1, 3),
        jnt_limited=np.array(r.j_limited, bool),
        jnt_range=np.array(r.j_range, float).reshape(-1, 2),
        jnt_actfrclimited=np.array(r.j_frclimited, bool),
        jnt_actfrcrange=np.array(r.j_frcrange, float).reshape(-1, 2),
        jnt_armature=dyn[:, 0],
        jnt_damping=dyn[:, 1],
        jnt_frictionloss=dyn[:, 2],
        jnt_stiffness=dyn[:, 3],
        jnt_springref=dyn[:, 4],
        qpos0=qpos0,
        geom_name=r.g_name,
        geom_type=r.g_type,
        geom_body=np.array(r.g_body, int),
        geom_size=np.array(r.g_size, float).reshape(-1, 3),
        geom_T=make_T(quat_to_R(g_quat), np.array(r.g_pos, float).reshape(-1, 3)),
        # MuJoCo keeps colours in float32
        geom_rgba=np.array(r.g_rgba, np.float32).astype(float).reshape(-1, 4),
        geom_contype=col[:, 0],
        geom_conaffinity=col[:, 1],
        geom_group=col[:, 2],
        geom_mesh=r.g_mesh,
        site_name=r.s_name,
        site_body=np.array(r.s_body, int),
        site_T=make_T(quat_to_R(s_quat), np.array(r.s_pos, float).reshape(-1, 3)),
        eq_joint=equalities(root, r),
        eq_body=body_equalities(root, r),
        key=keys(root, r, qpos0),
        jnt_actuator_effort=joint_efforts_xml(root, r.j_name, r.j_type, r.limited),
    )
