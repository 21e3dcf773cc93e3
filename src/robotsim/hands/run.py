"""Run a ``hand_ball_transfer`` scenario in either mode and write its results.

``summary.json`` holds the event timeline ``"events": [{"t", "type", "hand"}, ...]``
(plus ``detail``: the finger of a touch, the surface of a landing), the script steps
with their times and whether each completed, the ball's final state and the
``transfer`` verdict (:mod:`robotsim.hands.transfer`: the object ends held by the
receiving hand, with the hold time, slip and lift behind it);
``trace.csv`` holds the ball position and the grasp flags at every tick.
"""

from __future__ import annotations

import csv
import math
import shutil
import time
from pathlib import Path
from typing import Any, Protocol

from robotsim.errors import InputError, PhysicsFault
from robotsim.hands.scenario_spec import HandScenario
from robotsim.hands.scene import HandsScene
from robotsim.hands.script import HandsSim, ScriptPlayer, ScriptResult, ScriptStep
from robotsim.hands.state import HandsState
from robotsim.hands.transfer import TransferCheck
from robotsim.jsonable import dumps as json_dumps
from robotsim.run_io import STORE_VALUE_BYTES, RunOptions, opened_recorder, store_folder

__all__ = [
    "MODES",
    "TRACE_ROW_BYTES",
    "StepSource",
    "make_sim",
    "run_hand_data",
    "run_hand_kind",
    "run_hand_scenario",
    "script_seconds",
]

MODES = ("kinematic", "physics")


def make_sim(scene: HandsScene, mode: str, dt: float, spec: HandScenario | None = None) -> HandsSim:
    """The simulation for ``mode`` (``kinematic`` or ``physics``)."""
    if mode == "kinematic":
        from robotsim.hands.kinematic import KinematicHands

        return KinematicHands(scene, dt)
    if mode == "physics":
        from robotsim.hands.physics import PhysicsHands, PhysicsOptions

        opts = PhysicsOptions()
        if spec is not None:
            p = spec.physics
            opts = PhysicsOptions(
                timestep=p.timestep,
                weld_assist=spec.weld_assist,
                squeeze=p.squeeze * spec.angle_scale,
                finger_friction=p.finger_friction,
                weld_frequency=p.weld_frequency,
            )
        return PhysicsHands(scene, dt, opts)
    raise InputError(f"unknown mode {mode!r}; valid: {', '.join(MODES)}")


def run_hand_scenario(
    spec: HandScenario,
    scene: HandsScene,
    mode: str = "kinematic",
    out_dir: str | Path | None = None,
    recorder: Any = None,
    duration: float | None = None,
    plan: StepSource | None = None,
) -> dict[str, Any]:
    """Run the script; returns the summary (also written to ``out_dir``). ``plan``: the
    steps come from it instead of the file's script, phase by phase as the run goes
    (:class:`StepSource`: e.g. a transfer planned from the object's geometry). A
    ``recorder`` (:class:`robotsim.run_io.RunRecorder`, e.g. the run store)
    receives the ball and grasp signals every tick and the events. ``duration`` (s)
    stops the script early (``completed`` is then false); default: the whole script.

    Nothing is held per tick: ``trace.csv`` is written as the run goes (a run of any
    length holds the same memory), after checking that the longest the script can take
    fits the free space of ``out_dir``."""
    steps = spec.steps() if plan is None else []
    out = None if out_dir is None else Path(out_dir)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    # the replay signals: the robot's root pose and joints, the ball's pose
    replay_values = 7 + scene.robot.nq + 7
    longest = script_seconds(steps, duration) if plan is None else plan.max_seconds(duration)
    _check_disk(out, recorder, longest, spec.dt, replay_values)
    sim = make_sim(scene, mode, spec.dt, spec)
    if mode == "physics":  # the steps the script can take, sized before it runs
        sim.world.check_work(longest, spec.name)  # type: ignore[attr-defined]
    replay = None
    if recorder is not None:
        from robotsim.recording.scene import pose_names, write_scene

        recorder.start_run(spec.name, {"kind": spec.kind, "mode": mode, "dt": spec.dt})
        if write_scene(recorder, scene_document(scene, mode)):
            replay = (pose_names(scene.robot), scene.T_world_robot)
    trace = _TraceWriter(None if out is None else out / "trace.csv")
    check = TransferCheck(sim)
    seen = [0]

    def tick(state: HandsState) -> None:
        trace.write(state)
        events = tuple(player.events[seen[0] :])
        seen[0] = len(player.events)
        check.tick(events, {s: h.touching for s, h in state.hands.items()})
        if recorder is not None:
            _record(recorder, state, replay)

    wall = time.perf_counter()
    fault: PhysicsFault | None = None
    try:
        player = ScriptPlayer(sim, steps, spec.speed_rad, on_tick=tick)
        try:
            while duration is None or sim.t < duration - 1e-9:
                if player.tick():
                    continue
                more = [] if plan is None else plan.next_steps(sim, player.result())
                if not more:
                    break
                player.extend(more)
        except PhysicsFault as exc:  # divergence: the run stops, its summary says where
            fault = exc
        result = player.result()
    except BaseException as exc:
        if recorder is not None:
            recorder.finish("failed", str(exc))
        raise
    finally:
        trace.close()
    wall = time.perf_counter() - wall
    if recorder is not None:
        for e in result.events:
            recorder.event(e.t, e.type, e.hand, {"detail": e.detail} if e.detail else None)
        if fault is not None:
            recorder.event(sim.t, "fault", None, fault.fault.to_json())
        recorder.finish(
            "failed" if fault is not None else "completed", None if fault is None else str(fault)
        )
    final = result.final
    types = [e.type for e in result.events]
    missing = [t for t in spec.expect if t not in types]
    summary: dict[str, Any] = {
        "scenario": spec.name,
        "kind": spec.kind,
        "mode": mode,
        "dt": spec.dt,
        "sim_time": final.t,
        "real_time_factor": final.t / wall if wall > 0 else None,
        "completed": player.finished and result.completed and not missing,
        "events": [e.to_json() for e in result.events],
        "steps": [
            {
                "label": s.label,
                "kind": s.kind,
                "hand": s.hand,
                "t_start": round(s.t_start, 9),
                "t_end": round(s.t_end, 9),
                "completed": s.completed,
            }
            for s in result.steps
        ],
        "missing_events": missing,
        "transfer": check.result(final.t) if plan is None else plan.verdict(check.result(final.t)),
        "options": _mode_options(sim),
        "ball": {
            "position": final.ball_position.tolist(),
            "resting": final.ball_resting,
            "surface": final.ball_surface,
            "grasped_by": list(final.grasped_by),
        },
    }
    if fault is not None:
        summary["fault"] = fault.fault.to_json()
        summary["completed"] = False
    unplanned = getattr(plan, "failed", None) if plan is not None else None
    if unplanned:  # a phase of the steps given as the run goes could not be planned
        summary["completed"] = False
        summary["not_planned"] = unplanned
    if scene.obj is not None:  # what was passed instead of the ball
        summary["object"] = scene.obj.describe()
    if out is not None:
        summary["outputs"] = {"summary": "summary.json", "trace": "trace.csv"}
        (out / "summary.json").write_text(json_dumps(summary, indent=2))
    return summary


class StepSource(Protocol):
    """Steps given as the run goes instead of a fixed script (:func:`run_hand_scenario`)."""

    def max_seconds(self, duration: float | None) -> float:
        """The longest the run can take (s), for the disk and work checks."""

    def next_steps(self, sim: HandsSim, so_far: ScriptResult) -> list[ScriptStep]:
        """The next steps once the previous ones are played; [] ends the run."""

    def verdict(self, transfer: dict[str, Any]) -> dict[str, Any]:
        """The transfer verdict with what the source knows added (its plans, the
        phase that failed to plan)."""

    @property
    def failed(self) -> str | None:
        """The phase that could not be planned and why (None while all were): the run
        then did not complete."""


def script_seconds(steps: list[ScriptStep], duration: float | None = None) -> float:
    """The longest a script can run (s): each step ends by its ``max_time`` (a wait by
    its seconds, if sooner); ``duration`` caps the whole."""
    total = math.fsum(
        min(st.max_time, st.seconds) if st.kind == "wait" else st.max_time for st in steps
    )
    return total if duration is None else min(total, duration)


def _check_disk(
    out: Path | None, recorder: Any, seconds: float, dt: float, extra_signals: int = 0
) -> None:
    """Refuse, before stepping, a run whose trace (in ``out``) and recorded signals (in
    an SQLite run store) could not fit the free space of their folders."""
    from robotsim.budget import format_bytes

    ticks = seconds / dt + 1.0
    needs: dict[Path, float] = {}
    if out is not None:
        needs[out.resolve()] = ticks * TRACE_ROW_BYTES
    store = store_folder(recorder)
    if store is not None:
        per_tick = len(SIGNALS) + extra_signals
        needs[store] = needs.get(store, 0.0) + ticks * per_tick * STORE_VALUE_BYTES
    for folder, need in needs.items():
        free = shutil.disk_usage(folder).free
        if not math.isfinite(need) or need > free:
            raise InputError(
                f"the script can run {seconds:g} s ({ticks:.3g} ticks of {dt:g} s): its "
                f"trace.csv and recording could take {format_bytes(need)} but {folder} "
                f"has {format_bytes(free)} free; give the steps a shorter max_time (or "
                f"wait), or run with --duration"
            )


def run_hand_data(
    data: Any,
    source: str,
    mode: str | None = None,
    out_dir: str | Path | None = None,
    recorder: Any = None,
    duration: float | None = None,
) -> dict[str, Any]:
    """Run a parsed ``hand_ball_transfer`` mapping (``--set`` overrides applied by the
    caller); ``source`` is the file name for messages; ``duration`` (s) cuts it short."""
    from robotsim.hands.scenario_spec import hand_scenario_from_data

    if isinstance(data, dict) and "gripper" in data:  # one arm with a parallel gripper
        from robotsim.hands.gripper_scenario import run_gripper_data

        return run_gripper_data(data, source, mode, out_dir, recorder)
    spec, scene = hand_scenario_from_data(data, source)
    mode = mode or spec.mode or "kinematic"
    return run_hand_scenario(spec, scene, mode, out_dir, recorder, duration)


SIGNALS = (
    "ball_x",
    "ball_y",
    "ball_z",
    "grasped_L",
    "grasped_R",
    "held_by_both",
    "touch_L1",
    "touch_L2",
    "touch_L3",
    "touch_R1",
    "touch_R2",
    "touch_R3",
)


def _record(recorder: Any, s: HandsState, replay: Any = None) -> None:
    p = s.ball_position
    flags = [float(s.hands["L"].grasped), float(s.hands["R"].grasped), float(s.held_by_both)]
    touch = [float(b) for side in ("L", "R") for b in s.hands[side].touching]
    recorder.signal("hands", s.t, SIGNALS, [p[0], p[1], p[2], *flags, *touch])
    if replay is not None and s.q.size:  # the arms' and the ball's poses, for replays
        from robotsim.recording.scene import ROOT_SIGNALS, pose7, pose_values

        names, T_robot = replay
        recorder.signal(ROBOT, s.t, names, pose_values(T_robot, s.q))
        recorder.signal(BALL, s.t, ROOT_SIGNALS, pose7(s.ball_pose))


#: Names of the robot and the ball in a recorded run's scene.
ROBOT, BALL = "robot", "ball"


def scene_document(scene: HandsScene, mode: str) -> dict[str, Any]:
    """The run's 3D scene (:mod:`robotsim.recording.scene`): the robot, the ball (its
    pose recorded every tick) and the tables, on the floor."""
    from robotsim.model.geometry import Box, Sphere
    from robotsim.recording.scene import object_doc, robot_doc, scene_doc
    from robotsim.spatial import make_T

    ball = object_doc(
        BALL,
        Sphere(scene.ball.radius),
        make_T(None, scene.ball.position),
        (0.95, 0.45, 0.1, 1.0),
        moving=True,
    )
    tables = [
        object_doc(b.name, Box(tuple(b.size)), make_T(None, b.center), (0.55, 0.42, 0.3, 1.0))
        for b in scene.tables
    ]
    robot = robot_doc(ROBOT, scene.robot, scene.T_world_robot, scene.q0)
    engine = "physics" if mode == "physics" else "kinematic"
    return scene_doc(
        [robot], [ball, *tables], {"size": None, "rgba": [0.82, 0.84, 0.86, 1.0]}, engine
    )


def _mode_options(sim: HandsSim) -> dict[str, Any]:
    opts = getattr(sim, "options", None)
    if opts is None:
        return {"engine": "robotsim kinematics (bounding spheres)"}
    return {
        "engine": "mujoco",
        "timestep": opts.timestep,
        "weld_assist": opts.weld_assist,
        "squeeze_rad": opts.squeeze,
        "finger_friction": opts.finger_friction,
    }


#: Bytes a trace.csv row takes at most in practice (measured rows are 60-75 B; used to
#: check the free space before a run).
TRACE_ROW_BYTES = 80
_TRACE_HEADER = (
    "t",
    "ball_x",
    "ball_y",
    "ball_z",
    "grasped_by",
    "held_by_both",
    "L_touch",
    "R_touch",
    "ball_resting",
)


class _TraceWriter:
    """trace.csv, one row per tick as it comes (nothing held); no file for ``None``."""

    def __init__(self, path: Path | None) -> None:
        self._fh = None if path is None else path.open("w", newline="")
        self._w = None if self._fh is None else csv.writer(self._fh)
        if self._w is not None:
            self._w.writerow(_TRACE_HEADER)

    def write(self, s: HandsState) -> None:
        if self._w is None:
            return
        p = s.ball_position
        self._w.writerow(
            [
                f"{s.t:.6f}",
                f"{p[0]:.9f}",
                f"{p[1]:.9f}",
                f"{p[2]:.9f}",
                "+".join(s.grasped_by),
                int(s.held_by_both),
                "".join(str(int(b)) for b in s.hands["L"].touching),
                "".join(str(int(b)) for b in s.hands["R"].touching),
                int(s.ball_resting),
            ]
        )

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = self._w = None


def run_hand_kind(data: dict[str, Any], source: str, options: RunOptions) -> dict[str, Any]:
    """The ``kind: hand_ball_transfer`` runner of ``robotsim run`` (the arm-and-hand
    paper, :mod:`robotsim.scenario.kinds`): its script sets the length; ``--duration``
    stops it early; ``--mode`` picks kinematic (default) or physics. Records into the
    run store when ``options`` names a database or an output folder."""
    if not (options.db or options.out_dir is not None):
        return run_hand_data(data, source, options.mode, None, None, options.duration)
    with opened_recorder(options) as recorder:
        return run_hand_data(
            data, source, options.mode, options.out_dir, recorder, options.duration
        )
