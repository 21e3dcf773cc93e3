"""Formations of mobile robots: leader-follower (docs/scenarios.md, "Formations").

One robot, the leader, drives to its goal with its own controller (PID, avoidance,
limits). Every other robot of the formation has a slot: an offset ``(dx, dy)`` (m) in
the leader's frame. Each control tick a follower's goal is its slot at the leader's
current pose, with the leader's heading, led by the slot's velocity over the follower's
position gain (so a proportional loop does not trail the moving slot by ``v / kp``), and
its own controller (the same PID, avoidance and limits as any robot) tracks it; at the
end the slots are at the leader's goal, which is where the followers' goals are
(``final_goals``).

Why leader-follower and not a virtual structure: the leader alone plans through the
obstacle field (VFH) and the followers need nothing but the leader's pose; a follower
blocked by an obstacle or another robot leaves its slot and comes back, which is what
the formation error measures. With ``avoid_robots`` (on for formations) every robot's
avoidance sees the other robots as obstacles (discs of their footprint radius).

The formation error of a follower at time t is the distance (m) from its position to
its slot; the summary gives it per follower (mean, max, final) and over time. The errors
of every tick are kept in a :class:`~robotsim.mobile.ticklog.TickLog`: a run too long to
hold carries the sums, maxima and the 2 Hz series block by block, and its plot draws an
envelope of the errors.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from robotsim.mobile.ticklog import Envelope, TickLog

__all__ = ["Formation", "formation_of", "slot_poses"]


def slot_poses(leader: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Slot poses ``(F, 3)`` [x, y, theta] of offsets ``(F, 2)`` (leader frame, m) at the
    leader pose ``(3,)`` [x, y, theta]."""
    c, s = math.cos(leader[2]), math.sin(leader[2])
    R = np.array([[c, -s], [s, c]])
    xy = leader[:2] + offsets @ R.T
    return np.column_stack([xy, np.full(len(offsets), leader[2])])


def formation_of(sc: Any, robots: list[Any], source: str) -> Formation | None:
    """The scenario's formation over the expanded ``robots`` (names checked), or None."""
    from robotsim.errors import ScenarioError

    spec = sc.formation
    if spec is None:
        return None
    names = [rb.name for rb in robots]
    if spec.leader not in names:
        raise ScenarioError(
            f"{source}: formation.leader: no robot {spec.leader!r}; robots: {', '.join(names)}"
        )
    for name in spec.slots:
        if name not in names or name == spec.leader:
            what = "the leader" if name == spec.leader else "no such robot"
            raise ScenarioError(f"{source}: formation.slots.{name}: {what}; robots: "
                                f"{', '.join(n for n in names if n != spec.leader)}")  # fmt: skip
    followers = [names.index(n) for n in spec.slots]
    return Formation(names.index(spec.leader), followers, np.array(list(spec.slots.values())))


def at_goal(pose: np.ndarray, goal: np.ndarray, config: Any) -> bool:
    """Within ``config``'s position and heading tolerances of ``goal``."""
    d = math.hypot(goal[0] - pose[0], goal[1] - pose[1])
    dth = abs(math.pi - (math.pi - (goal[2] - pose[2])) % (2 * math.pi))
    return d <= config.position_tolerance and dth <= config.heading_tolerance


class Formation:
    """The formation of a run: ``leader`` index, ``followers`` indices and their
    ``offsets`` ``(F, 2)``; it sets the followers' goals and keeps the error history."""

    def __init__(self, leader: int, followers: list[int], offsets: np.ndarray) -> None:
        self.leader, self.followers = int(leader), list(followers)
        self.offsets = np.asarray(offsets, dtype=np.float64).reshape(-1, 2)
        F = len(self.followers)
        self.errors = TickLog(F, self._fold)  # (F,) per tick
        self._sum = np.zeros(F)  # a folded run's sums, maxima, 2 Hz series, envelope
        self._max = np.full(F, -np.inf)
        self._step = 0
        self._folded = 0  # ticks folded
        self._final = np.zeros(F)
        self._over_time: list[np.ndarray] = []  # (t, mean, max) rows every _step ticks
        self._envelope = Envelope(F)
        self.snapshots: list[np.ndarray] = []  # (R, 2) positions, every snapshot_every s
        self._next_snapshot = 0.0

    def final_goals(self, leader_goal: np.ndarray) -> np.ndarray:
        """The followers' goals ``(F, 3)``: their slots at the leader's goal."""
        return slot_poses(np.asarray(leader_goal, dtype=np.float64), self.offsets)

    def update(
        self,
        t: float,
        poses: np.ndarray,
        controllers: list[Any],
        leader_twist: np.ndarray | None = None,
    ) -> np.ndarray:
        """Move the followers' goals to their slots at the leader's pose (``poses``
        ``(R, 3)``) and note the formation error ``(F,)`` (returned).

        With the leader's body twist ``[vx, vy, w]``, a follower's goal leads its slot by
        the slot's velocity over the follower's position gain (``v_slot / kp``): the
        proportional loop then moves at the slot's speed with the follower on the slot,
        instead of ``v / kp`` behind it (velocity feed-forward through the goal)."""
        slots = slot_poses(poses[self.leader], self.offsets)
        lead = np.zeros((len(self.followers), 2))
        if leader_twist is not None:
            th = poses[self.leader, 2]
            c, s = math.cos(th), math.sin(th)
            v = np.array([c * leader_twist[0] - s * leader_twist[1],
                          s * leader_twist[0] + c * leader_twist[1]])  # fmt: skip
            rel = slots[:, :2] - poses[self.leader, :2]  # (F, 2) world
            lead = v + leader_twist[2] * np.column_stack([-rel[:, 1], rel[:, 0]])
        for k, i in enumerate(self.followers):
            kp = max(float(controllers[i].config.gains[0].kp), 1e-6)
            goal = slots[k].copy()
            goal[:2] += lead[k] / kp
            controllers[i].goal = goal
        err = np.hypot(*(poses[self.followers, :2] - slots[:, :2]).T)
        self.errors.add(float(t), err.tolist())
        if t >= self._next_snapshot:
            self.snapshots.append(poses[:, :2].copy())
            self._next_snapshot = t + 2.0
        return err

    @staticmethod
    def _every(t: np.ndarray) -> int:
        """Ticks between the summary's error-over-time samples (about 2 Hz)."""
        dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.5
        return max(1, round(0.5 / max(dt, 1e-9)))

    def _fold(self, t: np.ndarray, e: np.ndarray) -> None:
        """The next block of a run too long to hold: ``t`` ``(m,)``, ``e`` ``(m, F)``."""
        if not self._step:
            self._step = self._every(t)
        first = self._folded
        self._folded += len(t)
        pick = np.flatnonzero((np.arange(first, first + len(t)) % self._step) == 0)
        if len(pick):
            ep = e[pick]
            self._over_time.append(np.column_stack([t[pick], ep.mean(axis=1), ep.max(axis=1)]))
        self._sum += e.sum(axis=0)
        self._max = np.maximum(self._max, e.max(axis=0))
        self._final = e[-1].copy()
        self._envelope.add(t, e)

    def _stats(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per follower mean, max and final error ``(F,)``, and the 2 Hz rows ``(n, 3)``
        (t, mean, max over followers)."""
        if not self.errors.folded:
            t, e = self.errors.arrays()
            step = self._every(t)
            rows = np.column_stack([t, e.mean(axis=1), e.max(axis=1)])[::step]
            mean = np.array([e[:, k].mean() for k in range(e.shape[1])])  # as 1-D means
            return mean, e.max(axis=0), e[-1], rows
        self.errors.sync()
        mean = self._sum / len(self.errors)
        return mean, self._max, self._final, np.concatenate(self._over_time)

    def _overall(self) -> tuple[float, float]:
        """The whole formation's mean and max error (m)."""
        if not self.errors.folded:
            e = self.errors.arrays()[1]
            return float(e.mean()), float(e.max())
        mean, mx, _, _ = self._stats()
        return float(mean.mean()), float(mx.max())

    def summary(self, names: list[str]) -> dict[str, Any]:
        """Per follower mean/max/final error (m), the whole formation's, and the mean
        error over time at 2 Hz (``t``, ``mean_m``, ``max_m``)."""
        if not len(self.errors):
            return {"kind": "leader_follower", "leader": names[self.leader]}
        mean, mx, final, rows = self._stats()
        e_mean, e_max = self._overall()
        return {
            "kind": "leader_follower",
            "leader": names[self.leader],
            "slots": {names[i]: self.offsets[k].tolist() for k, i in enumerate(self.followers)},
            "error_m": {
                "mean": e_mean,
                "max": e_max,
                "final": float(final.max()),
                "per_robot": {
                    names[i]: {
                        "mean": float(mean[k]),
                        "max": float(mx[k]),
                        "final": float(final[k]),
                    }
                    for k, i in enumerate(self.followers)
                },
            },
            "error_over_time": {
                "t": rows[:, 0].round(3).tolist(),
                "mean_m": rows[:, 1].round(4).tolist(),
                "max_m": rows[:, 2].round(4).tolist(),
            },
        }

    def draw(self, ax: Any, colors: list[str] | None = None) -> None:
        """The formation on a map: the leader-follower links at every snapshot (2 s) and
        the formation error (mean and max distance to the slots)."""
        if len(self.errors):
            mean, mx = self._overall()
            ax.text(0.99, 0.01, f"formation error: mean {mean:.2f} m, max {mx:.2f} m",
                    transform=ax.transAxes, ha="right", va="bottom", fontsize=8,
                    color="white", zorder=8)  # fmt: skip
        for pos in self.snapshots:
            for i in self.followers:
                ax.plot(
                    [pos[self.leader, 0], pos[i, 0]],
                    [pos[self.leader, 1], pos[i, 1]],
                    color="white",
                    lw=0.8,
                    alpha=0.7,
                    zorder=4.5,
                )

    def save_plot(self, path: Any, names: list[str]) -> None:
        """``formation.png``: each follower's formation error over time."""
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure

        fig = Figure(figsize=(7.0, 3.2), dpi=110)
        ax = fig.add_subplot(1, 1, 1)
        if self.errors.folded:  # a run too long to hold: the envelope of the errors
            self.errors.sync()
            t, e = self._envelope.times, self._envelope.values
        else:
            t, e = self.errors.arrays()
        for k, i in enumerate(self.followers):
            ax.plot(t, e[:, k], lw=1.4, label=names[i])
        ax.set_xlabel("t (s)")
        ax.set_ylabel("distance to slot (m)")
        ax.set_title(f"formation error (leader {names[self.leader]})")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path)
