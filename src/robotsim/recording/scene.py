"""A run's 3D scene in the run store: what an exact replay needs besides the signals.

Run store schema version 2 adds the table ``run_scenes``: one JSON document per run
(format ``robotsim-scene/1``) naming its robots (the model each one is, as a library
name or a file path with the file's SHA-256, or the model itself as URDF text when it
came from no file), its objects (shape, colour, world pose, moving or not), the ground
and the box the studio frames. The motion itself is recorded as signals, per robot
(and per moving object) at every recorded sample:

- ``base.x``, ``base.y``, ``base.z`` (m) and ``base.qw``, ``base.qx``, ``base.qy``,
  ``base.qz`` (unit quaternion): the world pose of the root link (:data:`ROOT_SIGNALS`);
- ``q.<joint>`` (rad or m): every movable joint of the model, in ``joint_names`` order.

Every link's world pose is then the forward kinematics of these numbers: nothing is
interpolated, so a replay shows exactly what was recorded (``docs/export.md``).
:class:`PhysicsPoseSampler` records them from a physics World, :func:`pose_values`
from a kinematic state; :func:`physics_scene_doc` and :func:`scene_doc` build the
document and :func:`write_scene` stores it with any recorder that can.

What a runner calls (once, after ``start_run``):

- a physics World stepped by the runner: ``sampler = record_physics_scene(recorder,
  world)``, then ``sampler.record(recorder, t)`` at every recorded sample (``None``:
  the recorder keeps no scenes);
- arrays known at the end of the run (a walk, a check): :func:`record_trajectory`
  with the times, root poses and joints;
- several robots, block by block (a clearance study): :func:`write_scene` with
  :func:`scene_doc` of :func:`robot_doc` entries, then :func:`record_poses` per block.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.errors import InputError, ModelFileError
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Geometry, Mesh, Sphere
from robotsim.model.robot import RobotModel
from robotsim.spatial import R_to_quat, make_T, quat_to_R

if TYPE_CHECKING:
    from robotsim.physics import Scene, World

__all__ = [
    "FLOOR",
    "ROOT_SIGNALS",
    "SCENE_FORMAT",
    "VOLUME_RGBA",
    "PhysicsPoseSampler",
    "geometry_doc",
    "geometry_from_doc",
    "keeps_scenes",
    "load_scene_model",
    "model_ref",
    "object_doc",
    "physics_scene_doc",
    "pose7",
    "pose_names",
    "pose_values",
    "record_physics_scene",
    "record_poses",
    "record_trajectory",
    "robot_doc",
    "scene_doc",
    "volume_doc",
    "write_scene",
]

SCENE_FORMAT = "robotsim-scene/1"

#: The root link's world pose: position (m) and unit quaternion wxyz.
ROOT_SIGNALS = ("base.x", "base.y", "base.z", "base.qw", "base.qx", "base.qy", "base.qz")

#: An unbounded grey floor (the ``ground`` of :func:`scene_doc`).
FLOOR: Mapping[str, Any] = {"size": None, "rgba": [0.82, 0.84, 0.86, 1.0]}

#: Samples per block :func:`record_poses` hands to the recorder.
POSE_CHUNK = 4096


def pose7(T: np.ndarray) -> list[float]:
    """``T`` (4, 4) -> ``[x, y, z, qw, qx, qy, qz]`` (plain floats)."""
    return [*(float(v) for v in T[:3, 3]), *(float(v) for v in R_to_quat(T[:3, :3]))]


def _T_of(pose: Sequence[float]) -> np.ndarray:
    p = np.asarray(pose, dtype=np.float64)
    return make_T(quat_to_R(p[3:7]), p[:3])


# -- shapes -----------------------------------------------------------------------------
def geometry_doc(g: Geometry) -> dict[str, Any]:
    """A shape as robot and scenario files write it (metres; meshes by absolute path)."""
    if isinstance(g, Box):
        return {"type": "box", "size": [float(v) for v in g.size]}
    if isinstance(g, Sphere):
        return {"type": "sphere", "radius": float(g.radius)}
    if isinstance(g, Cylinder):
        return {"type": "cylinder", "radius": float(g.radius), "length": float(g.length)}
    if isinstance(g, Capsule):
        return {"type": "capsule", "radius": float(g.radius), "length": float(g.length)}
    if isinstance(g, Ellipsoid):
        return {"type": "ellipsoid", "radii": [float(v) for v in g.radii]}
    if isinstance(g, Mesh):
        return {
            "type": "mesh",
            "file": str(Path(g.path).resolve()),
            "scale": [float(v) for v in g.scale],
        }
    raise InputError(f"scene: cannot record a shape of type {type(g).__name__}")


def geometry_from_doc(d: Mapping[str, Any]) -> Geometry:
    """The inverse of :func:`geometry_doc`."""
    kind = d.get("type")
    if kind == "box":
        return Box(tuple(float(v) for v in d["size"]))  # type: ignore[arg-type]
    if kind == "sphere":
        return Sphere(float(d["radius"]))
    if kind == "cylinder":
        return Cylinder(float(d["radius"]), float(d["length"]))
    if kind == "capsule":
        return Capsule(float(d["radius"]), float(d["length"]))
    if kind == "ellipsoid":
        return Ellipsoid(tuple(float(v) for v in d["radii"]))  # type: ignore[arg-type]
    if kind == "mesh":
        return Mesh(Path(d["file"]), tuple(float(v) for v in d.get("scale", (1, 1, 1))))  # type: ignore[arg-type]
    raise InputError(f"scene: unknown shape type {kind!r}")


# -- robots -----------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def model_ref(model: RobotModel) -> dict[str, Any]:
    """How a replay finds ``model`` again: ``{"model": library name}`` for a built-in
    robot, ``{"model": absolute path, "sha256": ...}`` for a model file, or
    ``{"urdf": text}`` for a model made in Python (no file)."""
    from robotsim.model.loader import LIBRARY_DIR

    src = model.source
    if src is not None and Path(src).is_file():
        path = Path(src).resolve()
        if path.parent == LIBRARY_DIR.resolve() and path.stem == model.name:
            return {"model": model.name}
        return {"model": str(path), "sha256": _sha256(path)}
    from robotsim.model.urdf_export import to_urdf_string

    return {"urdf": to_urdf_string(model)}


def load_scene_model(ref: Mapping[str, Any], where: str = "scene") -> RobotModel:
    """The model a robot entry of a scene names (see :func:`model_ref`); a model file
    changed since the run was recorded is refused (the replay would not be the run)."""
    from robotsim.model import load_robot

    if "urdf" in ref:
        import tempfile

        from robotsim.model.urdf import load_urdf

        with tempfile.TemporaryDirectory(prefix="robotsim-scene-") as tmp:
            path = Path(tmp) / "robot.urdf"
            path.write_text(str(ref["urdf"]), encoding="utf-8")
            return load_urdf(path)
    name = str(ref.get("model", ""))
    if not name:
        raise InputError(f"{where}: a robot entry names no model")
    sha = ref.get("sha256")
    if sha is not None:
        path = Path(name)
        if not path.is_file():
            raise ModelFileError(path, f"{where}: the robot file of the run is gone")
        if _sha256(path) != sha:
            raise ModelFileError(
                path, f"{where}: the robot file changed since the run was recorded"
            )
    return load_robot(name)


def pose_names(model: RobotModel) -> tuple[str, ...]:
    """The signal names a robot's pose is recorded under: :data:`ROOT_SIGNALS` then
    ``q.<joint>`` for every joint of ``model.joint_names``."""
    return (*ROOT_SIGNALS, *(f"q.{j}" for j in model.joint_names))


def pose_values(T_world_root: np.ndarray, q: Sequence[float] | np.ndarray) -> list[float]:
    """The values of :func:`pose_names` for a root pose ``(4, 4)`` and joints ``q``."""
    return [*pose7(T_world_root), *(float(v) for v in np.asarray(q).reshape(-1))]


#: The colour of a bounding volume drawn with its link (translucent).
VOLUME_RGBA = (0.25, 0.55, 0.95, 0.35)


def volume_doc(
    link: str,
    geometry: Geometry,
    T_link_volume: np.ndarray,
    rgba: Sequence[float] = VOLUME_RGBA,
) -> dict[str, Any]:
    """A shape that moves with a robot's link besides its visuals (a clearance study's
    bounding volume): the link, the shape, its pose in the link frame, its colour."""
    return {
        "link": str(link),
        "shape": geometry_doc(geometry),
        "pose": pose7(np.asarray(T_link_volume, dtype=np.float64)),
        "rgba": [float(c) for c in rgba],
    }


def robot_doc(
    name: str,
    model: RobotModel,
    T_world_base: np.ndarray | None = None,
    q0: Sequence[float] | np.ndarray | None = None,
    volumes: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """One robot of a scene: its model reference, start pose and joints; ``volumes``
    (:func:`volume_doc`) are drawn with their links (replays made before them ignore
    the key)."""
    q = model.zero() if q0 is None else np.asarray(q0, dtype=np.float64)
    T = np.eye(4) if T_world_base is None else np.asarray(T_world_base, dtype=np.float64)
    doc: dict[str, Any] = {
        "name": str(name),
        **model_ref(model),
        "root": model.root,
        "joints": list(model.joint_names),
        "q0": [float(v) for v in q],
        "start": pose7(T),
    }
    if volumes:
        links = set(model.link_names)
        for v in volumes:
            if v["link"] not in links:
                from robotsim.errors import UnknownNameError

                raise UnknownNameError("link", v["link"], model.link_names)
        doc["volumes"] = [dict(v) for v in volumes]
    return doc


def object_doc(
    name: str,
    geometry: Geometry | None,
    T_world: np.ndarray,
    rgba: Sequence[float] = (0.6, 0.6, 0.65, 1.0),
    moving: bool = False,
) -> dict[str, Any]:
    """One object: its shape (``None``: a plane), world pose at the start, colour, and
    whether its pose is recorded (``moving``)."""
    return {
        "name": str(name),
        "shape": None if geometry is None else geometry_doc(geometry),
        "pose": pose7(np.asarray(T_world, dtype=np.float64)),
        "rgba": [float(v) for v in rgba],
        "moving": bool(moving),
    }


def scene_doc(
    robots: Sequence[Mapping[str, Any]],
    objects: Sequence[Mapping[str, Any]] = (),
    ground: Mapping[str, Any] | None = None,
    engine: str = "physics",
    view: np.ndarray | None = None,
) -> dict[str, Any]:
    """The whole document (``engine``: ``physics`` or ``kinematic``; ``ground``:
    ``{"size": [sx, sy] or None (unbounded), "rgba": [...]}`` or None for none;
    ``view``: the box ``(2, 3)`` (m) the studio frames, None = the robots')."""
    if engine not in ("physics", "kinematic"):
        raise InputError(f"scene engine {engine!r}: valid: physics, kinematic")
    return {
        "format": SCENE_FORMAT,
        "engine": engine,
        "robots": [dict(r) for r in robots],
        "objects": [dict(o) for o in objects],
        "ground": None if ground is None else dict(ground),
        "view": None if view is None else np.asarray(view, dtype=float).reshape(2, 3).tolist(),
    }


def physics_scene_doc(
    scene: Scene,
    ground: Mapping[str, Any] | None = None,
    view: np.ndarray | None = None,
) -> dict[str, Any]:
    """The document of a physics :class:`~robotsim.physics.Scene` (robots at their
    placements, bodies as objects; ``ground`` replaces the scene's plane, e.g. a
    field of known size and colour)."""
    from robotsim.physics.scene import Plane

    robots = []
    for r in scene.robots:
        q0 = r.model.zero()
        for jn, v in r.q0.items():
            q0[r.model.joint_index(jn)] = float(v)
        robots.append(robot_doc(r.name, r.model, r.T_world_base, q0))
    poses: dict[str, np.ndarray] = {}
    objects = []
    for b in scene.bodies:
        T = np.asarray(b.T_parent_body)
        if b.parent is not None:
            T = poses.get(b.parent, np.eye(4)) @ T
        poses[b.name] = T
        geometry = None if isinstance(b.shape, Plane) else b.shape
        objects.append(object_doc(b.name, geometry, T, b.rgba, moving=not b.static))
    if ground is None and scene.ground is not None:
        size = scene.ground.size
        ground = {"size": [2 * size[0], 2 * size[1]] if size[0] > 0 else None,
                  "rgba": [0.82, 0.84, 0.86, 1.0]}  # fmt: skip
    return scene_doc(robots, objects, ground, "physics", view)


def keeps_scenes(recorder: Any) -> bool:
    """Whether ``recorder`` stores scenes and replay signals (the run store does; the
    CSV and null recorders do not, and must not get the replay signals either)."""
    fn = getattr(recorder, "scene", None)
    return fn is not None and callable(fn)


def write_scene(recorder: Any, doc: Mapping[str, Any]) -> bool:
    """Store ``doc`` with the recorder's run if it keeps scenes (the run store does;
    CSV and null recorders do not). Returns whether it was stored."""
    if not keeps_scenes(recorder):
        return False
    recorder.scene(doc)
    return True


def record_poses(
    recorder: Any,
    name: str,
    model: RobotModel,
    t: Sequence[float] | np.ndarray,
    T_world_root: np.ndarray,
    q: np.ndarray,
) -> None:
    """Record a block of robot ``name``'s replay signals (:func:`pose_names`): ``t``
    (T,) s, ``T_world_root`` (T, 4, 4) or one pose (4, 4) for every sample (a fixed
    base), ``q`` (T, nq) in ``model.joint_names`` order. Handed to the recorder
    :data:`POSE_CHUNK` samples at a time. Nothing is recorded for a recorder that keeps
    no scenes (:func:`keeps_scenes`)."""
    if not keeps_scenes(recorder):
        return
    times = np.asarray(t, dtype=np.float64).reshape(-1)
    n = times.size
    qa = np.asarray(q, dtype=np.float64).reshape(n, -1)
    if qa.shape[1] != model.nq:
        raise InputError(
            f"record_poses {name!r}: q has {qa.shape[1]} columns, the model {model.nq} joints"
        )
    T = np.asarray(T_world_root, dtype=np.float64)
    fixed = T.shape == (4, 4)
    if not fixed and T.shape != (n, 4, 4):
        raise InputError(
            f"record_poses {name!r}: T_world_root must be (4, 4) or ({n}, 4, 4), got {T.shape}"
        )
    names = pose_names(model)
    root = np.array(pose7(T)) if fixed else None
    for a in range(0, n, POSE_CHUNK):
        b = min(n, a + POSE_CHUNK)
        if root is not None:
            head = np.broadcast_to(root, (b - a, 7))
        else:
            head = np.column_stack([T[a:b, :3, 3], R_to_quat(T[a:b, :3, :3]).reshape(-1, 4)])
        recorder.signals(name, times[a:b], names, np.column_stack([head, qa[a:b]]))


def record_trajectory(
    recorder: Any,
    name: str,
    model: RobotModel,
    t: Sequence[float] | np.ndarray,
    T_world_root: np.ndarray,
    q: np.ndarray,
    *,
    ground: Mapping[str, Any] | None = FLOOR,
    engine: str = "physics",
    objects: Sequence[Mapping[str, Any]] = (),
) -> bool:
    """One robot's whole run after the fact: the scene (the robot at its first sample,
    ``objects``, ``ground``) and every sample's root pose and joints
    (:func:`record_poses`), for a run whose arrays are known at its end (a walk, a
    check). Call it once, after ``start_run``. Returns whether the recorder kept it."""
    T = np.asarray(T_world_root, dtype=np.float64)
    qa = np.asarray(q, dtype=np.float64)
    if qa.ndim != 2 or not len(qa):
        raise InputError(f"record_trajectory {name!r}: q must be (T, nq) with T >= 1")
    T0 = T if T.shape == (4, 4) else T[0]
    doc = scene_doc([robot_doc(name, model, T0, qa[0])], objects, ground, engine)
    if not write_scene(recorder, doc):
        return False
    record_poses(recorder, name, model, t, T, qa)
    return True


def record_physics_scene(
    recorder: Any,
    world: World,
    ground: Mapping[str, Any] | None = None,
    view: np.ndarray | None = None,
) -> PhysicsPoseSampler | None:
    """Store the scene of a physics ``world`` (:func:`physics_scene_doc`) and return the
    sampler that records its poses (``sampler.record(recorder, t)`` at every recorded
    sample); None when the recorder keeps no scenes. Call it once, after
    ``start_run``."""
    if not write_scene(recorder, physics_scene_doc(world.scene, ground, view)):
        return None
    return PhysicsPoseSampler(world)


class PhysicsPoseSampler:
    """Records what a replay needs from a physics World: every robot's root pose and
    joints (:func:`pose_names`), every moving object's pose (:data:`ROOT_SIGNALS`).

    ``sample()`` reads them as ``[(group, names, values), ...]``; ``record(recorder,
    t)`` sends them to a recorder."""

    def __init__(self, world: World) -> None:
        self.world = world
        m = world.model
        joints, bodies = set(world.joint_names), set(world.body_names)
        self._groups: list[tuple[str, tuple[str, ...], int, np.ndarray]] = []
        for r in world.scene.robots:
            model = r.model
            bid = world.body(f"{r.name}/{model.root}").id
            adr = []
            for jn in model.joint_names:
                full = f"{r.name}/{jn}"
                adr.append(int(m.jnt_qposadr[m.joint(full).id]) if full in joints else -1)
            self._groups.append((r.name, pose_names(model), bid, np.array(adr, dtype=np.intp)))
        for b in world.scene.bodies:
            if not b.static and b.name in bodies:
                bid = world.body(b.name).id
                self._groups.append((b.name, ROOT_SIGNALS, bid, np.zeros(0, np.intp)))
        self._q0 = {
            r.name: np.array(
                [float(r.q0.get(j, 0.0)) for j in r.model.joint_names], dtype=np.float64
            )
            for r in world.scene.robots
        }

    def sample(self) -> list[tuple[str, tuple[str, ...], list[float]]]:
        """Every group's ``(name, signal names, values)`` now: the body poses of the
        current joint positions (:meth:`~robotsim.physics.World.poses_now`, which
        leaves the simulation's data as it is: recording never changes a run)."""
        xpos, xquat = self.world.poses_now()
        qpos = self.world.data.qpos
        out = []
        for name, names, bid, adr in self._groups:
            vals = [*xpos[bid].tolist(), *xquat[bid].tolist()]
            if adr.size:
                q = np.where(adr >= 0, qpos[np.maximum(adr, 0)], self._q0[name])
                vals += q.tolist()
            out.append((name, names, vals))
        return out

    def record(self, recorder: Any, t: float) -> None:
        for name, names, vals in self.sample():
            recorder.signal(name, t, names, vals)
