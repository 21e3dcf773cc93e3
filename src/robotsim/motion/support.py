"""Support-foot switching: the foot on the ground is the root of the kinematic tree.

Every tick the joints move to the next sample ``q_k`` with the current support foot
as the anchor of :class:`robotsim.kinematics.AnchoredState` (paper eq. 2: the body pose
is recomputed so the support sole stays exactly where it is). Then every other sole is
checked against the ground (the plane ``z = 0``): its height is the lowest of its four
corners.

**Switch rule.** A non-support foot whose lowest corner goes below the floor by more
than ``sink_tol`` (default 0.1 mm) — and below the support sole, if that one is already
under the floor — is pushing into the ground: it becomes the support. (The second
condition is the hysteresis that stops two sunken feet from trading the support every
tick.)
Where it is frozen depends on ``detection``:

- ``exact`` (default): the instant it reached the floor is found by bisection on the
  interpolation between the previous and this tick, the support switches there (the
  new support sole sits on the floor to ~1e-12 m) and the tick is completed with it. If
  the foot was already on the floor at the previous tick (double support, the other
  foot now lifting) the switch happens at the previous tick.
- ``tick`` (the paper's): the foot becomes the support where it is at this tick, so
  its depth below the floor (the *contact error*) stays until its next swing. It is at
  most one tick's travel of the foot, which is why fewer interpolation points per
  keyframe (the paper's first speed method at high levels) sink the feet.

**Double support** is reported when every sole is within ``contact_tol`` (1 mm) of the
floor; the support (anchor) then stays the foot that was last switched to, so a foot
that touches down exactly on the floor takes over only when the other one starts to
lift (or when it is pushed into the floor). Switching never moves a link: the body
pose is continuous across switches.

The start: the lowest sole of the start pose (first foot on ties) is laid flat on the
floor (its yaw and x, y kept) and becomes the support.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from robotsim.errors import InputError
from robotsim.kinematics import kernels
from robotsim.kinematics.floating import AnchoredState
from robotsim.model.robot import RobotModel
from robotsim.motion.profile import SoleSpec
from robotsim.spatial import inv_T

__all__ = ["ContactSettings", "Detection", "SupportTracker", "Switch", "initial_root"]

Detection = Literal["exact", "tick"]


@dataclass(frozen=True)
class ContactSettings:
    """Ground contact parameters (m)."""

    contact_tol: float = 1e-3
    sink_tol: float = 1e-4
    detection: Detection = "exact"

    def __post_init__(self) -> None:
        if self.detection not in ("exact", "tick"):
            raise InputError(f"detection {self.detection!r}; valid: exact, tick")
        if not (self.contact_tol > 0 and self.sink_tol >= 0):
            raise InputError("contact_tol must be > 0 and sink_tol >= 0")


@dataclass(frozen=True)
class Switch:
    """A change of support foot at sample ``tick`` (time ``t`` s; for ``exact``
    detection at fraction ``u`` of that sample's segment). ``error_m`` is the new
    support sole's height above the floor when frozen (negative = below)."""

    tick: int
    t: float
    from_foot: str
    to_foot: str
    error_m: float


def _flat_on_floor(T_root_sole: np.ndarray) -> np.ndarray:
    yaw = np.arctan2(T_root_sole[1, 0], T_root_sole[0, 0])
    c, s = np.cos(yaw), np.sin(yaw)
    T = np.eye(4)
    T[:2, :2] = [[c, -s], [s, c]]
    T[:2, 3] = T_root_sole[:2, 3]
    return T


def initial_root(
    model: RobotModel, q0: np.ndarray, soles: tuple[SoleSpec, ...]
) -> tuple[np.ndarray, int]:
    """``(T_world_root (4, 4), support foot index)`` for the start pose ``q0``."""
    T = model.tree.fk_frames(q0, [s.frame for s in soles])
    lows = [float(np.min(T[i, 2, :3] @ s.corners().T + T[i, 2, 3])) for i, s in enumerate(soles)]
    i = int(np.argmin(np.round(lows, 9)))
    return _flat_on_floor(T[i]) @ inv_T(T[i]), i


class SupportTracker:
    """Moves an :class:`AnchoredState` sample by sample with support switching.

    Args:
        model: the robot; ``soles`` its feet (none for a fixed-base robot: then the
            root stays at the world origin and nothing switches).
        q0: start configuration ``(nq,)``; the robot is placed by :func:`initial_root`.
        settings: contact tolerances and the detection mode (module docs).

    Attributes:
        state: the :class:`AnchoredState` (the support sole is its anchor).
        support: index of the support sole in ``soles`` (-1 without soles).
        heights: lowest-corner height of every sole now ``(F,)`` (m).
    """

    def __init__(
        self,
        model: RobotModel,
        soles: tuple[SoleSpec, ...],
        q0: np.ndarray,
        settings: ContactSettings | None = None,
    ) -> None:
        if not soles and model.floating:
            raise InputError(
                f"{model.name}: a floating robot needs foot soles (a robot profile) to be played"
            )
        self.model = model
        self.soles = tuple(soles)
        self.settings = settings or ContactSettings()
        tree = model.tree
        self._link = []
        self._corners = []  # (4, 4) homogeneous corner columns in the link frame
        for s in self.soles:
            li, T_lf = tree.frame(s.frame)
            C = np.vstack([s.corners().T, np.ones(len(s.corners()))])
            self._link.append(li)
            self._corners.append(np.asarray(T_lf) @ C)
        # the same corners packed for one compiled call per tick (kernels.lowest_z)
        counts = [C.shape[1] for C in self._corners]
        self._points = np.zeros((len(self.soles), max(counts, default=0), 4))
        for f, C in enumerate(self._corners):
            self._points[f, : C.shape[1]] = C.T
        self._counts = np.array(counts, dtype=np.int64)
        self._links = np.array(self._link, dtype=np.int64)
        if not self.soles:  # a fixed-base robot: no support, the root stays put
            self.support = -1
            self.state = AnchoredState(model, np.asarray(q0, float))
            self.heights = np.zeros(0)
            return
        T0, self.support = initial_root(model, np.asarray(q0, float), self.soles)
        self.state = AnchoredState(
            model, np.asarray(q0, float), T0, anchor=self.soles[self.support].frame
        )
        self.heights = self._heights()

    @property
    def support_name(self) -> str | None:
        return self.soles[self.support].frame if self.soles else None

    def _heights(self) -> np.ndarray:
        """Lowest corner height (m) of every sole in the current state ``(F,)``."""
        out = np.empty(len(self._counts))
        kernels.LOWEST_Z(self.state.link_poses(), self._links, self._points, self._counts, out)
        return out

    def advance(
        self, qs: np.ndarray, start: int, stop: int, root_out: np.ndarray, heights_out: np.ndarray
    ) -> int:
        """Move through samples ``qs[start:stop]`` (``qs`` ``(N, nq)`` float64,
        C-contiguous) as long as no foot switches, in one compiled call; per sample the
        root pose goes to ``root_out[i]`` ``(4, 4)`` and the sole heights to
        ``heights_out[i]`` ``(F,)`` (both C-contiguous float64, ``(N, 4, 4)`` and
        ``(N, F)``). Returns the first sample that switches (left for :meth:`step`;
        the state stays at the sample before it) or ``stop``. Each sample gets the same
        values, bit for bit, as :meth:`step` would give it."""
        n = len(qs) if isinstance(qs, np.ndarray) and qs.ndim else -1
        F = len(self._counts)
        for arr, shape, what in ((qs, (n, self.model.nq), "qs"), (root_out, (n, 4, 4), "root_out"),
                                 (heights_out, (n, F), "heights_out")):  # fmt: skip
            # the compiled call reads and writes these by address: nothing else will do
            if not (isinstance(arr, np.ndarray) and arr.dtype == np.float64
                    and arr.shape == shape and arr.flags.c_contiguous):  # fmt: skip
                raise InputError(
                    f"SupportTracker.advance: {what} must be a C-contiguous float64 array "
                    f"of shape {shape}, got {getattr(arr, 'shape', type(arr).__name__)}"
                )
        if not 0 <= start <= stop <= n:
            raise InputError(f"SupportTracker.advance: need 0 <= start <= stop <= {n}, "
                             f"got start {start}, stop {stop}")  # fmt: skip
        if not (root_out.flags.writeable and heights_out.flags.writeable):
            raise InputError("SupportTracker.advance: root_out and heights_out must be writable")
        st = self.state
        tree_address, address, L, anchor = st.kernel_args
        j = kernels.ANCHORED_RUN(qs, start, stop, tree_address, address, L, anchor,
                                 self._links, self._points, self._counts, self.support,
                                 self.settings.sink_tol, root_out, heights_out)  # fmt: skip
        q_last = qs[j - 1] if j > start else st.q
        if j < stop:  # the kernel went on to sample j: back to the last one kept
            st.set_q(q_last)
        else:
            st.moved_to(q_last)
        if j > start:
            self.heights = heights_out[j - 1].copy()
        return j

    def step(
        self, q: np.ndarray, q_of: Callable[[float], np.ndarray] | None = None
    ) -> Switch | None:
        """Advance to ``q`` ``(nq,)``; ``q_of(u)`` gives the configuration at fraction
        ``u`` in [0, 1] of the way from the previous sample to ``q`` along the motion
        (exact detection bisects on it; default: a straight line in joint space).
        Returns the switch made in this tick, if any (its ``tick`` and ``t`` are left
        for the caller to fill: -1 and nan)."""
        st = self.state
        if not self.soles:
            st.set_q(q)
            return None
        s = self.settings
        q_prev = st.q
        h_prev = self.heights
        if q_of is None:
            q_new = np.asarray(q, dtype=np.float64)

            def q_of(u: float) -> np.ndarray:
                return q_prev + u * (q_new - q_prev)

        st.set_q(q)
        h = self._heights()
        a = self.support
        floor = min(0.0, float(h[a])) - s.sink_tol
        others = [i for i in range(len(self.soles)) if i != a and h[i] < floor]
        if not others:
            self.heights = h
            return None
        b = min(others, key=lambda i: h[i])
        if s.detection == "tick":
            st.set_anchor(self.soles[b].frame)
            err = float(h[b])
        elif h_prev[b] <= 0.0:
            # already on the floor at the previous sample: switch there
            st.set_q(q_prev)
            st.set_anchor(self.soles[b].frame)
            st.set_q(q)
            err = float(h_prev[b])
        else:
            lo, hi = 0.0, 1.0  # h_b(lo) > 0 >= h_b(hi)
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                st.set_q(q_of(mid))
                if self._heights()[b] > 0.0:
                    lo = mid
                else:
                    hi = mid
                if hi - lo < 1e-13:
                    break
            st.set_q(q_of(hi))
            err = float(self._heights()[b])
            st.set_anchor(self.soles[b].frame)
            st.set_q(q)
        frm = self.soles[a].frame
        self.support = b
        self.heights = self._heights()
        return Switch(-1, float("nan"), frm, self.soles[b].frame, err)
