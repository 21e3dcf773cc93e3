"""Divergence is a fault, not a result: the checks every :class:`~robotsim.physics.World`
runs while it steps.

MuJoCo does not stop a simulation that went wrong: a 10^12 kg crate dropped on a robot
sends it flying at ten times its speed limit, a mass scaled by 10^6 makes contacts
explode, and the numbers that come out look like results. Every ``interval`` of
simulated time (0.1 s) the guard checks, and raises :class:`~robotsim.errors.PhysicsFault`
naming the body, the time and the quantity:

- **bounds**: every body inside the world's box. By default the box around the scene
  at its start (every body, and a finite ground's extent) grown on every side by the
  larger of 100 m and twice its diagonal; a run that knows its world (a mobile run's
  field) sets a tighter one with :meth:`Guard.set_bounds`;
- **speeds**: bodies a run gives a limit (:meth:`Guard.limit_speed`, e.g. a robot at
  five times the fastest its controller commands) stay below it (the world's own
  ``max_speed`` check, every 10 ms, catches the rest);
- **energy**: kinetic plus potential (gravity and springs, MuJoCo's ``mj_energyPos`` and
  ``mj_energyVel``) may grow only by the work put in: the positive power of the motors
  and applied forces, integrated over the checks, doubled, plus the energy of lifting
  every body by 1 m, plus 10 J (contacts and a sampled power are not exact). Teleports
  and velocity changes made through the World's handles restart the account
  (:meth:`Guard.rebase`).

NaN and infinities are MuJoCo's own warnings, checked by the World after every step
chunk. A :class:`Fault` is what a run writes in its summary (``"fault": {...}``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from robotsim.errors import PhysicsFault


class World(Protocol):
    """What the guard reads of a :class:`robotsim.physics.World` (which imports this
    module, so it is not imported back)."""

    model: Any
    data: Any
    scene: Any
    body_names: tuple[str, ...]


__all__ = ["Fault", "Guard", "fault"]

#: Simulated seconds between two guard checks.
GUARD_INTERVAL = 0.1
#: The default bounds grow the start box by at least this much on every side (m).
MIN_MARGIN = 100.0


@dataclass(frozen=True)
class Fault:
    """Where and how a simulation left physics: ``body`` (its name), ``time_s`` (s),
    ``quantity`` (``position``, ``speed``, ``energy``, ``acceleration``, ``velocity``),
    ``value`` and ``limit`` in ``unit`` (``None`` for NaN/infinite values), and the
    one-line ``message``."""

    body: str
    time_s: float
    quantity: str
    value: float | None
    limit: float | None
    unit: str
    message: str

    def to_json(self) -> dict[str, Any]:
        def num(x: float | None) -> float | None:
            return None if x is None or not math.isfinite(x) else float(x)

        return {
            "body": self.body,
            "time_s": num(self.time_s),
            "quantity": self.quantity,
            "value": num(self.value),
            "limit": num(self.limit),
            "unit": self.unit,
            "message": self.message,
        }


def fault(
    body: str, t: float, quantity: str, value: float | None, limit: float | None, unit: str,
    what: str,
) -> PhysicsFault:  # fmt: skip
    """A :class:`PhysicsFault` carrying its :class:`Fault` (``what`` completes the
    sentence "body B ...")."""
    msg = f"simulation diverged at t={t:.4f} s: body {body!r} {what}"
    return PhysicsFault(msg, Fault(body, float(t), quantity, value, limit, unit, msg))


class Guard:
    """The checks of one World (module docs). The World calls :meth:`check` every
    :data:`GUARD_INTERVAL` of simulated time and :meth:`rebase` after a reset."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.interval = GUARD_INTERVAL
        self.lo = np.full(3, -np.inf)
        self.hi = np.full(3, np.inf)
        self._speed: dict[int, float] = {}
        self._default = True
        self.next_time = self.interval
        self._e0 = self._work = self._t_last = self._slack = 0.0

    # -- configuration ----------------------------------------------------------------
    def default_bounds(self) -> None:
        """The start box of the scene grown by max(100 m, 2 x its diagonal)."""
        w = self.world
        pos = np.asarray(w.data.xpos[1:], dtype=float)
        pts = [pos] if len(pos) else [np.zeros((1, 3))]
        ground = w.scene.ground
        if ground is not None and all(s > 0 for s in ground.size):
            sx, sy = ground.size
            pts.append(np.array([[-sx, -sy, 0.0], [sx, sy, 0.0]]))
        allp = np.vstack(pts)
        lo, hi = allp.min(axis=0), allp.max(axis=0)
        lo[2] = min(lo[2], 0.0)  # the ground plane, z = 0
        margin = max(MIN_MARGIN, 2.0 * float(np.linalg.norm(hi - lo)))
        self.lo, self.hi = lo - margin, hi + margin
        self._default = True

    def set_bounds(self, lo: Any, hi: Any) -> None:
        """The world's box, world frame (m): ``lo`` (3,) and ``hi`` (3,)."""
        lo_a, hi_a = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        if lo_a.shape != (3,) or hi_a.shape != (3,) or not np.all(lo_a < hi_a):
            raise ValueError(f"bounds need lo < hi, 3 numbers each; got {lo}, {hi}")
        self.lo, self.hi, self._default = lo_a, hi_a, False

    def limit_speed(self, body_id: int, limit: float) -> None:
        """Linear speed (m/s) of body ``body_id``'s centre of mass must stay below."""
        if not (limit > 0):
            raise ValueError(f"a speed limit must be > 0 m/s, got {limit}")
        self._speed[int(body_id)] = float(limit)

    def rebase(self) -> None:
        """Start the energy account again from now (after a reset, a teleport, a change
        of velocity or mass made from outside the simulation)."""
        import mujoco

        w = self.world
        m, d = w.model, w.data
        mujoco.mj_energyPos(m, d)
        mujoco.mj_energyVel(m, d)
        self._e0 = float(d.energy[0] + d.energy[1])
        self._work = 0.0
        self._t_last = float(d.time)
        g = max(float(np.linalg.norm(m.opt.gravity)), 1.0)
        self._slack = float(np.sum(m.body_mass[1:])) * g * 1.0 + 10.0  # 1 m of lift, 10 J
        self.next_time = float(d.time) + self.interval

    # -- the checks -------------------------------------------------------------------
    def check(self) -> None:
        import mujoco

        w = self.world
        m, d = w.model, w.data
        t = float(d.time)
        self.next_time = t + self.interval
        pos = d.xpos
        out = (pos[1:] < self.lo) | (pos[1:] > self.hi)
        if out.any():
            b, axis = (int(v) for v in np.argwhere(out)[0])
            x = float(pos[b + 1, axis])
            lim = float(self.lo[axis] if x < self.lo[axis] else self.hi[axis])
            xyz = "xyz"[axis]
            raise fault(
                w.body_names[b + 1], t, "position", x, lim, "m",
                f"left the world's bounds: {xyz} = {x:.4g} m, beyond {lim:.4g} m "
                f"(the world's box is [{self.lo[axis]:.4g}, {self.hi[axis]:.4g}] m in {xyz})",
            )  # fmt: skip
        if self._speed:
            v6 = np.zeros(6)
            for bid, lim in self._speed.items():
                mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, bid, v6, 0)
                speed = float(np.linalg.norm(v6[3:]))
                if not speed <= lim:
                    raise fault(
                        w.body_names[bid], t, "speed", speed, lim, "m/s",
                        f"moves at {speed:.3g} m/s, far above every limit of its run "
                        f"(fault above {lim:.3g} m/s)",
                    )  # fmt: skip
        self._check_energy(t)

    def _check_energy(self, t: float) -> None:
        import mujoco

        m, d = self.world.model, self.world.data
        power = 0.0
        if m.nu:
            power += float(np.dot(d.actuator_force, d.actuator_velocity))
        power += float(np.dot(d.qfrc_applied, d.qvel))
        self._work += max(power, 0.0) * (t - self._t_last)
        self._t_last = t
        mujoco.mj_energyPos(m, d)
        mujoco.mj_energyVel(m, d)
        energy = float(d.energy[0] + d.energy[1])
        allowed = 2.0 * self._work + self._slack
        gain = energy - self._e0
        if not gain <= allowed:
            body = self._most_energetic()
            raise fault(
                body, t, "energy", gain, allowed, "J",
                f"(the fastest) gained energy from nowhere: the world's energy grew by "
                f"{gain:.4g} J with {self._work:.4g} J put in by motors and forces "
                f"(fault above {allowed:.4g} J)",
            )  # fmt: skip

    def _most_energetic(self) -> str:
        """The body with the most kinetic energy (its mass x speed^2 / 2)."""
        import mujoco

        w = self.world
        m, d = w.model, w.data
        best, name = -1.0, "(none)"
        v6 = np.zeros(6)
        for b in range(1, m.nbody):
            mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, b, v6, 0)
            ke = 0.5 * float(m.body_mass[b]) * float(np.dot(v6[3:], v6[3:]))
            if ke > best:
                best, name = ke, w.body_names[b]
        return name
