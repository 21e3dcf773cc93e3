"""Model parameters of one robot changed while its world runs (seed 002's "model
parameters" entered from the gamepad or the keyboard).

:class:`RobotTuning` remembers a robot's compiled masses, inertias and contact friction
once and applies factors to them (``set(mass=1.25)``): factors always act on the
originals, so pressing up then down returns exactly to the file's values. Masses and
rotational inertias scale together (the same bodies, denser); friction scales the
sliding coefficients of the robot's geoms and of the explicit pairs it takes part in
(its tyres). What stays as compiled: the mass-dependent contact references of ERP/CFM
surfaces (docs/physics.md).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from robotsim.errors import InputError, UnknownNameError

if TYPE_CHECKING:
    from robotsim.physics.world import World

__all__ = ["SCALE_RANGE", "RobotTuning"]

#: The factors :meth:`RobotTuning.set` accepts (the live parameters' own range).
SCALE_RANGE = (0.25, 4.0)


class RobotTuning:
    """Mass and friction factors of robot ``robot`` in ``world`` (module docs)."""

    def __init__(self, world: World, robot: str) -> None:
        m = world.model
        prefix = f"{robot}/"
        names = [m.body(b).name for b in range(m.nbody)]
        bodies = np.array([i for i, n in enumerate(names) if n.startswith(prefix)], np.int64)
        if bodies.size == 0:
            robots = [r.name for r in world.scene.robots]
            raise UnknownNameError("robot", robot, robots)
        self.world, self.robot = world, robot
        self.bodies = bodies
        self.geoms = np.flatnonzero(np.isin(m.geom_bodyid, bodies))
        in_robot = np.isin(m.pair_geom1, self.geoms) | np.isin(m.pair_geom2, self.geoms)
        self.pairs = np.flatnonzero(in_robot)
        self._mass = m.body_mass[bodies].copy()
        self._inertia = m.body_inertia[bodies].copy()
        self._geom_mu = m.geom_friction[self.geoms, 0].copy()
        self._pair_mu = m.pair_friction[self.pairs, :2].copy()
        self.mass_scale = 1.0
        self.friction_scale = 1.0

    @property
    def mass(self) -> float:
        """The robot's total mass now (kg)."""
        return float(np.sum(self.world.model.body_mass[self.bodies]))

    def set(self, mass: float | None = None, friction: float | None = None) -> None:
        """Masses and inertias at ``mass`` x the compiled ones, sliding friction at
        ``friction`` x (either may be left out); each within :data:`SCALE_RANGE`."""
        m = self.world.model
        if mass is not None:
            self.mass_scale = _checked("mass", mass)
            m.body_mass[self.bodies] = self._mass * self.mass_scale
            m.body_inertia[self.bodies] = self._inertia * self.mass_scale
        if friction is not None:
            self.friction_scale = _checked("friction", friction)
            m.geom_friction[self.geoms, 0] = self._geom_mu * self.friction_scale
            m.pair_friction[self.pairs, :2] = self._pair_mu * self.friction_scale
        if mass is not None:
            self.world._moved_from_outside()  # new masses: new energies, no fault


def _checked(name: str, value: float) -> float:
    lo, hi = SCALE_RANGE
    v = float(value)
    if not (math.isfinite(v) and lo <= v <= hi):
        raise InputError(f"{name} factor {value!r} is not in [{lo:g}, {hi:g}]")
    return v
