"""MJCF (MuJoCo XML) <-> RobotModel.

Import (:func:`load_mjcf`) reads the file with robotsim's linear reader
(:mod:`robotsim.model.mjcf_reader`), which resolves defaults, classes, ``<include>``,
frames, alternative orientations, angle units and geom-derived inertia as MuJoCo's
compiler does; a file using anything it does not reproduce exactly (a mesh-derived
inertia, ``<replicate>``, ``<attach>``, unusual compiler options...) is parsed and
compiled by MuJoCo instead (``MjSpec.from_file`` then ``compile``; MuJoCo's reader grows
faster than linearly in bodies), and ``metadata["reader"]`` says which did and why.
Either way the result is the same compiled tables
(:class:`~robotsim.model.mjcf_tables.MjcfTables`), converted body by body:

- a body with one joint becomes one link; its joint at ``pos`` ``p`` (body frame) with
  axis ``a`` gives ``origin = T_parent_body @ Trans(p) @ M(a, -ref)``, ``post =
  Trans(-p)`` (hinge) or ``origin = T_parent_body @ Trans(-a ref)`` (slide), so that
  ``q`` equals MuJoCo's ``qpos`` and the kinematics are exact;
- a body with several joints becomes a chain: intermediate links ``<body>__<joint>``
  (no geometry) carry all but the last joint, in MuJoCo's order;
- a ``ball`` joint becomes three revolute joints ``<joint>_x``, ``_y``, ``_z`` (about
  the body's x, y, z through the ball centre, applied in that order) -- same reachable
  orientations, but an Euler-angle ``q`` instead of MuJoCo's quaternion; a ball range
  ``r`` limits each of the three to ``[-r, r]``;
- a ``free`` joint is allowed only on the single top-level body: the model is then
  floating and its initial world pose goes to ``metadata["T_world_root"]``;
- a body without joints hangs from its parent by a fixed joint ``<body>_fixed``;
- hinge with ``limited`` -> revolute with the range, without -> continuous; slide ->
  prismatic; ``actuatorfrcrange`` and the actuators driving the joint (directly or
  through a fixed tendon: :mod:`robotsim.model.mjcf_actuators`) -> effort limit;
  ``armature``, ``damping``, ``frictionloss``, ``stiffness``, ``springref`` ->
  :class:`JointDynamics`;
- geoms -> shapes on their body's link (plane, height field and SDF geoms are skipped):
  ``contype=conaffinity=0`` -> visual only, group 3 -> collision only, otherwise both;
  mesh geoms keep their file and scale (inline meshes without a file are skipped);
- body inertials (given or inferred by MuJoCo) -> :class:`Inertial`;
- named sites -> frames; named keyframes -> poses (hinge and slide values);
- ``<equality><joint>`` with a linear polycoef -> :class:`Mimic`.
- ``<equality><connect>``/``<weld>`` between bodies (closed kinematic loops) are not
  closed: they are listed in ``metadata["closed_loops"]`` (equality index, kind, links).

When the file has several top-level bodies, or one that is not free but has joints or
sits away from the world origin, a root link ``world`` is added so link poses equal
MuJoCo's ``xpos``/``xmat``. Skipped items are listed in ``metadata["skipped"]``.

Export lives in :mod:`robotsim.model.mjcf_export` and is re-exported here.
"""

from __future__ import annotations

import logging
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.errors import InputError, ModelError, ModelFileError
from robotsim.file_scope import OutsideScopeError, check_readable, current_scope
from robotsim.model.builder import RobotBuilder
from robotsim.model.geometry import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    Geometry,
    Mesh,
    Shape,
    Sphere,
)
from robotsim.model.mjcf_export import (
    full_qpos,
    mujoco_joint_order,
    save_mjcf,
    to_mjcf_string,
    to_mjspec,
)
from robotsim.model.mjcf_reader import Unsupported, parse_xml, read_mjcf
from robotsim.model.mjcf_tables import GEOM_TYPES, MjcfTables, tables_from_mjmodel
from robotsim.model.robot import Inertial, JointDynamics, RobotModel
from robotsim.spatial import axis_angle_to_R, make_T, quat_to_R, trans

__all__ = [
    "full_qpos",
    "load_mjcf",
    "model_from_mjmodel",
    "mujoco_joint_order",
    "save_mjcf",
    "to_mjcf_string",
    "to_mjspec",
]

_EYE4 = np.eye(4)
_EYE3 = np.eye(3)
_log = logging.getLogger(__name__)


def _pose(pos: np.ndarray, quat: np.ndarray) -> np.ndarray:
    return make_T(quat_to_R(np.asarray(quat, float)), np.asarray(pos, float))


def load_mjcf(path: str | Path, reader: str = "auto") -> RobotModel:
    """Read an MJCF file and convert it (see the module doc).

    ``reader="auto"``: :func:`robotsim.model.mjcf_reader.read_mjcf` reads it first, in
    one linear pass; a file using anything that reader does not reproduce exactly goes
    through MuJoCo (``MjSpec.from_file(...).compile()``) instead. ``reader="mujoco"``:
    always through MuJoCo (the same model, MuJoCo's own compile). ``metadata["reader"]``
    says which did: ``"robotsim"``, ``"mujoco"`` or ``"mujoco: <why>"`` (also logged at
    debug level).
    """
    if reader not in ("auto", "mujoco"):
        raise InputError(f"MJCF reader {reader!r}: valid: 'auto', 'mujoco'")
    p = Path(path)
    from robotsim.validation import check_input_file

    check_readable(p)
    check_input_file(p, lambda m: ModelFileError(p, m))
    scoped = current_scope() is not None  # then every file it names is checked first
    if reader == "mujoco" and not scoped:
        return _load_through_mujoco(p, "mujoco")
    try:
        root = parse_xml(p)  # parsed once: for the check and for our reader
    except Unsupported as exc:
        if scoped:  # MuJoCo's parser might read it, and open files nobody checked
            raise ModelFileError(p, f"not well-formed XML ({exc})") from None
        _log.debug("%s: read through MuJoCo: %s", p, exc)
        return _load_through_mujoco(p, f"mujoco: {exc}")
    includes = _check_referenced_files(p, root) if scoped else None
    if reader == "mujoco":
        return _load_through_mujoco(p, "mujoco")
    try:
        tables = read_mjcf(p, root, includes)
    except Unsupported as exc:
        why = str(exc)
    except ModelFileError:  # what MuJoCo certainly refuses too, said more clearly
        raise
    except Exception as exc:  # a gap in the reader: MuJoCo reads the file
        why = f"reader failed ({type(exc).__name__}: {exc})"
    else:
        tables.model_name = _model_name(tables.model_name, p)
        return model_from_tables(tables, source=p, reader="robotsim")
    _log.debug("%s: read through MuJoCo: %s", p, why)
    return _load_through_mujoco(p, f"mujoco: {why}")


def _model_name(name: str, p: Path) -> str:
    return p.stem if not name or name == "MuJoCo Model" else name


def _load_through_mujoco(p: Path, reader: str) -> RobotModel:
    import mujoco

    try:
        spec = mujoco.MjSpec.from_file(str(p))
        mjm = spec.compile()
    except ValueError as exc:
        msg = " | ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        raise ModelFileError(p, f"MuJoCo cannot load it: {msg}") from None
    tables = tables_from_mjmodel(mjm, _model_name(spec.modelname, p))
    return model_from_tables(tables, source=p, reader=reader)


_FILE_ATTRS = ("file", "fileright", "fileleft", "fileup", "filedown", "filefront", "fileback")


def _check_referenced_files(path: Path, root: ET.Element) -> dict[Path, ET.Element]:
    """Every file an MJCF names (``<include>``, meshes, textures, height fields, skins,
    models; also through ``meshdir``/``texturedir``/``assetdir``) through
    :func:`robotsim.file_scope.check_readable` (each candidate folder MuJoCo may take
    it from), following includes; :class:`ModelFileError` naming the element.
    ``root``: the file's tree, already parsed; returns the included files' trees
    (resolved path -> tree), parsed here once, for the reader."""
    folder = path.resolve().parent
    dirs: set[Path] = {folder}
    todo, seen = [path.resolve()], set()
    parsed: dict[Path, ET.Element] = {}
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if seen == {current}:
            tree = root
        else:
            try:
                tree = parsed[current] = ET.parse(current).getroot()
            except (ET.ParseError, OSError):
                continue  # MuJoCo reports it
        for comp in tree.iter("compiler"):
            for attr in ("meshdir", "texturedir", "assetdir"):
                if comp.get(attr):
                    d = Path(comp.get(attr, "")).expanduser()
                    dirs.add(d if d.is_absolute() else folder / d)
        for el in tree.iter():
            a = el.attrib
            if not a or ("file" not in a and el.tag != "texture"):
                continue  # only textures name files other than by "file"
            for attr in _FILE_ATTRS:
                name = a.get(attr)
                if not name:
                    continue
                ref = Path(name).expanduser()
                where = [ref] if ref.is_absolute() else [d / ref for d in sorted(dirs)]
                try:
                    for cand in where:
                        check_readable(cand)
                except OutsideScopeError as exc:
                    raise ModelFileError(path, f"<{el.tag} {attr}>: {exc}") from None
                if el.tag == "include":
                    todo.extend(c.resolve() for c in where if c.is_file())
    return parsed


class _Names:
    """Unique names across links and joints as the conversion invents some."""

    def __init__(self) -> None:
        self.links: set[str] = set()
        self.joints: set[str] = set()

    @staticmethod
    def _unique(base: str, used: set[str]) -> str:
        name, k = base, 1
        while name in used:
            k += 1
            name = f"{base}_{k}"
        used.add(name)
        return name

    def link(self, base: str) -> str:
        return self._unique(base, self.links)

    def joint(self, base: str) -> str:
        return self._unique(base, self.joints)


def _geometry(t: MjcfTables, g: int, skipped: list[str], gname: str) -> Geometry | None:
    kind = t.geom_type[g]
    size = t.geom_size[g]
    if kind == "box":
        return Box(tuple(2.0 * size))
    if kind == "sphere":
        return Sphere(float(size[0]))
    if kind == "capsule":
        return Capsule(float(size[0]), float(2.0 * size[1]))
    if kind == "cylinder":
        return Cylinder(float(size[0]), float(2.0 * size[1]))
    if kind == "ellipsoid":
        return Ellipsoid(tuple(size))
    if kind == "mesh":
        mesh = t.geom_mesh[g]
        if mesh is None:
            skipped.append(f"geom {gname!r}: inline mesh without a file")
            return None
        return Mesh(Path(mesh[0]), mesh[1])
    what = {"plane": "plane", "hfield": "height field"}.get(kind, f"type {GEOM_TYPES.index(kind)}")
    skipped.append(f"geom {gname!r}: {what} geoms are not link geometry")
    return None


def model_from_mjmodel(
    mjm: Any, name: str = "mjcf_robot", source: Path | None = None
) -> RobotModel:
    """Convert a compiled ``mujoco.MjModel`` into a RobotModel (see the module doc)."""
    return model_from_tables(tables_from_mjmodel(mjm, name), source)


def model_from_tables(
    t: MjcfTables, source: Path | None = None, reader: str | None = None
) -> RobotModel:
    """Convert compiled MJCF tables (either reader's) into a RobotModel (module doc);
    ``reader`` goes to ``metadata["reader"]``."""
    name = t.model_name
    where = source if source is not None else f"<MjModel {name}>"
    skipped: list[str] = []
    names = _Names()
    nbody = len(t.body_name)

    def body_name(b: int) -> str:
        return t.body_name[b] or f"body{b}"

    def joint_name(j: int) -> str:
        return t.jnt_name[j] or f"joint{j}"

    _check_finite(t, where)
    jnts_of: list[list[int]] = [[] for _ in range(nbody)]
    for j, bid in enumerate(t.jnt_body.tolist()):
        jnts_of[bid].append(j)
    parent = t.body_parent.tolist()
    top = [b for b in range(1, nbody) if parent[b] == 0]
    if not top:
        raise ModelFileError(where, "the worldbody has no bodies: nothing to build a robot from")
    free_bodies = [int(t.jnt_body[j]) for j, k in enumerate(t.jnt_type) if k == "free"]
    floating = False
    if free_bodies:
        if len(top) != 1 or free_bodies != [top[0]]:
            raise ModelFileError(
                where,
                f"free joint on body {body_name(free_bodies[0])!r}; a robot may have a free "
                "joint only on its single top-level body (load the other free bodies as "
                "scene objects)",
            )
        if len(jnts_of[top[0]]) != 1:
            raise ModelFileError(
                where, f"body {body_name(top[0])!r}: a free joint must be its body's only joint"
            )
        floating = True
    T_bodies = _pose(t.body_pos, t.body_quat)
    need_world = len(top) > 1 or (
        not floating and (len(jnts_of[top[0]]) > 0 or not np.allclose(T_bodies[top[0]], _EYE4))
    )
    b = RobotBuilder(name, floating=floating)
    link_of_body: dict[int, str] = {}
    if need_world:
        link_of_body[0] = names.link("world")
    for bid in range(1, nbody):
        link_of_body[bid] = names.link(body_name(bid))
    names.joints.update(joint_name(j) for j in range(len(t.jnt_type)))
    metadata: dict[str, Any] = {"format": "mjcf"}

    # every pose at once (batched): the loops below only index, so the conversion is
    # linear in bodies and geoms with a small constant
    shapes_visual: dict[int, list[Shape]] = {}
    shapes_coll: dict[int, list[Shape]] = {}
    for g, bid in enumerate(t.geom_body.tolist()):
        if bid not in link_of_body:
            continue  # world geoms when no world link: the environment, not the robot
        gname = t.geom_name[g]
        geo = _geometry(t, g, skipped, gname or f"geom{g}")
        if geo is None:
            continue
        prefix = body_name(bid) + "/"
        short = gname[len(prefix) :] if gname.startswith(prefix) else gname
        r, g_, b_, a = (float(c) for c in t.geom_rgba[g])
        shape = Shape(geo, t.geom_T[g], (r, g_, b_, a), short)
        visual_only = int(t.geom_contype[g]) == 0 and int(t.geom_conaffinity[g]) == 0
        collision_only = not visual_only and int(t.geom_group[g]) == 3
        if not collision_only:
            shapes_visual.setdefault(bid, []).append(shape)
        if not visual_only:
            shapes_coll.setdefault(bid, []).append(shape)

    for bid in sorted(link_of_body):
        inertial = None
        if bid > 0 and (float(t.body_mass[bid]) > 0 or np.any(t.body_inertia[bid])):
            inertial = Inertial(float(t.body_mass[bid]), t.body_com[bid], t.body_inertia[bid])
        b.link(
            link_of_body[bid],
            visuals=shapes_visual.get(bid, []),
            collisions=shapes_coll.get(bid, []),
            inertial=inertial,
        )

    qpos0 = t.qpos0
    qadr = t.jnt_qposadr
    mimic_of = _mimics(t, joint_name, skipped)
    local, post_of, origin_first = _joint_frames(t, T_bodies)
    mjjoint_to_ours: dict[int, str] = {}
    for bid in range(1, nbody):
        child_link = link_of_body[bid]
        parent_bid = parent[bid]
        jids = jnts_of[bid]
        if parent_bid == 0 and 0 not in link_of_body:
            if floating:
                jadr = int(qadr[jids[0]])
                metadata["T_world_root"] = _pose(qpos0[jadr : jadr + 3], qpos0[jadr + 3 : jadr + 7])
            continue  # the root link
        parent_link = link_of_body[parent_bid]
        if not jids:
            b.joint(names.joint(f"{child_link}_fixed"), "fixed", parent_link, child_link,
                    origin=T_bodies[bid])  # fmt: skip
            continue
        # Expand ball joints into three hinges; each entry: (name, kind, axis, j).
        steps: list[tuple[str, str, np.ndarray, int]] = []
        for j in jids:
            kind = t.jnt_type[j]
            jn = joint_name(j)
            if kind == "ball":
                for letter, ax in zip("xyz", _EYE3):
                    steps.append((names.joint(f"{jn}_{letter}"), "ball", ax, j))
            elif kind in ("hinge", "slide"):
                steps.append((jn, kind, t.jnt_axis[j], j))
        prev = parent_link
        for k, (jn, kind, axis, j) in enumerate(steps):
            last = k == len(steps) - 1
            child = child_link if last else names.link(f"{child_link}__{jn}")
            if not last:
                b.link(child)
            limited = bool(t.jnt_limited[j])
            lo, hi = (float(v) for v in t.jnt_range[j])
            effort = np.inf
            if bool(t.jnt_actfrclimited[j]):
                effort = float(np.max(np.abs(t.jnt_actfrcrange[j])))
                if effort <= 0:
                    effort = np.inf
            if t.jnt_actuator_effort is not None and 0 < t.jnt_actuator_effort[j] < effort:
                effort = float(t.jnt_actuator_effort[j])  # what its actuators exert
            if kind == "slide":
                jtype = "prismatic"
            else:
                jtype = "revolute" if limited else "continuous"
            if kind == "ball" and limited:
                lo, hi = -hi, hi
            dynamics = JointDynamics(
                armature=float(t.jnt_armature[j]),
                damping=float(t.jnt_damping[j]),
                friction=float(t.jnt_frictionloss[j]),
                stiffness=float(t.jnt_stiffness[j]) if kind != "ball" else 0.0,
                rest=float(t.jnt_springref[j]) if kind != "ball" else 0.0,
            )
            origin = origin_first[j] if k == 0 else local[j]
            b.joint(jn, jtype, prev, child, origin=origin, axis=axis, post=post_of[j],
                    lower=lo if limited else -np.inf, upper=hi if limited else np.inf,
                    effort=effort, mimic=mimic_of.get(j) if kind != "ball" else None,
                    dynamics=dynamics)  # fmt: skip
            if kind != "ball":
                mjjoint_to_ours[j] = jn
            prev = child

    _add_sites(t, b, link_of_body, names, skipped)
    loops = _closed_loops(t, link_of_body, skipped)
    if loops:
        metadata["closed_loops"] = loops
    _add_keyframes(t, b, mjjoint_to_ours, {joint_name(j) for j in mimic_of})
    if skipped:
        metadata["skipped"] = skipped
    if reader is not None:
        metadata["reader"] = reader
    b.metadata = metadata
    try:
        return b.build(source=source)
    except ModelError as exc:
        raise ModelFileError(where, str(exc).removeprefix(f"{source}: ")) from None


def _joint_frames(t: MjcfTables, T_bodies: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per MuJoCo joint, all at once (``(njnt, 4, 4)`` each): ``local``, the joint frame
    in the frame before it (a hinge at ``p``: ``Trans(p) @ M(a, -ref)``; a slide:
    ``Trans(-a ref)``; a ball: ``Trans(p)``); ``post`` (``Trans(-p)``, a slide: the
    identity); and ``local`` behind its body's pose (for a body's first joint), so
    that ``q`` equals MuJoCo's ``qpos``."""
    n = len(t.jnt_type)
    kinds = np.array(t.jnt_type, dtype=object)
    hinge, slide = kinds == "hinge", kinds == "slide"
    ref = np.zeros(n)
    hs = hinge | slide
    ref[hs] = t.qpos0[t.jnt_qposadr[hs]]
    local = trans(t.jnt_pos)
    turned = hinge & (ref != 0.0)
    if np.any(turned):
        local[turned] = local[turned] @ make_T(axis_angle_to_R(t.jnt_axis[turned], -ref[turned]))
    local[slide] = trans(-t.jnt_axis[slide] * ref[slide, None])
    post = trans(-t.jnt_pos)
    post[slide] = _EYE4
    return local, post, T_bodies[t.jnt_body] @ local


def _check_finite(t: MjcfTables, where: Any) -> None:
    """MuJoCo accepts NaN in a file with a warning; we refuse it, naming the element."""
    checks = (
        ("body", t.body_name, (("pos", t.body_pos), ("quat", t.body_quat),
                               ("ipos", t.body_com), ("inertia", t.body_inertia),
                               ("mass", t.body_mass))),
        ("joint", t.jnt_name, (("pos", t.jnt_pos), ("axis", t.jnt_axis), ("range", t.jnt_range))),
        ("geom", t.geom_name, (("pos", t.geom_T[:, :3, 3]), ("quat", t.geom_T[:, :3, :3]),
                               ("size", t.geom_size))),
        ("site", t.site_name, (("pos", t.site_T[:, :3, 3]), ("quat", t.site_T[:, :3, :3]))),
    )  # fmt: skip
    for kind, obj_names, fields in checks:
        for attr, arr in fields:
            arr = np.asarray(arr, float)
            if arr.size == 0:
                continue
            bad = ~np.isfinite(arr.reshape(arr.shape[0], -1)).all(axis=1)
            if np.any(bad):
                i = int(np.argmax(bad))
                name = obj_names[i] or f"#{i}"
                raise ModelFileError(where, f"{attr} contains NaN or inf", f"{kind} {name!r}")


def _mimics(
    t: MjcfTables, joint_name: Any, skipped: list[str]
) -> dict[int, tuple[str, float, float]]:
    """MuJoCo joint id -> (leader name, multiplier, offset) from joint equalities."""
    qadr = t.jnt_qposadr
    out: dict[int, tuple[str, float, float]] = {}
    for e, active, j1, j2, coef in t.eq_joint:
        if not active:
            continue
        ok = j2 >= 0 and t.jnt_type[j1] in ("hinge", "slide")
        if not ok or t.jnt_type[j2] not in ("hinge", "slide") or np.any(coef[2:] != 0):
            skipped.append(f"equality {e}: only linear hinge/slide couplings become mimics")
            continue
        y0, x0 = float(t.qpos0[qadr[j1]]), float(t.qpos0[qadr[j2]])
        out[j1] = (joint_name(j2), float(coef[1]), float(coef[0] + y0 - coef[1] * x0))
    return out


def _closed_loops(
    t: MjcfTables, link_of_body: dict[int, str], skipped: list[str]
) -> list[dict[str, Any]]:
    """Active ``<connect>``/``<weld>`` equalities between bodies: loops the tree does not
    close (a four-bar finger's coupler and follower, a parallel linkage). robotsim's
    kinematics and physics keep the tree; each loop is listed so that what depends on it
    (a gripper's fingers) can say so instead of moving a linkage that is not there."""
    out = []
    for e, kind, b1, b2 in t.eq_body:
        links = [link_of_body.get(b, "world") for b in (b1, b2)]
        out.append({"equality": e, "kind": kind, "links": links})
        skipped.append(f"equality {e} <{kind}> {links[0]} - {links[1]}: a closed kinematic loop "
                       "(robotsim keeps the tree; the loop is not closed)")  # fmt: skip
    return out


def _add_sites(
    t: MjcfTables, b: RobotBuilder, link_of_body: dict[int, str], names: _Names, skipped: list[str]
) -> None:
    used = set(names.links)
    for s, sname in enumerate(t.site_name):
        bid = int(t.site_body[s])
        if not sname or bid not in link_of_body:
            continue
        if sname in used:
            skipped.append(f"site {sname!r}: name already used by a link or site")
            continue
        used.add(sname)
        b.frame(sname, link_of_body[bid], t.site_T[s])


def _add_keyframes(t: MjcfTables, b: RobotBuilder, ours: dict[int, str], mimic: set[str]) -> None:
    qadr = t.jnt_qposadr
    for kname, qpos in t.key:
        if not kname:
            continue
        values = {n: float(qpos[qadr[j]]) for j, n in ours.items() if n not in mimic}
        b.pose(kname, values)
