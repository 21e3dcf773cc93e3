"""The ball's free fall in kinematic mode (the paper's step 5), integrated exactly.

Within a tick the height follows ``z(τ) = z0 + v τ - g τ² / 2`` in closed form, so the
landing time does not depend on the tick length beyond the tick it falls in. At impact
the vertical speed is reversed and scaled by the restitution ``bounce`` (0: the ball
stops dead); a rebound slower than ``rest_speed`` ends in rest. Horizontal position and
orientation do not change while falling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robotsim.errors import InputError

__all__ = ["FallResult", "fall_step"]


@dataclass(frozen=True)
class FallResult:
    """Ball height after one tick.

    Attributes:
        z: centre height at the end of the tick (m).
        vz: vertical velocity at the end of the tick (m/s, + up).
        impacts: times (s from the start of the tick) the ball hit the support.
        resting: the ball lies on the support at the end of the tick.
    """

    z: float
    vz: float
    impacts: tuple[float, ...]
    resting: bool


def fall_step(
    z: float,
    vz: float,
    dt: float,
    rest_z: float,
    gravity: float = 9.81,
    bounce: float = 0.0,
    rest_speed: float = 0.05,
) -> FallResult:
    """Advance a falling ball by ``dt`` (s).

    Args:
        z: centre height (m); ``rest_z`` is the centre height when lying on the
            support (support height + radius).
        vz: vertical velocity (m/s).
        gravity: g (m/s², > 0).
        bounce: restitution in [0, 1).
        rest_speed: rebound speeds below this (m/s) end the bouncing.
    """
    if not 0.0 <= bounce < 1.0:
        raise InputError(f"bounce must be in [0, 1), got {bounce}")
    if gravity <= 0:
        raise InputError(f"gravity must be > 0 m/s^2, got {gravity}")
    impacts: list[float] = []
    elapsed = 0.0
    if z <= rest_z and vz <= 0.0:
        return FallResult(rest_z, 0.0, (), True)
    while True:
        left = dt - elapsed
        # Solve z + vz τ - g τ²/2 = rest_z for the first τ > 0.
        h = z - rest_z
        disc = vz * vz + 2.0 * gravity * h
        tau = (vz + np.sqrt(max(disc, 0.0))) / gravity
        if tau > left:
            return FallResult(
                z + vz * left - 0.5 * gravity * left * left,
                vz - gravity * left,
                tuple(impacts),
                False,
            )
        elapsed += tau
        impacts.append(elapsed)
        v_hit = vz - gravity * tau
        rebound = -bounce * v_hit
        z = rest_z
        if rebound < rest_speed:
            return FallResult(rest_z, 0.0, tuple(impacts), True)
        vz = rebound
