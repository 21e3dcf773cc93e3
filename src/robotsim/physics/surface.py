"""Contact surfaces in the ODE vocabulary and their mapping to MuJoCo.

The mobile-robot paper (seed ``002_…``) sets its contacts with ODE's ``dSurfaceParameters``
(``mu``, ``mu2``, ``slip1``, ``slip2``, ``bounce``, ``bounce_vel``, ``soft_erp``,
``soft_cfm``). :class:`ContactSurface` keeps that vocabulary; :func:`to_mujoco` turns it
into MuJoCo's ``friction`` / ``solref`` / ``solreffriction`` / ``solimp``. The full
mapping, with what is exact and what is approximate, is in ``docs/physics.md``:

- ``mu`` / ``mu2``: Coulomb coefficients of the two tangent directions (MuJoCo's pyramid
  with ``condim=3``). ``mu2=None`` means isotropic (ODE without ``dContactMu2``).
- ``bounce``: coefficient of restitution ``e``. MuJoCo has no velocity-level restitution;
  a bouncy contact becomes a mass-normalised spring-damper (negative ``solref``) whose
  damping ratio is calibrated against MuJoCo itself (:func:`calibrated_dampratio`) so a
  ball dropped from ``h`` rises to ``e^2 h``.
- ``soft_erp`` / ``soft_cfm``: ODE's spring ``kp = erp / (h cfm)`` and damper
  ``kd = (1 - erp) / cfm`` (N/m, N s/m), divided by the mass of the lighter moving body in
  the contact (MuJoCo's references are per unit mass).
- ``slip1`` / ``slip2``: ODE's force-dependent slip (creep speed = slip x tangential
  force) becomes the damping of the friction rows (``solreffriction``), so MuJoCo's soft
  friction creeps at about the same speed. Only explicit pairs carry ``solreffriction``.
- ``bounce_vel``: MuJoCo's spring contact cannot switch restitution by speed, so the
  World swaps a moving geom's ``solref`` between the bouncy and a dead one at each
  contact onset, from its body's speed (approximate; see docs/physics.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from robotsim.errors import InputError

__all__ = [
    "ContactSurface",
    "MujocoContact",
    "bounce_stiffness",
    "calibrated_dampratio",
    "to_mujoco",
]

#: MuJoCo's torsional and rolling friction defaults (ODE has neither).
TORSIONAL = 0.005
ROLLING = 0.0001
#: Impedance used for every contact we map (MuJoCo ``solimp``): close to rigid.
SOLIMP = (0.99, 0.99, 0.001, 0.5, 2.0)
#: Drop heights (m) the restitution calibration averages over.
CALIBRATION_DROPS = (0.3, 0.5, 0.8, 1.3)
#: Steps per half period of a bouncy contact's spring: fewer is unstable/energy-gaining.
BOUNCE_HALF_PERIOD_STEPS = 12


@dataclass(frozen=True)
class ContactSurface:
    """One contact surface in ODE's terms (``dSurfaceParameters``).

    Attributes:
        mu: Coulomb friction, direction 1 (``inf`` = never slides). For a capsule on a
            plane, direction 1 is the capsule's rolling direction (perpendicular to its
            axis); elsewhere MuJoCo's collider picks the tangent frame.
        mu2: Coulomb friction, direction 2 (along a capsule's axis); ``None`` = ``mu``.
        slip1, slip2: force-dependent slip (m/s per N) in directions 1 and 2.
        bounce: coefficient of restitution, 0 (dead) .. 1 (elastic).
        bounce_vel: minimum impact speed (m/s) for a bounce in ODE (see module doc).
        soft_erp: ODE error-reduction parameter in (0, 1]; ``None`` = MuJoCo default.
        soft_cfm: ODE constraint-force mixing (m/N); ``None`` = MuJoCo default.
    """

    mu: float = 1.0
    mu2: float | None = None
    slip1: float = 0.0
    slip2: float = 0.0
    bounce: float = 0.0
    bounce_vel: float = 0.0
    soft_erp: float | None = None
    soft_cfm: float | None = None

    def __post_init__(self) -> None:
        _check("mu", self.mu, 0.0, math.inf, inf_ok=True)
        if self.mu2 is not None:
            _check("mu2", self.mu2, 0.0, math.inf, inf_ok=True)
        _check("slip1", self.slip1, 0.0, math.inf)
        _check("slip2", self.slip2, 0.0, math.inf)
        _check("bounce", self.bounce, 0.0, 1.0)
        _check("bounce_vel", self.bounce_vel, 0.0, math.inf)
        if self.soft_erp is not None:
            _check("soft_erp", self.soft_erp, 1e-9, 1.0)
        if self.soft_cfm is not None:
            _check("soft_cfm", self.soft_cfm, 1e-12, math.inf)

    @property
    def anisotropic(self) -> bool:
        return (self.mu2 is not None and self.mu2 != self.mu) or self.slip1 != self.slip2

    @property
    def needs_mass(self) -> bool:
        """True when the mapping depends on the mass in contact (ERP/CFM or slip)."""
        soft = self.soft_cfm is not None or self.soft_erp is not None
        return (soft and self.bounce == 0.0) or self.slip1 > 0 or self.slip2 > 0


def _check(name: str, v: float, lo: float, hi: float, inf_ok: bool = False) -> None:
    ok = isinstance(v, int | float) and not math.isnan(v) and lo <= v <= hi
    if ok and math.isinf(v) and not inf_ok:
        ok = False
    if not ok:
        top = "inf" if inf_ok else f"{hi:g}"
        raise InputError(f"contact surface {name}: {v!r} is not in [{lo:g}, {top}]")


@dataclass(frozen=True)
class MujocoContact:
    """MuJoCo contact parameters for one surface.

    ``friction`` is the 5-vector of a ``<pair>`` (tangent 1, tangent 2, torsion, roll 1,
    roll 2) in MuJoCo's frame order; geoms use ``friction[:3]`` of the isotropic case.
    """

    friction: tuple[float, float, float, float, float]
    solref: tuple[float, float]
    solreffriction: tuple[float, float]
    solimp: tuple[float, float, float, float, float]
    condim: int


MAX_MU = 1e3  # MuJoCo has no infinite friction; this never slides in practice
MIN_MU = 1e-5  # MuJoCo's smallest friction coefficient (mjMINMU)


def _mu(v: float) -> float:
    return MAX_MU if math.isinf(v) else max(float(v), MIN_MU)


def bounce_stiffness(timestep: float) -> float:
    """Angular frequency (rad/s) of a bouncy contact spring at ``timestep`` (s)."""
    return math.pi / (BOUNCE_HALF_PERIOD_STEPS * timestep)


def to_mujoco(
    surface: ContactSurface, timestep: float, mass: float = 1.0, capsule_frame: bool = False
) -> MujocoContact:
    """Map ``surface`` to MuJoCo for a contact stepped at ``timestep`` (s).

    ``mass`` (kg) is the lighter moving body in the contact; it only matters for
    ``soft_erp``/``soft_cfm`` and slip. With ``capsule_frame`` the two tangent
    coefficients are ordered for MuJoCo's capsule-plane frame (tangent 1 along the
    capsule axis = ODE direction 2).
    """
    mu1 = _mu(surface.mu)
    mu2 = mu1 if surface.mu2 is None else _mu(surface.mu2)
    t1, t2 = (mu2, mu1) if capsule_frame else (mu1, mu2)
    friction = (t1, t2, TORSIONAL, ROLLING, ROLLING)
    if surface.bounce > 0.0:
        w = bounce_stiffness(timestep)
        if surface.soft_cfm is not None or surface.soft_erp is not None:
            kp, _ = _ode_spring(surface, timestep)
            w = min(w, math.sqrt(kp / max(mass, 1e-9)))
        z = calibrated_dampratio(round(surface.bounce, 6), round(w * timestep, 9), timestep)
        solref = (-(w * w), -(2.0 * z * w))
    elif surface.soft_cfm is not None or surface.soft_erp is not None:
        solref = _soft_solref(surface, timestep, mass)
    else:
        solref = (0.02, 1.0)
    slip = max(surface.slip1, surface.slip2)
    if slip > 0.0:
        d = SOLIMP[1]
        b_f = (1.0 - d) / (d * slip * max(mass, 1e-9))
        solreffriction = (-1e-9, -b_f)
    else:
        solreffriction = (0.0, 0.0)  # MuJoCo: same as solref
    condim = 1 if mu1 <= MIN_MU and mu2 <= MIN_MU else 3
    return MujocoContact(friction, solref, solreffriction, SOLIMP, condim)


def _soft_solref(surface: ContactSurface, h: float, mass: float) -> tuple[float, float]:
    """Negative ``solref`` reproducing ODE's static penetration ``m g / kp`` and its
    damping ratio ``kd / (2 sqrt(kp m))``.

    A soft MuJoCo constraint settles at ``(1 - d) g / (d k)`` (``d`` the impedance), not
    at ``g / k``, so the reference stiffness is ``k = (1 - d) / d * kp / m``; its natural
    frequency ``sqrt(d k)`` is capped at ``pi / (4 h)`` and its damping at ``1 / (d h)``
    (an explicit reference cannot be stiffer than the step; ODE's solver is implicit).
    """
    kp, kd = _ode_spring(surface, h)
    m = max(mass, 1e-9)
    d = SOLIMP[1]
    zeta = kd / (2.0 * math.sqrt(kp * m))
    k = (1.0 - d) / d * kp / m
    w = math.sqrt(d * k)
    w_max = math.pi / (4.0 * h)
    if w > w_max:
        k, w = w_max * w_max / d, w_max
    b = min(2.0 * zeta * w / d, 1.0 / (d * h))
    return (-k, -b)


def _ode_spring(surface: ContactSurface, h: float) -> tuple[float, float]:
    """ODE's (kp N/m, kd N s/m) from ERP/CFM at step ``h`` (ODE manual, section 3.8)."""
    erp = 0.2 if surface.soft_erp is None else surface.soft_erp
    cfm = 1e-5 if surface.soft_cfm is None else surface.soft_cfm
    return erp / (h * cfm), (1.0 - erp) / cfm


@lru_cache(maxsize=256)
def calibrated_dampratio(e: float, w_h: float, h: float) -> float:
    """Damping ratio giving restitution ``e`` for a MuJoCo contact spring of angular
    frequency ``w_h / h`` stepped at ``h`` (s).

    Found by bisection on a one-degree-of-freedom MuJoCo model (a sphere on a vertical
    slide joint dropped under gravity onto a plane; the mean over the drop heights
    ``CALIBRATION_DROPS``): the rebound apex ratio is ``e^2``. Where the impact falls
    inside a time step moves single rebounds by a few per cent around that mean. Time
    discretisation, gravity during the contact and MuJoCo's impedance are all included,
    which the continuous formula (:func:`analytic_dampratio`) misses.
    """
    if e >= 1.0:
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(30):
        z = 0.5 * (lo + hi)
        measured = [_measured_restitution(z, w_h / h, h, drop) for drop in CALIBRATION_DROPS]
        if float(np.mean(measured)) > e:
            lo = z
        else:
            hi = z
        if hi - lo < 1e-5:
            break
    return 0.5 * (lo + hi)


def analytic_dampratio(e: float) -> float:
    """Continuous spring-damper damping ratio for restitution ``e`` (no discretisation)."""
    if e <= 0.0:
        return 1.0
    lg = -math.log(e)
    return lg / math.sqrt(math.pi**2 + lg * lg)


def _measured_restitution(z: float, w: float, h: float, drop: float = 0.5) -> float:
    import mujoco

    spec = mujoco.MjSpec()
    spec.option.timestep = h
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    solref = [-(w * w), -(2.0 * z * w)]
    g = spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[1, 1, 0.1])
    g.solref, g.solimp = solref, list(SOLIMP)
    body = spec.worldbody.add_body(pos=[0, 0, 0.1 + drop])
    body.add_joint(type=mujoco.mjtJoint.mjJNT_SLIDE, axis=[0, 0, 1])
    s = body.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[0.1, 0, 0], mass=1.0)
    s.solref, s.solimp = solref, list(SOLIMP)
    model = spec.compile()
    data = mujoco.MjData(model)
    touched = False
    for _ in range(int(4.0 * math.sqrt(2.0 * drop / 9.81) / h) + 200):
        mujoco.mj_step(model, data)
        touched = touched or data.ncon > 0
        if touched and data.ncon == 0 and data.qvel[0] <= 0.0:
            break  # apex of the first rebound
    return float(np.sqrt(np.clip((drop + data.qpos[0]) / drop, 0.0, 4.0)))
