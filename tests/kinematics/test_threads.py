"""Threaded batches equal one thread bit for bit; the single-configuration fast path
equals the batched kernel; the kinematics functions are the API the model delegates to."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

import robotsim
from robotsim import kinematics
from robotsim.errors import InputError, KinematicsError
from robotsim.kinematics.threads import resolve_threads, run_rows


@pytest.fixture(scope="module")
def puma() -> robotsim.RobotModel:
    return robotsim.load_robot("puma560")


@pytest.fixture(scope="module")
def qs(puma) -> np.ndarray:
    return np.random.default_rng(7).uniform(puma.lower, puma.upper, (20_000, puma.nq))


@pytest.mark.parametrize("threads", [2, 3])
def test_threaded_batches_equal_one_thread(puma, qs, threads) -> None:
    assert np.array_equal(puma.fk(qs, threads=threads), puma.fk(qs, threads=1))
    assert np.array_equal(puma.fk(qs, "link3", threads=threads), puma.fk(qs, "link3", threads=1))
    assert np.array_equal(puma.fk_all(qs, threads=threads), puma.fk_all(qs, threads=1))
    T1, J1 = puma.tree.jacobian_world(qs, threads=1)
    T2, J2 = puma.tree.jacobian_world(qs, threads=threads)
    assert np.array_equal(T1, T2) and np.array_equal(J1, J2)


def test_run_rows_covers_every_row_once() -> None:
    seen = np.zeros(10_007, dtype=int)

    def rows(a: int, b: int) -> None:
        seen[a:b] += 1

    run_rows(rows, len(seen), threads=3, min_rows=100)
    assert np.all(seen == 1)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_threads_is_a_clear_error(puma, qs, bad) -> None:
    with pytest.raises(InputError, match="threads must be an integer"):
        resolve_threads(bad)
    with pytest.raises(InputError, match="threads"):
        puma.fk(qs, threads=bad)


def test_single_configuration_fast_path_equals_batch(puma, qs) -> None:
    batch = puma.fk(qs[:200])
    for k in range(200):
        assert np.array_equal(puma.fk(qs[k]), batch[k])
    # named frames, strided rows, other dtypes and lists take the same results
    col = np.asfortranarray(qs[:50])
    assert np.array_equal(puma.fk(col[3]), batch[3])
    assert np.array_equal(puma.fk(qs[7], "link3"), puma.fk(qs[:8], "link3")[7])
    assert np.array_equal(puma.fk(list(qs[5])), batch[5])
    qi = np.array([1, 0, -1, 0, 1, 0])
    assert np.array_equal(puma.fk(qi), puma.fk(qi.astype(float)[None])[0])
    out = puma.fk(qs[0])
    out[0, 0] = 99.0  # a fresh array each call
    assert puma.fk(qs[0])[0, 0] == batch[0, 0, 0]


def test_fast_path_rejects_wrong_shapes(puma) -> None:
    for q in (np.zeros(5), np.zeros((6, 6))[:, :5], np.zeros(7)):
        with pytest.raises(KinematicsError, match="q must have shape"):
            puma.fk(q)
    assert puma.fk(np.zeros((6, 6))).shape == (6, 4, 4)


def test_functions_are_the_primary_api(puma, qs) -> None:
    assert np.array_equal(kinematics.fk(puma, qs[:10]), puma.fk(qs[:10]))
    assert np.array_equal(kinematics.fk_all(puma, qs[:10]), puma.fk_all(qs[:10]))
    names = ["link2", "tool"]
    assert np.array_equal(
        kinematics.fk_frames(puma, qs[:10], names), puma.tree.fk_frames(qs[:10], names)
    )
    assert np.array_equal(kinematics.jacobian(puma, qs[:10]), puma.jacobian(qs[:10]))
    tree = kinematics.compile_tree(puma)
    assert np.array_equal(tree.fk(qs[:10]), puma.fk(qs[:10]))


def test_model_pickles_without_its_compiled_tree(puma, qs) -> None:
    puma.fk(qs[0])
    other = pickle.loads(pickle.dumps(puma))
    assert "tree" not in other.__dict__
    assert np.array_equal(other.fk(qs[0]), puma.fk(qs[0]))


def test_a_forked_child_runs_threaded_batches(puma, qs) -> None:
    import multiprocessing as mp

    expected = puma.fk(qs, threads=2)  # the parent's pool exists now
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as pool:
        got = pool.apply(_fk_in_child, (qs,))
    assert np.array_equal(got, expected)


def _fk_in_child(q: np.ndarray) -> np.ndarray:
    return robotsim.load_robot("puma560").fk(q, threads=2)


def test_run_rows_ranges_are_contiguous_long_enough_and_errors_propagate() -> None:
    got: list[tuple[int, int]] = []

    def rows(a: int, b: int) -> None:
        got.append((a, b))

    run_rows(rows, 100_000, threads=2, min_rows=1000)
    got.sort()
    assert got[0][0] == 0 and got[-1][1] == 100_000
    assert all(b == a2 for (_, b), (a2, _) in itertools.pairwise(got))
    assert all(b - a >= 1000 for a, b in got) and 2 < len(got) <= 16

    def fails(a: int, b: int) -> None:
        if a > 0:
            raise KinematicsError(f"row {a}")

    with pytest.raises(KinematicsError, match="row"):
        run_rows(fails, 100_000, threads=2, min_rows=1000)
