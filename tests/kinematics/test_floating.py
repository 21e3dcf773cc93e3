"""The anchored floating base: the anchor never moves, switching never jumps."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.kinematics import AnchoredState
from tests.kinematics.random_trees import random_T, random_tree


@pytest.mark.parametrize("seed", range(8))
def test_anchor_stays_fixed_on_random_trees(seed) -> None:
    model = random_tree(seed, n_links=9)
    rng = np.random.default_rng(seed)
    st = AnchoredState(model, T_world_root=random_T(rng, 1.0))
    names = [*model.link_names, *model.frame_names]
    for _ in range(6):  # several anchors, each held through a random motion
        anchor = names[int(rng.integers(0, len(names)))]
        before_all = st.link_poses().copy()
        st.set_anchor(anchor)
        assert np.array_equal(st.link_poses(), before_all)  # switching never jumps
        held = st.pose(anchor).copy()
        for _ in range(30):
            st.set_q(st.q + rng.normal(0, 0.2, model.nq))
            assert np.max(np.abs(st.pose(anchor) - held)) < 1e-12


def test_root_as_anchor_and_no_anchor() -> None:
    model = random_tree(2)
    T0 = random_T(np.random.default_rng(0), 1.0)
    st = AnchoredState(model, T_world_root=T0)
    st.set_q(np.ones(model.nq) * 0.3)
    assert np.array_equal(st.T_world_root, T0)  # no anchor: root stays
    st.set_anchor(model.root)
    st.set_q(np.ones(model.nq) * -0.3)
    assert np.allclose(st.T_world_root, T0, atol=1e-15)


def test_relative_poses_follow_fk() -> None:
    """Whatever the anchor, link poses relative to the root equal plain FK."""
    model = random_tree(5)
    st = AnchoredState(model, anchor=model.link_names[-1])
    q = np.random.default_rng(1).uniform(-1, 1, model.nq)
    st.set_q(q)
    rel = np.linalg.inv(st.T_world_root) @ st.link_poses()
    assert np.allclose(rel, model.fk_all(q), atol=1e-12)


def test_bad_q_length() -> None:
    model = random_tree(1)
    st = AnchoredState(model)
    with pytest.raises(ValueError, match="values"):
        st.set_q(np.zeros(model.nq + 1))


@pytest.mark.parametrize("seed", range(4))
def test_packed_kernel_equals_the_array_kernel(seed) -> None:
    """AnchoredState's by-address kernel computes what ``kernels.anchored_fk`` does on
    the tree's own arrays, bit for bit."""
    from robotsim.kinematics import kernels

    model = random_tree(seed, n_links=9)
    rng = np.random.default_rng(seed)
    st = AnchoredState(model, T_world_root=random_T(rng, 1.0), anchor=model.link_names[-1])
    t = model.tree
    L = len(model.links)
    for _ in range(5):
        q = rng.normal(0, 1.0, model.nq)
        root = st.T_world_root  # the kernel reads it only without an anchor
        st.set_q(q)
        rel, world = np.empty((L, 4, 4)), np.empty((L, 4, 4))
        kernels.anchored_fk(
            q, t.parent, t.jt, t.qi, t.mult, t.off, t.A, t.B, st._anchor_link,
            st._anchor_offset.copy(), st._T_world_anchor.copy(), rel, world, root,
        )  # fmt: skip
        assert np.array_equal(world, st.link_poses())
        assert np.array_equal(root, st.T_world_root)


def test_copies_and_pickles_own_their_buffer() -> None:
    import copy
    import pickle

    model = random_tree(3, n_links=7)
    st = AnchoredState(model, anchor=model.link_names[-1])
    st.set_q(np.full(model.nq, 0.2))
    for other in (copy.copy(st), copy.deepcopy(st), pickle.loads(pickle.dumps(st))):
        assert np.array_equal(other.link_poses(), st.link_poses())
        assert other.anchor == st.anchor
        other.set_q(np.full(model.nq, -0.4))  # moves the copy only
        assert not np.array_equal(other.link_poses(), st.link_poses())
        assert np.max(np.abs(other.pose(st.anchor) - st.pose(st.anchor))) < 1e-12
    del st
