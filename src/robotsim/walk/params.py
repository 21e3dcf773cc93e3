"""Walk parameters and their defaults, sized from the robot (never from its name).

Every field of :class:`WalkParams` may be left ``None``: :func:`resolve_params` then
sizes it from the biped's leg length ``l``, its standing CoM height and its feet, with
the pendulum time ``tau = sqrt(zc / g)`` of the walking CoM height ``zc``:

==================  ======================================================
crouch              0.06 l (the hips this much lower than standing tall; when the
                    legs cannot follow a walk so, the generator tries 0.04, 0.08,
                    0.1, 0.13 l)
com_height          standing CoM height - crouch
step_period         2.4 tau (one step: single + double support); for legs that
                    cannot roll a sole (no ankle roll) at most the period whose
                    sideways sway stays within the sole's room and 0.025 l
                    (:func:`sway_period`, :data:`SWAY_LEAN`), not under 0.8 tau
double_support      0.2 of the step period
step_height         0.08 l (swing foot clearance)
max_step_length     0.45 l (forward, per step, swing foot ahead of stance)
max_step_side       0.2 l (extra width of a sideways step)
max_turn            the legs' yaw range, at most 25 deg per step
half_width          half the soles' distance standing
dt                  0.01 s (pattern samples and servo targets)
preview             10 tau (ZMP preview horizon)
qe, r               1 and 1e-6 (tau / 0.288 s)^6: Kajita et al.'s weights for their
                    0.814 m pendulum (tau 0.288 s), r scaled so a shorter pendulum
                    tracks the ZMP as closely (the jerk a ZMP shift needs ~ tau^-3)
==================  ======================================================

A taller robot gets proportionally longer steps and a slower cadence (a pendulum of
its height), so the same defaults walk a 0.3 m and a 1.3 m humanoid.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from robotsim.errors import InputError
from robotsim.walk.biped import Biped
from robotsim.walk.preview import G

__all__ = ["CROUCHES", "Resolved", "WalkParams", "resolve_params", "sole_side_room", "sway_period"]

#: crouch depths tried in turn (fractions of the leg length) when none is given
CROUCHES = (0.06, 0.04, 0.08, 0.1, 0.13)


@dataclass(frozen=True)
class WalkParams:
    """What a walk may be asked to do (m, s, rad); ``None`` = sized from the robot."""

    step_period: float | None = None
    double_support: float | None = None  # fraction of the step period
    step_height: float | None = None
    crouch: float | None = None
    com_height: float | None = None
    max_step_length: float | None = None
    max_step_side: float | None = None
    max_turn: float | None = None
    half_width: float | None = None
    dt: float | None = None
    preview: float | None = None
    qe: float = 1.0
    r: float | None = None

    def with_(self, **kw: float | None) -> WalkParams:
        return replace(self, **kw)


@dataclass(frozen=True)
class Resolved:
    """Every parameter as a number (what a walk runs with; see :class:`WalkParams`)."""

    step_period: float
    double_support: float
    step_height: float
    crouch: float
    com_height: float
    max_step_length: float
    max_step_side: float
    max_turn: float
    half_width: float
    dt: float
    preview: float
    qe: float
    r: float
    leg_length: float

    @property
    def t_single(self) -> float:
        """Single support (swing) time of a step, s."""
        return self.step_period * (1.0 - self.double_support)

    @property
    def t_double(self) -> float:
        return self.step_period * self.double_support

    @property
    def omega(self) -> float:
        """Pendulum frequency sqrt(g / zc), 1/s."""
        return math.sqrt(G / self.com_height)

    @property
    def max_speed(self) -> float:
        """Fastest forward walk, m/s (longest steps at the step period)."""
        return self.max_step_length / self.step_period

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    def as_params(self) -> WalkParams:
        """These numbers as :class:`WalkParams` (every field given)."""
        d = asdict(self)
        d.pop("leg_length")
        return WalkParams(**d)


#: the largest sideways sway (rad: per metre of leg length) a default walk of legs
#: that cannot roll a sole plans for: they carry the CoM sideways by leaning, their
#: soles rolling onto an edge. Measured: Unitree's H1 file (2.2 cm of sole room) and a
#: 50 kg H1-like MJCF (box soles, 4.5 cm of room) walk 2 m swaying 2.2 cm (0.025 of
#: their 0.87 m legs); the H1-like one swaying 4.5 cm spins on a sole's edge and falls
SWAY_LEAN = 0.025

#: the shortest default step period (in pendulum times ``tau``) :func:`sway_period`
#: may give: a swing of about three quarters of ``tau``
SWAY_FLOOR = 0.8


def sole_side_room(biped: Biped) -> float:
    """The ZMP's room across the walk (m): from the sole's reference point (its area
    centroid, where single support puts the ZMP) to the sole's nearer side edge along
    the sole's y, the smaller sole (0 for a sole without width there)."""
    room = math.inf
    for P, c in zip(biped.polygons, biped.centres):
        P = np.asarray(P, dtype=np.float64)
        ys = []
        for a, b in zip(P, np.roll(P, -1, axis=0)):
            if (a[0] - c[0]) * (b[0] - c[0]) <= 0 and a[0] != b[0]:
                u = (c[0] - a[0]) / (b[0] - a[0])
                ys.append(a[1] + u * (b[1] - a[1]))
        if len(ys) < 2:
            return 0.0
        room = min(room, c[1] - min(ys), max(ys) - c[1])
    return max(float(room), 0.0)


def sway_period(tau: float, half_width: float, room: float) -> float:
    """The step period (s) whose sideways CoM sway is at most ``room`` (m), for legs
    that cannot roll a sole: they move the CoM sideways only by leaning the legs or
    rolling the pelvis over the hip, so the sway is kept small by stepping quicker.
    A linear inverted pendulum (time constant ``tau``) whose ZMP alternates between
    feet ``half_width`` either side of the middle with period ``T`` each sways
    ``half_width (1 - 1 / cosh(T / (2 tau)))``: ``T = 2 tau acosh(hw / (hw - room))``
    (``inf`` when the room reaches the feet)."""
    if room >= half_width:
        return math.inf
    return 2.0 * tau * math.acosh(half_width / (half_width - room))


def resolve_params(biped: Biped, params: WalkParams | None = None) -> Resolved:
    """All parameters of ``params`` as numbers, the missing ones sized from ``biped``;
    a one-line :class:`InputError` for values a walk cannot use."""
    p = params or WalkParams()
    for f in fields(p):
        v = getattr(p, f.name)
        if v is not None and not (math.isfinite(v) and v >= 0):
            raise InputError(f"walk parameter {f.name}: {v!r}; must be a finite number >= 0")
    ll = biped.leg_length
    crouch = CROUCHES[0] * ll if p.crouch is None else p.crouch
    if not 0 <= crouch < 0.5 * ll:
        raise InputError(
            f"walk parameter crouch: {crouch:g} m; must be in [0, {0.5 * ll:.3g}) m "
            f"(half the leg length {ll:.3g} m)"
        )
    zc = biped.com_height - crouch if p.com_height is None else p.com_height
    if not 0.2 * biped.com_height < zc <= biped.com_height:
        raise InputError(
            f"walk parameter com_height: {zc:g} m; must be in ({0.2 * biped.com_height:.3g}, "
            f"{biped.com_height:.3g}] m (the CoM standing tall)"
        )
    tau = math.sqrt(zc / G)
    hw = biped.half_width if p.half_width is None else p.half_width
    if p.step_period is not None:
        period = p.step_period
    elif biped.rolls_soles:
        period = 2.4 * tau
    else:
        room = min(sole_side_room(biped), SWAY_LEAN * ll)
        period = max(SWAY_FLOOR * tau, min(2.4 * tau, sway_period(tau, hw, room)))
    ds = 0.2 if p.double_support is None else p.double_support
    if not 0.0 < ds < 0.9:
        raise InputError(f"walk parameter double_support: {ds:g}; must be in (0, 0.9)")
    dt = 0.01 if p.dt is None else p.dt
    if not 1e-4 <= dt <= 0.05:
        raise InputError(f"walk parameter dt: {dt:g} s; must be in [0.0001, 0.05] s")
    if period * (1 - ds) < 4 * dt:
        raise InputError(
            f"walk parameter step_period: {period:g} s; the swing must last >= 4 samples "
            f"({4 * dt / (1 - ds):.3g} s at dt {dt:g} s)"
        )
    # whole samples: every step then starts and lands on a sample, and a steady walk's
    # samples repeat exactly from one step to the next
    period = max(2, round(period / dt)) * dt
    ds = min(max(1, round(ds * period / dt)), round(period / dt) - 1) * dt / period
    yaw_lo, yaw_hi = biped.yaw_range
    turn_room = min(-yaw_lo, yaw_hi)
    max_turn = min(math.radians(25.0), max(turn_room, 0.0)) if p.max_turn is None else p.max_turn
    if max_turn > 0 and turn_room <= 0:
        raise InputError(
            f"{biped.name}: its legs have no joint about the vertical; it cannot turn "
            "(walk parameter max_turn must be 0)"
        )
    return Resolved(
        step_period=period,
        double_support=ds,
        step_height=0.08 * ll if p.step_height is None else p.step_height,
        crouch=crouch,
        com_height=zc,
        max_step_length=0.45 * ll if p.max_step_length is None else p.max_step_length,
        max_step_side=0.2 * ll if p.max_step_side is None else p.max_step_side,
        max_turn=max_turn,
        half_width=hw,
        dt=dt,
        preview=10.0 * tau if p.preview is None else p.preview,
        qe=p.qe,
        r=1e-6 * (tau / 0.288) ** 6 if p.r is None else p.r,
        leg_length=ll,
    )
