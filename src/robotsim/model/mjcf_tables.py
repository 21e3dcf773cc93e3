"""The compiled content of an MJCF file that a RobotModel is made of, as flat tables.

Both MJCF readers fill :class:`MjcfTables`: :func:`tables_from_mjmodel` from a model
MuJoCo compiled, and :mod:`robotsim.model.mjcf_reader` straight from the XML (linear in
bodies). :func:`robotsim.model.mjcf.model_from_tables` turns either into the same
RobotModel, so the conversion rules exist once.

Conventions (MuJoCo's compiled ones): body 0 is the world; bodies in depth-first
pre-order, each body's joints, geoms and sites in document order; poses relative to
the parent body (m; quaternions ``w x y z``); angles in radians. A geom's pose is its
*authored* frame (for a mesh geom MuJoCo's compiled frame composed with the inverse of
the mesh's re-centring). Inertia is the full 3x3 tensor about the centre of mass, in
body axes (kg m^2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.model.mjcf_actuators import joint_efforts
from robotsim.spatial import inv_T, make_T, quat_to_R

__all__ = ["GEOM_TYPES", "JOINT_TYPES", "MjcfTables", "qpos_sizes", "tables_from_mjmodel"]

# MuJoCo's mjtJoint and mjtGeom order, by name.
JOINT_TYPES = ("free", "ball", "slide", "hinge")
GEOM_TYPES = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh",
              "sdf")  # fmt: skip
_QPOS_SIZE = {"free": 7, "ball": 4, "slide": 1, "hinge": 1}


def qpos_sizes(jnt_type: list[str]) -> np.ndarray:
    """Each joint's number of ``qpos`` entries (free 7, ball 4, slide/hinge 1)."""
    return np.array([_QPOS_SIZE[t] for t in jnt_type], dtype=int)


@dataclass
class MjcfTables:
    """One compiled MJCF model; every ``*_name`` entry is ``""`` when unnamed."""

    model_name: str
    body_name: list[str]
    body_parent: np.ndarray  # (nbody,) int
    body_pos: np.ndarray  # (nbody, 3)
    body_quat: np.ndarray  # (nbody, 4)
    body_mass: np.ndarray  # (nbody,)
    body_com: np.ndarray  # (nbody, 3)
    body_inertia: np.ndarray  # (nbody, 3, 3)
    jnt_name: list[str]
    jnt_type: list[str]  # JOINT_TYPES
    jnt_body: np.ndarray  # (njnt,) int, non-decreasing
    jnt_pos: np.ndarray  # (njnt, 3)
    jnt_axis: np.ndarray  # (njnt, 3) unit
    jnt_limited: np.ndarray  # (njnt,) bool
    jnt_range: np.ndarray  # (njnt, 2)
    jnt_actfrclimited: np.ndarray  # (njnt,) bool
    jnt_actfrcrange: np.ndarray  # (njnt, 2)
    jnt_armature: np.ndarray  # (njnt,)
    jnt_damping: np.ndarray
    jnt_frictionloss: np.ndarray
    jnt_stiffness: np.ndarray
    jnt_springref: np.ndarray  # (njnt,) qpos_spring of hinge/slide (0 for others)
    qpos0: np.ndarray  # (nq,) MuJoCo's qpos layout
    geom_name: list[str]
    geom_type: list[str]  # GEOM_TYPES
    geom_body: np.ndarray  # (ngeom,) int
    geom_size: np.ndarray  # (ngeom, 3)
    geom_T: np.ndarray  # (ngeom, 4, 4) authored frame in the body
    geom_rgba: np.ndarray  # (ngeom, 4), a material's colour applied
    geom_contype: np.ndarray
    geom_conaffinity: np.ndarray
    geom_group: np.ndarray
    geom_mesh: list[tuple[str, tuple[float, float, float]] | None]  # (file, scale)
    site_name: list[str]
    site_body: np.ndarray
    site_T: np.ndarray  # (nsite, 4, 4)
    # active and inactive <joint> equalities: (index among all equalities, active,
    # joint1, joint2 or -1, polycoef[5])
    eq_joint: list[tuple[int, bool, int, int, np.ndarray]] = field(default_factory=list)
    # active <connect>/<weld> equalities between bodies (closed kinematic loops):
    # (index among all equalities, "connect" or "weld", body1, body2; 0 = the world)
    eq_body: list[tuple[int, str, int, int]] = field(default_factory=list)
    key: list[tuple[str, np.ndarray]] = field(default_factory=list)  # (name, qpos)
    # (njnt,) the force the actuators driving each joint can exert (inf: unbounded or
    # none; robotsim.model.mjcf_actuators); None: not read
    jnt_actuator_effort: np.ndarray | None = None

    @property
    def jnt_qposadr(self) -> np.ndarray:
        sizes = qpos_sizes(self.jnt_type)
        return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int) if len(sizes) else sizes


def _pose(pos: Any, quat: Any) -> np.ndarray:
    return make_T(quat_to_R(np.asarray(quat, float)), np.asarray(pos, float))


def tables_from_mjmodel(mjm: Any, name: str) -> MjcfTables:
    """The tables of a compiled ``mujoco.MjModel`` (vectorised; names by id)."""
    import mujoco

    obj = mujoco.mjtObj

    def names(kind: Any, n: int) -> list[str]:
        return [mujoco.mj_id2name(mjm, kind, i) or "" for i in range(n)]

    R = quat_to_R(np.asarray(mjm.body_iquat, float))
    inertia = (R * np.asarray(mjm.body_inertia, float)[:, None, :]) @ np.swapaxes(R, -1, -2)
    geom_T = _pose(np.asarray(mjm.geom_pos), np.asarray(mjm.geom_quat))
    ngeom = int(mjm.ngeom)
    mesh: list[tuple[str, tuple[float, float, float]] | None] = [None] * ngeom
    rgba = np.array(mjm.geom_rgba, float)
    for g in range(ngeom):
        mat = int(mjm.geom_matid[g])
        if mat >= 0 and np.allclose(rgba[g], [0.5, 0.5, 0.5, 1.0]):
            rgba[g] = mjm.mat_rgba[mat]  # colour given by a material
        if int(mjm.geom_type[g]) != mujoco.mjtGeom.mjGEOM_MESH:
            continue
        mid = int(mjm.geom_dataid[g])
        # MuJoCo stores the mesh re-centred in its inertial frame and moves the geom to
        # compensate: authored geom frame = compiled geom frame @ inv(mesh frame).
        geom_T[g] = geom_T[g] @ inv_T(_pose(mjm.mesh_pos[mid], mjm.mesh_quat[mid]))
        adr = int(mjm.mesh_pathadr[mid])
        if adr >= 0:
            raw = bytes(mjm.paths[adr:])
            sx, sy, sz = (float(s) for s in mjm.mesh_scale[mid])
            mesh[g] = (raw[: raw.index(b"\0")].decode(), (sx, sy, sz))
    jt = [JOINT_TYPES[int(t)] for t in mjm.jnt_type]
    dof = np.asarray(mjm.jnt_dofadr, int)
    qadr = np.asarray(mjm.jnt_qposadr, int)
    slide_hinge = np.array([t in ("slide", "hinge") for t in jt], bool)
    springref = np.where(slide_hinge, np.asarray(mjm.qpos_spring)[qadr] if len(qadr) else 0, 0.0)
    eqs = []
    loops = []
    site_body = np.asarray(mjm.site_bodyid, int)
    loop_kinds = {int(mujoco.mjtEq.mjEQ_CONNECT): "connect", int(mujoco.mjtEq.mjEQ_WELD): "weld"}
    for e in range(int(mjm.neq)):
        kind = int(mjm.eq_type[e])
        if kind == mujoco.mjtEq.mjEQ_JOINT:
            eqs.append((e, bool(mjm.eq_active0[e]), int(mjm.eq_obj1id[e]), int(mjm.eq_obj2id[e]),
                        np.array(mjm.eq_data[e][:5], float)))  # fmt: skip
        elif kind in loop_kinds and bool(mjm.eq_active0[e]):
            ids = [int(mjm.eq_obj1id[e]), int(mjm.eq_obj2id[e])]
            if int(mjm.eq_objtype[e]) == mujoco.mjtObj.mjOBJ_SITE:
                ids = [int(site_body[i]) for i in ids]
            loops.append((e, loop_kinds[kind], ids[0], max(ids[1], 0)))
    keys = [
        (mujoco.mj_id2name(mjm, obj.mjOBJ_KEY, k) or "", np.array(mjm.key_qpos[k], float))
        for k in range(int(mjm.nkey))
    ]
    return MjcfTables(
        model_name=name,
        body_name=names(obj.mjOBJ_BODY, int(mjm.nbody)),
        body_parent=np.array(mjm.body_parentid, int),
        body_pos=np.array(mjm.body_pos, float),
        body_quat=np.array(mjm.body_quat, float),
        body_mass=np.array(mjm.body_mass, float),
        body_com=np.array(mjm.body_ipos, float),
        body_inertia=inertia,
        jnt_name=names(obj.mjOBJ_JOINT, int(mjm.njnt)),
        jnt_type=jt,
        jnt_body=np.array(mjm.jnt_bodyid, int),
        jnt_pos=np.array(mjm.jnt_pos, float),
        jnt_axis=np.array(mjm.jnt_axis, float),
        jnt_limited=np.array(mjm.jnt_limited, bool),
        jnt_range=np.array(mjm.jnt_range, float),
        jnt_actfrclimited=np.array(mjm.jnt_actfrclimited, bool),
        jnt_actfrcrange=np.array(mjm.jnt_actfrcrange, float),
        jnt_armature=np.array(mjm.dof_armature, float)[dof],
        jnt_damping=np.array(mjm.dof_damping, float)[dof],
        jnt_frictionloss=np.array(mjm.dof_frictionloss, float)[dof],
        jnt_stiffness=np.array(mjm.jnt_stiffness, float),
        jnt_springref=np.asarray(springref, float),
        qpos0=np.array(mjm.qpos0, float),
        geom_name=names(obj.mjOBJ_GEOM, ngeom),
        geom_type=[GEOM_TYPES[int(t)] for t in mjm.geom_type],
        geom_body=np.array(mjm.geom_bodyid, int),
        geom_size=np.array(mjm.geom_size, float),
        geom_T=geom_T,
        geom_rgba=rgba,
        geom_contype=np.array(mjm.geom_contype, int),
        geom_conaffinity=np.array(mjm.geom_conaffinity, int),
        geom_group=np.array(mjm.geom_group, int),
        geom_mesh=mesh,
        site_name=names(obj.mjOBJ_SITE, int(mjm.nsite)),
        site_body=np.array(mjm.site_bodyid, int),
        site_T=_pose(np.asarray(mjm.site_pos), np.asarray(mjm.site_quat)),
        eq_joint=eqs,
        eq_body=loops,
        jnt_actuator_effort=joint_efforts(mjm),
        key=keys,
    )
