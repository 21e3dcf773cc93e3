"""Feed-forward torques for position servos: servos that hold a pose against gravity.

A position servo alone, ``tau = kp (q_ref - q) - kv qdot``, needs an error to carry a
load: an arm holding itself out sags by ``tau_gravity / kp`` (a Panda or UR5e under the
default kp 200 N m/rad: 0.1-0.2 rad). Real arm controllers add the model's gravity
torques; so do these servos, by :class:`~robotsim.physics.scene.Motor` ``feedforward``:

- ``none``: the PD servo alone;
- ``gravity`` (default): plus the gravity torque of everything beyond the joint,
  ``tau_g(q)``. On a robot welded to the world MuJoCo computes it at every step
  (``gravcomp`` on the robot's bodies, routed through the joints' actuators by
  ``actuatorgravcomp``, so the joint's force limit bounds servo + feed-forward). On a
  floating robot MuJoCo would also hold the free root up (its gravity compensation
  cannot be limited on a free joint), so the torques are computed by the World every
  10 ms step chunk from each joint's subtree mass and centre of mass (a hinge:
  ``-a . ((c - p) x M g)``), and applied by a torque actuator ``<joint>:ff``;
- ``inverse_dynamics``: plus the rigid-body inverse dynamics of the reference motion,
  ``M(q) qdd_ref + c(q, qd) + kv qd_ref`` (MuJoCo's ``mj_rne`` at the current state,
  gravity included; ``qd_ref``, ``qdd_ref`` from successive targets), every 10 ms step
  chunk through ``<joint>:ff``: the servo then only corrects errors.

On a floating robot a limb that touches something (a stance leg) carries the body
through that contact, not its own weight hanging from the joint: its joints get no
feed-forward while any body beyond them is in contact (checked every chunk), so a
walking robot's swing leg, arms and head are compensated and its stance leg is not.

Joints driven by velocity or torque motors get none, and bodies beyond them are not
compensated (their weight loads those motors); joints without a motor (passive,
mimic) carry no feed-forward either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["FEEDFORWARDS", "ChunkFeedForward", "FeedForward", "add_feedforward", "ff_actuator"]

FEEDFORWARDS = ("none", "gravity", "inverse_dynamics")
NO_FORCE = 1e-12  # N m: the actuator force range of a joint without a motor


def ff_actuator(joint: str) -> str:
    """The name of the torque actuator that applies ``joint``'s feed-forward."""
    return f"{joint}:ff"


@dataclass
class FeedForward:
    """The chunk-level feed-forward of a compiled world (names are world names):
    per entry the servo actuator, its feed-forward actuator, the joint and its mode."""

    servo: list[str] = field(default_factory=list)
    actuator: list[str] = field(default_factory=list)
    joint: list[str] = field(default_factory=list)
    mode: list[str] = field(default_factory=list)
    kv: list[float] = field(default_factory=list)
    #: the joint's robot floats: no feed-forward while its limb touches something
    floating: list[bool] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.joint)


def add_feedforward(spec: Any, placement: Any, motors: dict[str, Any], ff: FeedForward) -> None:
    """Set up the feed-forward of ``placement``'s position servos in ``spec`` (module
    docs). ``motors``: world joint name -> its Motor (``None``: no motor). Joints to be
    served every chunk are appended to ``ff``."""
    import mujoco

    prefix = f"{placement.name}/"
    model = placement.model
    modes = {
        jn: m.feedforward
        for jn, m in motors.items()
        if m is not None and m.kind == "position" and m.feedforward != "none"
    }
    if not modes:
        return
    chunked = model.floating or any(v == "inverse_dynamics" for v in modes.values())
    if chunked:
        for jn, mode in modes.items():
            m = motors[jn]
            act = spec.add_actuator(
                name=ff_actuator(jn), target=jn, trntype=mujoco.mjtTrn.mjTRN_JOINT
            )
            act.set_to_motor()
            act.group = 5  # not a user's motor
            _limit_total(spec.joint(jn), m)
            ff.servo.append(jn)
            ff.actuator.append(ff_actuator(jn))
            ff.joint.append(jn)
            ff.mode.append(mode)
            ff.kv.append(float(m.damping))
            ff.floating.append(bool(model.floating))
        return
    # welded robot, gravity only: MuJoCo's gravity compensation through the actuators
    children: dict[str, list[Any]] = {}
    for j in model.joints:
        children.setdefault(j.parent, []).append(j)
    blocked: set[str] = set()  # bodies beyond a joint with another kind of motor

    def block(link: str) -> None:
        blocked.add(link)
        for j in children.get(link, []):
            block(j.child)

    for j in model.joints:
        wn = prefix + j.name
        if j.movable and motors.get(wn) is not None and wn not in modes:
            block(j.child)
    for lk in model.links:
        if lk.name not in blocked:
            spec.body(prefix + lk.name).gravcomp = 1.0
    for j in model.joints:
        wn = prefix + j.name
        if not j.movable or j.child in blocked:
            continue
        joint = spec.joint(wn)
        joint.actgravcomp = True  # into the actuator force, bounded with it
        if wn in modes:
            _limit_total(joint, motors[wn])
        else:  # no motor: no feed-forward (a passive joint feels its load); MuJoCo
            # wants a range with lower < upper
            joint.actfrclimited = mujoco.mjtLimited.mjLIMITED_TRUE
            joint.actfrcrange = [-NO_FORCE, NO_FORCE]


def _limit_total(joint: Any, motor: Any) -> None:
    """Bound servo plus feed-forward by the motor's force limit (joint-level range)."""
    import mujoco

    if math.isfinite(motor.force):
        joint.actfrclimited = mujoco.mjtLimited.mjLIMITED_TRUE
        joint.actfrcrange = [-float(motor.force), float(motor.force)]


class ChunkFeedForward:
    """The World's side: the feed-forward torques of :class:`FeedForward` joints,
    recomputed at every step chunk from the state MuJoCo last computed."""

    def __init__(self, model: Any, data: Any, ff: FeedForward) -> None:
        m = model
        # views into MuJoCo's arrays, taken once (each attribute access builds a new one)
        self._xaxis, self._xanchor = data.xaxis, data.xanchor
        self._subtree_com, self._qacc = data.subtree_com, data.qacc
        self.act = np.array([m.actuator(n).id for n in ff.actuator], dtype=int)
        jid = np.array([m.joint(n).id for n in ff.joint], dtype=int)
        rnea = np.array([mode == "inverse_dynamics" for mode in ff.mode], dtype=bool)
        self.n = len(jid)
        # gravity: tau = -a . ((c - p) x W) (hinge), -a . W (slide), W the subtree weight
        self.g_idx = np.flatnonzero(~rnea)
        self.g_jid = jid[~rnea]
        self.g_body = m.jnt_bodyid[self.g_jid].astype(int)
        g = np.asarray(m.opt.gravity, dtype=np.float64)
        self.g_weight = m.body_subtreemass[self.g_body, None] * g  # (G, 3) N
        self.g_hinge = m.jnt_type[self.g_jid] == 3  # mjJNT_HINGE (else slide)
        self.g_vertical = bool(g[0] == 0.0 and g[1] == 0.0)
        self.g_all_hinge = bool(self.g_hinge.all())
        # inverse dynamics
        self.r_idx = np.flatnonzero(rnea)
        self.r_dof = m.jnt_dofadr[jid[rnea]].astype(int)
        self.r_kv = np.array(ff.kv, dtype=np.float64)[rnea]
        self._rne = np.zeros(m.nv)
        servo = [m.actuator(n).id for n in ff.servo]
        self._slot = {int(servo[i]): k for k, i in enumerate(self.r_idx)}  # servo id -> row
        self.qd_ref = np.zeros(len(self.r_idx))
        self.qdd_ref = np.zeros(len(self.r_idx))
        self._last: dict[int, tuple[float, float, float]] = {}  # row -> (t, x, v)
        # floating robots: which bodies lie beyond each joint (a contact there gates it)
        floating = np.array(ff.floating, dtype=bool)
        self.gated = np.flatnonzero(floating)
        beyond = np.zeros((len(self.gated), m.nbody + 1), dtype=bool)  # +1: "no body"
        parent = m.body_parentid
        for row, k in enumerate(self.gated):
            top = int(m.jnt_bodyid[jid[k]])
            for b in range(m.nbody):
                x = b
                while x > 0 and x != top:
                    x = int(parent[x])
                beyond[row, b] = x == top
        self.by_body = np.ascontiguousarray(beyond.T)  # (nbody + 1, gated) joints above it
        self.geom_body = m.geom_bodyid.astype(int)
        self._out = np.zeros(self.n)

    def reset(self) -> None:
        self.qd_ref[:] = 0.0
        self.qdd_ref[:] = 0.0
        self._last.clear()

    def target_set(self, servo_id: int, t: float, x: float) -> None:
        """Track an ``inverse_dynamics`` servo's reference velocity and acceleration from
        its successive targets (``t`` s, ``x`` rad or m)."""
        i = self._slot.get(servo_id)
        if i is None:
            return
        last = self._last.get(i)
        if last is None:
            self._last[i] = (t, x, 0.0)
            return
        t0, x0, v0 = last
        dt = t - t0
        if dt <= 1e-9:  # set again at the same instant: the latest target counts
            self._last[i] = (t0, x, v0)
            return
        v = (x - x0) / dt
        self.qd_ref[i] = v
        self.qdd_ref[i] = (v - v0) / dt
        self._last[i] = (t, x, v)

    def torques(self, model: Any, data: Any) -> np.ndarray:
        """Feed-forward torques (N m or N) per joint, from the last computed state."""
        out = self._out
        if len(self.g_idx):
            a = self._xaxis[self.g_jid]
            r = self._subtree_com[self.g_body] - self._xanchor[self.g_jid]
            W = self.g_weight
            if self.g_vertical and self.g_all_hinge:  # W = (0, 0, w): -w (a_x r_y - a_y r_x)
                out[self.g_idx] = -W[:, 2] * (a[:, 0] * r[:, 1] - a[:, 1] * r[:, 0])
            else:
                tau = -np.einsum("ij,ij->i", a, np.cross(r, W))
                out[self.g_idx] = np.where(self.g_hinge, tau, -np.einsum("ij,ij->i", a, W))
        if len(self.r_idx):
            import mujoco

            qacc = self._qacc
            saved = qacc.copy()
            qacc[:] = 0.0
            qacc[self.r_dof] = self.qdd_ref
            mujoco.mj_rne(model, data, 1, self._rne)
            qacc[:] = saved
            out[self.r_idx] = self._rne[self.r_dof] + self.r_kv * self.qd_ref
        if len(self.gated) and data.ncon:
            bodies = set(self.geom_body[data.contact.geom[: data.ncon].ravel()].tolist())
            held = self.by_body[bodies.pop()].copy()
            for b in bodies:
                held |= self.by_body[b]
            out[self.gated[held]] = 0.0
        return out
