"""The certified depth bound that lets the kernel skip later Newton starts: the early
stop against the kernel with every start run (the previous algorithm), and the bound
itself against dense searches of F over the sphere."""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from robotsim.bench.clearance import bench_pairs
from robotsim.geometry._ellipsoid_bound import overlap_depth_bound_holds
from robotsim.geometry._ellipsoid_kernel import _newton, ellipsoid_pairs
from tests.geometry.ellipsoid_reference import fibonacci_sphere


def _kernel(pairs: tuple[np.ndarray, ...], all_starts: bool) -> tuple[np.ndarray, ...]:
    n = len(pairs[0])
    out = (np.empty(n), np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 3)))
    ellipsoid_pairs(*(np.ascontiguousarray(p) for p in pairs), *out, all_starts)
    return out


def _F(pairs: tuple[np.ndarray, ...], n: np.ndarray) -> np.ndarray:
    cA, RA, rA, cB, RB, rB = pairs
    LA, LB = RA * rA[:, None, :], RB * rB[:, None, :]
    return (
        np.linalg.norm(np.einsum("nji,nj->ni", LA, n), axis=1)
        + np.linalg.norm(np.einsum("nji,nj->ni", LB, n), axis=1)
        - np.einsum("ni,ni->n", n, cB - cA)
    )


def _family(name: str, n: int, seed: int) -> tuple[np.ndarray, ...]:
    """Random pairs of one shape family, centres from concentric to well apart."""
    rng = np.random.default_rng(seed)
    R = Rotation.random(2 * n, random_state=seed).as_matrix()
    rad = {
        "random": lambda: rng.uniform(0.05, 0.5, (2 * n, 3)),
        "elongated": lambda: np.exp(rng.uniform(np.log(1e-4), np.log(2.0), (2 * n, 3))),
        "disks": lambda: np.array([1.0, 0.7, 0.001]) * rng.uniform(0.5, 1.5, (2 * n, 1)),
        "needles": lambda: np.array([0.002, 0.002, 0.8]) * rng.uniform(0.5, 1.5, (2 * n, 1)),
    }[name]()
    u = rng.normal(size=(n, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    reach = rng.uniform(0, 1.3, n) * (rad[:n].max(1) + rad[n:].max(1))
    cA = rng.uniform(-1, 1, (n, 3))
    return cA, R[:n], rad[:n], cA + u * reach[:, None], R[n:], rad[n:]


def _near_touching(pairs: tuple[np.ndarray, ...], d: np.ndarray, nrm: np.ndarray):  # type: ignore[no-untyped-def]
    """The same pairs with B moved along the normal to within 1e-3..1e-9 of touching
    (from either side)."""
    keep = np.random.default_rng(3).choice([1e-3, 1e-6, 1e-9, 1 + 1e-6, 1 + 1e-9], len(d))
    cA, RA, rA, cB, RB, rB = pairs
    return cA, RA, rA, cB - (d * keep)[:, None] * nrm, RB, rB


def _assert_same_answer(pairs: tuple[np.ndarray, ...]) -> int:
    """Early stop vs every start: the same distance to 1e-15 m and the same witness
    points and normal bit for bit, except where two distinct minima of F tie to 1e-15
    (both answers are then global minima). Returns the number of overlapping pairs."""
    new = _kernel(pairs, all_starts=False)
    ref = _kernel(pairs, all_starts=True)
    np.testing.assert_allclose(new[0], ref[0], rtol=0, atol=1e-15)
    same = np.all([np.all(a == b, axis=-1) for a, b in zip(new[2:], ref[2:])], axis=0)
    same &= np.all(new[1] == ref[1], axis=1)
    assert np.mean(same) >= 0.999
    tie = ~same
    np.testing.assert_allclose(_F(pairs, new[3])[tie], _F(pairs, ref[3])[tie], atol=1e-15)
    return int(np.sum(ref[0] < 0))


def test_early_stop_equals_every_start_on_the_bench_pairs_bit_for_bit() -> None:
    pairs = bench_pairs(40_000, seed=5)  # half overlapping, half separated
    new = _kernel(pairs, all_starts=False)
    ref = _kernel(pairs, all_starts=True)
    for a, b in zip(new, ref, strict=True):
        assert np.array_equal(a, b)


def test_early_stop_equals_every_start_on_hard_families_and_near_contact() -> None:
    overlapping = 0
    for seed, name in enumerate(("random", "elongated", "disks", "needles")):
        pairs = _family(name, 5_000, seed=40 + seed)
        overlapping += _assert_same_answer(pairs)
        d, _, _, nrm = _kernel(pairs, all_starts=True)
        overlapping += _assert_same_answer(_near_touching(pairs, d, nrm))
    assert overlapping > 6_000


def test_the_bound_holds_where_it_says_so_and_refuses_local_minima() -> None:
    """Where the bound is proved at the kernel's minimum, no direction of a dense grid
    has a smaller F; at local minima that are not global it is never proved."""
    grid = fibonacci_sphere(20_000)
    rng = np.random.default_rng(8)
    proved = refused = 0
    for name in ("random", "disks", "elongated"):
        pairs = _family(name, 300, seed=60)
        d, _, _, nrm = _kernel(pairs, all_starts=True)
        for i in np.flatnonzero(d < -1e-6)[:120]:
            cA, RA, rA, cB, RB, rB = (p[i] for p in pairs)
            LA, LB, r = RA * rA, RB * rB, cB - cA
            scale = float(np.linalg.norm(r) + rA.max() + rB.max())
            Fg = np.linalg.norm(grid @ LA, axis=1) + np.linalg.norm(grid @ LB, axis=1) - grid @ r
            f = -d[i]
            rho = f - 1e-10 * scale
            if overlap_depth_bound_holds(LA, LB, *r, *nrm[i], f, rho):
                proved += 1
                assert Fg.min() >= rho
            # local minima from random starts: a minimum above the global one is refused
            for s in grid[rng.choice(len(grid), 6, replace=False)]:
                m0, m1, m2, fm, ok = _newton(LA, LB, *r, *s, scale, np.inf, np.zeros((1, 3)), 0)
                if ok and fm > f + 1e-6 * scale:
                    refused += 1
                    assert not overlap_depth_bound_holds(
                        LA, LB, *r, m0, m1, m2, fm, fm - 1e-10 * scale
                    )
    assert proved > 100 and refused > 20


def test_the_kernel_records_the_files_it_compiles_in() -> None:
    """Numba's cache of ``_ellipsoid_kernel.py`` is keyed on that file alone; the hash
    of the modules it compiles in must be updated there after they change."""
    import hashlib
    from pathlib import Path

    from robotsim.geometry import _ellipsoid_kernel

    here = Path(_ellipsoid_kernel.__file__).parent
    sha = hashlib.sha1()
    for name in ("_ellipsoid_bound.py", "_sphere_frame.py"):
        sha.update((here / name).read_bytes())
    assert _ellipsoid_kernel.COMPILED_IN_SHA1 == sha.hexdigest(), (
        f"set COMPILED_IN_SHA1 = {sha.hexdigest()!r} in {_ellipsoid_kernel.__file__}"
    )
