"""``kind: mobile`` scenarios: wheeled robots driving to goals among obstacles.

:func:`load_mobile` validates a parsed file (schema and the checks a schema cannot do:
robot names, drives, obstacles overlapping a start or goal, positions on the field);
:func:`build_mobile` turns it into a physics Scene; :class:`MobileRun` steps the world
with one controller per robot at ``control_rate``, records at ``record_rate`` and keeps
the results; :func:`run_mobile` does all of it and writes the outputs.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from robotsim.control.base import MobileBase
from robotsim.control.limits import AxisLimit
from robotsim.control.mobile import MobileController, MobileControllerConfig
from robotsim.control.pid import PIDGains
from robotsim.errors import RobotsimError, ScenarioError
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Sphere
from robotsim.model.robot import RobotModel
from robotsim.physics import Body, ContactSurface, Joint, Motor, RobotPlacement, Scene, World
from robotsim.physics.drives import drive_kind, wheel_joints
from robotsim.scenario.metrics import axis_overshoot_pct, overshoot, path_length
from robotsim.scenario.recorder import RunRecorder
from robotsim.scenario.schema import (
    MobileScenario,
    ObjectSpec,
    RobotSpec,
    SurfaceSpec,
    format_validation_error,
)
from robotsim.spatial import make_T, rot_z, rpy_to_R

__all__ = ["MobileRun", "RobotSetup", "build_mobile", "load_mobile", "open_mobile", "run_mobile"]

SIGNALS = ("x", "y", "theta", "vx", "vy", "w", "cmd_vx", "cmd_vy", "cmd_w", "clearance")


@dataclass(frozen=True)
class RobotSetup:
    """One robot after expanding ``count``: SI units, radians."""

    name: str
    spec: RobotSpec
    model: RobotModel
    start: np.ndarray
    goal: np.ndarray
    path: np.ndarray
    radius: float


def _angle(sc: MobileScenario, v: float) -> float:
    return math.radians(v) if sc.units.angle == "deg" else float(v)


def footprint_radius(model: RobotModel) -> float:
    """Radius (m) of the smallest vertical cylinder about the root holding every
    collision shape at q = 0 (shapes by their bounding spheres)."""
    poses = model.fk_all(model.zero())
    best = 0.0
    for i, link in enumerate(model.links):
        for sh in link.collisions:
            c = (poses[i] @ sh.T_link_shape)[:3, 3]
            g = sh.geometry
            if isinstance(g, Sphere):
                r = g.radius
            elif isinstance(g, Cylinder):
                r = math.hypot(g.radius, g.length / 2)
            elif isinstance(g, Capsule):
                r = g.radius + g.length / 2
            elif isinstance(g, Box):
                r = 0.5 * math.sqrt(sum(s * s for s in g.size))
            elif isinstance(g, Ellipsoid):
                r = max(g.radii)
            else:
                r = 0.0
            best = max(best, math.hypot(c[0], c[1]) + r)
    return best if best > 0 else 0.3


def _load_model(name: str, where: str, source: str, base: Path) -> RobotModel:
    from robotsim.model import library_names, load_robot

    candidate = (base / name) if not Path(name).is_absolute() else Path(name)
    target = str(candidate) if candidate.suffix and candidate.exists() else name
    try:
        return load_robot(target)
    except RobotsimError as exc:
        if target == name and name not in library_names():
            raise ScenarioError(
                f"{source}: {where}: unknown robot {name!r}; valid: "
                f"{', '.join(library_names())} or a robot file"
            ) from None
        raise ScenarioError(f"{source}: {where}: {exc}") from None


def load_mobile(
    data: dict[str, Any], source: str = "<scenario>", seed: int | None = None
) -> tuple[MobileScenario, list[RobotSetup], np.ndarray]:
    """Validate; returns the scenario, the expanded robots and the obstacles ``(N, 3)``
    ``[x, y, radius]`` (the random layout drawn from ``seed`` or the file's seed)."""
    try:
        sc = MobileScenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(exc, MobileScenario, source)) from None
    base = Path(source).resolve().parent if source != "<scenario>" else Path.cwd()
    models: dict[str, RobotModel] = {}
    robots: list[RobotSetup] = []
    hx, hy = sc.field.size[0] / 2, sc.field.size[1] / 2
    for i, r in enumerate(sc.robots):
        if r.model not in models:
            models[r.model] = _load_model(r.model, f"robots[{i}].model", source, base)
        model = models[r.model]
        if drive_kind(model) is None:
            raise ScenarioError(
                f"{source}: robots[{i}].model: robot {r.model!r} has no wheel "
                f"drive (metadata 'omni:' or 'diffdrive:'); it cannot drive"
            )
        for k in range(r.count):
            off = np.array([r.spacing[0] * k, r.spacing[1] * k, 0.0])
            start = np.array([r.start[0], r.start[1], _angle(sc, r.start[2])]) + off
            g = r.goal if r.goal is not None else r.start
            goal = np.array([g[0], g[1], _angle(sc, g[2])]) + off
            path = np.array(r.path, dtype=float).reshape(-1, 2) + off[:2]
            name = r.name if r.count == 1 else f"{r.name}{k + 1}"
            for label, p in (("start", start), ("goal", goal)):
                if abs(p[0]) > hx or abs(p[1]) > hy:
                    raise ScenarioError(
                        f"{source}: robots[{i}].{label}: ({p[0]:g}, {p[1]:g}) is "
                        f"outside the field ({2 * hx:g} x {2 * hy:g} m, centred "
                        f"on the origin)"
                    )
            robots.append(RobotSetup(name, r, model, start, goal, path, footprint_radius(model)))
    names = [r.name for r in robots]
    if len(set(names)) != len(names):
        raise ScenarioError(f"{source}: robots: expanded robot names collide: {names}")
    if sc.robots_collide:
        for k, a in enumerate(robots):
            for b in robots[k + 1 :]:
                gap = float(np.hypot(*(a.start[:2] - b.start[:2]))) - a.radius - b.radius
                if gap < 0:
                    raise ScenarioError(
                        f"{source}: robots: the starts of {a.name!r} at ({a.start[0]:g}, "
                        f"{a.start[1]:g}) and {b.name!r} at ({b.start[0]:g}, {b.start[1]:g}) "
                        f"overlap by {-gap:.2f} m; move them apart or set robots_collide: false"
                    )
    obstacles = _obstacles(sc, robots, source, sc.seed if seed is None else seed)
    return sc, robots, obstacles


def _obstacles(sc: MobileScenario, robots: list[RobotSetup], source: str, seed: int) -> np.ndarray:
    ob = sc.obstacles
    r = ob.diameter / 2
    if ob.layout == "fixed":
        pts = np.array(ob.positions, dtype=float).reshape(-1, 2)
        for i, p in enumerate(pts):
            for rb in robots:
                for label, q in (("start", rb.start), ("goal", rb.goal)):
                    gap = float(np.hypot(*(p - q[:2]))) - r - rb.radius
                    if gap < 0:
                        raise ScenarioError(
                            f"{source}: obstacles.positions[{i}]: obstacle at ({p[0]:g}, "
                            f"{p[1]:g}) overlaps the {label} of robot {rb.name!r} at "
                            f"({q[0]:g}, {q[1]:g}) by {-gap:.2f} m"
                        )
        return np.column_stack([pts, np.full(len(pts), r)]) if len(pts) else np.zeros((0, 3))
    rnd = ob.random
    rng = np.random.default_rng(seed)
    (x0, y0), (x1, y1) = rnd.region
    keep = [q[:2] for rb in robots for q in (rb.start, rb.goal)]
    clear = [rnd.keep_clear + r + rb.radius for rb in robots for _ in (0, 1)]
    placed: list[np.ndarray] = []
    for _ in range(20000):
        if len(placed) == rnd.count:
            break
        p = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])
        if any(np.hypot(*(p - q)) < c for q, c in zip(keep, clear)):
            continue
        if any(np.hypot(*(p - q)) < 2 * r + rnd.min_gap for q in placed):
            continue
        placed.append(p)
    if len(placed) < rnd.count:
        raise ScenarioError(
            f"{source}: obstacles.random: placed only {len(placed)} of "
            f"{rnd.count} obstacles in the region with min_gap "
            f"{rnd.min_gap:g} m; enlarge the region or lower the count"
        )
    pts = np.array(placed).reshape(-1, 2)
    return np.column_stack([pts, np.full(len(pts), r)]) if len(pts) else np.zeros((0, 3))


def _surface(s: SurfaceSpec) -> ContactSurface:
    return ContactSurface(**s.model_dump())


def _object_body(o: ObjectSpec, base: Path, idx: int, source: str) -> Body:
    sh = o.shape
    where = f"{source}: objects[{idx}].shape"

    def need(value: Any, field: str) -> Any:
        if value is None:
            raise ScenarioError(f"{where}.{field}: required for a {sh.type}")
        return value

    if sh.type == "box":
        geom: Any = Box(tuple(need(sh.size, "size")))
    elif sh.type == "sphere":
        geom = Sphere(need(sh.radius, "radius"))
    elif sh.type == "cylinder":
        geom = Cylinder(need(sh.radius, "radius"), need(sh.length, "length"))
    elif sh.type == "capsule":
        geom = Capsule(need(sh.radius, "radius"), need(sh.length, "length"))
    elif sh.type == "ellipsoid":
        geom = Ellipsoid(tuple(need(sh.radii, "radii")))
    else:
        f = Path(need(sh.file, "file"))
        f = f if f.is_absolute() else base / f
        if not f.exists():
            raise ScenarioError(f"{where}.file: {f} does not exist")
        geom = Mesh(f, (sh.scale, sh.scale, sh.scale))
    T = make_T(rpy_to_R(np.radians(o.rpy)), o.position)
    return Body(
        o.name,
        geom,
        T,
        joint=Joint("free") if o.free else None,
        mass=o.mass,
        surface=f"object:{o.name}" if o.surface is not None else None,
    )


def build_mobile(
    sc: MobileScenario, robots: list[RobotSetup], obstacles: np.ndarray, source: str = "<scenario>"
) -> Scene:
    """The physics Scene: field plane, obstacle cylinders, objects, robots at their starts."""
    base = Path(source).resolve().parent if source != "<scenario>" else Path.cwd()
    bodies: list[Body] = []
    h = sc.obstacles.height
    for i, (x, y, r) in enumerate(obstacles):
        bodies.append(
            Body(
                f"obstacle{i + 1}",
                Cylinder(r, h),
                make_T(None, [x, y, h / 2]),
                rgba=(0.85, 0.45, 0.1, 1.0),
            )
        )
    surfaces: dict[str, ContactSurface] = {}
    for i, o in enumerate(sc.objects):
        bodies.append(_object_body(o, base, i, source))
        if o.surface is not None:
            surfaces[f"object:{o.name}"] = _surface(o.surface)
    placements = []
    for rb in robots:
        motor_force = rb.spec.motor.force
        motors = {}
        for jn in wheel_joints(rb.model, drive_kind(rb.model) or ""):
            effort = rb.model.joint(jn).limits.effort
            force = (
                motor_force
                if motor_force is not None
                else (effort if math.isfinite(effort) else 5.0)
            )
            motors[jn] = Motor("velocity", gain=rb.spec.motor.gain, force=force)
        T = make_T(rot_z(rb.start[2]), [rb.start[0], rb.start[1], 0.0])
        placements.append(
            RobotPlacement(
                rb.name,
                rb.model,
                T,
                motors=motors,
                default_motor=None,
                collide_with_robots=sc.robots_collide,
            )
        )
    return Scene(
        bodies=tuple(bodies),
        robots=tuple(placements),
        surfaces=surfaces,
        default_surface=_surface(sc.contact),
        timestep=sc.timestep,
        name=sc.name,
    )


def _controller(
    sc: MobileScenario, rb: RobotSetup, obstacles: np.ndarray, holonomic: bool
) -> MobileController:
    c = rb.spec.controller
    ang = math.radians(1.0) if sc.units.angle == "deg" else 1.0
    gains = []
    limits = []
    for axis in ("x", "y", "theta"):
        g = c.gains.get(axis)
        g = g if g is not None else type(next(iter(c.gains.values())))()
        gains.append(PIDGains(kp=g.kp, ki=g.ki, kd=g.kd, integral_limit=g.integral_limit))
        lm = c.limits.get(axis)
        scale = ang if axis == "theta" else 1.0
        if lm is None:
            limits.append(AxisLimit())
        else:
            limits.append(AxisLimit(lm.max_speed * scale, lm.accel * scale, lm.decel * scale))
    cfg = MobileControllerConfig(
        gains=(gains[0], gains[1], gains[2]),
        limits=(limits[0], limits[1], limits[2]),
        avoidance=c.avoidance,
        robot_radius=rb.radius,
        safety_margin=c.safety_margin,
        position_tolerance=c.tolerance.position,
        heading_tolerance=c.tolerance.heading * ang,
        lookahead=c.lookahead,
        holonomic=holonomic,
    )
    return MobileController(
        cfg, rb.goal, path=rb.path if len(rb.path) else None, obstacles=obstacles
    )


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
        self.sc, self.robots, self.obstacles, self.source = sc, robots, obstacles, source
        self.seed = sc.seed if seed is None else int(seed)
        self.scene = build_mobile(sc, robots, obstacles, source)
        self.world = World(self.scene, seed=self.seed)
        self.bases = [MobileBase(self.world, rb.name) for rb in robots]
        self.controllers = [
            _controller(sc, rb, obstacles, b.holonomic) for rb, b in zip(robots, self.bases)
        ]
        self.recorder = recorder
        h = self.world.timestep
        self.tick = 1.0 / sc.control_rate
        self.steps_per_tick = max(1, round(self.tick / h))
        self.tick = self.steps_per_tick * h
        self.record_every = max(1, round(sc.record_rate and (1.0 / sc.record_rate) / self.tick))
        self._setup_contacts()
        n = len(robots)
        self.samples: list[list[np.ndarray]] = [[] for _ in range(n)]
        self.times: list[float] = []
        self.reached_at: list[float | None] = [None] * n
        self.collisions = [0] * n
        self._touching = np.zeros(n, dtype=bool)
        self.min_clearance = [math.inf] * n
        self.wall_time = 0.0
        self._k = 0
        self._cmd = [np.zeros(3) for _ in range(n)]

    def _setup_contacts(self) -> None:
        m = self.world.model
        owner = np.full(m.nbody, -1, dtype=int)
        for i, rb in enumerate(self.robots):
            for b, name in enumerate(self.world.body_names):
                if name.startswith(rb.name + "/"):
                    owner[b] = i
        self._owner = owner
        self._geom_owner = owner[m.geom_bodyid]
        obstacle_geom = np.zeros(m.ngeom, dtype=bool)
        names = {f"obstacle{i + 1}" for i in range(len(self.obstacles))}
        names |= {o.name for o in self.sc.objects}
        for g in range(m.ngeom):
            obstacle_geom[g] = self.world.body_names[m.geom_bodyid[g]] in names
        self._geom_obstacle = obstacle_geom
        # hit tables: [geom1, geom2] -> robot index touching something it must not (a
        # robot geom against an obstacle/object or another robot), else n ("nobody")
        o = self._geom_owner
        n = len(self.robots)
        o1, o2 = o[:, None], o[None, :]
        ob1, ob2 = obstacle_geom[:, None], obstacle_geom[None, :]
        hit1 = (o1 >= 0) & (ob2 | ((o2 >= 0) & (o2 != o1)))
        hit2 = (o2 >= 0) & (ob1 | ((o1 >= 0) & (o1 != o2)))
        self._hit1 = np.where(hit1, np.broadcast_to(o1, hit1.shape), n)
        self._hit2 = np.where(hit2, np.broadcast_to(o2, hit2.shape), n)

    def _check_contacts(self) -> None:
        d = self.world.data
        touching = np.zeros(len(self.robots) + 1, dtype=bool)  # last slot: "nobody"
        if d.ncon:
            geom = d.contact.geom
            touching[self._hit1[geom[:, 0], geom[:, 1]]] = True
            touching[self._hit2[geom[:, 0], geom[:, 1]]] = True
        touching = touching[:-1]
        new = touching & ~self._touching
        for i in np.flatnonzero(new):
            self.collisions[i] += 1
            if self.recorder is not None:
                self.recorder.event(self.world.time, "collision", self.robots[i].name)
        self._touching = touching

    def step(self) -> None:
        """One controller tick: sense, command, step the physics, check, record."""
        t = self.world.time
        record = self._k % self.record_every == 0
        for i, (rb, base, ctrl) in enumerate(zip(self.robots, self.bases, self.controllers)):
            pose = base.pose()
            if self.reached_at[i] is None and ctrl.at_goal(pose):
                self.reached_at[i] = t
                if self.recorder is not None:
                    self.recorder.event(t, "goal_reached", rb.name, {"pose": pose.tolist()})
            gap = math.inf
            if len(self.obstacles):
                gap = float(
                    (
                        np.hypot(self.obstacles[:, 0] - pose[0], self.obstacles[:, 1] - pose[1])
                        - self.obstacles[:, 2]
                    ).min()
                    - rb.radius
                )
                self.min_clearance[i] = min(self.min_clearance[i], gap)
            cmd = ctrl.command(pose, self.tick)
            base.set_twist(cmd)
            self._cmd[i] = cmd
            tw = base.twist() if record else None
            self.samples[i].append(pose)
            if record and self.recorder is not None and tw is not None:
                vals = np.concatenate([pose, tw, cmd, [gap if math.isfinite(gap) else -1.0]])
                self.recorder.signal(rb.name, t, SIGNALS, vals)
        self.times.append(t)
        self.world.step(self.steps_per_tick)
        self._check_contacts()
        self._k += 1

    def run(self, duration: float | None = None, progress: Any = None) -> None:
        total = self.sc.duration if duration is None else float(duration)
        ticks = round(total / self.tick)
        t0 = time.perf_counter()
        for k in range(ticks):
            self.step()
            if self.sc.stop_when_all_reached and all(r is not None for r in self.reached_at):
                break
            if progress is not None and k % 50 == 0:
                progress(k, ticks)
        self.wall_time += time.perf_counter() - t0

    def results(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for i, rb in enumerate(self.robots):
            poses = np.array(self.samples[i]) if self.samples[i] else rb.start[None, :]
            final = self.bases[i].pose()
            err = float(np.hypot(*(rb.goal[:2] - final[:2])))
            clear = self.min_clearance[i]
            out[rb.name] = {
                "model": rb.spec.model,
                "reached_goal": self.reached_at[i] is not None,
                "time_to_goal": self.reached_at[i],
                "path_length": path_length(poses[:, :2]),
                "overshoot": overshoot(poses[:, :2], rb.start, rb.goal),
                "overshoot_pct": axis_overshoot_pct(poses, rb.start, rb.goal),
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
    from robotsim.scenario.schema import apply_overrides, read_scenario_yaml

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
) -> dict[str, Any]:
    """Load, run and (with ``out_dir``) write ``summary.json``, ``map.png`` and the plots
    the file asks for; returns the summary."""
    import json

    from robotsim.cli.common import to_jsonable

    sc, robots, obstacles = load_mobile(data, source, seed)
    run = MobileRun(sc, robots, obstacles, source, seed, recorder)
    if recorder is not None:
        recorder.start_run(
            sc.name, {"file": source, "duration": duration or sc.duration}, seed=run.seed
        )
    status = "failed"
    try:
        run.run(duration, progress)
        status = "completed"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        if recorder is not None:
            recorder.finish(status)
    summary = _summary(run, source, duration)
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        from robotsim import plots

        outputs = {"summary": "summary.json", "map": "map.png"}  # the map always
        plots.save_map(
            out / "map.png",
            sc.field.size,
            obstacles,
            _trajectories(run),
            title=f"{sc.name} (seed {run.seed})",
            markings=sc.field.markings,
            objects=_objects(run),
        )
        if "response" in sc.plots:
            plots.save_responses(out / "response.png", _responses(run))
            outputs["response"] = "response.png"
        if recorder is not None and hasattr(recorder, "signals_path"):
            outputs["recording"] = Path(recorder.signals_path).name
            outputs["events"] = Path(recorder.events_path).name
        summary["outputs"] = outputs
        (out / "summary.json").write_text(json.dumps(to_jsonable(summary), indent=2))
    return summary


def _trajectories(run: MobileRun) -> list[dict[str, Any]]:
    out = []
    for i, rb in enumerate(run.robots):
        poses = np.array(run.samples[i]) if run.samples[i] else rb.start[None, :]
        out.append(
            {
                "name": rb.name,
                "xy": poses[:, :2],
                "start": rb.start,
                "goal": rb.goal,
                "radius": rb.radius,
                "tolerance": rb.spec.controller.tolerance.position,
                "color": rb.spec.color,
            }
        )
    return out


def _objects(run: MobileRun) -> list[dict[str, Any]]:
    """Scene objects at their final poses, as the map draws them."""
    out: list[dict[str, Any]] = []
    names = {o.name for o in run.sc.objects}
    for b in run.scene.bodies:
        if b.name not in names:
            continue
        T = run.world.body(b.name).pose
        ob: dict[str, Any] = {"name": b.name, "xy": (float(T[0, 3]), float(T[1, 3]))}
        g = b.shape
        if isinstance(g, Box):
            ob.update(size=(g.size[0], g.size[1]), yaw=math.atan2(T[1, 0], T[0, 0]))
        elif isinstance(g, Sphere | Cylinder | Capsule):
            ob["radius"] = g.radius
        elif isinstance(g, Ellipsoid):
            ob["radius"] = max(g.radii[:2])
        else:
            ob["radius"] = 0.2
        out.append(ob)
    return out


def _responses(run: MobileRun) -> list[dict[str, Any]]:
    from robotsim.scenario.metrics import normalised_response

    out = []
    t = np.array(run.times)
    for i, rb in enumerate(run.robots):
        poses = np.array(run.samples[i])
        out.append(
            {
                "name": rb.name,
                "t": t[: len(poses)],
                "response": normalised_response(poses, rb.start, rb.goal),
                "time_to_goal": run.reached_at[i],
            }
        )
    return out


def _summary(run: MobileRun, source: str, duration: float | None) -> dict[str, Any]:
    sc = run.sc
    sim_time = run.world.time
    summary: dict[str, Any] = {
        "scenario": sc.name,
        "kind": sc.kind,
        "file": source,
        "seed": run.seed,
        "duration": sc.duration if duration is None else duration,
        "sim_time": sim_time,
        "wall_time_s": run.wall_time,
        "real_time_factor": sim_time / run.wall_time if run.wall_time > 0 else None,
        "timestep": run.world.timestep,
        "control_rate": 1.0 / run.tick,
        "obstacles": [[float(x), float(y), float(2 * r)] for x, y, r in run.obstacles],
        "robots": run.results(),
    }
    if sc.reference is not None:
        comp = {}
        for name, theirs in sc.reference.time_to_goal.items():
            ours = summary["robots"].get(name, {}).get("time_to_goal")
            comp[name] = {"ours_s": ours, "paper_s": theirs}
        summary["reference"] = {
            "source": sc.reference.source,
            "time_to_goal": comp,
            "notes": sc.reference.notes,
        }
    return summary
