"""A recorded run, read back for replay: every frame's world pose at every sample.

:func:`load_replay` reads one run of a run store: its row, its 3D scene
(:mod:`robotsim.recording.scene`), its signals and events. Each robot becomes a
:class:`Track` whose link poses are the forward kinematics of the recorded root pose
and joints (``T_world_link = T_world_root @ fk(q)``), each moving object a track of
its recorded pose, each static object a track of one sample. Nothing is interpolated:
a writer that needs a pose between two samples takes the sample at or before it
(:meth:`Track.index_at`).

A run still being written, or one that does not exist, is refused with a one-line
error (:class:`ExportError`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.budget import check as check_budget
from robotsim.errors import InputError
from robotsim.model.geometry import Geometry, Shape
from robotsim.model.robot import RobotModel
from robotsim.recording.scene import (
    ROOT_SIGNALS,
    geometry_from_doc,
    load_scene_model,
)
from robotsim.spatial import make_T, quat_to_R, rot_z

if TYPE_CHECKING:
    from robotsim.recording.store import RunInfo, RunStore, SignalTable

__all__ = [
    "ExportError",
    "Frame",
    "Replay",
    "Track",
    "Visual",
    "load_replay",
    "object_frame",
    "replay_of_poses",
    "robot_frames",
]

#: Bytes a replay holds per frame pose and sample (a 4x4 float64 plus the quaternion
#: and position writers derive), for the memory check.
_POSE_BYTES = 16 * 8 + 7 * 8


class ExportError(InputError):
    """A run cannot be exported as asked (still running, no 3D scene, bad option)."""


@dataclass(frozen=True)
class Visual:
    """A shape drawn in a frame: ``geometry`` placed at ``T_frame_shape`` (4, 4)."""

    geometry: Geometry
    T_frame_shape: np.ndarray
    rgba: tuple[float, float, float, float]


@dataclass(frozen=True)
class Frame:
    """A rigid frame of the scene with what is drawn in it.

    ``name``: ``robot/link`` for a robot's link, the object's name for an object;
    ``parent``: the frame it hangs from (``world`` for roots and objects)."""

    name: str
    parent: str
    visuals: tuple[Visual, ...]


@dataclass(frozen=True, eq=False)
class Track:
    """The recorded motion of one robot or object.

    ``t`` (T,) s; ``frames`` (F,) its frames (a robot: one per link, in
    ``model.link_names`` order); ``T_world`` (T, F, 4, 4) their world poses;
    ``q`` (T, nq) the joints (rad or m; robots only, else ``None``) with ``qd``
    (T, nq) where the run recorded joint velocities (NaN where not)."""

    name: str
    kind: str  # "robot" or "object"
    t: np.ndarray
    frames: tuple[Frame, ...]
    T_world: np.ndarray
    model: RobotModel | None = None
    q: np.ndarray | None = None
    qd: np.ndarray | None = None
    moving: bool = True

    @property
    def joint_names(self) -> tuple[str, ...]:
        return () if self.model is None else tuple(self.model.joint_names)

    def index_at(self, t: float | np.ndarray) -> np.ndarray:
        """Index of the sample at or before ``t`` (the first sample before it starts)."""
        i = np.searchsorted(self.t, np.asarray(t, dtype=np.float64), side="right") - 1
        return np.clip(i, 0, max(len(self.t) - 1, 0))

    def relative(self) -> np.ndarray:
        """``T_parent_frame`` (T, F, 4, 4): each frame in its parent's frame."""
        index = {f.name: i for i, f in enumerate(self.frames)}
        out = self.T_world.copy()
        for i, f in enumerate(self.frames):
            j = index.get(f.parent)
            if j is not None:
                out[:, i] = _inv(self.T_world[:, j]) @ self.T_world[:, i]
        return out


@dataclass(frozen=True, eq=False)
class Replay:
    """One run read back (see the module doc). ``signals``: every recorded group's
    table by name (robots, objects, other groups such as clearance pairs);
    ``ground``: ``{"size": [sx, sy] or None, "rgba": [...]}`` or None; ``view``
    (2, 3): the box (m) to frame, from the scene or the tracks."""

    info: RunInfo
    scene: dict[str, Any] | None
    tracks: tuple[Track, ...]
    signals: Mapping[str, SignalTable]
    events: tuple[dict[str, Any], ...]
    ground: dict[str, Any] | None
    view: np.ndarray
    #: the run's recorded sensors (docs/sensors.md), each read whole
    sensors: tuple[Any, ...] = ()

    @property
    def has_scene(self) -> bool:
        return self.scene is not None and bool(self.tracks)

    @property
    def robots(self) -> tuple[Track, ...]:
        return tuple(t for t in self.tracks if t.kind == "robot")

    @property
    def frames(self) -> tuple[Frame, ...]:
        return tuple(f for tr in self.tracks for f in tr.frames)

    def time_span(self) -> tuple[float, float]:
        """First and last recorded time (s) over the tracks and signals."""
        lo, hi = np.inf, -np.inf
        for tr in self.tracks:
            if tr.moving and tr.t.size:
                lo, hi = min(lo, tr.t[0]), max(hi, tr.t[-1])
        for tab in self.signals.values():
            if tab.t.size:
                lo, hi = min(lo, tab.t[0]), max(hi, tab.t[-1])
        if not np.isfinite(lo):
            return 0.0, 0.0
        return float(lo), float(hi)

    def sample_times(self) -> np.ndarray:
        """Every time (s) at which some track moved, sorted and unique."""
        ts = [tr.t for tr in self.tracks if tr.moving and tr.t.size]
        return np.unique(np.concatenate(ts)) if ts else np.zeros(0)

    def track(self, name: str) -> Track:
        for tr in self.tracks:
            if tr.name == name:
                return tr
        from robotsim.errors import UnknownNameError

        raise UnknownNameError("robot or object", name, [t.name for t in self.tracks])

    def require_scene(self, what: str) -> None:
        """Refuse ``what`` for a run without a recorded 3D scene."""
        if not self.has_scene:
            raise ExportError(
                f"run {self.info.id} recorded no 3D scene (recorded before run store "
                f"schema 2, or by a kind that records none): {what} needs one; run it "
                "again with this version, or export --format mcap/rerun/csv for its signals"
            )


def _inv(T: np.ndarray) -> np.ndarray:
    R = T[..., :3, :3]
    out = np.zeros_like(T)
    Rt = np.swapaxes(R, -1, -2)
    out[..., :3, :3] = Rt
    out[..., :3, 3] = -np.einsum("...ij,...j->...i", Rt, T[..., :3, 3])
    out[..., 3, 3] = 1.0
    return out


def _poses(values: np.ndarray) -> np.ndarray:
    """``(T, 7)`` position + wxyz quaternion -> ``(T, 4, 4)``."""
    q = values[:, 3:7]
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    out = np.zeros((len(values), 4, 4))
    out[:, :3, :3] = quat_to_R(q)
    out[:, :3, 3] = values[:, :3]
    out[:, 3, 3] = 1.0
    return out


def _visuals(shapes: Sequence[Shape]) -> tuple[Visual, ...]:
    return tuple(
        Visual(s.geometry, np.asarray(s.T_link_shape), tuple(float(c) for c in s.rgba))  # type: ignore[arg-type]
        for s in shapes
    )


def _root_poses(tab: SignalTable, rows: np.ndarray) -> np.ndarray | None:
    """The root pose ``(T, 4, 4)`` of the recorded rows: the quaternion signals, else
    ``base.yaw`` (robots recorded before schema 2 by ``serve --db``), else None."""
    names = set(tab.names)
    if set(ROOT_SIGNALS) <= names:
        vals = np.column_stack([tab.column(n)[rows] for n in ROOT_SIGNALS])
        return _poses(vals)
    if {"base.x", "base.y", "base.yaw"} <= names:
        z = tab.column("base.z")[rows] if "base.z" in names else np.zeros(rows.sum())
        out = np.stack(
            [
                make_T(rot_z(a), (x, y, zz))
                for x, y, zz, a in zip(
                    tab.column("base.x")[rows],
                    tab.column("base.y")[rows],
                    z,
                    tab.column("base.yaw")[rows],
                )
            ]
        )
        return out
    return None


def _robot_track(entry: Mapping[str, Any], tab: SignalTable | None, where: str) -> Track:
    model = load_scene_model(entry, where)
    name = str(entry["name"])
    q0 = np.asarray(entry.get("q0") or model.zero(), dtype=np.float64)
    start = np.asarray(entry.get("start") or [0, 0, 0, 1, 0, 0, 0], dtype=np.float64)
    rows = None
    T_root = None
    if tab is not None and tab.t.size:
        key = "base.qw" if "base.qw" in tab.names else "base.x" if "base.x" in tab.names else None
        if key is not None:
            rows = ~np.isnan(tab.column(key))
            T_root = _root_poses(tab, rows)
    if T_root is None or rows is None or not rows.any():
        t = np.zeros(1)
        T_root = _poses(start[None, :])
        q = q0[None, :].copy()
        qd = None
    else:
        t = tab.t[rows]  # type: ignore[union-attr]
        q = np.repeat(q0[None, :], len(t), axis=0)
        qd = np.full_like(q, np.nan)
        for j, jn in enumerate(model.joint_names):
            if f"q.{jn}" in tab.names:  # type: ignore[union-attr]
                col = tab.column(f"q.{jn}")[rows]  # type: ignore[union-attr]
                q[:, j] = np.where(np.isnan(col), q0[j], col)
            if f"qd.{jn}" in tab.names:  # type: ignore[union-attr]
                qd[:, j] = tab.column(f"qd.{jn}")[rows]  # type: ignore[union-attr]
        if np.isnan(qd).all():
            qd = None
    check_budget(
        f"replay of robot {name!r}: {len(t)} samples x {len(model.links)} links",
        float(len(t)) * len(model.links) * _POSE_BYTES,
        "export a shorter run",
    )
    T_links = T_root[:, None] @ np.asarray(model.fk_all(q), dtype=np.float64)
    frames = robot_frames(name, model, _volume_visuals(entry, model, where))
    return Track(name, "robot", t, tuple(frames), T_links, model, q, qd)


def _volume_visuals(
    entry: Mapping[str, Any], model: RobotModel, where: str
) -> dict[str, tuple[Visual, ...]]:
    """The shapes a scene's robot entry draws with its links besides the model's
    visuals (its ``volumes``: a clearance study's bounding volumes), by link."""
    out: dict[str, list[Visual]] = {}
    for k, v in enumerate(entry.get("volumes") or ()):
        link = str(v.get("link"))
        if link not in model.link_names:
            raise ExportError(f"{where}: volumes[{k}]: link {link!r} is not a link of the model")
        rgba = tuple(float(c) for c in v.get("rgba") or (0.25, 0.55, 0.95, 0.35))
        T = _poses(np.asarray(v["pose"], dtype=np.float64)[None, :])[0]
        out.setdefault(link, []).append(Visual(geometry_from_doc(v["shape"]), T, rgba))  # type: ignore[arg-type]
    return {k: tuple(v) for k, v in out.items()}


def robot_frames(
    name: str, model: RobotModel, extra: Mapping[str, Sequence[Visual]] | None = None
) -> list[Frame]:
    """A robot's frames, one per link in ``model.link_names`` order (``name/link``,
    parent ``name/parent_link`` or ``world`` for the root), with the link's visuals
    and the ``extra`` shapes drawn with it (by link name)."""
    frames = []
    for lk in model.links:
        pj = model.parent_joint(lk.name)
        parent = "world" if pj is None else f"{name}/{pj.parent}"
        visuals = _visuals(lk.visuals) + tuple((extra or {}).get(lk.name, ()))
        frames.append(Frame(f"{name}/{lk.name}", parent, visuals))
    return frames


def object_frame(entry: Mapping[str, Any]) -> Frame:
    """An object's frame (its name, in ``world``) with its shape, from its scene entry."""
    shape = entry.get("shape")
    rgba = tuple(float(c) for c in entry.get("rgba") or (0.6, 0.6, 0.65, 1.0))
    visuals: tuple[Visual, ...] = ()
    if shape is not None:
        visuals = (Visual(geometry_from_doc(shape), np.eye(4), rgba),)  # type: ignore[arg-type]
    return Frame(str(entry["name"]), "world", visuals)


def _object_track(entry: Mapping[str, Any], tab: SignalTable | None) -> Track:
    name = str(entry["name"])
    frame = object_frame(entry)
    start = np.asarray(entry["pose"], dtype=np.float64)
    moving = bool(entry.get("moving")) and tab is not None and "base.qw" in tab.names
    if moving:
        rows = ~np.isnan(tab.column("base.qw"))  # type: ignore[union-attr]
        T = _root_poses(tab, rows)  # type: ignore[arg-type]
        if T is not None and len(T):
            return Track(name, "object", tab.t[rows], (frame,), T[:, None])  # type: ignore[union-attr]
    return Track(
        name, "object", np.zeros(1), (frame,), _poses(start[None, :])[:, None], moving=False
    )


def _check_exportable(info: RunInfo, store: RunStore) -> None:
    from robotsim.recording.store import RunStatus

    if info.status is RunStatus.RUNNING:
        age = time.time() - info.heartbeat
        raise ExportError(
            f"run {info.id} is still being written (status running, last commit "
            f"{age:.1f} s ago by pid {info.pid} on {info.host}); export it once it "
            "has finished"
        )


def load_replay(store: RunStore, run: int | str) -> Replay:
    """Read run ``run`` (an id or ``"last"``) of ``store`` for replay."""
    info = store.run(run)
    _check_exportable(info, store)
    scene = store.scene(info.id)
    groups = store.robots(info.id)
    check_budget(
        f"export of run {info.id}: {store.signal_count(info.id)} signal values",
        float(store.signal_count(info.id)) * 120.0,
        "export a shorter run",
    )
    signals = {g: store.signals(info.id, g) for g in groups}
    events = tuple(store.events(info.id))
    tracks: list[Track] = []
    ground = None
    view = None
    if scene is not None:
        where = f"run {info.id}: scene"
        for k, entry in enumerate(scene.get("robots") or []):
            tracks.append(
                _robot_track(entry, signals.get(str(entry["name"])), f"{where}: robots[{k}]")
            )
        for entry in scene.get("objects") or []:
            tracks.append(_object_track(entry, signals.get(str(entry["name"]))))
        ground = scene.get("ground")
        if scene.get("view") is not None:
            view = np.asarray(scene["view"], dtype=np.float64).reshape(2, 3)
    if view is None:
        view = _bounds(tracks)
    # the recorded sensors, each read whole (sized against the memory budget by the store)
    sensors = tuple(store.sensor(info.id, i.robot, i.name) for i in store.sensors(info.id))
    return Replay(info, scene, tuple(tracks), signals, events, ground, view, sensors)


def _bounds(tracks: Sequence[Track]) -> np.ndarray:
    """The box (2, 3) every frame origin visits (a 1 m box round the origin if none)."""
    pts = [tr.T_world[:, :, :3, 3].reshape(-1, 3) for tr in tracks if tr.T_world.size]
    if not pts:
        return np.array([[-0.5, -0.5, 0.0], [0.5, 0.5, 1.0]])
    p = np.concatenate(pts)
    lo, hi = p.min(axis=0), p.max(axis=0)
    pad = max(0.25, 0.1 * float(np.max(hi - lo)))
    return np.stack([lo - pad, hi + pad])


def replay_of_poses(
    scene: Mapping[str, Any],
    t: np.ndarray,
    link_poses: Mapping[str, np.ndarray],
    title: str,
) -> Replay:
    """A replay of poses held in memory (the studio's recording of what it showed):
    ``scene`` a scene document, ``t`` (T,) s, ``link_poses`` robot -> world poses
    ``(T, L, 4, 4)`` of its links in ``model.link_names`` order. Objects stay where the
    scene puts them. Nothing is read from a run store (the run's id is 0)."""
    from robotsim.recording.store import RunInfo, RunStatus

    now = time.time()
    info = RunInfo(0, title, {}, None, {}, now, now, RunStatus.COMPLETED, None, now, "", 0, 0.0)
    times = np.asarray(t, dtype=np.float64).reshape(-1)
    tracks: list[Track] = []
    for k, entry in enumerate(scene.get("robots") or []):
        name = str(entry["name"])
        if name not in link_poses:
            continue
        model = load_scene_model(entry, f"scene: robots[{k}]")
        T = np.asarray(link_poses[name], dtype=np.float64)
        if T.shape != (len(times), len(model.links), 4, 4):
            raise ExportError(
                f"robot {name!r}: poses of shape {T.shape}, expected "
                f"({len(times)}, {len(model.links)}, 4, 4)"
            )
        tracks.append(Track(name, "robot", times, tuple(robot_frames(name, model)), T, model))
    for entry in scene.get("objects") or []:
        tracks.append(_object_track({**entry, "moving": False}, None))
    ground = scene.get("ground")
    view = scene.get("view")
    box = np.asarray(view, dtype=np.float64).reshape(2, 3) if view is not None else _bounds(tracks)
    return Replay(info, dict(scene), tuple(tracks), {}, (), ground, box)
