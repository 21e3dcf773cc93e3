"""What ``robotsim motion play|check|thumbnails`` write: one function per command.

- :func:`play_report`: kinematic playback -> ``summary.json``, ``side_view.png``,
  ``trajectory.npz`` (:func:`save_trajectory`) and ``runs.sqlite``
  (:func:`record_playback`); returns the summary.
- :func:`check_report`: the physics check -> summary (and ``physics_check.json``,
  ``com_path.png`` when given a folder).
- :func:`write_thumbnails`: one PNG per keyframe, paths written back into the file.
- :func:`load_for_playback`: a program file -> (program, model, robot profile).
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.errors import InputError, UnknownNameError
from robotsim.jsonable import dumps as json_dumps
from robotsim.model import RobotModel, load_robot
from robotsim.motion.playback import PlaybackResult, compare_speed_methods, play
from robotsim.motion.profile import RobotProfile, check_capacity, motion_profile
from robotsim.motion.schema import Program, load_program
from robotsim.motion.support import ContactSettings
from robotsim.motion.timeline import compile_program

if TYPE_CHECKING:
    from robotsim.motion.physics_check import PhysicsCheck

__all__ = [
    "check_report",
    "load_for_playback",
    "play_report",
    "record_playback",
    "save_trajectory",
    "with_all_speeds",
    "write_thumbnails",
]

#: Ticks sent to the run store per block (:func:`record_playback`).
SIGNAL_CHUNK = 4096


def load_for_playback(file: str, robot: str | None) -> tuple[Program, RobotModel, RobotProfile]:
    """The program in ``file``, its robot (``robot`` or the file's ``robot:``) and the
    robot's profile (its profile file on top of the inferred one; the model gets the
    frames the profile adds, such as inferred sole frames)."""
    program = load_program(file)
    name = robot or program.robot
    if name is None:
        raise InputError(f"{file}: no robot: give --robot or a 'robot:' field in the file")
    try:
        model = load_robot(name)
    except UnknownNameError as exc:
        field = "--robot" if robot else f"{file}: robot"
        raise InputError(f"{field}: {exc}") from None
    model, profile = motion_profile(model)  # the profile file's or the inferred feet
    check_capacity(program, profile, file)  # --robot may name a smaller controller
    return program, model, profile


def with_all_speeds(program: Program, level: int) -> Program:
    """``program`` with every keyframe of every motion at speed ``level``."""
    out = program
    for m in program.motions:
        mm = m
        for kf in m.keyframes:
            mm = mm.set_speed(kf.name, level)
        out = out.with_motion(mm)
    return out


def play_report(
    file: str,
    robot: str | None,
    out_dir: str | Path,
    method: str = "fixed_tick",
    tick: float = 0.01,
    points: int = 50,
    detection: str = "exact",
    strip: bool = True,
    contact_tolerance: float | None = None,
    min_tick: float = 0.0,
) -> dict[str, Any]:
    """Play ``file`` kinematically with support switching and write the results to
    ``out_dir``; returns what ``summary.json`` holds. ``contact_tolerance`` (m): the
    paper's second speed method with the points of each keyframe move from the allowed
    foot-contact error; ``min_tick`` (s): its timer floor
    (:mod:`robotsim.motion.speed`)."""
    from robotsim.motion.speed import contact_points, time_per_pose

    program, model, profile = load_for_playback(file, robot)
    tl = compile_program(program, model, file)
    seg_points: np.ndarray | int = points
    if contact_tolerance is not None:
        method = "fixed_points"
        seg_points = contact_points(model, tl, profile.soles, contact_tolerance)
    # the speed methods side by side first: their playbacks are gone before the main one
    # starts, so the peak memory is one playback's (what the budget counts), not two
    speed_methods = {
        "as_written": compare_speed_methods(model, tl, profile.soles, tick, points),
        "all_level_8": compare_speed_methods(
            model,
            compile_program(with_all_speeds(program, 8), model, file),
            profile.soles,
            tick,
            points,
        ),
        "note": "tick-time contact detection (the paper's); contact error = depth of a sole "
        "when it became the support",
    }
    res = play(
        model,
        tl,
        profile.soles,
        method,  # type: ignore[arg-type]
        tick=tick,
        points=seg_points,
        settings=ContactSettings(detection=detection),  # type: ignore[arg-type]
        min_tick=min_tick,
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary = res.summary()
    if method == "fixed_tick":
        summary["tick_s"] = max(float(tick), float(min_tick))
    if contact_tolerance is not None or min_tick:
        per_kf = np.broadcast_to(np.asarray(seg_points), (tl.segments,))
        summary["speed_method_2"] = {
            "contact_tolerance_m": contact_tolerance,
            "min_tick_s": min_tick,
            "points_per_keyframe": [
                {"motion": m, "repeat": r, "keyframe": k, "points": int(n)}
                for (m, r, k), n in zip(tl.labels, per_kf, strict=True)
            ],
            "max_points": int(per_kf.max(initial=1)),
            "time_per_pose_by_level": time_per_pose(int(per_kf.max(initial=1)), min_tick),
            "total_time_s": float(res.samples.t[-1]),
        }
    summary["program"] = program.name
    summary["file"] = str(file)
    summary["stretched_segments"] = int(np.sum(tl.stretched))
    summary["speed_methods"] = speed_methods
    if strip:
        from robotsim.motion.render import side_view_strip

        summary["side_view_png"] = str(side_view_strip(res, out / "side_view.png"))
    summary["recording"] = str(record_playback(res, out / "runs.sqlite", program.name))
    summary["trajectory"] = str(save_trajectory(res, out / "trajectory.npz"))
    (out / "summary.json").write_text(json_dumps(summary, indent=2))
    return summary


def save_trajectory(res: PlaybackResult, path: Path) -> Path:
    """Every link's world pose at every tick (positions m, quaternions wxyz), with the
    joint values, support foot and sole heights, as a compressed ``.npz`` (the arrays
    of ``np.savez_compressed``). The link poses ``(N+1, L, ...)`` are formed and
    written :data:`~robotsim.motion.playback.POSE_CHUNK` ticks at a time."""
    from robotsim.motion.playback import POSE_CHUNK
    from robotsim.spatial import R_to_quat

    n, nl = res.ticks + 1, len(res.model.link_names)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:

        def whole(name: str, arr: np.ndarray) -> None:
            with zf.open(f"{name}.npy", "w", force_zip64=True) as fh:
                np.lib.format.write_array(fh, np.asanyarray(arr), allow_pickle=False)

        def chunked(name: str, width: int, part: Callable[[np.ndarray], np.ndarray]) -> None:
            header = {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float64)),
                      "fortran_order": False, "shape": (n, nl, width)}  # fmt: skip
            with zf.open(f"{name}.npy", "w", force_zip64=True) as fh:
                np.lib.format.write_array_header_1_0(fh, header)
                for a in range(0, n, POSE_CHUNK):
                    block = part(res.link_poses(a, a + POSE_CHUNK))
                    fh.write(np.ascontiguousarray(block, dtype=np.float64).tobytes())

        whole("t", res.samples.t)
        whole("q", res.samples.q)
        whole("joint_names", np.array(res.model.joint_names))
        whole("link_names", np.array(res.model.link_names))
        chunked("link_pos", 3, lambda P: P[..., :3, 3])
        chunked("link_quat", 4, lambda P: R_to_quat(P[..., :3, :3]))
        whole("T_world_root", res.T_world_root)
        whole("support", res.support)
        whole("foot_names", np.array(res.foot_names))
        whole("sole_heights", res.heights)
    return path


def record_playback(res: PlaybackResult, db: Path, name: str) -> Path:
    """The playback into a run store: joint values, body pose (m, rad roll/pitch/yaw),
    support foot and sole heights per tick; support switches as events. With the run's
    3D scene and the root pose and joints as replay signals (``base.*``, ``q.*``:
    :mod:`robotsim.recording.scene`), so the playback exports (``docs/export.md``)."""
    from robotsim.recording import Recorder
    from robotsim.recording.scene import pose_names, robot_doc, scene_doc, write_scene
    from robotsim.spatial import R_to_quat, R_to_rpy

    model = res.model
    rpy = R_to_rpy(res.T_world_root[:, :3, :3])
    body = np.column_stack([res.T_world_root[:, :3, 3], rpy])
    names = (
        *model.joint_names,
        "body_x",
        "body_y",
        "body_z",
        "body_roll",
        "body_pitch",
        "body_yaw",
        "support",
        *[f"{f}_height" for f in res.foot_names],
    )
    with Recorder(db) as rec:
        rec.start_run(
            f"motion play {name}",
            {
                "robot": model.name,
                "method": res.samples.method,
                "detection": res.settings.detection,
            },
        )
        robot = robot_doc(model.name, model, res.T_world_root[0], res.samples.q[0])
        ground = {"size": None, "rgba": [0.82, 0.84, 0.86, 1.0]}
        write_scene(rec, scene_doc([robot], ground=ground, engine="kinematic"))
        replay_names = pose_names(model)
        for a in range(0, res.ticks + 1, SIGNAL_CHUNK):  # rows go to the store as they come
            b = a + SIGNAL_CHUNK
            values = np.column_stack(
                [res.samples.q[a:b], body[a:b], res.support[a:b].astype(float), res.heights[a:b]]
            )
            rec.signals(model.name, res.samples.t[a:b], names, values)
            T = res.T_world_root[a:b]
            pose = np.column_stack([T[:, :3, 3], R_to_quat(T[:, :3, :3]), res.samples.q[a:b]])
            rec.signals(model.name, res.samples.t[a:b], replay_names, pose)
        for s in res.switches:
            rec.event(
                s.t,
                "support_switch",
                model.name,
                {"from": s.from_foot, "to": s.to_foot, "error_m": s.error_m},
            )
    return db


def check_report(
    file: str, robot: str | None, out_dir: str | Path | None = None, db: str | None = None
) -> tuple[dict[str, Any], PhysicsCheck]:
    """The physics check of ``file`` -> ``(summary dict, PhysicsCheck)``; with
    ``out_dir``, also ``physics_check.json`` and ``com_path.png`` there, and the check
    recorded as a run (its signals, scene and poses: it replays in 3D) into ``db`` or
    ``out_dir/runs.sqlite`` (``summary["run_id"]``)."""
    from robotsim.motion.physics_check import check_physics, record_check

    program, model, profile = load_for_playback(file, robot)
    if not profile.soles:
        raise InputError(
            f"{model.name}: the physics check needs a legged robot with foot soles "
            "in its robot profile"
        )
    res = play(model, compile_program(program, model, file), profile.soles)
    store = db or out_dir
    chk = check_physics(res, profile, poses=store is not None)
    summary = {
        "program": program.name,
        "robot": model.name,
        **chk.summary(),
        "kinematic_min_support_margin_m": float(np.min(res.support_margin)),
    }
    if store:
        from robotsim.recording import Recorder

        if out_dir:
            Path(out_dir).mkdir(parents=True, exist_ok=True)
        with Recorder(str(store)) as rec:
            meta = {"kind": "motion_check", "file": str(file), "robot": model.name}
            summary["run_id"] = rec.start_run(f"motion check {program.name}", meta)
            record_check(rec, chk)
    if out_dir:
        from robotsim.plots import save_com_path

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "physics_check.json").write_text(json_dumps(summary, indent=2))
        summary["com_path_png"] = str(save_com_path(out / "com_path.png", chk, res))
    return summary, chk


def write_thumbnails(
    file: str, robot: str | None, out_dir: str | Path | None, size: int, update: bool
) -> tuple[int, Path]:
    """Render one PNG per keyframe of ``file`` into ``out_dir`` (default: the file's
    folder / ``<stem>_thumbs``); with ``update``, write the paths back into ``file`` in
    its own format. Returns (number of thumbnails, folder)."""
    from robotsim.motion.render import render_thumbnails
    from robotsim.motion.schema import file_format, save_program
    from robotsim.shipped import is_shipped, resolve

    program, model, profile = load_for_playback(file, robot)
    path = resolve(file, "motion")
    if is_shipped(path):  # package data is read-only: write here, leave the file alone
        folder, update = Path.cwd(), False
    else:
        folder = path.resolve().parent
    out = Path(out_dir) if out_dir else folder / f"{path.stem}_thumbs"
    updated = render_thumbnails(program, model, profile.soles, out, relative_to=folder, size=size)
    n = sum(1 for m in updated.motions for k in m.keyframes if k.thumbnail)
    if update:  # keep the file's own format (a motion file stays a motion file)
        save_program(updated, path, file_format(path))
    return n, out
