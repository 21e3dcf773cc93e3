"""A monotone map from the scene's time to a trajectory's own time: a robot slowed
down (or sped up) over a window, its path unchanged.

:class:`TimeWarp` is a piecewise cubic Hermite function ``s(t)`` through knots
``(t_i, s_i)`` with rates ``ds/dt = r_i`` (>= 0): before the first knot and after the
last it continues at the end rates (``s = s_0 + r_0 (t - t_0)``). A rate that ramps
linearly between two knots (a constant ``d2s/dt2``) is a cubic, so the ramps the
planner builds are represented exactly. Each piece must be monotone: its rates
satisfy the Fritsch-Carlson condition ``a^2 + b^2 <= 9`` with ``a, b`` the end rates
over the piece's mean rate (``ds/dt >= 0`` on the whole piece).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError
from robotsim.model.geometry import readonly

__all__ = ["TimeWarp"]


@dataclass(frozen=True, eq=False)
class TimeWarp:
    """Knots ``t (n,)`` (s, increasing), ``s (n,)`` (s, non-decreasing), ``rate (n,)``
    (``ds/dt`` >= 0, dimensionless), ``n >= 2``."""

    t: np.ndarray
    s: np.ndarray
    rate: np.ndarray

    def __post_init__(self) -> None:
        t, s, r = (np.asarray(x, dtype=np.float64) for x in (self.t, self.s, self.rate))
        if t.ndim != 1 or len(t) < 2 or s.shape != t.shape or r.shape != t.shape:
            raise InputError("time warp: t, s and rate need the same length, at least 2 knots")
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(s)) and np.all(np.isfinite(r))):
            raise InputError("time warp: knots must be finite")
        if np.any(np.diff(t) <= 0):
            raise InputError("time warp: knot times t must increase")
        if np.any(r < 0) or r[0] <= 0 or r[-1] <= 0:
            raise InputError("time warp: rates must be >= 0, and > 0 at the first and last knot")
        ds = np.diff(s)
        if np.any(ds < 0):
            raise InputError("time warp: s must not decrease")
        mean = ds / np.diff(t)
        with np.errstate(divide="ignore", invalid="ignore"):
            a, b = r[:-1] / mean, r[1:] / mean
        flat = mean == 0
        bad = np.where(flat, (r[:-1] > 0) | (r[1:] > 0), a * a + b * b > 9.0 + 1e-9)
        if np.any(bad):
            k = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"time warp: piece {k} ({t[k]:g} .. {t[k + 1]:g} s) is not monotone: its end "
                f"rates {r[k]:g}, {r[k + 1]:g} are too large for its mean rate {mean[k]:g}"
            )
        for name, v in (("t", t), ("s", s), ("rate", r)):
            object.__setattr__(self, name, readonly(v))

    # ----------------------------------------------------------------- pieces
    def _piece(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        k = np.clip(np.searchsorted(self.t, t, side="right") - 1, 0, len(self.t) - 2)
        h = self.t[k + 1] - self.t[k]
        return k, h, (t - self.t[k]) / h

    def _coeffs(self, k: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, ...]:
        """``ds/dt = a u^2 + b u + c`` on piece ``k`` (``u`` in [0, 1])."""
        d = (self.s[k] - self.s[k + 1]) / h
        r0, r1 = self.rate[k], self.rate[k + 1]
        return 6 * d + 3 * r0 + 3 * r1, -6 * d - 4 * r0 - 2 * r1, r0

    def __call__(self, t: ArrayLike) -> np.ndarray:
        """``s(t)`` (s) for scene times ``t (...)``."""
        t = np.asarray(t, dtype=np.float64)
        k, h, u = self._piece(t)
        s0, s1, r0, r1 = self.s[k], self.s[k + 1], self.rate[k], self.rate[k + 1]
        u2, u3 = u * u, u * u * u
        inside = (
            (2 * u3 - 3 * u2 + 1) * s0
            + (u3 - 2 * u2 + u) * h * r0
            + (-2 * u3 + 3 * u2) * s1
            + (u3 - u2) * h * r1
        )
        before = self.s[0] + self.rate[0] * (t - self.t[0])
        after = self.s[-1] + self.rate[-1] * (t - self.t[-1])
        return np.where(t < self.t[0], before, np.where(t > self.t[-1], after, inside))

    def rate_at(self, t: ArrayLike) -> np.ndarray:
        """``ds/dt`` at scene times ``t (...)``."""
        t = np.asarray(t, dtype=np.float64)
        k, h, u = self._piece(t)
        a, b, c = self._coeffs(k, h)
        inside = (a * u + b) * u + c
        return np.where(
            t < self.t[0], self.rate[0], np.where(t > self.t[-1], self.rate[-1], inside)
        )

    @cached_property
    def _table(self) -> list[np.ndarray]:
        """Sparse table of each piece's largest rate: level ``j`` is the max over ``2^j``
        consecutive pieces (range maxima in two look-ups)."""
        n = len(self.t) - 1
        k = np.arange(n)
        table = [self._piece_max(k, np.zeros(n), np.ones(n))]
        while 2 ** len(table) <= n:
            w = 2 ** (len(table) - 1)
            table.append(np.maximum(table[-1][:-w], table[-1][w:]))
        return table

    def _piece_max(self, k: np.ndarray, u0: np.ndarray, u1: np.ndarray) -> np.ndarray:
        """Largest rate on piece ``k`` over ``u`` in ``[u0, u1]`` (the quadratic's ends and
        its vertex when inside)."""
        h = self.t[k + 1] - self.t[k]
        a, b, c = self._coeffs(k, h)
        f = lambda u: (a * u + b) * u + c  # noqa: E731
        out = np.maximum(f(u0), f(u1))
        with np.errstate(divide="ignore", invalid="ignore"):
            uv = np.where(a < 0, -b / (2 * a), -1.0)
        inside = (uv > u0) & (uv < u1)
        return np.where(inside, np.maximum(out, f(np.clip(uv, 0.0, 1.0))), out)

    def max_rate(self, t0: np.ndarray, t1: np.ndarray) -> np.ndarray:
        """The largest ``ds/dt`` over each ``[t0, t1]`` ``(K,)`` (exact: the rate is a
        quadratic on every piece and constant outside the knots)."""
        t0 = np.asarray(t0, dtype=np.float64)
        t1 = np.asarray(t1, dtype=np.float64)
        out = np.maximum(self.rate_at(t0), self.rate_at(t1))
        a = np.clip(t0, self.t[0], self.t[-1])
        b = np.clip(t1, self.t[0], self.t[-1])
        m = np.flatnonzero(b > a)
        if m.size == 0:
            return out
        k0, _, u0 = self._piece(a[m])
        k1, _, u1 = self._piece(b[m])
        u0, u1 = np.clip(u0, 0, 1), np.clip(u1, 0, 1)
        same = k0 == k1
        best = self._piece_max(k0, u0, np.where(same, u1, 1.0))
        best = np.maximum(best, self._piece_max(k1, np.where(same, u0, 0.0), u1))
        lo, hi = k0 + 1, k1 - 1
        w = np.flatnonzero(hi >= lo)
        if w.size:
            lv = np.floor(np.log2(hi[w] - lo[w] + 1)).astype(np.int64)
            for j in np.unique(lv):
                sel = w[lv == j]
                tab = self._table[j]
                best[sel] = np.maximum(best[sel], np.maximum(tab[lo[sel]], tab[hi[sel] - 2**j + 1]))
        out[m] = np.maximum(out[m], best)
        return out

    def inverse(self, s: ArrayLike) -> np.ndarray:
        """The first scene time ``t`` with ``s(t) = s`` (bisection to 1e-12 s)."""
        s = np.asarray(s, dtype=np.float64)
        lo = np.where(s < self.s[0], self.t[0] - (self.s[0] - s) / self.rate[0], self.t[0]).astype(
            np.float64
        )
        hi = np.where(
            s > self.s[-1], self.t[-1] + (s - self.s[-1]) / self.rate[-1], self.t[-1]
        ).astype(np.float64)
        inside = (s >= self.s[0]) & (s <= self.s[-1])
        a, b = lo.copy(), hi.copy()
        for _ in range(64):
            mid = 0.5 * (a + b)
            below = self(mid) < s
            a = np.where(below, mid, a)
            b = np.where(below, b, mid)
        return np.where(inside, b, np.where(s < self.s[0], lo, hi))

    def to_dict(self) -> dict[str, list[float]]:
        """``{t, s, rate}`` lists, as a scenario file's ``time_warp`` holds them."""
        return {"t": self.t.tolist(), "s": self.s.tolist(), "rate": self.rate.tolist()}
