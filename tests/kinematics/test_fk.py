"""Forward kinematics against published PUMA 560 values, a slow reference and batches."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robotsim
from robotsim.errors import KinematicsError, UnknownNameError
from robotsim.spatial import rot_x, rot_z
from tests.kinematics.random_trees import random_tree, reference_fk_all
from tests.paths import FIXTURES, SHARED

REF = json.loads((SHARED / "reference" / "puma560.json").read_text())


@pytest.fixture(scope="module")
def puma() -> robotsim.RobotModel:
    return robotsim.load_robot("puma560")


def _printed_tol(case: dict) -> float:
    # "4 decimals" -> half a unit in the 4th decimal; "4 significant digits" -> the
    # largest entry (about 1.1) printed to 3 decimals; "%8.4g" likewise.
    return {"4 decimals": 0.5e-4}.get(case["printed_precision"].split(" (")[0], 0.5e-3)


@pytest.mark.parametrize("case", REF["published_fk"], ids=lambda c: c["id"])
def test_puma_published_fk(puma, case) -> None:
    """Robotics Toolbox for Python's printed fkine results (shared/reference)."""
    T = puma.fk(case["q"])
    expected = np.array(case["expected"], dtype=float)
    assert np.max(np.abs(T - expected)) <= _printed_tol(case)


@pytest.mark.parametrize("name", ["qz", "qr", "qn"])
def test_puma_exact_positions(puma, name) -> None:
    """Positions computed exactly from the DH table (shared/reference), to 1e-9."""
    extra = REF["extra_reference_poses_computed"]
    q = REF["standard_DH"]["named_configurations_rad"][name]
    T = puma.fk(q)
    assert np.allclose(T[:3, 3], extra[name], atol=1e-9, rtol=0)
    if name in ("qz", "qr"):
        assert np.allclose(T[:3, :3], np.eye(3), atol=1e-12)


def _dh_product(q: np.ndarray) -> np.ndarray:
    """The standard-DH product written out from the reference table (numpy, slow)."""
    T = np.eye(4)
    for qi, link in zip(q, REF["standard_DH"]["links"]):
        A = np.eye(4)
        A[:3, :3] = rot_z(qi + link["offset"])
        Tz = np.eye(4)
        Tz[2, 3] = link["d"]
        X = np.eye(4)
        X[:3, :3] = rot_x(link["alpha"])
        X[0, 3] = link["a"]
        T = T @ A @ Tz @ X
    return T


def test_puma_matches_dh_product(puma) -> None:
    q = np.random.default_rng(1).uniform(-3, 3, size=(200, 6))
    ours = puma.fk(q)
    ref = np.stack([_dh_product(row) for row in q])
    assert np.max(np.abs(ours - ref)) < 1e-12


def test_puma_named_poses(puma) -> None:
    for name, q in REF["standard_DH"]["named_configurations_rad"].items():
        assert np.allclose(puma.pose(name), q, atol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_random_tree_matches_reference(seed) -> None:
    model = random_tree(seed)
    q = np.random.default_rng(seed).uniform(-2, 2, size=model.nq)
    ref = reference_fk_all(model, q)
    allT = model.fk_all(q)
    for i, name in enumerate(model.link_names):
        assert np.allclose(allT[i], ref[name], atol=1e-12), name
        assert np.allclose(model.fk(q, name), ref[name], atol=1e-12), name
    tip = model.frames[0]
    assert np.allclose(model.fk(q), ref[tip.link] @ tip.T_link_frame, atol=1e-12)


def _serial_chain(n: int, seed: int) -> robotsim.RobotModel:
    """``n`` links in series: revolute, continuous, prismatic and fixed joints with
    random axes and origins, one mimic."""
    from robotsim.model import RobotBuilder
    from tests.kinematics.random_trees import random_T

    rng = np.random.default_rng(seed)
    b = RobotBuilder(f"serial{n}")
    b.link("l0")
    kinds = ["revolute", "continuous", "prismatic", "fixed"]
    for i in range(1, n + 1):
        kind = kinds[(i + seed) % 4] if i > 1 else "continuous"
        b.link(f"l{i}")
        b.joint(f"j{i}", kind, f"l{i - 1}", f"l{i}", origin=random_T(rng),
                axis=rng.normal(size=3), lower=-2.5, upper=2.5,
                mimic=("j1", 0.7, 0.1) if i == 3 and kind != "fixed" else None)  # fmt: skip
    return b.build()


@pytest.mark.parametrize("n", [1, 5, 8, 9, 11, 14])
def test_single_configuration_equals_batch_row(n) -> None:
    """The single-configuration kernel (all sines and cosines in one pass up to eight
    moving joints, one at a time beyond) equals the batched kernel bit for bit and the
    slow reference to 1e-12, for chains of any length, strided q, and angles beyond
    the polynomial range (libm)."""
    for seed in range(4):
        model = _serial_chain(n, seed)
        rng = np.random.default_rng(seed)
        Q = rng.uniform(-2.5, 2.5, size=(20, model.nq))
        Q[:3, 0] = [4.0e5, -7.3e6, 1e9]  # j1 is continuous: the libm path
        batch = model.fk(Q, f"l{n}")
        wide = np.repeat(Q, 2, axis=1)  # rows of it viewed with stride 2
        for k, q in enumerate(Q):
            one = model.fk(q, f"l{n}")
            assert np.array_equal(one, batch[k])
            assert np.array_equal(model.fk(wide[k, ::2], f"l{n}"), one)
            ref = reference_fk_all(model, q)[f"l{n}"]
            assert np.allclose(one, ref, atol=1e-12 * max(1.0, abs(q[0]) * 1e-4))


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 3), min_size=0, max_size=3), seed=st.integers(0, 50))
def test_batch_shapes(shape, seed) -> None:
    """Any leading batch shape gives the same poses as one configuration at a time."""
    model = random_tree(seed % 5, n_links=6)
    q = np.random.default_rng(seed).uniform(-2, 2, size=(*shape, model.nq))
    T = model.fk(q)
    allT = model.fk_all(q)
    assert T.shape == (*shape, 4, 4)
    assert allT.shape == (*shape, len(model.links), 4, 4)
    flat_q = q.reshape(-1, model.nq)
    flat_T = T.reshape(-1, 4, 4)
    for k in range(flat_q.shape[0]):
        assert np.array_equal(flat_T[k], model.fk(flat_q[k]))


def test_frames_subset(puma) -> None:
    q = np.random.default_rng(3).uniform(-1, 1, (5, 6))
    T = puma.tree.fk_frames(q, ["link3", "tool"])
    assert np.allclose(T[:, 0], puma.fk(q, "link3"))
    assert np.allclose(T[:, 1], puma.fk(q, "tool"))


def test_bad_shapes_and_names(puma) -> None:
    with pytest.raises(KinematicsError, match=r"shape \(\.\.\., 6\)"):
        puma.fk(np.zeros(5))
    with pytest.raises(UnknownNameError, match="link3"):
        puma.fk(np.zeros(6), "elbow")


def test_model_fk_link_keyword_after_first_call() -> None:
    """``model.fk(q, link=...)`` keeps working once the first call has swapped in the
    compiled closure (it named the parameter ``name`` and refused ``link=``); the
    poses match MuJoCo's for a third-party URDF stripped of its meshes."""
    import re

    import mujoco

    path = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"
    text = re.sub(r"<(visual|collision)>.*?</\1>", "", path.read_text(), flags=re.S)
    text = text.replace(
        '<robot name="panda">',
        '<robot name="panda"><mujoco><compiler fusestatic="false"/></mujoco>',
    )
    mjm = mujoco.MjModel.from_xml_string(text)
    data = mujoco.MjData(mjm)
    panda = robotsim.load_robot(path)
    q = np.array([0.3, -0.4, 0.5, -1.9, 0.2, 1.4, -0.6, 0.02])
    data.qpos[:8] = q
    data.qpos[8] = q[7]  # the mimic finger
    mujoco.mj_kinematics(mjm, data)
    for _ in range(2):  # the second round runs through the compiled closure
        for link in ("panda_link4", "panda_link7", "panda_leftfinger", "panda_rightfinger"):
            T = panda.fk(q, link=link)
            body = mjm.body(link).id
            assert np.allclose(T[:3, 3], data.xpos[body], atol=1e-12)
            assert np.allclose(T[:3, :3], data.xmat[body].reshape(3, 3), atol=1e-12)
    assert np.allclose(panda.fk(q, link=None), panda.fk(q))
