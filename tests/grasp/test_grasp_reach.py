"""The grasp IK: targets made by forward kinematics are reached (the contacts' midpoint
and the closing axis), on the Panda's 7 joints and the two-arm robot's 5; a target out
of reach says so."""

from __future__ import annotations

import numpy as np

from robotsim.grasp.reach import reach


def _targets(hand, n: int, seed: int):  # type: ignore[no-untyped-def]
    m = hand.model
    rng = np.random.default_rng(seed)
    q = np.tile(hand.home, (n, 1))
    for j in hand.arm_joints:
        i = m.joint_index(j)
        span = 0.25 * (m.upper[i] - m.lower[i])
        q[:, i] = np.clip(hand.home[i] + rng.uniform(-span, span, n), m.lower[i], m.upper[i])
    Tp = hand.contact_frames[len(hand.closures) // 2]
    return m.fk(q, hand.tool) @ Tp, Tp


def test_reaches_targets_made_by_forward_kinematics(panda_hand, dual_hands) -> None:  # type: ignore[no-untyped-def]
    for hand in (panda_hand, dual_hands["L_hand"]):
        T, Tp = _targets(hand, 16, 3)
        r = reach(hand.model, hand.tool, hand.arm_joints, T, Tp, hand.home)
        assert r.ok.mean() >= 0.9
        ok = r.ok
        got = hand.model.fk(r.q[ok], hand.tool) @ Tp
        np.testing.assert_allclose(got[:, :3, 3], T[ok, :3, 3], atol=2e-3)
        cosang = np.einsum("bi,bi->b", got[:, :3, 0], T[ok, :3, 0])
        assert np.all(cosang > np.cos(0.03))


def test_alike_fingers_may_swap(panda_hand) -> None:  # type: ignore[no-untyped-def]
    T, Tp = _targets(panda_hand, 8, 5)
    flipped = T.copy()
    flipped[:, :3, 0] *= -1  # the same grasp with the fingers swapped
    flipped[:, :3, 1] *= -1
    r = reach(panda_hand.model, panda_hand.tool, panda_hand.arm_joints, flipped, Tp,
              panda_hand.home, symmetric=True)  # fmt: skip
    assert r.ok.mean() >= 0.85


def test_out_of_reach_is_not_ok(panda_hand) -> None:  # type: ignore[no-untyped-def]
    T, Tp = _targets(panda_hand, 2, 1)
    T[:, :3, 3] += [3.0, 0.0, 0.0]
    r = reach(panda_hand.model, panda_hand.tool, panda_hand.arm_joints, T, Tp, panda_hand.home)
    assert not r.ok.any() and np.all(r.position_error > 1.0)
