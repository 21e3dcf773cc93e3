"""Each compiled geometry kernel is compiled for one signature, whatever its callers
pass: numba compiles a kernel again for every new combination of argument types
(read-only or writable arrays, constants typed ``Literal``), and each such copy of the
ellipsoid kernels cost seconds in a first run."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from robotsim.geometry._ellipsoid_kernel import kernel_input

# A fresh process (the kernels of this one have met whatever earlier tests passed):
# every pair kind through shape_distance, ellipsoid_distance with writable, read-only
# and broadcast inputs, an MVEE fit; then each kernel's compiled signatures.
_WORKLOAD = """
import json, numpy as np
from numba.core.registry import CPUDispatcher
from robotsim import ellipsoid_distance
from robotsim.geometry import _core_kernel, _ellipsoid_bound, _ellipsoid_kernel, _mvee
from robotsim.geometry.fit import min_volume_ellipsoid
from robotsim.geometry.shapes import shape_distance
from robotsim.model.geometry import Box, Capsule, Ellipsoid, Sphere

rng = np.random.default_rng(3)
T = np.tile(np.eye(4), (40, 1, 1))
T[:, :3, 3] = rng.normal(size=(40, 3)) * 0.3
shapes = [Sphere(radius=0.1), Capsule(radius=0.05, length=0.3), Box(size=(0.2, 0.1, 0.3)),
          Ellipsoid(radii=(0.3, 0.1, 0.05))]
for a in shapes:
    shape_distance(a, T, Ellipsoid(radii=(0.2, 0.15, 0.1)), np.eye(4))
c = rng.normal(size=(50, 3)) * 0.2
R = np.tile(np.eye(3), (50, 1, 1))
r = rng.uniform(0.05, 0.3, size=(50, 3))
ellipsoid_distance(c, R, r, -c, R, r)
for x in (c, R, r):
    x.setflags(write=False)
ellipsoid_distance(c, R, r, -c, R, r)
ellipsoid_distance(c, np.eye(3), [0.1, 0.2, 0.3], c[0], R[0], r[0])
min_volume_ellipsoid(rng.normal(size=(60, 3)))
print(json.dumps({
    f"{m.__name__}.{name}": [str(s) for s in d.signatures]
    for m in (_core_kernel, _ellipsoid_bound, _ellipsoid_kernel, _mvee)
    for name, d in vars(m).items() if isinstance(d, CPUDispatcher) and d.signatures
}))
"""


def test_every_geometry_kernel_is_compiled_once() -> None:
    out = subprocess.run([sys.executable, "-c", _WORKLOAD], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    signatures = json.loads(out.splitlines()[-1])
    # the kernels called from Python (those they call are compiled into them, and from
    # numba's cache they load whole: a cold run lists them too, each once, but takes 20 s)
    assert {name.rsplit(".", 1)[1] for name in signatures} == {
        "ellipsoid_pairs", "_newton", "capsule_search", "box_search", "finish_pairs",
        "_wolfe_atwood"}  # fmt: skip
    several = {name: sigs for name, sigs in signatures.items() if len(sigs) != 1}
    assert several == {}


def test_kernel_input_is_a_read_only_c_float64_view_and_leaves_the_caller_alone() -> None:
    x = np.arange(12.0).reshape(4, 3)
    y = kernel_input(x)
    assert y.flags.c_contiguous and not y.flags.writeable and y.dtype == np.float64
    assert np.shares_memory(x, y) and x.flags.writeable  # a view; the caller's flags kept
    assert kernel_input(y) is y  # already read-only: no new view
    z = kernel_input(x.T)  # strided: a copy, read-only too
    assert z.flags.c_contiguous and not z.flags.writeable and np.array_equal(z, x.T)
    w = kernel_input(np.arange(3))  # int64: converted
    assert w.dtype == np.float64 and not w.flags.writeable
