"""What ``robotsim walk`` writes: one function, :func:`walk_report`.

Into the output folder: ``summary.json`` (the verdict and its numbers), ``walk.yaml``
(the walk as a motion program, :mod:`robotsim.walk.program`), ``side_view.png`` (the
physics run from the side, eight panels) and ``runs.sqlite`` (the run store: per
control tick the measured joints, root pose, CoM, ZMP and their references; one
``touchdown`` event per step and a ``fall`` event if it fell).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.errors import InputError
from robotsim.jsonable import dumps as json_dumps
from robotsim.walk.params import WalkParams
from robotsim.walk.simulate import WalkRun

__all__ = ["WalkRequest", "record_walk", "record_walk_scene", "side_view", "walk_report"]

SIGNAL_CHUNK = 4096


class WalkRequest:
    """What a user asks of ``robotsim walk`` (m, m, deg, m/s), checked at once."""

    def __init__(
        self,
        distance: float,
        lateral: float = 0.0,
        turn_deg: float = 0.0,
        speed: float | None = None,
        friction: float | None = None,
        open_loop: bool = False,
    ) -> None:
        from robotsim.ranges import MAX_FRICTION, MAX_LENGTH

        for what, v in (("--distance", distance), ("--lateral", lateral), ("--turn", turn_deg)):
            if not math.isfinite(v):
                raise InputError(f"{what}: {v!r}; must be a finite number")
        for what, v in (("--distance", distance), ("--lateral", lateral)):
            if abs(v) > MAX_LENGTH:  # the footsteps of 1e308 m cannot be counted
                raise InputError(f"{what}: {v!r}; must be within {MAX_LENGTH:g} m")
        if speed is not None and not (math.isfinite(speed) and speed > 0):
            raise InputError(f"--speed: {speed!r}; must be a number > 0 (m/s)")
        if friction is not None and not (math.isfinite(friction) and 0 < friction <= MAX_FRICTION):
            raise InputError(f"--friction: {friction!r}; must be a number in (0, {MAX_FRICTION:g}]")
        if distance == 0 and lateral == 0 and turn_deg == 0:
            raise InputError("nothing to walk: give --distance, --lateral or --turn (not all 0)")
        self.distance, self.lateral, self.turn_deg = distance, lateral, turn_deg
        self.speed, self.friction, self.open_loop = speed, friction, open_loop


def _robot_ref(model: Any) -> str:
    """What a program file's ``robot:`` says: the library name, else the file's path."""
    from robotsim.model.loader import LIBRARY_DIR

    if model.source is not None and Path(model.source).parent != LIBRARY_DIR:
        return str(Path(model.source).resolve())
    return str(model.name)


def walk_report(
    robot: str,
    request: WalkRequest,
    out_dir: str | Path,
    params: WalkParams | None = None,
    strip: bool = True,
    db: str | Path | None = None,
) -> dict[str, Any]:
    """Generate the walk, run it in physics and write the folder (module docs);
    returns ``summary.json``'s content. ``db``: the run store to record into instead
    of ``out_dir/runs.sqlite`` (a path or an SQLAlchemy URL)."""
    from robotsim.model.loader import load_robot
    from robotsim.motion.profile import check_capacity, profile_for
    from robotsim.motion.schema import save_program
    from robotsim.walk.biped import biped_of
    from robotsim.walk.pattern import generate_walk
    from robotsim.walk.program import walk_program
    from robotsim.walk.sensing import sensor_summary, walk_sensors
    from robotsim.walk.simulate import simulate_goal, simulate_walk
    from robotsim.walk.stabilizer import BalanceGains

    model = load_robot(robot)
    biped = biped_of(model)
    pattern = generate_walk(
        biped,
        request.distance,
        request.lateral,
        math.radians(request.turn_deg),
        speed=request.speed,
        params=params,
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ctrl = profile_for(model.name).controller
    program, fit = walk_program(
        pattern, name="walk", robot=_robot_ref(model), max_keyframes=ctrl.max_keyframes_per_motion
    )
    check_capacity(program, profile_for(model.name), "walk.yaml")
    prog_path = save_program(program, out / "walk.yaml")
    gains = BalanceGains(enabled=not request.open_loop)
    readings: list[Any] = []
    rigs: list[Any] = []

    def sense(sim: Any) -> None:  # the robot profile file's sensors, read as it walks
        rig = walk_sensors(sim, biped)
        if rig is not None:
            rig.listen(readings.append)
            sim.sensors = rig
            rigs.append(rig)

    if request.open_loop:  # the pattern as generated: no feedback, no replanning
        run = simulate_walk(pattern, gains=gains, friction=request.friction, setup=sense)
    else:  # the online engine: feedback, and each landed foot re-anchors the plan
        run = simulate_goal(
            biped, pattern.goal, pattern.pairs, pattern.params.as_params(), gains,
            friction=request.friction, setup=sense,
        )  # fmt: skip
    rig = rigs[0] if rigs else None
    metas = {} if rig is None else {s.name: s.meta() for s in rig}
    if rig is not None:
        rig.close()
    summary: dict[str, Any] = {
        "robot": model.name,
        **run.summary(),
        "goal": {
            "distance_m": request.distance,
            "lateral_m": request.lateral,
            "turn_deg": request.turn_deg,
            "speed_m_s": request.speed,
        },
        "balance": "open loop"
        if request.open_loop
        else "capture-point feedback, footsteps re-anchored at each touchdown",
        "pattern": pattern.summary(),
        "params": pattern.params.to_dict(),
        "biped": biped.describe(),
        "program": str(prog_path),
        "sensors": sensor_summary(rig, model.name),
        "program_fit": {
            "program_s": fit.program_s,
            "pattern_s": fit.pattern_s,
            "slowed_segments": fit.slowed_segments,
            "keyframes": fit.keyframes,
            "motions": fit.motions,
        },
    }
    if strip:
        summary["side_view_png"] = str(side_view(run, out / "side_view.png"))
    store = out / "runs.sqlite" if db is None else db
    summary["recording"] = str(record_walk(run, store, readings, metas))
    (out / "summary.json").write_text(json_dumps(summary, indent=2))
    return summary


def record_walk(
    run: WalkRun, db: str | Path, readings: Sequence[Any] = (), metas: Any = None
) -> str | Path:
    """The physics run into a run store (module docs), with the sensors' ``readings``
    (:class:`robotsim.sensors.Reading`, under the robot's name; ``metas`` maps a sensor's
    name to its description)."""
    from robotsim.recording import Recorder
    from robotsim.spatial import R_to_rpy

    model = run.biped.model
    rpy = R_to_rpy(run.root[:, :3, :3])
    names = (
        *model.joint_names,
        "base_x", "base_y", "base_z", "base_roll", "base_pitch", "base_yaw",
        "com_x", "com_y", "com_z", "com_ref_x", "com_ref_y",
        "zmp_x", "zmp_y", "zmp_ref_x", "zmp_ref_y", "dcm_error_x", "dcm_error_y",
        "support",
    )  # fmt: skip
    values = np.column_stack(
        [
            run.q,
            run.root[:, :3, 3],
            rpy,
            run.com,
            run.com_ref[:, :2],
            run.zmp,
            run.zmp_ref,
            run.dcm_error,
            run.support.astype(float),
        ]
    )
    with Recorder(db) as rec:
        rec.start_run(
            f"walk {model.name}",
            {"robot": model.name, "goal": list(run.goal), "fell": run.fell},
        )
        for a in range(0, len(run.t), SIGNAL_CHUNK):
            b = a + SIGNAL_CHUNK
            rec.signals(model.name, run.t[a:b], names, np.nan_to_num(values[a:b], nan=0.0))
        for i, s in enumerate(run.steps):
            if s.t_land <= run.t[-1]:
                foot = "left" if s.side == 0 else "right"
                x, y, yaw = s.pose
                info = {"step": i + 1, "foot": foot, "x": x, "y": y, "yaw_deg": math.degrees(yaw)}
                rec.event(s.t_land, "touchdown", model.name, info)
        if run.fell and run.fell_at_s is not None:
            rec.event(run.fell_at_s, "fall", model.name, {"reason": run.reason})
        record_walk_scene(rec, run, model.name)
        for r in readings:
            rec.sensor(model.name, r.sensor, r.t, r.data, (metas or {}).get(r.sensor))
    return db


def record_walk_scene(recorder: Any, run: WalkRun, name: str) -> bool:
    """The walk's 3D scene for replays and exports (docs/export.md): robot ``name`` at
    every control tick as MuJoCo measured it (root pose and joints), on the flat floor
    or the slope's slab. Returns whether the recorder keeps scenes."""
    from robotsim.model.geometry import Box
    from robotsim.recording.scene import FLOOR, object_doc, record_trajectory
    from robotsim.walk.simulate import SLOPE_SLAB, slope_slab

    slab = slope_slab(run.ground)
    objects = () if slab is None else (object_doc("slope", Box(SLOPE_SLAB), slab),)
    return record_trajectory(
        recorder,
        name,
        run.biped.model,
        run.t,
        run.root,
        run.q,
        ground=FLOOR if slab is None else None,
        objects=objects,
    )


def side_view(run: WalkRun, path: Path, panels: int = 8, size: int = 200) -> Path:
    """A PNG of ``panels`` side views of the physics run, left to right, labelled with
    time, distance and support."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robotsim.motion.render import SIDE_VIEW_FOVY_DEG, PoseRenderer

    model = run.biped.model
    ticks = np.linspace(0, len(run.t) - 1, panels).round().astype(int)
    P = run.root[ticks, None] @ model.fk_all(run.q[ticks])
    z = P[..., 2, 3]
    lo, hi = z.min(axis=1), z.max(axis=1)
    mid_y = float(np.mean(run.root[:, 1, 3]))
    half_view = math.tan(math.radians(SIDE_VIEW_FOVY_DEG) / 2)
    distance = max(0.9, float(np.max(hi - lo)) / (2 * 0.7 * half_view))
    renderer = PoseRenderer(model, size, size)
    try:
        imgs = [
            renderer.render(
                run.q[i],
                run.root[i],
                view="side",
                target=np.array([run.root[i, 0, 3], mid_y, (lo[j] + hi[j]) / 2]),
                distance=distance,
            )
            for j, i in enumerate(ticks)
        ]
    finally:
        renderer.close()
    fig, axes = plt.subplots(1, panels, figsize=(panels * 2.0, 2.4), dpi=100)
    support = ("left", "right", "both")
    for ax, img, i in zip(np.atleast_1d(axes), imgs, ticks):
        ax.imshow(img)
        ax.set_title(
            f"t={run.t[i]:.1f}s  x={run.root[i, 0, 3]:.2f}m\nsupport {support[run.support[i]]}",
            fontsize=7,
        )
        ax.axis("off")
    verdict = f"FELL at {run.fell_at_s:.2f} s" if run.fell else "walked"
    fig.suptitle(f"{model.name}: walk in physics ({verdict})", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
