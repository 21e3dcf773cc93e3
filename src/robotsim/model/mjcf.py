"""MJCF (MuJoCo XML) <-> RobotModel.

Import (:func:`load_mjcf`) lets MuJoCo parse and compile the file (``MjSpec.from_file``
then ``compile``), so defaults, classes, ``<include>``, alternative orientations and
angle units are resolved exactly as MuJoCo resolves them; the compiled ``MjModel`` is
then read body by body:

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
  prismatic; ``actuatorfrcrange`` -> effort limit; ``armature``, ``damping``,
  ``frictionloss``, ``stiffness``, ``springref`` -> :class:`JointDynamics`;
- geoms -> shapes on their body's link (plane, height field and SDF geoms are skipped):
  ``contype=conaffinity=0`` -> visual only, group 3 -> collision only, otherwise both;
  mesh geoms keep their file and scale (inline meshes without a file are skipped);
- body inertials (given or inferred by MuJoCo) -> :class:`Inertial`;
- named sites -> frames; named keyframes -> poses (hinge and slide values);
- ``<equality><joint>`` with a linear polycoef -> :class:`Mimic`.

When the file has several top-level bodies, or one that is not free but has joints or
sits away from the world origin, a root link ``world`` is added so link poses equal
MuJoCo's ``xpos``/``xmat``. Skipped items are listed in ``metadata["skipped"]``.

Export lives in :mod:`robotsim.model.mjcf_export` and is re-exported here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.errors import ModelError, ModelFileError
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
from robotsim.model.robot import Inertial, JointDynamics, RobotModel
from robotsim.spatial import axis_angle_to_R, inv_T, make_T, quat_to_R, trans

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


def _pose(pos: np.ndarray, quat: np.ndarray) -> np.ndarray:
    return make_T(quat_to_R(np.asarray(quat, float)), np.asarray(pos, float))


def load_mjcf(path: str | Path) -> RobotModel:
    """Read an MJCF file through MuJoCo and convert it (see the module doc)."""
    import mujoco

    p = Path(path)
    check_readable(p)
    if not p.is_file():
        raise ModelFileError(p, "no such file")
    if current_scope() is not None:  # MuJoCo reads the files it names itself
        _check_referenced_files(p)
    try:
        spec = mujoco.MjSpec.from_file(str(p))
        mjm = spec.compile()
    except ValueError as exc:
        msg = " | ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        raise ModelFileError(p, f"MuJoCo cannot load it: {msg}") from None
    name = spec.modelname or p.stem
    if name == "MuJoCo Model":
        name = p.stem
    return model_from_mjmodel(mjm, name=name, source=p)


_FILE_ATTRS = ("file", "fileright", "fileleft", "fileup", "filedown", "filefront", "fileback")


def _check_referenced_files(path: Path) -> None:
    """Every file an MJCF names (``<include>``, meshes, textures, height fields, skins,
    models; also through ``meshdir``/``texturedir``/``assetdir``) through
    :func:`robotsim.file_scope.check_readable` (each candidate folder MuJoCo may take
    it from), following includes; :class:`ModelFileError` naming the element."""
    import xml.etree.ElementTree as ET

    folder = path.resolve().parent
    dirs: set[Path] = {folder}
    todo, seen = [path.resolve()], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            root = ET.parse(current).getroot()
        except (ET.ParseError, OSError):
            continue  # MuJoCo reports it
        for comp in root.iter("compiler"):
            for attr in ("meshdir", "texturedir", "assetdir"):
                if comp.get(attr):
                    d = Path(comp.get(attr, "")).expanduser()
                    dirs.add(d if d.is_absolute() else folder / d)
        for el in root.iter():
            for attr in _FILE_ATTRS:
                name = el.get(attr)
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


def _geometry(mjm: Any, g: int, skipped: list[str], gname: str) -> tuple[Geometry, Any] | None:
    """(geometry, extra transform geom_frame <- authored frame) or None if skipped."""
    import mujoco

    gt = mujoco.mjtGeom
    t = int(mjm.geom_type[g])
    size = np.asarray(mjm.geom_size[g], float)
    if t == gt.mjGEOM_BOX:
        return Box(tuple(2.0 * size)), _EYE4
    if t == gt.mjGEOM_SPHERE:
        return Sphere(float(size[0])), _EYE4
    if t == gt.mjGEOM_CAPSULE:
        return Capsule(float(size[0]), float(2.0 * size[1])), _EYE4
    if t == gt.mjGEOM_CYLINDER:
        return Cylinder(float(size[0]), float(2.0 * size[1])), _EYE4
    if t == gt.mjGEOM_ELLIPSOID:
        return Ellipsoid(tuple(size)), _EYE4
    if t == gt.mjGEOM_MESH:
        mid = int(mjm.geom_dataid[g])
        adr = int(mjm.mesh_pathadr[mid])
        if adr < 0:
            skipped.append(f"geom {gname!r}: inline mesh without a file")
            return None
        raw = bytes(mjm.paths[adr:])
        fname = raw[: raw.index(b"\0")].decode()
        # MuJoCo stores the mesh re-centred in its inertial frame and moves the geom to
        # compensate: authored geom frame = compiled geom frame @ inv(mesh frame).
        T_mesh = _pose(mjm.mesh_pos[mid], mjm.mesh_quat[mid])
        sx, sy, sz = (float(s) for s in mjm.mesh_scale[mid])
        return Mesh(Path(fname), (sx, sy, sz)), inv_T(T_mesh)
    kind = {gt.mjGEOM_PLANE: "plane", gt.mjGEOM_HFIELD: "height field"}.get(t, f"type {t}")
    skipped.append(f"geom {gname!r}: {kind} geoms are not link geometry")
    return None


def model_from_mjmodel(
    mjm: Any, name: str = "mjcf_robot", source: Path | None = None
) -> RobotModel:
    """Convert a compiled ``mujoco.MjModel`` into a RobotModel (see the module doc)."""
    import mujoco

    where = source if source is not None else f"<MjModel {name}>"
    jt = mujoco.mjtJoint
    obj = mujoco.mjtObj
    skipped: list[str] = []
    names = _Names()

    def body_name(b: int) -> str:
        return mujoco.mj_id2name(mjm, obj.mjOBJ_BODY, b) or f"body{b}"

    def joint_name(j: int) -> str:
        return mujoco.mj_id2name(mjm, obj.mjOBJ_JOINT, j) or f"joint{j}"

    _check_finite(mjm, where)
    nbody = int(mjm.nbody)
    top = [b for b in range(1, nbody) if int(mjm.body_parentid[b]) == 0]
    if not top:
        raise ModelFileError(where, "the worldbody has no bodies: nothing to build a robot from")
    free_bodies = [
        b
        for b in range(1, nbody)
        for j in range(mjm.body_jntadr[b], mjm.body_jntadr[b] + mjm.body_jntnum[b])
        if int(mjm.jnt_type[j]) == jt.mjJNT_FREE
    ]
    floating = False
    if free_bodies:
        if len(top) != 1 or free_bodies != [top[0]]:
            raise ModelFileError(
                where,
                f"free joint on body {body_name(free_bodies[0])!r}; a robot may have a free "
                "joint only on its single top-level body (load the other free bodies as "
                "scene objects)",
            )
        if int(mjm.body_jntnum[top[0]]) != 1:
            raise ModelFileError(
                where, f"body {body_name(top[0])!r}: a free joint must be its body's only joint"
            )
        floating = True
    T_top = _pose(mjm.body_pos[top[0]], mjm.body_quat[top[0]])
    need_world = len(top) > 1 or (
        not floating and (int(mjm.body_jntnum[top[0]]) > 0 or not np.allclose(T_top, _EYE4))
    )
    b = RobotBuilder(name, floating=floating)
    link_of_body: dict[int, str] = {}
    if need_world:
        link_of_body[0] = names.link("world")
    for bid in range(1, nbody):
        link_of_body[bid] = names.link(body_name(bid))
    for bid in range(1, nbody):
        names.joints.update(joint_name(j) for j in range(mjm.body_jntadr[bid],
                            mjm.body_jntadr[bid] + mjm.body_jntnum[bid]))  # fmt: skip
    metadata: dict[str, Any] = {"format": "mjcf"}

    # every pose at once (batched): the loops below only index, so the conversion is
    # linear in bodies and geoms with a small constant
    T_geoms = _pose(np.asarray(mjm.geom_pos), np.asarray(mjm.geom_quat))
    T_bodies = _pose(np.asarray(mjm.body_pos), np.asarray(mjm.body_quat))
    R_inertia = quat_to_R(np.asarray(mjm.body_iquat, float))
    shapes_visual: dict[int, list[Shape]] = {}
    shapes_coll: dict[int, list[Shape]] = {}
    for g in range(int(mjm.ngeom)):
        bid = int(mjm.geom_bodyid[g])
        if bid not in link_of_body:
            continue  # world geoms when no world link: the environment, not the robot
        gname = mujoco.mj_id2name(mjm, obj.mjOBJ_GEOM, g) or ""
        res = _geometry(mjm, g, skipped, gname or f"geom{g}")
        if res is None:
            continue
        geo, fix = res
        T = T_geoms[g] @ fix
        short = gname.split("/", 1)[1] if gname.startswith(body_name(bid) + "/") else gname
        rgba = np.asarray(mjm.geom_rgba[g], float)
        mat = int(mjm.geom_matid[g])
        if mat >= 0 and np.allclose(rgba, [0.5, 0.5, 0.5, 1.0]):
            rgba = np.asarray(mjm.mat_rgba[mat], float)  # colour given by a material
        r, g_, b_, a = (float(c) for c in rgba)
        shape = Shape(geo, T, (r, g_, b_, a), short)
        visual_only = int(mjm.geom_contype[g]) == 0 and int(mjm.geom_conaffinity[g]) == 0
        collision_only = not visual_only and int(mjm.geom_group[g]) == 3
        if not collision_only:
            shapes_visual.setdefault(bid, []).append(shape)
        if not visual_only:
            shapes_coll.setdefault(bid, []).append(shape)

    for bid in sorted(link_of_body):
        inertial = None
        if bid > 0 and float(mjm.body_mass[bid]) > 0:
            R = R_inertia[bid]
            I = (R * np.asarray(mjm.body_inertia[bid], float)) @ R.T
            inertial = Inertial(float(mjm.body_mass[bid]), np.array(mjm.body_ipos[bid]), I)
        b.link(
            link_of_body[bid],
            visuals=shapes_visual.get(bid, []),
            collisions=shapes_coll.get(bid, []),
            inertial=inertial,
        )

    qpos0 = np.asarray(mjm.qpos0, float)
    mimic_of = _mimics(mjm, joint_name, qpos0, skipped)
    mjjoint_to_ours: dict[int, str] = {}
    for bid in range(1, nbody):
        child_link = link_of_body[bid]
        parent_bid = int(mjm.body_parentid[bid])
        T_pb = T_bodies[bid]
        if parent_bid == 0 and 0 not in link_of_body:
            if floating:
                jadr = int(mjm.jnt_qposadr[mjm.body_jntadr[bid]])
                metadata["T_world_root"] = _pose(qpos0[jadr : jadr + 3], qpos0[jadr + 3 : jadr + 7])
            continue  # the root link
        parent = link_of_body[parent_bid]
        jids = list(range(mjm.body_jntadr[bid], mjm.body_jntadr[bid] + mjm.body_jntnum[bid]))
        if not jids:
            b.joint(names.joint(f"{child_link}_fixed"), "fixed", parent, child_link, origin=T_pb)
            continue
        # Expand ball joints into three hinges; each entry: (name, kind, axis, pos, j).
        steps: list[tuple[str, str, np.ndarray, np.ndarray, int]] = []
        for j in jids:
            t = int(mjm.jnt_type[j])
            jn = joint_name(j)
            pos = np.asarray(mjm.jnt_pos[j], float)
            if t == jt.mjJNT_BALL:
                for letter, ax in zip("xyz", np.eye(3)):
                    steps.append((names.joint(f"{jn}_{letter}"), "ball", ax, pos, j))
            elif t in (jt.mjJNT_HINGE, jt.mjJNT_SLIDE):
                kind = "hinge" if t == jt.mjJNT_HINGE else "slide"
                steps.append((jn, kind, np.asarray(mjm.jnt_axis[j], float), pos, j))
        T_first = T_pb
        prev = parent
        for k, (jn, kind, axis, pos, j) in enumerate(steps):
            last = k == len(steps) - 1
            child = child_link if last else names.link(f"{child_link}__{jn}")
            if not last:
                b.link(child)
            limited = bool(mjm.jnt_limited[j])
            lo, hi = (float(v) for v in mjm.jnt_range[j])
            effort = np.inf
            if bool(mjm.jnt_actfrclimited[j]):
                effort = float(np.max(np.abs(mjm.jnt_actfrcrange[j])))
                if effort <= 0:
                    effort = np.inf
            if kind == "slide":
                ref = float(qpos0[mjm.jnt_qposadr[j]])
                origin = T_first @ trans(-axis * ref)
                post = _EYE4
                jtype = "prismatic"
            else:
                ref = float(qpos0[mjm.jnt_qposadr[j]]) if kind == "hinge" else 0.0
                rot = make_T(axis_angle_to_R(axis, -ref)) if ref != 0.0 else _EYE4
                origin = T_first @ trans(pos) @ rot
                post = trans(-pos)
                jtype = "revolute" if limited else "continuous"
            if kind == "ball" and limited:
                lo, hi = -hi, hi
            dof = int(mjm.jnt_dofadr[j]) + (int(np.argmax(axis)) if kind == "ball" else 0)
            dynamics = JointDynamics(
                armature=float(mjm.dof_armature[dof]),
                damping=float(mjm.dof_damping[dof]),
                friction=float(mjm.dof_frictionloss[dof]),
                stiffness=float(mjm.jnt_stiffness[j]) if kind != "ball" else 0.0,
                rest=float(mjm.qpos_spring[mjm.jnt_qposadr[j]]) if kind != "ball" else 0.0,
            )
            b.joint(jn, jtype, prev, child, origin=origin, axis=axis, post=post,
                    lower=lo if limited else -np.inf, upper=hi if limited else np.inf,
                    effort=effort, mimic=mimic_of.get(j) if kind != "ball" else None,
                    dynamics=dynamics)  # fmt: skip
            if kind != "ball":
                mjjoint_to_ours[j] = jn
            T_first = _EYE4
            prev = child

    _add_sites(mjm, b, link_of_body, names, skipped)
    _add_keyframes(mjm, b, mjjoint_to_ours, {joint_name(j) for j in mimic_of})
    if skipped:
        metadata["skipped"] = skipped
    b.metadata = metadata
    try:
        return dataclasses.replace(b.build(), source=source)
    except ModelError as exc:
        raise ModelFileError(where, str(exc)) from None


def _check_finite(mjm: Any, where: Any) -> None:
    """MuJoCo accepts NaN in a file with a warning; we refuse it, naming the element."""
    import mujoco

    checks = (
        ("body", mujoco.mjtObj.mjOBJ_BODY, ("body_pos", "body_quat", "body_ipos",
                                             "body_inertia", "body_mass")),
        ("joint", mujoco.mjtObj.mjOBJ_JOINT, ("jnt_pos", "jnt_axis", "jnt_range")),
        ("geom", mujoco.mjtObj.mjOBJ_GEOM, ("geom_pos", "geom_quat", "geom_size")),
        ("site", mujoco.mjtObj.mjOBJ_SITE, ("site_pos", "site_quat")),
    )  # fmt: skip
    for kind, objtype, fields in checks:
        for fld in fields:
            arr = np.asarray(getattr(mjm, fld), float)
            if arr.size == 0:
                continue
            bad = ~np.isfinite(arr.reshape(arr.shape[0], -1)).all(axis=1)
            if np.any(bad):
                i = int(np.argmax(bad))
                name = mujoco.mj_id2name(mjm, objtype, i) or f"#{i}"
                attr = fld.split("_", 1)[1]
                raise ModelFileError(where, f"{attr} contains NaN or inf", f"{kind} {name!r}")


def _mimics(
    mjm: Any, joint_name: Any, qpos0: np.ndarray, skipped: list[str]
) -> dict[int, tuple[str, float, float]]:
    """MuJoCo joint id -> (leader name, multiplier, offset) from joint equalities."""
    import mujoco

    hinge_slide = (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)
    out: dict[int, tuple[str, float, float]] = {}
    for e in range(int(mjm.neq)):
        if int(mjm.eq_type[e]) != mujoco.mjtEq.mjEQ_JOINT or not bool(mjm.eq_active0[e]):
            continue
        j1, j2 = int(mjm.eq_obj1id[e]), int(mjm.eq_obj2id[e])
        coef = np.asarray(mjm.eq_data[e][:5], float)
        ok = j2 >= 0 and int(mjm.jnt_type[j1]) in hinge_slide
        if not ok or int(mjm.jnt_type[j2]) not in hinge_slide or np.any(coef[2:] != 0):
            skipped.append(f"equality {e}: only linear hinge/slide couplings become mimics")
            continue
        y0, x0 = float(qpos0[mjm.jnt_qposadr[j1]]), float(qpos0[mjm.jnt_qposadr[j2]])
        out[j1] = (joint_name(j2), float(coef[1]), float(coef[0] + y0 - coef[1] * x0))
    return out


def _add_sites(
    mjm: Any, b: RobotBuilder, link_of_body: dict[int, str], names: _Names, skipped: list[str]
) -> None:
    import mujoco

    used = set(names.links)
    for s in range(int(mjm.nsite)):
        sname = mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_SITE, s)
        bid = int(mjm.site_bodyid[s])
        if not sname or bid not in link_of_body:
            continue
        if sname in used:
            skipped.append(f"site {sname!r}: name already used by a link or site")
            continue
        used.add(sname)
        b.frame(sname, link_of_body[bid], _pose(mjm.site_pos[s], mjm.site_quat[s]))


def _add_keyframes(mjm: Any, b: RobotBuilder, ours: dict[int, str], mimic: set[str]) -> None:
    import mujoco

    for k in range(int(mjm.nkey)):
        kname = mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_KEY, k)
        if not kname:
            continue
        qpos = np.asarray(mjm.key_qpos[k], float)
        values = {n: float(qpos[mjm.jnt_qposadr[j]]) for j, n in ours.items() if n not in mimic}
        b.pose(kname, values)
