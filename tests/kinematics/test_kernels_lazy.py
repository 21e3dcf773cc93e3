"""The one-signature kinematics kernels (``kernels.CHAIN_FK_ONE``, ``ANCHORED_FK_AT``,
``LOWEST_Z``, ``ANCHORED_RUN``) compile on first use, not at import: a command that
never runs one never waits for its compiler (a cold import once compiled all four)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from robotsim.kinematics import kernels

# in a fresh process: what each kernel holds after import, then after one fk call
_CODE = """
import json, numpy as np
import robotsim
from robotsim.kinematics import kernels, tree
names = ("chain_fk_one", "anchored_fk_at", "lowest_z", "anchored_run")
held = lambda: {n: [str(s) for s in getattr(kernels, n).signatures] for n in names}
after_import = held()
robotsim.load_robot("puma560").fk(np.zeros(6))
print(json.dumps([after_import, held(), str(kernels.CHAIN_FK_ONE_SIG)]))
"""


def test_kernels_compile_on_first_use_for_their_one_signature() -> None:
    out = subprocess.run([sys.executable, "-c", _CODE], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    after_import, after_fk, sig = json.loads(out.splitlines()[-1])
    assert all(s == [] for s in after_import.values())
    assert after_fk == {"chain_fk_one": [sig], "anchored_fk_at": [],
                        "lowest_z": [], "anchored_run": []}  # fmt: skip


def test_an_entry_point_is_its_kernel_compiled_for_its_signature_only() -> None:
    fk_one = kernels.CHAIN_FK_ONE
    assert fk_one is kernels.CHAIN_FK_ONE  # made once, then a plain module attribute
    assert list(kernels.chain_fk_one.overloads) == [tuple(kernels.CHAIN_FK_ONE_SIG)]
    with pytest.raises(TypeError):  # no second specialisation: compiling is switched off
        kernels.chain_fk_one(np.zeros(6, dtype=np.int32), np.zeros((4, 4)), 0)
    with pytest.raises(AttributeError, match="NO_SUCH_KERNEL"):
        kernels.NO_SUCH_KERNEL  # noqa: B018
