"""ZMP preview control of a linear inverted pendulum (the cart-table model).

Kajita S., Kanehiro F., Kaneko K., Fujiwara K., Harada K., Yokoi K., Hirukawa H.,
"Biped walking pattern generation by using preview control of zero-moment point",
IEEE ICRA 2003, pp. 1620-1626. The centre of mass moves at a constant height ``zc``;
per horizontal axis the state is ``x = (c, c', c'')`` and the input the jerk ``u``:

    x[k+1] = A x[k] + B u[k]        A = [[1, T, T^2/2], [0, 1, T], [0, 0, 1]]
    p[k]   = C x[k]                 B = [T^3/6, T^2/2, T],  C = [1, 0, -zc/g]

``p`` is the zero-moment point. The controller (the servo form of Katayama et al. 1985,
as in the paper's eq. 13-15) minimises ``sum Qe e^2 + R u^2`` over an infinite horizon
with ``e = p - p_ref``, knowing ``p_ref`` ``N`` steps ahead:

    u[k] = -Gi sum_{i<=k} e[i] - Gx x[k] - sum_{j=1..N} Gp[j] p_ref[k+j]

The gains come from the discrete algebraic Riccati equation of the augmented system
``(e, dx)`` (state increments); Gp decays to zero within a few pendulum time constants,
which is why a horizon of ``~6 sqrt(zc/g)`` is enough.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from robotsim.errors import InputError

__all__ = ["G", "PreviewGains", "preview_gains", "preview_track"]

G = 9.81  # m/s^2


@dataclass(frozen=True, eq=False)
class PreviewGains:
    """Gains of :func:`preview_gains` for one sample time ``dt`` (s) and height ``zc`` (m).

    ``A`` (3, 3), ``B`` (3,), ``C`` (3,); ``Gi`` scalar; ``Gx`` (3,); ``Gp`` (N,) for the
    reference 1..N steps ahead."""

    dt: float
    zc: float
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    Gi: float
    Gx: np.ndarray
    Gp: np.ndarray

    @property
    def horizon(self) -> int:
        return len(self.Gp)


@functools.lru_cache(maxsize=32)
def preview_gains(
    dt: float, zc: float, horizon_s: float, qe: float = 1.0, r: float = 1e-6
) -> PreviewGains:
    """The preview controller's gains (module docs): sample time ``dt`` (s), CoM height
    ``zc`` (m), preview ``horizon_s`` (s), weights ``qe`` on the ZMP error, ``r`` on the
    jerk (Kajita et al. use 1 and 1e-6)."""
    from scipy.linalg import solve_discrete_are

    if not (dt > 0 and zc > 0 and horizon_s >= dt):
        raise InputError(f"preview control: dt {dt}, zc {zc}, horizon {horizon_s}: all > 0")
    A = np.array([[1.0, dt, dt * dt / 2], [0.0, 1.0, dt], [0.0, 0.0, 1.0]])
    B = np.array([dt**3 / 6, dt * dt / 2, dt])
    C = np.array([1.0, 0.0, -zc / G])
    # augmented system on (e, dx): e[k+1] = e[k] + C A dx[k] + C B du[k] - dp_ref
    At = np.zeros((4, 4))
    At[0, 0] = 1.0
    At[0, 1:] = C @ A
    At[1:, 1:] = A
    Bt = np.concatenate([[C @ B], B]).reshape(4, 1)
    Q = np.zeros((4, 4))
    Q[0, 0] = qe
    R = np.array([[r]])
    P = solve_discrete_are(At, Bt, Q, R)
    S = float(r + (Bt.T @ P @ Bt)[0, 0])
    K = (Bt.T @ P @ At)[0] / S
    Ac = At - Bt @ K[None, :]
    n = max(1, round(horizon_s / dt))
    Gp = np.empty(n)
    X = -Ac.T @ P @ np.array([1.0, 0.0, 0.0, 0.0])
    Gp[0] = -K[0]
    for j in range(1, n):
        Gp[j] = float((Bt.T @ X)[0]) / S
        X = Ac.T @ X
    for a in (A, B, C, Gp):
        a.setflags(write=False)
    Gx = K[1:].copy()
    Gx.setflags(write=False)
    return PreviewGains(dt, zc, A, B, C, float(K[0]), Gx, Gp)


def preview_track(
    gains: PreviewGains, p_ref: np.ndarray, x0: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Run the preview controller along a whole reference.

    Args:
        gains: from :func:`preview_gains`.
        p_ref: ``(n, d)`` ZMP reference (m) at the samples ``k dt``; the last value is
            held beyond the end for the preview.
        x0: ``(3, d)`` initial state ``(c, c', c'')`` (default: at rest over ``p_ref[0]``).

    Returns:
        ``(x, p)``: states ``(n, 3, d)`` (m, m/s, m/s^2) and the model's ZMP ``(n, d)``.
    """
    pr = np.asarray(p_ref, dtype=np.float64)
    if pr.ndim == 1:
        pr = pr[:, None]
    n, d = pr.shape
    N = gains.horizon
    padded = np.vstack([pr, np.repeat(pr[-1:], N, axis=0)])
    x = np.zeros((3, d)) if x0 is None else np.array(x0, dtype=np.float64).reshape(3, d)
    if x0 is None:
        x[0] = pr[0]
    from robotsim.walk._preview_kernel import run_preview

    xs = np.empty((n, 3, d))
    ps = np.empty((n, d))
    run_preview(
        np.ascontiguousarray(padded), x, gains.A, gains.B, gains.C, gains.Gi, gains.Gx, gains.Gp,
        n, xs, ps,
    )  # fmt: skip
    return xs, ps
