"""Physics mode: the same hands scene in MuJoCo, grasping by finger contacts and friction.

The scene (robot, ball as a free sphere, tables, ground) is compiled through
:class:`robotsim.physics.World`; every actuated joint has a position servo. The per-tick
:class:`ArmCommand` moves the servo *setpoints* exactly as kinematic mode moves the
joints (speed step, limits, arms locked while both hands hold, setpoint moves that
would put a fingertip or the palm into the floor or a table are cut short). Then:

- **touch**: a finger touches when any of its links is in contact with the ball, as a
  touch sensor on the finger links reads it (MuJoCo contacts, not bounding spheres;
  :class:`robotsim.sensors.contact.TouchSensor` counting contacts with the ball only,
  ``touch_forces`` keeps each finger's normal force); a ``touch`` event is recorded when a finger
  starts touching while its hand does not hold the ball (contacts that flicker inside a
  held grip change the per-tick flags only, as in kinematic mode's timeline);
- **closing** stops at touch: the finger's setpoint is held ``squeeze`` (rad) past the
  angle where it touched, so the servo presses the ball (``kp * squeeze`` N m);
- **grasp**: all three touch and the thumb–finger spread exceeds the threshold; the ball
  is then carried by friction alone. With ``weld_assist`` a stiff spring-damper wrench
  also holds the ball at its grasp pose relative to the palm (a soft weld, switched on
  at grasp and off at release) — stated in the summary's mode options; while both
  hands hold it, each keeps its grip as the object shifts (touching fingers pressed
  ``squeeze`` past their actual angle every tick, a finger that lost contact closing
  until it touches again);
- **release**: fewer than two fingers touch for ``release_ticks`` ticks, or the hand
  opened to the end of its fingers' ranges (an open hand holds nothing, even when an
  object wedged against its links still touches two of them);
- **landed**: after a release, the first contact of the ball with the ground or a table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from robotsim.errors import InputError
from robotsim.hands.commands import ArmCommand, Grip
from robotsim.hands.contact import grasp_ok, move_joint_limited, sphere_depth, thumb_spread
from robotsim.hands.scene import HandsScene
from robotsim.hands.state import (
    HandEvent,
    HandsObservable,
    HandsState,
    blank_hands_state,
    grasp_events,
    hands_snapshot,
)
from robotsim.model.geometry import Box, Sphere
from robotsim.physics.timestep import DEFAULT_TIMESTEP, HANDS_MAX_TIMESTEP, check_timestep
from robotsim.spatial import inv_T, make_T, rot_log

__all__ = ["PhysicsHands", "PhysicsOptions"]

SIDES = ("L", "R")
ROBOT = "hands"


@dataclass(frozen=True)
class PhysicsOptions:
    """Physics-mode settings.

    Attributes:
        timestep: MuJoCo step (s); a tick of ``dt`` runs ``round(dt / timestep)`` steps.
        weld_assist: hold a grasped ball with a spring-damper wrench as well as friction.
        squeeze: closing past touch (rad) that sets the grip force.
        finger_friction: Coulomb friction between the fingers and the ball.
        arm_gain, finger_gain: position-servo stiffness (N m/rad) of arm and finger joints;
            ``arm_damping``, ``finger_damping`` their damping (N m s/rad).
        release_ticks: ticks with fewer than two touching fingers before a release.
        weld_frequency: natural frequency (Hz) of the assisting spring; None: 8 Hz for
            the ball, 20 Hz for other objects (flat faces do not centre themselves in a
            three-point grip as a ball does: a softer spring lets them be squeezed out).
        coupling_timeconst: MuJoCo ``solref`` time constant (s) of the phalanx couplings.
        impratio, noslip_iterations: MuJoCo friction options (see ``_tune_model``).
        rolling_friction: rolling resistance of the ball (m, MuJoCo's rolling friction).
        torsional_friction: resistance of the carried body to spinning about a contact
            normal (m, MuJoCo's torsional friction: a finger pad touches a patch, not a
            point; a flat object held on its thin edges otherwise spins out about the
            line through two contacts).
        contact_timeconst: MuJoCo ``solref`` time constant (s) of an object's contacts
            (None: MuJoCo's 20 ms; see ``_tune_model``).
        finger_armature: rotor inertia (kg m^2) added to every finger joint (steadies
            the light phalanges against the contact and coupling forces).
        regrip, regrip_speed: while both hands hold the object, touching fingers are
            pressed ``squeeze`` past their actual angle every tick and a finger that
            lost contact closes at ``regrip_speed`` (rad/s) until it touches again (the
            object shifts when the other hand opens).
    """

    timestep: float = DEFAULT_TIMESTEP
    weld_assist: bool = False
    squeeze: float = np.radians(4.0)
    finger_friction: float = 1.5
    arm_gain: float = 800.0
    arm_damping: float = 40.0
    finger_gain: float = 20.0
    finger_damping: float = 0.2
    release_ticks: int = 3
    weld_frequency: float | None = None
    coupling_timeconst: float = 0.01
    finger_armature: float = 2e-4
    impratio: float = 10.0
    rolling_friction: float = 0.002
    torsional_friction: float = 0.02
    noslip_iterations: int = 4
    regrip: bool = True
    regrip_speed: float = np.radians(45.0)
    contact_timeconst: float | None = 0.004

    def __post_init__(self) -> None:
        check_timestep(self.timestep, "physics timestep", HANDS_MAX_TIMESTEP)
        if self.squeeze < 0 or self.finger_friction < 0 or self.release_ticks < 1:
            raise InputError("squeeze and finger_friction must be >= 0, release_ticks >= 1")


class PhysicsHands:
    """The hands scene on MuJoCo, driven tick by tick like :class:`KinematicHands`."""

    mode = "physics"

    def __init__(
        self, scene: HandsScene, dt: float = 0.01, options: PhysicsOptions | None = None
    ) -> None:
        from robotsim import physics as ph

        self.scene = scene
        self.options = opts = options or PhysicsOptions()
        if not np.isfinite(dt) or dt < opts.timestep:
            raise InputError(f"dt must be >= the physics timestep {opts.timestep} s, got {dt}")
        self.substeps = max(1, round(dt / opts.timestep))
        self.dt = self.substeps * opts.timestep
        self.model = m = scene.robot
        self.layouts = scene.layouts
        finger_joints = {j for lay in self.layouts.values() for j in lay.finger_joints}
        finger = ph.Motor("position", gain=opts.finger_gain, damping=opts.finger_damping)
        arm = ph.Motor("position", gain=opts.arm_gain, damping=opts.arm_damping)
        motors = {j: finger if j in finger_joints else arm for j in m.joint_names}
        surfaces = {
            "ball": ph.ContactSurface(mu=opts.finger_friction, bounce=scene.ball.bounce),
        }
        if scene.obj is not None:  # any object: its pieces and its own mass properties
            from robotsim.objects.body import object_body

            ball = object_body(scene.obj, "ball", scene.start_pose, surface="ball",
                               rgba=(0.9, 0.3, 0.2, 1.0))  # fmt: skip
        else:
            ball = ph.Body(
                "ball",
                Sphere(scene.ball.radius),
                make_T(None, scene.ball.position),
                joint=ph.Joint("free"),
                mass=scene.ball.mass,
                surface="ball",
                rgba=(0.9, 0.3, 0.2, 1.0),
            )
        bodies = [ball]
        for t in scene.tables:
            bodies.append(
                ph.Body(t.name, Box(t.size), make_T(None, t.center), rgba=(0.6, 0.45, 0.3, 1))
            )
        q0 = {n: float(v) for n, v in zip(m.joint_names, np.asarray(scene.q0), strict=True)}
        self.world_scene = ph.Scene(
            bodies=tuple(bodies),
            robots=(
                ph.RobotPlacement(
                    ROBOT, m, scene.T_world_robot, q0=q0, motors=motors, collide_with_robots=True
                ),
            ),
            surfaces=surfaces,
            timestep=opts.timestep,
            gravity=(0.0, 0.0, -scene.gravity),
            name="hand_ball_transfer",
        )
        self.world = ph.World(self.world_scene)
        self._setup_names()
        self._setup_touch()
        self._tune_model()
        self.observable = HandsObservable(blank_hands_state())
        self.reset()

    # ---------------------------------------------------------------- names
    def _setup_names(self) -> None:
        w, m = self.world, self.model
        self._ball_id = w.body("ball").id
        self._env_ids = {w.body(t.name).id: t.name for t in self.scene.tables}
        self._ground_geom = int(w.model.geom("ground").id)
        prefix = ROBOT + "/"
        body_id = {n: w.body(prefix + n).id for n in m.link_names}
        self._finger_bodies: dict[str, list[set[int]]] = {}
        for s, lay in self.layouts.items():
            sets = []
            for j in lay.finger_joints:
                sets.append({body_id[lk] for lk in _subtree(m, m.joint(j).child)})
            self._finger_bodies[s] = sets
        self._frame_of = {}
        for lay in self.layouts.values():
            for name in (*lay.tip_frames, lay.palm_frame):
                fr = next((f for f in m.frames if f.name == name), None)
                link, T = (fr.link, np.asarray(fr.T_link_frame)) if fr else (name, np.eye(4))
                self._frame_of[name] = (body_id[link], T)
        self._jq = np.array(
            [w.model.jnt_qposadr[w.model.joint(prefix + j).id] for j in m.joint_names], int
        )
        self._motor = [w.motor(prefix + j) for j in m.joint_names]

    def _setup_touch(self) -> None:
        """A touch sensor on every finger link, counting contacts with the ball only
        (any force: a contact is a touch, as in kinematic mode's sphere test); a finger
        touches when one of its links does."""
        from robotsim.profile.sensor_spec import TouchSpec
        from robotsim.sensors import mount_sensors
        from robotsim.sensors.contact import TouchSensor

        w, m = self.world, self.model
        ids = {w.body(f"{ROBOT}/{lk}").id: lk for lk in m.link_names}
        links = [ids[b] for s in SIDES for bodies in self._finger_bodies[s] for b in sorted(bodies)]
        spec = TouchSpec(type="touch", name="fingers", links=links, threshold=0.0,
                         rate=1.0 / w.timestep)  # fmt: skip
        mount = mount_sensors(ROBOT, m, [spec], w.timestep, "fingers")[0]
        self.touch_sensor = TouchSensor(w, mount, w.seed)
        ball = int(w.model.body_geomadr[self._ball_id])
        self.touch_sensor.only_with(range(ball, ball + int(w.model.body_geomnum[self._ball_id])))
        at = {lk: i for i, lk in enumerate(links)}
        self._finger_sites = {
            s: [[at[ids[b]] for b in sorted(bodies)] for bodies in self._finger_bodies[s]]
            for s in SIDES
        }
        self.touch_forces = {s: (0.0, 0.0, 0.0) for s in SIDES}

    def _tune_model(self) -> None:
        """Robot-controller choices made on the compiled model.

        - No self-collision: the robot's links collide with the ball, the tables and
          the floor but not with each other (like the paper's model; the fingers of both
          hands interleave around the ball during the hand-over, and the arms reach
          across the decorative chest).
        - The coupled phalanges (mimic joints -> joint equalities) are stiff and the
          finger joints carry a little rotor inertia (armature): soft couplings let the
          distal segments bend back under the grip and the tips chatter on the ball.
        """
        wm, m = self.world.model, self.model
        robot_dofs = []
        for lk in m.link_names:
            bid = self.world.body(f"{ROBOT}/{lk}").id
            a, n = wm.body_dofadr[bid], wm.body_dofnum[bid]
            robot_dofs += list(range(a, a + n))
            for g in range(wm.body_geomadr[bid], wm.body_geomadr[bid] + wm.body_geomnum[bid]):
                if wm.geom_contype[g] or wm.geom_conaffinity[g]:
                    wm.geom_contype[g], wm.geom_conaffinity[g] = 2, 1
        self._robot_dofs = np.array(sorted(robot_dofs), dtype=int)
        # Grasping a light ball: elliptic friction cones, a high impratio and no-slip
        # iterations keep MuJoCo's soft friction from creeping under a steady load.
        import mujoco

        wm.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
        wm.opt.impratio = self.options.impratio
        wm.opt.noslip_iterations = self.options.noslip_iterations
        # The ball rolls with a little resistance (condim 6: torsional and rolling
        # friction), so a dropped ball comes to rest instead of rolling on for ever.
        g0, n_obj = int(wm.body_geomadr[self._ball_id]), int(wm.body_geomnum[self._ball_id])
        for g in range(g0, g0 + n_obj):  # every piece
            wm.geom_condim[g] = 6
            wm.geom_friction[g, 1:] = (
                self.options.torsional_friction,
                self.options.rolling_friction,
            )
        if self.scene.obj is not None and self.options.contact_timeconst is not None:
            # Stiff contacts on a light object: MuJoCo's default (solref 20 ms) lets a
            # finger pressing ~8 N sink 5 mm into a 50 g object, deep enough to roll a
            # 12 mm plate out of the grip; 2 timesteps (the least MuJoCo resolves) and a
            # harder impedance keep it to a fraction of a millimetre.
            wm.geom_solref[g0 : g0 + n_obj] = (self.options.contact_timeconst, 1.0)
            wm.geom_solimp[g0 : g0 + n_obj] = (0.95, 0.99, 0.001, 0.5, 2.0)
        for e in range(wm.neq):
            wm.eq_solref[e] = (self.options.coupling_timeconst, 1.0)
            wm.eq_solimp[e] = (0.99, 0.999, 0.001, 0.5, 2.0)
        finger_links = {lk for sets in self._finger_bodies.values() for b in sets for lk in b}
        for bid in finger_links:
            a = wm.body_dofadr[bid]
            wm.dof_armature[a : a + wm.body_dofnum[bid]] = self.options.finger_armature

    def set_gain_scale(self, scale: float) -> None:
        """Multiply every servo's stiffness kp and damping kv by ``scale`` (> 0) of the
        values the scene was built with (the live gain parameter of teleoperation)."""
        wm = self.world.model
        if not hasattr(self, "_base_gains"):
            self._base_gains = (wm.actuator_gainprm[:, 0].copy(),
                                wm.actuator_biasprm[:, 1:3].copy())  # fmt: skip
        if not (np.isfinite(scale) and scale > 0):
            raise InputError(f"gain scale must be a positive number, got {scale}")
        gain, bias = self._base_gains
        wm.actuator_gainprm[:, 0] = gain * scale
        wm.actuator_biasprm[:, 1:3] = bias * scale

    def _substep(self) -> None:
        """One MuJoCo step (the servos hold the arms against gravity with their gravity
        feed-forward, :mod:`robotsim.physics.feedforward`) and, when enabled and a hand
        grasps, the weld-assist wrench on the ball."""
        d = self.world.data
        d.qfrc_applied[:] = 0.0
        if self.options.weld_assist and self.grasped_by:
            self._weld_wrench()
        self.world.step(1)

    # ---------------------------------------------------------------- state
    def reset(self) -> None:
        self.world.reset()
        self.tick = 0
        self.cq = np.array(self.scene.q0, float)
        self.grasped = {s: False for s in SIDES}
        self.touch = {s: (False, False, False) for s in SIDES}
        self.blocked = {s: False for s in SIDES}
        self.spread = {s: 0.0 for s in SIDES}
        self._low = {s: 0 for s in SIDES}
        self.T_palm_ball = {s: np.eye(4) for s in SIDES}
        self._landed_since_release = True
        self._ball_contact: str | None = None
        self._weld_prev: dict[str, np.ndarray] = {}
        self._opening = {s: False for s in SIDES}
        self._update_contacts()
        self.observable.reset(self.snapshot())

    @property
    def t(self) -> float:
        return self.tick * self.dt

    def command_q(self) -> np.ndarray:
        """The servo setpoints ``(nq,)`` (rad)."""
        return self.cq

    @property
    def q(self) -> np.ndarray:
        """The actual joint values ``(nq,)`` (rad) from MuJoCo."""
        return self.world.data.qpos[self._jq].copy()

    def frame_pose(self, name: str) -> np.ndarray:
        bid, T = self._frame_of[name]
        d = self.world.data
        return make_T(d.xmat[bid].reshape(3, 3), d.xpos[bid]) @ T

    def palm_pose(self, side: str) -> np.ndarray:
        return self.frame_pose(self.layouts[side].palm_frame)

    def tip_positions(self, side: str) -> np.ndarray:
        return np.array([self.frame_pose(n)[:3, 3] for n in self.layouts[side].tip_frames])

    @property
    def ball_T(self) -> np.ndarray:
        d = self.world.data
        return make_T(d.xmat[self._ball_id].reshape(3, 3), d.xpos[self._ball_id])

    @property
    def grasped_by(self) -> tuple[str, ...]:
        return tuple(s for s in SIDES if self.grasped[s])

    def snapshot(self) -> HandsState:
        lin, _ = self.world.body("ball").velocity
        resting = self._ball_contact is not None and float(np.linalg.norm(lin)) < 0.02
        surface = self._ball_contact if resting else None
        return hands_snapshot(self, lin, resting and not self.grasped_by, surface)

    # ------------------------------------------------------------- commands
    def _setpoint_violation(self, side: str, q: np.ndarray) -> float:
        lay = self.layouts[side]
        names = [*lay.tip_frames, lay.palm_frame]
        T = self.scene.T_world_robot @ self.model.tree.fk_frames(q, names)
        r = np.array([lay.tip_radius] * 3 + [self.scene.grasp.palm_radius])
        return float(sphere_depth(T[:, :3, 3], r, self.scene.tables).max())

    def _move_setpoint(self, side: str, i: int, dq: float) -> bool:
        m = self.model
        target = float(np.clip(self.cq[i] + dq, m.lower[i], m.upper[i]))
        self.cq, cut = move_joint_limited(
            self.cq, i, target, lambda q: self._setpoint_violation(side, q), 1e-9, 30
        )
        return cut

    def _move_arm(self, side: str, cmd: ArmCommand) -> bool:
        """Move the arm's setpoints by the whole tick's step at once when that keeps
        the fingertips and palm from going deeper into a table or the floor than they
        are (True: moved). A lift whose joints move together raises a hand whose
        squeezed fingertips reach the table top (a thin object lying flat), though the
        shoulder's or the elbow's part of it alone would lower them: checked joint by
        joint (the caller's fallback) it is cut on its first tick."""
        if not any(cmd.rates.values()):
            return True  # only the fingers move this tick: nothing to check
        m, lay = self.model, self.layouts[side]
        q = self.cq.copy()
        for role, rate in cmd.rates.items():
            if rate:
                i = m.joint_index(lay.arm_joints[role])
                q[i] = float(np.clip(q[i] + rate * cmd.speed * self.dt, m.lower[i], m.upper[i]))
        allowed = max(self._setpoint_violation(side, self.cq), 1e-9)
        if self._setpoint_violation(side, q) > allowed:
            return False
        self.cq = q
        return True

    def _apply_commands(self, commands: Mapping[str, ArmCommand]) -> None:
        m, dt = self.model, self.dt
        q_act = self.q
        locked = all(self.grasped.values())
        for side in SIDES:
            cmd = commands.get(side)
            self.blocked[side] = False
            self._opening[side] = cmd is not None and cmd.grip is Grip.OPEN
            if cmd is None or cmd.idle:
                continue
            lay = self.layouts[side]
            cut = False
            if not locked and not self._move_arm(side, cmd):
                for role, rate in cmd.rates.items():
                    if rate:
                        i = m.joint_index(lay.arm_joints[role])
                        cut |= self._move_setpoint(side, i, rate * cmd.speed * dt)
            for k, jn in enumerate(lay.finger_joints):
                i = m.joint_index(jn)
                c = lay.closing[k]
                if cmd.grip is Grip.CLOSE:
                    if self.touch[side][k]:
                        # Stop at touch: hold the setpoint `squeeze` past the actual angle.
                        pressed = q_act[i] + c * self.options.squeeze
                        self.cq[i] = float(np.clip(pressed, m.lower[i], m.upper[i]))
                    else:
                        cut |= self._move_setpoint(side, i, c * cmd.speed * dt)
                elif cmd.grip is Grip.OPEN:
                    if c * (self.cq[i] - q_act[i]) > 0:  # drop the squeeze first
                        self.cq[i] = q_act[i]
                    cut |= self._move_setpoint(side, i, -c * cmd.speed * dt)
            self.blocked[side] = cut

    def _keep_grip(self, side: str) -> None:
        """While both hands hold the object (the hand-over), the receiving hand keeps
        its grip as the object shifts under the other's opening fingers: every touching
        finger is pressed ``squeeze`` past its actual angle each tick, a finger that lost
        its contact closes at ``regrip_speed`` until it touches again. (A hand holding
        alone keeps the press of its grasp: pressing afresh every tick would ratchet the
        fingers into a yielding contact and push the object along.)"""
        other = "R" if side == "L" else "L"
        if not self.grasped[other]:
            return
        m, q_act, lay = self.model, self.q, self.layouts[side]
        step = self.options.regrip_speed * self.dt
        for k, jn in enumerate(lay.finger_joints):
            i = m.joint_index(jn)
            c = lay.closing[k]
            if self.touch[side][k]:
                nxt = q_act[i] + c * self.options.squeeze
            else:
                nxt = self.cq[i] + c * step
            self.cq[i] = float(np.clip(nxt, m.lower[i], m.upper[i]))

    def _fully_open(self, side: str) -> bool:
        """Every finger setpoint of ``side`` at the open end of its range."""
        m, lay = self.model, self.layouts[side]
        for k, jn in enumerate(lay.finger_joints):
            i = m.joint_index(jn)
            end = m.lower[i] if lay.closing[k] > 0 else m.upper[i]
            if abs(self.cq[i] - end) > 1e-6:
                return False
        return True

    def _press(self, side: str) -> None:
        """Hold every finger of ``side`` ``squeeze`` past its actual angle: the grip."""
        m, q_act, lay = self.model, self.q, self.layouts[side]
        for k, jn in enumerate(lay.finger_joints):
            i = m.joint_index(jn)
            pressed = q_act[i] + lay.closing[k] * self.options.squeeze
            self.cq[i] = float(np.clip(pressed, m.lower[i], m.upper[i]))

    # ------------------------------------------------------------------ tick
    def step(self, commands: Mapping[str, ArmCommand] | None = None) -> tuple[HandEvent, ...]:
        commands = dict(commands or {})
        for side in commands:
            if side not in SIDES:
                raise InputError(f"command for unknown hand {side!r}; valid: {list(SIDES)}")
        self._apply_commands(commands)
        if self.options.regrip:
            for side in self.grasped_by:
                if not self._opening[side]:
                    self._keep_grip(side)
        for k, mh in enumerate(self._motor):
            mh.set(self.cq[k])
        for _ in range(self.substeps):
            self._substep()
        self.tick += 1
        events: list[HandEvent] = []
        before_touch = dict(self.touch)
        before = dict(self.grasped)
        self._update_contacts()
        t = self.t
        for side in SIDES:
            for k in range(3):
                if self.touch[side][k] and not before_touch[side][k] and not before[side]:
                    events.append(HandEvent(t, "touch", side, self.layouts[side].finger_joints[k]))
        now = dict(before)
        for side in SIDES:
            ok = grasp_ok(self.touch[side], self.spread[side], self.scene.min_spread)
            self._low[side] = self._low[side] + 1 if sum(self.touch[side]) < 2 else 0
            if not before[side] and ok:
                now[side] = True
            elif before[side] and self._low[side] >= self.options.release_ticks:
                now[side] = False
            elif before[side] and self._opening[side] and self._fully_open(side):
                now[side] = False  # an open hand holds nothing, whatever still touches it
        events += grasp_events(t, before, now)
        for side in SIDES:
            if now[side] and not before[side]:
                self.T_palm_ball[side] = inv_T(self.palm_pose(side)) @ self.ball_T
                self._press(side)
        if any(before.values()) and not any(now.values()):
            self._landed_since_release = False
        self.grasped = now
        if not self._landed_since_release and self._ball_contact is not None:
            self._landed_since_release = True
            events.append(HandEvent(t, "landed", None, self._ball_contact))
        out = tuple(events)
        self.observable.publish(self.snapshot(), out)
        return out

    def _update_contacts(self) -> None:
        d, mj = self.world.data, self.world.model
        env: str | None = None
        for i in range(d.ncon):
            c = d.contact[i]
            g1, g2 = int(c.geom1), int(c.geom2)
            b1, b2 = int(mj.geom_bodyid[g1]), int(mj.geom_bodyid[g2])
            if self._ball_id not in (b1, b2):
                continue
            og, ob = (g2, b2) if b1 == self._ball_id else (g1, b1)
            if og == self._ground_geom:
                env = "floor"
            elif ob in self._env_ids:
                env = env or self._env_ids[ob]
        self._ball_contact = env
        reading = self.touch_sensor.sample()  # the fingers' contacts with the ball
        touch, force = reading["touch"], reading["force"]
        for s in SIDES:
            sites = self._finger_sites[s]
            self.touch[s] = tuple(bool(touch[k].any()) for k in sites)  # type: ignore[assignment]
            self.touch_forces[s] = tuple(float(force[k].sum()) for k in sites)  # type: ignore[assignment]
            self.spread[s] = thumb_spread(self.tip_positions(s), self.layouts[s].thumb)

    def _weld_wrench(self) -> None:
        """Spring-damper wrench pulling the ball to its grasp pose in the palm(s); the
        damping acts on the velocity relative to that (moving) target."""
        import mujoco

        wm = self.world.model
        m = float(wm.body_mass[self._ball_id])
        inertia = float(np.mean(wm.body_inertia[self._ball_id]))  # 0.4 m r^2 for the ball
        f = self.options.weld_frequency
        if f is None:
            f = 8.0 if self.scene.carried.is_ball else 20.0
        w = 2 * np.pi * f
        kp, kd = w * w, 2.0 * w
        T_ball = self.ball_T
        lin, ang = self.world.body("ball").velocity
        force, torque = np.zeros(3), np.zeros(3)
        h = self.options.timestep
        # a hand that is opening lets go of the object (its weld pulls no more), so the
        # other hand carries it and the opening fingers come free
        holding = [s for s in self.grasped_by if not self._opening[s]] or list(self.grasped_by)
        for s in holding:
            T_t = self.palm_pose(s) @ self.T_palm_ball[s]
            prev = self._weld_prev.get(s)
            v_t = np.zeros(3) if prev is None else (T_t[:3, 3] - prev[:3, 3]) / h
            w_t = np.zeros(3) if prev is None else rot_log(T_t[:3, :3] @ prev[:3, :3].T) / h
            self._weld_prev[s] = T_t
            e = T_t[:3, 3] - T_ball[:3, 3]
            er = rot_log(T_t[:3, :3] @ T_ball[:3, :3].T)
            force += m * (kp * e + kd * (v_t - lin))
            torque += inertia * (kp * er + kd * (w_t - ang))
        for s in SIDES:
            if s not in holding:
                self._weld_prev.pop(s, None)
        n = len(holding)
        wd = self.world
        p = wd.data.xipos[self._ball_id].copy()
        mujoco.mj_applyFT(
            wd.model, wd.data, force / n, torque / n, p, self._ball_id, wd.data.qfrc_applied
        )


def _subtree(model: object, link: str) -> list[str]:
    """``link`` and every link below it."""
    out, stack = [], [link]
    joints = model.joints  # type: ignore[attr-defined]
    while stack:
        lk = stack.pop()
        out.append(lk)
        stack.extend(j.child for j in joints if j.parent == lk)
    return out
