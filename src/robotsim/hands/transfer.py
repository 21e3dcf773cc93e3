"""The verdict of a hand-to-hand transfer, measured tick by tick in either mode.

A transfer succeeds when the object ends *held by the receiving hand*: the first hand
to grasp it (the giver) lets go while the other hand (the receiver) grasps it, and the
receiver then holds it alone for at least ``hold`` s (2 s, issue #24), the object
moving at most ``max_slip`` (1 cm) in the receiver's palm frame over that time and
ending that time at least ``lift`` (0.1 m) above where it started. The hand-over is
complete when the giver has let go and none of its fingers touches the object any
more; the slip is the largest displacement of the object in the receiver's palm frame
from its pose at that moment, over the ``hold`` s that follow (what the receiver does
afterwards, such as opening to drop it, is not part of the transfer).

A failed transfer names the phase that failed, first failure first: the first grasp
(how many fingers touched), the second grasp, the giver not letting go, the object
lost at the hand-over, too short a hold, slip, not lifted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from robotsim.hands.state import HandEvent
from robotsim.spatial import inv_T

__all__ = ["TransferCheck", "TransferLimits", "verdict_line"]

SIDES = ("L", "R")


@dataclass(frozen=True)
class TransferLimits:
    """Success thresholds: ``hold`` (s), ``max_slip`` (m), ``lift`` (m)."""

    hold: float = 2.0
    max_slip: float = 0.01
    lift: float = 0.1


class TransferCheck:
    """Watches a hands simulation (anything with ``t``, ``palm_pose(side)``, ``ball_T``
    and per-tick touch flags in its snapshot) and the events of each tick."""

    def __init__(self, sim: Any, limits: TransferLimits | None = None) -> None:
        self.sim = sim
        self.limits = limits or TransferLimits()
        self.z0 = float(np.asarray(sim.ball_T)[2, 3])
        self.giver: str | None = None
        self.receiver: str | None = None
        self.grasped: dict[str, bool] = {s: False for s in SIDES}
        self.most_touch = {s: 0 for s in SIDES}
        self.let_go: float | None = None  # the giver's release
        self.t_over: float | None = None  # then clear of the object, the receiver holding
        self.t_end: float | None = None  # the receiver let go
        self.ever: dict[str, bool] = {s: False for s in SIDES}
        self.p0: np.ndarray | None = None
        self.slip = 0.0
        self.z_end: float | None = None

    def _in_palm(self, side: str) -> np.ndarray:
        return (inv_T(self.sim.palm_pose(side)) @ np.asarray(self.sim.ball_T))[:3, 3]

    def tick(self, events: tuple[HandEvent, ...], touching: dict[str, tuple[bool, ...]]) -> None:
        """After every tick: its events and each hand's touch flags."""
        for s in SIDES:
            self.most_touch[s] = max(self.most_touch[s], int(sum(touching[s])))
        for e in events:
            if e.type == "grasp" and e.hand in SIDES:
                self.grasped[e.hand] = self.ever[e.hand] = True
                if self.giver is None:
                    self.giver = e.hand
                    self.receiver = "R" if e.hand == "L" else "L"
            elif e.type == "release" and e.hand in SIDES:
                self.grasped[e.hand] = False
                if e.hand == self.giver and self.t_over is None:
                    self.let_go = e.t
                elif e.hand == self.receiver and self.t_over is not None and self.t_end is None:
                    self.t_end = e.t
        r = self.receiver
        if (self.t_over is None and self.let_go is not None and r is not None
                and self.grasped[r] and not any(touching[self.giver])):  # type: ignore[index]  # fmt: skip
            self.t_over = float(self.sim.t)  # the giver let go and is clear of the object
            self.p0 = self._in_palm(r)
            return
        window = self.t_over is not None and self.sim.t <= self.t_over + self.limits.hold + 1e-9
        if window and self.t_end is None and self.receiver:
            p = self._in_palm(self.receiver)
            assert self.p0 is not None
            self.slip = max(self.slip, float(np.linalg.norm(p - self.p0)))
            self.z_end = float(np.asarray(self.sim.ball_T)[2, 3])

    def result(self, t_final: float) -> dict[str, Any]:
        """``{success, giver, receiver, let_go_t, handed_over_t, held_alone_s, slip_m,
        lifted_m, limits, reason}`` (reason only on failure; null numbers when never measured)."""
        lim = self.limits
        held = None
        if self.t_over is not None:
            held = (self.t_end if self.t_end is not None else t_final) - self.t_over
        lifted = None if self.z_end is None else self.z_end - self.z0
        out: dict[str, Any] = {
            "success": False,
            "giver": self.giver,
            "receiver": self.receiver,
            "let_go_t": self.let_go,
            "handed_over_t": self.t_over,
            "held_alone_s": held,
            "slip_m": self.slip if self.t_over is not None else None,
            "lifted_m": lifted,
            "limits": {"hold_s": lim.hold, "max_slip_m": lim.max_slip, "lift_m": lim.lift},
        }
        reason = None
        if self.giver is None:
            n = max(self.most_touch.values())
            reason = f"first grasp: no hand grasped the object (at most {n} of 3 fingers touched)"
        elif self.t_over is None:
            r = self.receiver
            assert r is not None
            if not self.ever[r]:
                reason = (f"second grasp: {r} never grasped the object (at most "
                          f"{self.most_touch[r]} of 3 fingers touched)")  # fmt: skip
            elif self.grasped[self.giver]:
                reason = f"hand-over: {self.giver} did not let go"
            elif not self.grasped[r]:
                reason = f"hand-over: {r} lost the object when {self.giver} let go"
            else:
                reason = f"hand-over: {self.giver}'s fingers stayed on the object"
        elif held is not None and held < lim.hold - 1e-9:
            reason = f"{self.receiver} held it alone {held:.2f} s (needs {lim.hold:g})"
        elif self.slip > lim.max_slip:
            reason = (f"slipped {self.slip * 100:.1f} cm in {self.receiver}'s hand "
                      f"(at most {lim.max_slip * 100:g})")  # fmt: skip
        elif lifted is None or lifted < lim.lift:
            reason = f"not lifted: {0.0 if lifted is None else lifted:.3f} m (needs {lim.lift:g})"
        if reason is None:
            out["success"] = True
        else:
            out["reason"] = reason
        return out


def verdict_line(v: dict[str, Any]) -> str:
    """The verdict in one line with its numbers, as ``robotsim run`` prints it and the
    studio shows it: ``yes (R held it alone 4.28 s, slip 0.35 cm, lifted 0.202 m)`` or
    ``NO (the failed phase)``."""
    if v["success"]:
        return (f"yes ({v['receiver']} held it alone {v['held_alone_s']:.2f} s, "
                f"slip {v['slip_m'] * 100:.2f} cm, lifted {v['lifted_m']:.3f} m)")  # fmt: skip
    return f"NO ({v['reason']})"
