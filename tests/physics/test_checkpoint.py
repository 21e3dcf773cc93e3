"""Checkpoints of the physics state (robotsim.physics.checkpoint)."""

from __future__ import annotations

import hashlib
import math

import mujoco
import numpy as np
import pytest

from robotsim.model.geometry import Box, Sphere
from robotsim.physics import Body, ContactSurface, Joint, Scene, World
from robotsim.physics.checkpoint import checkpointing, model_digest, state_difference
from robotsim.spatial import trans


def _scene() -> Scene:
    ball = Body("ball", Sphere(0.1), trans([0, 0, 0.5]), joint=Joint("free"), mass=1.0,
                surface="s")  # fmt: skip
    arm = Body("paddle", Box((0.4, 0.05, 0.05)), trans([0.5, 0, 0.3]),
               joint=Joint("hinge", axis=(0, 1, 0)), mass=0.5)  # fmt: skip
    return Scene(bodies=(ball, arm), surfaces={"s": ContactSurface(bounce=0.5)})


def test_checkpoints_fall_on_the_interval_and_digest_the_whole_state() -> None:
    with checkpointing(0.25) as log:
        w = World(_scene())
        w.step(round(1.1 / w.timestep))
    times = [c.t for c in log.checkpoints]
    # every 0.25 s (the first 10 ms chunk that reaches it), then the final state
    assert [round(t, 6) for t in times[:-1]] == [0.25, 0.5, 0.75, 1.0]
    assert times[-1] == pytest.approx(1.1, abs=1e-9)
    m, d = w.model, w.data
    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    state = np.empty(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, state, spec)
    last = log.checkpoints[-1]
    assert last.state == state.tobytes()
    assert last.digest == hashlib.blake2b(state.tobytes(), digest_size=16).hexdigest()
    assert log.models == [model_digest(m)] and len(log.models[0]) == 64


def test_a_world_per_trial_gets_its_last_state_and_is_not_held() -> None:
    import gc
    import weakref

    with checkpointing(10.0) as log:
        w = World(_scene())
        w.step(40)
        end_of_first = float(w.data.time)
        ref = weakref.ref(w)
        w = World(_scene())  # the next trial: the first world's state is taken now
        gc.collect()
        assert ref() is None  # not held by the log
        w.step(10)
    assert [(c.world, round(c.t, 6)) for c in log.checkpoints] == [
        (0, round(end_of_first, 6)),
        (1, round(10 * w.timestep, 6)),
    ]
    assert log.model_objects == []


def test_the_newest_worlds_last_state_is_taken_after_the_run_dropped_it() -> None:
    """Whether a run's final checkpoint exists must not depend on the garbage collector:
    the newest world is held until the block ends (a walk's re-run once lost it)."""
    import gc

    with checkpointing(10.0) as log:
        w = World(_scene())
        w.step(30)
        end = float(w.data.time)
        del w
        gc.collect()
    assert [(c.world, round(c.t, 6)) for c in log.checkpoints] == [(0, round(end, 6))]
    assert log._newest is None  # released with the block


def test_no_block_no_checkpoints() -> None:
    w = World(_scene())
    assert w._ckpt_log is None and math.isinf(w._next_ckpt)
    w.step(100)


def test_the_same_run_twice_gives_the_same_digests_and_a_nudge_does_not() -> None:
    def run(nudge: float) -> list[str]:
        with checkpointing(0.2) as log:
            w = World(_scene())
            w.data.qpos[0] += nudge  # the ball's x
            w.step(round(0.6 / w.timestep))
        return [c.digest for c in log.checkpoints]

    a, b, c = run(0.0), run(0.0), run(1e-12)
    assert a == b
    assert all(x != y for x, y in zip(a, c))


def test_state_difference_names_the_body_the_joint_and_the_amount() -> None:
    with checkpointing(10.0, keep_models=True) as log:
        w = World(_scene())
        w.step(50)
    assert log.model_objects == [w.model]
    base = log.checkpoints[-1].state
    x = np.frombuffer(base, np.float64).copy()
    m = w.model
    lay_time = 1  # mjSTATE_TIME comes first (one number), then qpos
    paddle = next(j for j in range(m.njnt) if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE)
    x[lay_time + int(m.jnt_qposadr[paddle])] += 3e-7  # the paddle's angle
    x[lay_time + m.nq + 2] -= 5e-9  # the ball's z velocity (qvel after qpos)
    diff = state_difference(m, base, x.tobytes())
    assert diff["max_abs"] == pytest.approx(3e-7)
    assert set(diff["parts"]) == {"qpos", "qvel"}
    first, second = diff["bodies"]
    assert first["body"] == "paddle" and first["qvel_max_abs"] == 0.0
    assert first["qpos_max_abs"] == pytest.approx(3e-7)
    assert second["body"] == "ball" and second["qvel_max_abs"] == pytest.approx(5e-9)
    assert second["qpos_max_abs"] == 0.0
    assert state_difference(m, base, base)["bodies"] == []
