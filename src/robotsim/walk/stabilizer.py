"""Balance feedback from the measured state: where to ask the CoM and the torso to be.

The pattern is a plan for a perfect robot; the real one (servos that give under load,
feet that land a little early or late, a push) drifts from it, and its *divergent
component of motion* (DCM, or capture point, ``xi = c + c' / omega``: the point the CoM
runs away from, Takenaka et al. 2009, Englsberger et al. 2015) tells how much the
pendulum is about to fall. The stabilizer turns the measured error into two
corrections that whole-body IK carries out on the robot's own position servos:

- **ankle strategy** (CoM admittance): the commanded CoM moves against the DCM error,
  ``c_cmd = c_ref - k_dcm (xi - xi_ref) - k_zmp (p - p_ref)``: with the feet on the
  floor this turns the ankles (and knees, hips) so the servos press the soles' edge
  that pulls the CoM back, i.e. it moves the centre of pressure towards where the
  DCM must be pushed from (the linear DCM control law ``p = xi + k (xi - xi_ref)`` as
  a position-controlled robot realises it: Kajita et al., "Biped walking stabilization
  based on linear inverted pendulum tracking", IROS 2010, section III);
- **hip strategy**: the commanded torso turns against its measured tilt,
  ``R_cmd = Rot(-k_tilt * tilt) R_ref`` (pitch and roll), so a torso pushed forward is
  pulled back by the hips, which moves the CoP the other way and keeps the body
  upright.

Both corrections are bounded (``max_shift`` of the CoM, ``max_tilt`` of the torso) and
low-passed: the measured CoM velocity is filtered with time constant ``tau_v``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["BalanceGains", "Measured", "Stabilizer"]


@dataclass(frozen=True)
class BalanceGains:
    """Feedback gains (dimensionless) and bounds; ``enabled=False``: open loop.

    ``k_dcm``: CoM shift per metre of DCM error; ``k_zmp``: per metre of measured ZMP
    error (0: not used); ``k_tilt``: torso counter-rotation per radian of tilt;
    ``max_shift``: the largest CoM shift, a fraction of the leg length; ``max_tilt``:
    rad; ``tau_v``: s, low-pass on the measured CoM velocity."""

    k_dcm: float = 0.6
    k_zmp: float = 0.0
    k_tilt: float = 0.0
    max_shift: float = 0.15
    max_tilt: float = 0.35
    tau_v: float = 0.02
    enabled: bool = True


@dataclass
class Measured:
    """The robot as the simulation (or a real robot's sensors) sees it at time ``t``:
    root pose ``T_root`` (4, 4), joints ``q`` (nq,), CoM ``com`` (3,) and its velocity
    ``com_vel`` (3,), the ZMP ``zmp`` (2,) of the ground reaction (``None`` in the air)."""

    t: float
    T_root: np.ndarray
    q: np.ndarray
    com: np.ndarray
    com_vel: np.ndarray
    zmp: np.ndarray | None


class Stabilizer:
    """Computes the corrected CoM and torso targets (module docs) each control tick."""

    def __init__(self, omega: float, leg_length: float, gains: BalanceGains | None = None) -> None:
        self.omega = float(omega)
        self.gains = gains or BalanceGains()
        self.max_shift = self.gains.max_shift * leg_length
        self._vel: np.ndarray | None = None
        self._com_prev: np.ndarray | None = None
        self._t_prev = 0.0

    def reset(self) -> None:
        self._vel = None
        self._com_prev = None

    def filtered_velocity(self, t: float, com: np.ndarray) -> np.ndarray:
        """The CoM velocity ``(3,)`` by filtered finite differences of the measured CoM."""
        if self._com_prev is None or t <= self._t_prev:
            v = np.zeros(3)
        else:
            raw = (com - self._com_prev) / (t - self._t_prev)
            a = (t - self._t_prev) / (self.gains.tau_v + (t - self._t_prev))
            v = raw if self._vel is None else self._vel + a * (raw - self._vel)
        self._vel, self._com_prev, self._t_prev = v, com.copy(), t
        return v

    def dcm(self, com: np.ndarray, com_vel: np.ndarray) -> np.ndarray:
        """``xi = c + c' / omega`` ``(2,)`` (horizontal)."""
        return com[:2] + com_vel[:2] / self.omega

    def correct(
        self,
        com_ref: np.ndarray,
        com_vel_ref: np.ndarray,
        zmp_ref: np.ndarray,
        R_ref: np.ndarray,
        meas: Measured,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(com_cmd (3,), R_cmd (3, 3), dcm_error (2,))`` for one tick."""
        g = self.gains
        err = self.dcm(meas.com, meas.com_vel) - self.dcm(com_ref, com_vel_ref)
        if not g.enabled:
            return com_ref, R_ref, err
        shift = -g.k_dcm * err
        if g.k_zmp and meas.zmp is not None:
            shift = shift - g.k_zmp * (meas.zmp - zmp_ref)
        n = float(np.linalg.norm(shift))
        if n > self.max_shift:
            shift *= self.max_shift / n
        com_cmd = com_ref.copy()
        com_cmd[:2] += shift
        # tilt of the measured torso relative to the reference one: a rotation vector
        R_err = meas.T_root[:3, :3] @ R_ref.T
        tilt = 0.5 * np.array(
            [R_err[2, 1] - R_err[1, 2], R_err[0, 2] - R_err[2, 0], 0.0]
        )  # roll, pitch components (small angles); yaw left to the pattern
        tn = float(np.linalg.norm(tilt))
        if g.k_tilt and tn > 1e-9:
            ang = min(g.k_tilt * tn, g.max_tilt)
            axis = -tilt / tn
            R_cmd = _axis_angle(axis, ang) @ R_ref
        else:
            R_cmd = R_ref
        return com_cmd, R_cmd, err


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    C = 1 - c
    return np.array(
        [
            [c + x * x * C, x * y * C - z * s, x * z * C + y * s],
            [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
            [z * x * C - y * s, z * y * C + x * s, c + z * z * C],
        ]
    )
