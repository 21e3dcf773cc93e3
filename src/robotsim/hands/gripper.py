"""A parallel gripper picks a ball in MuJoCo: the smallest general grasp for any arm whose
robot profile finds a gripper (e.g. the Franka Panda URDF), beside the two-arm hands.

Everything comes from the profile (:mod:`robotsim.profile`): the arm joints, the tool
frame (between the fingertips), the finger joints and the fingertip frames. The run:
the arm moves by IK (tool pointing down) above the ball on its table, descends around
it, the fingers close on position servos whose force limit is the joints' effort (they
press the ball, the ball is carried by friction alone), the arm lifts and holds, the
fingers open and the ball falls. Events, per control tick:

- ``touch``: a fingertip's link starts touching the ball (MuJoCo contacts);
- ``grasp``: every finger touches;
- ``release``: fewer than two fingers touch after a grasp;
- ``landed``: the released ball touches the table or the ground.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robotsim.errors import InputError
from robotsim.model.geometry import Box, Sphere
from robotsim.model.robot import RobotModel

__all__ = ["GripperGrasp", "GripperOptions", "gripper_grasp"]

ROBOT = "arm"


@dataclass(frozen=True)
class GripperOptions:
    """Ball (m, kg) and table, the approach (m above the ball's centre), the lift (m),
    servo gains of the arm (N m/rad, N m s/rad), finger friction, timing (s)."""

    ball_radius: float = 0.025
    ball_mass: float = 0.05
    ball_xy: tuple[float, float] = (0.5, 0.0)
    table_height: float = 0.3
    approach: float = 0.12
    lift: float = 0.15
    arm_gain: float = 2000.0
    arm_damping: float = 100.0
    finger_friction: float = 1.5
    dt: float = 0.01
    move_time: float = 1.5
    hold_time: float = 1.0


@dataclass(frozen=True)
class GripperGrasp:
    """Outcome: ``events`` ``(t s, kind, finger or None)``, the ball's path ``(T, 3)`` and
    times ``(T,)``, and the ball's height above the table while held (m)."""

    events: tuple[tuple[float, str, str | None], ...]
    t: np.ndarray
    ball: np.ndarray
    held_lift: float
    fingertips: tuple[str, ...]
    extra: dict[str, Any] = field(default_factory=dict)

    def kinds(self) -> list[str]:
        return [k for _, k, _ in self.events]


def _scene(model: RobotModel, o: GripperOptions, fingers: tuple[str, ...]) -> Any:
    from robotsim.physics import Body, ContactSurface, Joint, Motor, RobotPlacement, Scene
    from robotsim.spatial import make_T

    motors = {}
    for j in model.joint_names:
        lim = model.joint(j).limits
        if j in fingers:  # press with the joint's rated force
            force = lim.effort if np.isfinite(lim.effort) else 20.0
            motors[j] = Motor("position", gain=2000.0, damping=20.0, force=force)
        else:
            motors[j] = Motor("position", gain=o.arm_gain, damping=o.arm_damping)
    h = o.table_height
    x, y = o.ball_xy
    bodies = (
        Body("table", Box((0.2, 0.2, h)), make_T(None, [x, y, h / 2])),
        Body(
            "ball",
            Sphere(o.ball_radius),
            make_T(None, [x, y, h + o.ball_radius]),
            joint=Joint("free"),
            mass=o.ball_mass,
            surface="ball",
            rgba=(0.9, 0.3, 0.1, 1.0),
        ),
    )
    return Scene(
        bodies=bodies,
        robots=(RobotPlacement(ROBOT, model, motors=motors, collide_with_robots=False),),
        surfaces={"ball": ContactSurface(mu=o.finger_friction)},
        name=f"{model.name} gripper grasp",
    )


def gripper_grasp(model: RobotModel, options: GripperOptions | None = None) -> GripperGrasp:
    """Pick the ball, lift it, hold it, let it go (module docstring)."""
    from robotsim.physics import World
    from robotsim.profile.resolve import resolve_profile, with_frames

    o = options or GripperOptions()
    prof = resolve_profile(model)
    arm = next((a for a in prof.arms if a.gripper is not None), None)
    if arm is None:
        raise InputError(
            f"{model.name}: a gripper grasp needs an arm with a gripper in its profile; "
            f"found {len(prof.arms)} arm(s), {len(prof.grippers)} gripper(s)"
        )
    g = next(gr for gr in prof.grippers if gr.name == arm.gripper)
    model = with_frames(model, prof)
    fingers = tuple(j for f in g.fingers for j in f if j in model.joint_names)
    tips = g.fingertips
    world = World(_scene(model, o, fingers))
    world.check_work(3.0 + 3 * o.move_time + o.hold_time, f"{model.name}: gripper grasp")
    wm, wd = world.model, world.data
    ball_body = world.body("ball")
    ball_geom = int(np.flatnonzero(wm.geom_bodyid == ball_body.id)[0])
    tip_bodies = [world.body(f"{ROBOT}/{t.link}").id for t in tips]
    support = {world.body("table").id, 0}  # table and world (the ground)
    # a parallel gripper's fingers close towards their lower limit (0 = touching)
    closing = {j: (model.joint(j).limits.lower, model.joint(j).limits.upper) for j in fingers}
    # IK targets: tool frame pointing down over the ball, then around it
    x, y = o.ball_xy
    zc = o.table_height + o.ball_radius
    R_down = np.diag([1.0, -1.0, -1.0])

    def pose_at(z: float, q0: np.ndarray) -> np.ndarray:
        T = np.eye(4)
        T[:3, :3] = R_down
        T[:3, 3] = [x, y, z]
        res = model.ik(T, link=arm.tool.name, q0=q0)
        if not bool(np.all(res.success)):
            raise InputError(f"{model.name}: the tool cannot reach ({x}, {y}, {z:.3f}) m")
        return np.asarray(res.q, dtype=float)

    q_start = model.pose("ready") if "ready" in model.poses else model.zero()
    for j in fingers:  # open
        q_start[model.joint_index(j)] = closing[j][1]
    q_above = pose_at(zc + o.approach, q_start)
    q_grasp = pose_at(zc, q_above)
    q_lift = pose_at(zc + o.lift, q_grasp)
    arm_idx = [model.joint_index(j) for j in arm.joints]
    motors = {j: world.motor(f"{ROBOT}/{j}") for j in model.joint_names}

    def set_arm(q: np.ndarray) -> None:
        for j, k in zip(arm.joints, arm_idx):
            motors[j].set(float(q[k]))

    def set_fingers(closed: bool) -> None:
        for j in fingers:
            lo, hi = closing[j]
            motors[j].set(float(lo if closed else hi))

    events: list[tuple[float, str, str | None]] = []
    ts, path = [], []
    state = {"touch": [False] * len(tips), "held": False, "released": False, "landed": False}

    def tick() -> None:
        world.advance(o.dt)
        touching = [False] * len(tips)
        on_support = False
        for c in wd.contact[: wd.ncon]:
            g1, g2 = int(c.geom1), int(c.geom2)
            if ball_geom not in (g1, g2):
                continue
            other = int(wm.geom_bodyid[g2 if g1 == ball_geom else g1])
            for k, b in enumerate(tip_bodies):
                if other == b:
                    touching[k] = True
            on_support |= other in support
        t = float(world.time)
        for k, (now, before) in enumerate(zip(touching, state["touch"])):
            if now and not before and not state["held"]:
                events.append((t, "touch", tips[k].name))
        state["touch"] = touching
        if not state["held"] and not state["released"] and all(touching):
            state["held"] = True
            events.append((t, "grasp", None))
        elif state["held"] and sum(touching) < 2:
            state["held"], state["released"] = False, True
            events.append((t, "release", None))
        elif state["released"] and not state["landed"] and on_support:
            state["landed"] = True
            events.append((t, "landed", None))
        ts.append(t)
        path.append(ball_body.pose[:3, 3].copy())

    def move(q0: np.ndarray, q1: np.ndarray, seconds: float) -> None:
        n = max(1, round(seconds / o.dt))
        for i in range(1, n + 1):
            s = i / n
            s = 3 * s * s - 2 * s**3  # rest to rest
            set_arm(q0 + s * (q1 - q0))
            tick()

    def wait(seconds: float) -> None:
        for _ in range(max(1, round(seconds / o.dt))):
            tick()

    for j in model.joint_names:  # the start pose, through the servos
        motors[j].set(float(q_start[model.joint_index(j)]))
    wait(0.5)
    move(q_start, q_above, o.move_time)
    move(q_above, q_grasp, o.move_time)
    set_fingers(True)
    wait(1.0)
    move(q_grasp, q_lift, o.move_time)
    z_held = ball_body.pose[2, 3]
    wait(o.hold_time)
    held_lift = float(min(z_held, ball_body.pose[2, 3]) - zc)
    set_fingers(False)
    wait(1.5)
    return GripperGrasp(
        events=tuple(events),
        t=np.array(ts),
        ball=np.array(path),
        held_lift=held_lift,
        fingertips=tuple(t.name for t in tips),
        extra={"arm": arm.name, "gripper": g.name, "fingers": fingers},
    )
