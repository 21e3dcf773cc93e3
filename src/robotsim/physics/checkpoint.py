"""Digests of the physics state every N simulated seconds: a run's checkpoints.

Inside a :func:`checkpointing` block, every :class:`~robotsim.physics.World` built
registers itself: its compiled model is digested once (SHA-256 of MuJoCo's binary model,
before the run changes anything), and after each 10 ms step chunk that reaches the next
multiple of ``interval`` simulated seconds the world's whole integration state is
copied and digested (``mj_getState`` with ``mjSTATE_INTEGRATION``: time, positions,
velocities, actuator and history state, warm start, controls, applied forces, equality
flags, mocap poses, user data, plugin state; BLAKE2b, 16 bytes). Each world's last state
is taken too: when the block ends, and for earlier worlds when a new one is built (a run
that makes one world per trial; the log holds earlier worlds weakly, so a finished
trial's world is freed, and the newest one strongly, so its last state is taken
whenever the garbage collector runs). Outside a block nothing is registered and the
step loop pays one float comparison per chunk.

Two runs are bit-identical when every checkpoint's digest matches; where one does not,
:func:`state_difference` names the bodies whose joints differ and by how much, from the
two stored states.

The block is a :mod:`contextvars` variable: it holds for the thread that entered it (a
sweep worker's run), not for other threads of the process.
"""

from __future__ import annotations

import hashlib
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_INTERVAL",
    "Checkpoint",
    "CheckpointLog",
    "checkpointing",
    "current_log",
    "model_digest",
    "state_difference",
    "state_digest",
]

#: Simulated seconds between checkpoints unless a run says otherwise.
DEFAULT_INTERVAL = 1.0

# the parts of mjSTATE_INTEGRATION, in the order mj_getState writes them (bit order)
_PARTS = (
    "time", "qpos", "qvel", "act", "history", "qacc_warmstart", "ctrl", "qfrc_applied",
    "xfrc_applied", "eq_active", "mocap_pos", "mocap_quat", "userdata", "plugin_state",
    "plastic",
)  # fmt: skip


@dataclass(frozen=True)
class Checkpoint:
    """One world's state at simulated time ``t``: ``seq`` (order in the run), ``world``
    (which world of the run, in the order they were built), ``digest`` (hex) and the
    ``state`` itself (float64 bytes, ``mjSTATE_INTEGRATION``)."""

    seq: int
    world: int
    t: float
    digest: str
    state: bytes

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "world": self.world, "t": self.t, "digest": self.digest}


def state_digest(state: bytes) -> str:
    """The digest of a state's bytes (BLAKE2b, 16 bytes, hex)."""
    return hashlib.blake2b(state, digest_size=16).hexdigest()


def model_digest(model: Any) -> str:
    """SHA-256 of a compiled MuJoCo model's binary form (``mj_saveModel``), hex."""
    import mujoco

    buf = np.empty(mujoco.mj_sizeModel(model), np.uint8)
    mujoco.mj_saveModel(model, None, buf)
    return hashlib.sha256(buf.tobytes()).hexdigest()


def _state(model: Any, data: Any) -> bytes:
    import mujoco

    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    out = np.empty(mujoco.mj_stateSize(model, spec))
    mujoco.mj_getState(model, data, out, spec)
    return out.tobytes()


@dataclass
class CheckpointLog:
    """What one :func:`checkpointing` block collects (module doc)."""

    interval: float = DEFAULT_INTERVAL
    models: list[str] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    keep_models: bool = False  # hold each world's MjModel (to name bodies afterwards)
    model_objects: list[Any] = field(default_factory=list)  # with keep_models
    cost_s: float = 0.0  # wall time spent digesting models and taking checkpoints
    _worlds: list[Any] = field(default_factory=list)  # weak references
    _last: list[str | None] = field(default_factory=list)  # each world's last digest
    # the newest world, held until the next one or the end: its last state is taken
    # whether or not the run still refers to it (else the garbage collector's timing
    # decided whether a run's final checkpoint existed)
    _newest: Any = None

    def register(self, world: Any) -> int:
        """A new world of the run (its model digested now; the worlds before it get
        their current state taken); returns its index."""
        t0 = time.perf_counter()
        self._final_states()
        self._worlds.append(weakref.ref(world))
        self._newest = world
        self._last.append(None)
        if self.keep_models:
            self.model_objects.append(world.model)
        self.models.append(model_digest(world.model))
        self.cost_s += time.perf_counter() - t0
        return len(self._worlds) - 1

    def next_after(self, t: float) -> float:
        """The first checkpoint time strictly after ``t``."""
        k = np.floor(t / self.interval + 1e-9) + 1
        return float(k * self.interval)

    def take(self, index: int, model: Any, data: Any) -> None:
        """Record world ``index``'s state now."""
        t0 = time.perf_counter()
        self._append(index, float(data.time), _state(model, data))
        self.cost_s += time.perf_counter() - t0

    def _append(self, index: int, t: float, state: bytes) -> None:
        digest = state_digest(state)
        self.checkpoints.append(Checkpoint(len(self.checkpoints), index, t, digest, state))
        self._last[index] = digest

    def _final_states(self) -> None:
        """Each world still alive: its state now, unless its last checkpoint is it."""
        for i, ref in enumerate(self._worlds):
            w = ref()
            if w is None:
                continue
            state = _state(w.model, w.data)
            if self._last[i] != state_digest(state):
                self._append(i, float(w.data.time), state)

    def close(self) -> None:
        """Each world's final state (module doc)."""
        t0 = time.perf_counter()
        self._final_states()
        self._worlds.clear()
        self._newest = None
        self.cost_s += time.perf_counter() - t0


_active: ContextVar[CheckpointLog | None] = ContextVar("robotsim_checkpoints", default=None)


def current_log() -> CheckpointLog | None:
    """The innermost :func:`checkpointing` block's log of this thread, or None."""
    return _active.get()


@contextmanager
def checkpointing(
    interval: float = DEFAULT_INTERVAL, keep_models: bool = False
) -> Iterator[CheckpointLog]:
    """Worlds built inside the block checkpoint every ``interval`` simulated seconds
    (``keep_models``: the log holds their compiled models, for
    :func:`state_difference`)."""
    if not interval > 0:
        raise ValueError(f"checkpoint interval must be > 0 s, got {interval}")
    log = CheckpointLog(float(interval), keep_models=keep_models)
    token = _active.set(log)
    try:
        yield log
    finally:
        _active.reset(token)
        log.close()


def _layout(model: Any) -> dict[str, slice]:
    import mujoco

    out: dict[str, slice] = {}
    at = 0
    for bit, name in enumerate(_PARTS):
        n = mujoco.mj_stateSize(model, 1 << bit)
        out[name] = slice(at, at + n)
        at += n
    return out


def state_difference(model: Any, a: bytes, b: bytes, limit: int = 5) -> dict[str, Any]:
    """How two states of ``model`` differ: ``max_abs`` (largest component difference),
    ``parts`` (per state part, its largest difference) and ``bodies`` (up to ``limit``,
    largest first: body name, the joint and its largest position and velocity
    differences, in the joint's units: m or rad, m/s or rad/s; a free joint's
    orientation as quaternion components)."""
    import mujoco

    x = np.frombuffer(a, np.float64)
    y = np.frombuffer(b, np.float64)
    if x.shape != y.shape:
        return {"max_abs": None, "parts": {}, "bodies": [],
                "note": f"states of different sizes ({x.size} and {y.size} numbers)"}  # fmt: skip
    d = np.abs(x - y)
    d[np.isnan(d)] = np.inf
    lay = _layout(model)
    parts = {k: float(d[s].max()) for k, s in lay.items() if s.stop > s.start and d[s].max() > 0}
    dq, dv = d[lay["qpos"]], d[lay["qvel"]]
    per: dict[int, dict[str, Any]] = {}
    for j in range(model.njnt):
        qa = int(model.jnt_qposadr[j])
        va = int(model.jnt_dofadr[j])
        nq = {0: 7, 1: 4, 2: 1, 3: 1}[int(model.jnt_type[j])]
        nv = {0: 6, 1: 3, 2: 1, 3: 1}[int(model.jnt_type[j])]
        q = float(dq[qa : qa + nq].max())
        v = float(dv[va : va + nv].max())
        if q == 0 and v == 0:
            continue
        body = int(model.jnt_bodyid[j])
        best = per.get(body)
        if best is None or max(q, v) > max(best["qpos_max_abs"], best["qvel_max_abs"]):
            per[body] = {
                "body": mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, body) or f"body{body}",
                "joint": mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint{j}",
                "qpos_max_abs": q,
                "qvel_max_abs": v,
            }
    bodies = sorted(per.values(), key=lambda r: -max(r["qpos_max_abs"], r["qvel_max_abs"]))
    return {"max_abs": float(d.max()) if d.size else 0.0, "parts": parts,
            "bodies": bodies[:limit], "bodies_differing": len(bodies)}  # fmt: skip
