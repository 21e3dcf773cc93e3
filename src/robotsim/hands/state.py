"""What the studio, the recorder and tests read: grasp state snapshots and events.

A :class:`HandsState` is an immutable snapshot taken after every tick (the paper's
collflag/fastenflag/moveflag per hand plus the ball); :class:`HandsObservable` hands
the latest one out and calls subscribers with each new snapshot and its events.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from robotsim.model.geometry import readonly

__all__ = [
    "EVENT_TYPES",
    "HandEvent",
    "HandState",
    "HandsObservable",
    "HandsState",
    "SnapshotSource",
    "blank_hands_state",
    "grasp_events",
    "hands_snapshot",
]

EVENT_TYPES = ("touch", "grasp", "hold_both", "release", "landed")


@dataclass(frozen=True)
class HandEvent:
    """Something that happened at simulation time ``t`` (s).

    ``type`` is one of :data:`EVENT_TYPES`; ``hand`` is ``"L"``/``"R"`` or None (for
    ``hold_both`` and ``landed``); ``detail`` names the finger (touch) or the surface
    the ball landed on.
    """

    t: float
    type: str
    hand: str | None
    detail: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": round(self.t, 9), "type": self.type, "hand": self.hand}
        if self.detail is not None:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class HandState:
    """One hand after a tick.

    Attributes:
        side: ``"L"`` or ``"R"``.
        touching: per finger (thumb last): tip sphere touches the ball (collflag).
        grasped: all three touch with enough spread (fastenflag).
        can_move: the arm may move (moveflag; False while both hands hold the ball).
        blocked: an arm or finger move was cut short this tick (floor, table or ball).
        spread: thumb-to-nearest-finger tip distance (m).
    """

    side: str
    touching: tuple[bool, bool, bool]
    grasped: bool
    can_move: bool
    blocked: bool
    spread: float


@dataclass(frozen=True, eq=False)
class HandsState:
    """Both hands and the ball after the tick ending at time ``t`` (s).

    Attributes:
        hands: side -> :class:`HandState`.
        grasped_by: sides whose hand holds the ball, ``()`` when free.
        held_by_both: both hands hold the ball (it stays still).
        ball_pose: ``T_world_ball`` ``(4, 4)``.
        ball_velocity: linear velocity (m/s) ``(3,)``.
        ball_resting: the ball lies on a surface (named by ``ball_surface``).
        q: the robot configuration ``(nq,)``.
    """

    t: float
    hands: dict[str, HandState]
    grasped_by: tuple[str, ...]
    held_by_both: bool
    ball_pose: np.ndarray
    ball_velocity: np.ndarray
    ball_resting: bool
    ball_surface: str | None
    q: np.ndarray = field(default_factory=lambda: readonly(np.zeros(0)))

    def __post_init__(self) -> None:
        object.__setattr__(self, "ball_pose", readonly(self.ball_pose, (4, 4)))
        object.__setattr__(self, "ball_velocity", readonly(self.ball_velocity, (3,)))
        object.__setattr__(self, "q", readonly(self.q))

    @property
    def ball_position(self) -> np.ndarray:
        return self.ball_pose[:3, 3]

    def to_json(self) -> dict[str, Any]:
        return {
            "t": self.t,
            "hands": {
                s: {
                    "touching": list(h.touching),
                    "grasped": h.grasped,
                    "can_move": h.can_move,
                    "blocked": h.blocked,
                    "spread": h.spread,
                }
                for s, h in self.hands.items()
            },
            "grasped_by": list(self.grasped_by),
            "held_by_both": self.held_by_both,
            "ball_position": self.ball_position.tolist(),
            "ball_resting": self.ball_resting,
            "ball_surface": self.ball_surface,
        }


class SnapshotSource(Protocol):
    """What :func:`hands_snapshot` reads of a simulation (kinematic or physics): per
    side (``"L"``, ``"R"``, in that order) the fingers touching, grasped, blocked and the
    tip spread (m); the time (s), ``T_world_ball`` ``(4, 4)`` and ``q`` ``(nq,)``."""

    touch: dict[str, tuple[bool, bool, bool]]
    grasped: dict[str, bool]
    blocked: dict[str, bool]
    spread: dict[str, float]

    @property
    def t(self) -> float: ...

    @property
    def ball_T(self) -> np.ndarray: ...

    @property
    def q(self) -> np.ndarray: ...


def hands_snapshot(
    sim: SnapshotSource, ball_velocity: np.ndarray, ball_resting: bool, ball_surface: str | None
) -> HandsState:
    """The :class:`HandsState` of ``sim`` after a tick; ``ball_velocity`` (m/s) ``(3,)``,
    ``ball_surface`` the surface the ball lies on (or None)."""
    both = all(sim.grasped.values())
    hands = {
        s: HandState(s, sim.touch[s], g, not both, sim.blocked[s], sim.spread[s])
        for s, g in sim.grasped.items()
    }
    return HandsState(
        t=sim.t,
        hands=hands,
        grasped_by=tuple(s for s, g in sim.grasped.items() if g),
        held_by_both=both,
        ball_pose=sim.ball_T,
        ball_velocity=ball_velocity,
        ball_resting=ball_resting,
        ball_surface=ball_surface,
        q=sim.q,
    )


def grasp_events(t: float, before: Mapping[str, bool], now: Mapping[str, bool]) -> list[HandEvent]:
    """The events of a tick that changed which hands hold the ball (per side, before
    and after): releases, then grasps, then ``hold_both`` when both now hold it."""
    out = [HandEvent(t, "release", s) for s in before if before[s] and not now[s]]
    out += [HandEvent(t, "grasp", s) for s in now if now[s] and not before[s]]
    if all(now.values()) and not all(before.values()):
        out.append(HandEvent(t, "hold_both", None))
    return out


def blank_hands_state() -> HandsState:
    """The placeholder state before a simulation's first reset."""
    hs = HandState("L", (False, False, False), False, True, False, 0.0)
    return HandsState(0.0, {"L": hs, "R": hs}, (), False, np.eye(4), np.zeros(3), False, None)


Listener = Callable[[HandsState, tuple[HandEvent, ...]], None]


class HandsObservable:
    """The latest :class:`HandsState`, the event log, and subscribers.

    Thread-safe: the simulation thread publishes, GUI threads read ``state``/``events``.
    """

    def __init__(self, state: HandsState) -> None:
        self._lock = threading.Lock()
        self._state = state
        self._events: list[HandEvent] = []
        self._listeners: list[Listener] = []

    @property
    def state(self) -> HandsState:
        with self._lock:
            return self._state

    @property
    def events(self) -> tuple[HandEvent, ...]:
        with self._lock:
            return tuple(self._events)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(state, new_events)`` after every tick; returns an unsubscribe."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def publish(self, state: HandsState, events: tuple[HandEvent, ...]) -> None:
        with self._lock:
            self._state = state
            self._events.extend(events)
            listeners = list(self._listeners)
        for fn in listeners:
            fn(state, events)

    def reset(self, state: HandsState) -> None:
        with self._lock:
            self._state = state
            self._events.clear()
