"""Running a mobile scenario: :class:`MobileRun` steps the physics World with one
controller per robot at ``control_rate``, records at ``record_rate`` and keeps the
results; :func:`run_mobile` loads, runs and writes the outputs
(:mod:`robotsim.mobile.report`); :func:`run_scenario` is the ``kind: mobile`` runner
of ``robotsim run``; :func:`open_mobile` gives a ready-to-step run of a file.

The step loop (:meth:`MobileRun.step`), per control tick: sense every robot's pose,
note goals reached and the obstacle clearance, command the wheels, record, then step
the physics ``steps_per_tick`` times and count new forbidden contacts.
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.control.wheeled_base import MobileBase
from robotsim.errors import InputError, PhysicsFault
from robotsim.mobile.build import build_mobile, make_controller
from robotsim.mobile.contacts import ForbiddenContacts
from robotsim.mobile.formation import at_goal, formation_of
from robotsim.mobile.load import RobotSetup, load_mobile
from robotsim.mobile.poselog import PoseLog
from robotsim.mobile.report import run_summary, write_outputs
from robotsim.mobile.schema import MobileScenario
from robotsim.mobile.sensing import SensedAvoidance, rig_of
from robotsim.mobile.sizing import check_run_budget, check_run_disk
from robotsim.physics import World
from robotsim.recording.scene import PhysicsPoseSampler, physics_scene_doc, pose_names, write_scene
from robotsim.run_io import RunOptions, RunRecorder, opened_recorder
from robotsim.scenario_yaml import apply_overrides, read_scenario_yaml

__all__ = [
    "SIGNALS",
    "MobileRun",
    "check_run_budget",
    "open_mobile",
    "run_mobile",
    "run_scenario",
]

SIGNALS = ("x", "y", "theta", "vx", "vy", "w", "cmd_vx", "cmd_vy", "cmd_w", "clearance")


class MobileRun:
    """A mobile scenario in a physics World, stepped controller tick by tick."""

    def __init__(
        self,
        sc: MobileScenario,
        robots: list[RobotSetup],
        obstacles: np.ndarray,
        source: str = "<scenario>",
        seed: int | None = None,
        recorder: RunRecorder | None = None,
    ) -> None:
        self.formation = formation_of(sc, robots, source)
        if self.formation is not None:  # the followers' goals: their slots at the leader's
            finals = self.formation.final_goals(robots[self.formation.leader].goal)
            robots = list(robots)
            for k, i in enumerate(self.formation.followers):
                robots[i] = dataclasses.replace(robots[i], goal=finals[k])
        self.sc, self.robots, self.obstacles, self.source = sc, robots, obstacles, source
        self.seed = sc.seed if seed is None else int(seed)
        self.scene = build_mobile(sc, robots, obstacles, source)
        self.world = World(self.scene, seed=self.seed)
        self.sensors = rig_of(self.world, sc, robots, source, recorder)
        self.bases = [MobileBase(self.world, rb.name) for rb in robots]
        self.controllers = [
            make_controller(sc, rb, obstacles, b.holonomic) for rb, b in zip(robots, self.bases)
        ]
        # controllers that avoid what their lidar sees instead of the obstacle list
        self.sensed = SensedAvoidance(sc, robots, self.sensors, self.controllers, source)
        self.recorder = recorder
        # every robot's root pose and joints, every moving object's pose (exact replay)
        self.pose_sampler = PhysicsPoseSampler(self.world)
        h = self.world.timestep
        self.tick = 1.0 / sc.control_rate
        self.steps_per_tick = max(1, round(self.tick / h))
        self.tick = self.steps_per_tick * h
        self.record_every = max(1, round(sc.record_rate and (1.0 / sc.record_rate) / self.tick))
        self._setup_contacts()
        self._guard_limits()
        n = len(robots)
        # the poses (x, y, theta) of every robot at each control tick, memory bounded
        self.poses = PoseLog([rb.start for rb in robots], [rb.goal for rb in robots])
        self.reached_at: list[float | None] = [None] * n
        self.collisions = [0] * n
        self._touching = self.contacts._none
        self.min_clearance = [math.inf] * n
        self.wall_time = 0.0
        self._k = 0
        self._cmd: list[list[float]] = [[0.0, 0.0, 0.0] for _ in range(n)]
        # the database command channel (robotsim.recording.commands_run): a body twist
        # held per robot instead of its controller's, and the hook called every tick
        self.manual: list[np.ndarray | None] = [None] * n
        self.robot_contact_episodes, self._robots_touching = 0, False
        self.min_robot_gap = math.inf
        self.commands: Any = None
        # live tuning (tune): the factors in effect and each change (time s, factors)
        self.factors = {"gain": 1.0, "max_speed": 1.0, "mass": 1.0, "friction": 1.0}
        self.parameter_events: list[tuple[float, dict[str, float]]] = []
        self._tuning: list[Any] | None = None

    def _guard_limits(self) -> None:
        """Divergence as a fault (:mod:`robotsim.physics.guard`): the world is the field
        grown by max(5 m, half its longer side) on every side (and above the highest
        start); a robot's base faster than five times its fastest commanded axis speed
        (at least 5 m/s) is a fault, not a result."""
        sx, sy = (float(v) for v in self.sc.field.size)
        margin = max(5.0, 0.5 * max(sx, sy))
        pos = np.asarray(self.world.data.xpos[1:], dtype=float).reshape(-1, 3)
        lo = np.minimum([-sx / 2, -sy / 2, 0.0], pos.min(axis=0, initial=0.0)) - margin
        hi = np.maximum([sx / 2, sy / 2, 0.0], pos.max(axis=0, initial=0.0)) + margin
        self.world.set_bounds(lo, hi)
        for rb, base in zip(self.robots, self.bases):
            lim = rb.spec.controller.limits
            fastest = max(lim["x"].max_speed, lim["y"].max_speed)
            self.world.limit_speed(base.base.name, max(5.0, 5.0 * fastest))

    def _setup_contacts(self) -> None:
        # the obstacle discs [x, y, radius] as floats, for the clearance every tick
        discs = np.asarray(self.obstacles, float).reshape(-1, 3).tolist()
        self._obs_xyr = [(x, y, r) for x, y, r in discs]
        names = {f"obstacle{i + 1}" for i in range(len(self.obstacles))}
        names |= {o.name for o in self.sc.objects}
        self.contacts = ForbiddenContacts(self.world, [rb.name for rb in self.robots], names)

    def _check_contacts(self) -> None:
        touching = self.contacts.touching()
        if touching is self._touching:
            return  # the same contacts as at the previous check
        new = touching & ~self._touching
        for i in np.flatnonzero(new):
            self.collisions[i] += 1
            if self.recorder is not None:
                self.recorder.event(self.world.time, "collision", self.robots[i].name)
        self._touching = touching

    def step(self) -> None:
        """One controller tick: sense, command, step the physics, check, record.

        Per robot the tick is float arithmetic (pose, controller, wheel rates): NumPy
        on 3-vectors cost more in call overhead than the arithmetic itself."""
        t = self.world.time
        record = self._k % self.record_every == 0
        if self.formation is not None or self.sc.avoid_robots:
            self._team_tick(t, record)
        if self.sensed:  # the scans due now (the first at t = 0) become obstacles
            self.sensors.sample_due()  # type: ignore[union-attr]
            self.sensed.update()
        rec = self.recorder
        tick = self.tick
        obs = self._obs_xyr
        row: list[float] = []
        for i, (rb, base, ctrl) in enumerate(zip(self.robots, self.bases, self.controllers)):
            x, y, th = base.pose_xyt()
            if self.reached_at[i] is None and self._at_goal(i, x, y, th):
                self.reached_at[i] = t
                if rec is not None:
                    rec.event(t, "goal_reached", rb.name, {"pose": [x, y, th]})
            gap = math.inf
            if obs:
                for ox, oy, r in obs:
                    g = math.hypot(ox - x, oy - y) - r
                    if g < gap:
                        gap = g
                gap -= rb.radius
                if gap < self.min_clearance[i]:
                    self.min_clearance[i] = gap
            held = self.manual[i]
            if held is None:
                cmd = ctrl.command_xyt(x, y, th, tick)
            else:
                cmd = ctrl.limiter.limit(np.asarray(held, dtype=np.float64).tolist(), tick)
            base.set_twist_xyw(*cmd)
            self._cmd[i] = cmd
            row += (x, y, th)
            if record and rec is not None:
                vals = [x, y, th, *base.twist_xyw(), *cmd, gap if gap < math.inf else -1.0]
                rec.signal(rb.name, t, SIGNALS, vals)
        if record and rec is not None:
            self.pose_sampler.record(rec, t)
        self.poses.add(t, row)
        if self.sensors is None:
            self.world.step(self.steps_per_tick)
        else:  # the same steps, the sensors sampled at their rates in between
            self.sensors.step(self.steps_per_tick)
        self._check_contacts()
        self._k += 1

    def scene_doc(self) -> dict[str, Any]:
        """The run's 3D scene for the run store (:mod:`robotsim.recording.scene`): the
        physics scene, the field as the ground and the field framed as in the studio."""
        sx, sy = (float(v) for v in self.sc.field.size)
        ground = {"size": [sx, sy], "rgba": [95 / 255, 150 / 255, 95 / 255, 1.0]}
        view = np.array([[-sx / 2, -sy / 2, 0.0], [sx / 2, sy / 2, 0.5]])
        return physics_scene_doc(self.scene, ground, view)

    def _at_goal(self, i: int, x: float, y: float, th: float) -> bool:
        """At the controller's goal; a follower of a formation: at its final slot."""
        if self.formation is not None and i in self.formation.followers:
            return at_goal(np.array([x, y, th]), self.robots[i].goal, self.controllers[i].config)
        return self.controllers[i].at_goal_xyt(x, y, th)

    def _team_tick(self, t: float, record: bool) -> None:
        """Formations and robots avoiding robots: the followers' goals move to their
        slots at the leader's pose; each avoiding controller sees the others as discs."""
        poses = np.array([b.pose() for b in self.bases])
        self._robot_contacts(poses)
        if self.formation is not None:
            lead = self.bases[self.formation.leader].twist()
            err = self.formation.update(t, poses, self.controllers, lead)
            if record and self.recorder is not None:
                for k, i in enumerate(self.formation.followers):
                    self.recorder.signal(self.robots[i].name, t, ("formation_error",), [err[k]])
        if self.sc.avoid_robots or self.formation is not None:
            discs = np.column_stack([poses[:, :2], [rb.radius for rb in self.robots]])
            for i, ctrl in enumerate(self.controllers):
                if i in self.sensed.sensed:
                    continue  # it sees the other robots with its lidar
                others = np.delete(discs, i, axis=0)
                ctrl.obstacles = np.vstack([self.obstacles.reshape(-1, 3), others])

    def _robot_contacts(self, poses: np.ndarray) -> None:
        """Robot-robot contact episodes (MuJoCo contacts between two robots' geoms) and
        the smallest gap between footprint discs."""
        d = self.world.data
        touching = False
        if d.ncon:
            o = self.contacts.geom_owner[d.contact.geom]
            touching = bool(np.any((o[:, 0] >= 0) & (o[:, 1] >= 0) & (o[:, 0] != o[:, 1])))
        if touching and not self._robots_touching:
            self.robot_contact_episodes += 1
        self._robots_touching = touching
        r = np.array([rb.radius for rb in self.robots])
        if len(r) > 1:
            dist = np.hypot(*(poses[:, None, :2] - poses[None, :, :2]).transpose(2, 0, 1))
            gap = dist - r[:, None] - r[None, :]
            np.fill_diagonal(gap, np.inf)
            self.min_robot_gap = min(self.min_robot_gap, float(gap.min()))

    def tune(
        self,
        gain: float | None = None,
        max_speed: float | None = None,
        mass: float | None = None,
        friction: float | None = None,
    ) -> dict[str, float]:
        """Change parameters of the running simulation (seed 002's entry of control and
        model parameters from the gamepad or keyboard; the studio passes its live
        parameters, :mod:`robotsim.teleop.params`): every controller's PID gains at
        ``gain`` x and speed limits at ``max_speed`` x the scenario's, every robot's
        masses at ``mass`` x and contact friction at ``friction`` x the model's
        (:class:`~robotsim.physics.tuning.RobotTuning`). Factors left out keep their
        value. A change is an event ``parameters`` at the current time (recorded when a
        recorder is attached; :attr:`parameter_events` keeps them); returns the factors
        now in effect."""
        from robotsim.physics.tuning import RobotTuning

        new = {"gain": gain, "max_speed": max_speed, "mass": mass, "friction": friction}
        given = {k: float(v) for k, v in new.items() if v is not None}
        changed = {k: v for k, v in given.items() if v != self.factors[k]}
        if not changed:
            return dict(self.factors)
        if self._tuning is None:
            self._tuning = [RobotTuning(self.world, rb.name) for rb in self.robots]
        if "gain" in changed or "max_speed" in changed:
            g = changed.get("gain", self.factors["gain"])
            v = changed.get("max_speed", self.factors["max_speed"])
            for ctrl in self.controllers:
                ctrl.set_scales(gain=g, max_speed=v)
        for tuning in self._tuning:
            tuning.set(mass=changed.get("mass"), friction=changed.get("friction"))
        self.factors.update(changed)
        t = self.world.time
        self.parameter_events.append((t, dict(changed)))
        if self.recorder is not None:
            self.recorder.event(t, "parameters", None, {k: self.factors[k] for k in changed})
        return dict(self.factors)

    def robot_collisions(self) -> dict[str, Any]:
        """Robot-robot contact episodes and the smallest footprint gap (m) seen."""
        gap = self.min_robot_gap
        return {"episodes": self.robot_contact_episodes,
                "min_footprint_gap_m": gap if math.isfinite(gap) else None}  # fmt: skip

    def run(self, duration: float | None = None, progress: Any = None) -> None:
        total = self.sc.duration if duration is None else float(duration)
        check_run_budget(total, self.tick, len(self.robots), self.formation is not None)
        self.world.check_work(total, self.source)
        ticks = round(total / self.tick)
        t0 = time.perf_counter()
        for k in range(ticks):
            if self.commands is not None and not self.commands.before_tick():
                break  # a stop command
            self.step()
            if (
                self.sc.stop_when_all_reached
                and self.commands is None
                and all(r is not None for r in self.reached_at)
            ):
                break
            if progress is not None and k % 50 == 0:
                progress(k, ticks)
        self.wall_time += time.perf_counter() - t0

    @property
    def samples(self) -> list[np.ndarray]:
        """Per robot, its poses ``(K, 3)`` (x, y, theta) at every control tick (a run
        too long to hold: its envelope, :class:`~robotsim.mobile.poselog.PoseLog`)."""
        return [self.poses.poses(i)[1] for i in range(len(self.robots))]

    @property
    def times(self) -> np.ndarray:
        """The control ticks' times ``(K,)`` (s) (a run too long to hold: the first
        robot's envelope times)."""
        return self.poses.poses(0)[0] if self.robots else np.zeros(0)

    def results(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for i, rb in enumerate(self.robots):
            metrics = self.poses.metrics(i)
            final = self.bases[i].pose()
            err = float(np.hypot(*(rb.goal[:2] - final[:2])))
            clear = self.min_clearance[i]
            out[rb.name] = {
                "model": rb.spec.model,
                "reached_goal": self.reached_at[i] is not None,
                "time_to_goal": self.reached_at[i],
                "path_length": metrics["path_length"],
                "overshoot": metrics["overshoot"],
                "overshoot_pct": metrics["overshoot_pct"],
                "min_obstacle_clearance": clear if math.isfinite(clear) else None,
                "collisions": self.collisions[i],
                "final_pose": [float(final[0]), float(final[1]), float(final[2])],
                "final_position_error": err,
                "start": rb.start.tolist(),
                "goal": rb.goal.tolist(),
                "footprint_radius": rb.radius,
            }
        return out


def open_mobile(
    path: str | Path,
    seed: int | None = None,
    overrides: list[str] | None = None,
    recorder: RunRecorder | None = None,
) -> MobileRun:
    """A ready-to-step :class:`MobileRun` for a scenario file (for viewers and servers:
    ``run.step()`` advances one control tick, ``run.world.state()`` gives the poses)."""
    source = str(path)
    data = read_scenario_yaml(path)
    if overrides:
        data = apply_overrides(data, list(overrides), source)
    sc, robots, obstacles = load_mobile(data, source, seed)
    return MobileRun(sc, robots, obstacles, source, seed, recorder)


def run_mobile(
    data: dict[str, Any],
    source: str,
    out_dir: str | Path | None = None,
    duration: float | None = None,
    seed: int | None = None,
    recorder: RunRecorder | None = None,
    progress: Any = None,
    commands: bool = False,
) -> dict[str, Any]:
    """Load, run and (with ``out_dir``) write ``summary.json``, ``map.png`` and the plots
    the file asks for; returns the summary. ``commands``: obey the run store's
    ``commands`` table in real time (docs/commands.md; needs a recording run store)."""
    sc, robots, obstacles = load_mobile(data, source, seed)
    run = MobileRun(sc, robots, obstacles, source, seed, recorder)
    total = sc.duration if duration is None else float(duration)
    check_run_budget(total, run.tick, len(run.robots), run.formation is not None)
    run.world.check_work(total, source)  # before anything is recorded
    if recorder is not None:
        period = run.record_every * run.tick
        per_robot = len(SIGNALS) + max((len(pose_names(rb.model)) for rb in robots), default=0)
        sensed = 0.0 if run.sensors is None else run.sensors.bytes_per_second()
        check_run_disk(total, period, len(run.robots), per_robot, recorder, sensed)
        recorder.start_run(
            sc.name, {"file": source, "duration": duration or sc.duration}, seed=run.seed
        )
        write_scene(recorder, run.scene_doc())
    if commands:
        run.commands = _open_commands(run, recorder)
    status = "failed"
    fault: PhysicsFault | None = None
    try:
        run.run(duration, progress)
        status = "completed"
    except PhysicsFault as exc:  # divergence: the run stops, its summary says where
        fault = exc
        if recorder is not None:
            recorder.event(run.world.time, "fault", None, exc.fault.to_json())
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        if run.commands is not None:
            run.commands.close()
        if recorder is not None:
            recorder.finish(status, None if fault is None else str(fault))
    summary = run_summary(run, source, duration)
    if fault is not None:
        summary["fault"] = fault.fault.to_json()
    if out_dir is not None:
        write_outputs(run, summary, out_dir, recorder)
    return summary


def _open_commands(run: MobileRun, recorder: RunRecorder | None) -> Any:
    """The command channel on the recorder's run store, for its run."""
    import sys

    from robotsim.recording.commands import CommandChannel
    from robotsim.recording.commands_run import RunCommands

    engine, run_id = getattr(recorder, "engine", None), getattr(recorder, "run_id", None)
    if engine is None or run_id is None:
        raise InputError("--commands needs a run store: give --db (or --out)")
    hook = RunCommands(CommandChannel(engine, run_id), run)
    hook.publish()
    print(f"run {run_id} takes commands: robotsim command --db URL {run_id} ...", file=sys.stderr)
    return hook


def run_scenario(data: dict[str, Any], source: str, options: RunOptions) -> dict[str, Any]:
    """The ``kind: mobile`` runner (:mod:`robotsim.scenario.kinds`): physics only;
    records into the run store when ``options`` names a database or an output folder."""
    if options.mode not in (None, "physics"):
        raise InputError(f"--mode {options.mode!r}: mobile scenarios run in physics only")
    with opened_recorder(options) as recorder:
        return run_mobile(
            data,
            source,
            options.out_dir,
            options.duration,
            options.seed,
            recorder,
            options.progress,
            bool(options.extra.get("commands")),
        )
