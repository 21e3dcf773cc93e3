"""``robotsim bench parsing``: model files with many links, and the bounded YAML loader.

- ``urdf_chain_20000_links_s``: :func:`robotsim.load_robot` of a generated 20,000-link
  URDF chain (2,000 with ``--quick``, key ``urdf_chain_2000_links_s``), median wall
  time; ``..._cpu_s`` is this process's CPU time for the same (what it costs when the
  machine is shared). Issue 17's target: under 5 s for 20,000 links.
- ``mjcf_wide_20000_bodies_s``: the same for an MJCF tree of 400 chains of 50 bodies
  (MuJoCo's XML reader refuses nesting deeper than about 1,000, so a deep MJCF chain
  cannot be the test), read by robotsim's linear MJCF reader. ``mjcf_wide_..._mujoco_s``
  is the peer: MuJoCo reading and compiling the same file
  (``MjSpec.from_file(...).compile()``, one run), which grows faster than linearly in
  bodies (measured with MuJoCo 3.3.7, 3.17 and 4.0) and is what ``load_robot`` took
  before the reader (and still takes for files the reader leaves to MuJoCo).
- ``yaml_alias_bomb_refused_s``: time to refuse a ~600-byte alias bomb (9^9 nodes).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from robotsim.bench.timing import median_time

__all__ = ["mjcf_wide", "run", "urdf_chain"]


def urdf_chain(n: int, inertial: bool = True) -> str:
    """A URDF chain of ``n`` links (revolute joints, 0.1 m apart, turned 0.1 rad about
    x each); every link with a 1 kg inertial, or (``inertial=False``) none. The bench's
    file and the tests' (``tests/model/test_model_parse_scale.py``)."""
    out = ['<robot name="chain">']
    out += [
        f'<link name="l{i}"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" '
        f'izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>'
        if inertial
        else f'<link name="l{i}"/>'
        for i in range(n)
    ]
    out += [
        f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child link="l{i}"/>'
        f'<origin xyz="0 0 0.1" rpy="0.1 0 0"/><axis xyz="0 0 1"/>'
        f'<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        for i in range(1, n)
    ]
    return "\n".join([*out, "</robot>"])


def mjcf_wide(n: int, depth: int = 50) -> str:
    """An MJCF tree of ``n // depth`` hinge chains of ``depth`` bodies on one base
    (MuJoCo's XML reader refuses nesting deeper than about 1,000)."""
    chains = []
    for c in range(max(1, n // depth)):
        body = ""
        for i in range(depth - 1, -1, -1):
            body = (
                f'<body name="b{c}_{i}" pos="0 0 0.1"><joint name="j{c}_{i}" type="hinge" '
                f'axis="0 0 1" range="-1 1"/><geom type="sphere" size="0.01"/>{body}</body>'
            )
        chains.append(body)
    return (
        '<mujoco model="wide"><worldbody><body name="base"><geom type="box" '
        f'size="0.1 0.1 0.1"/>{"".join(chains)}</body></worldbody></mujoco>'
    )


def _timed(fn: Any, repeats: int) -> tuple[float, float]:
    cpu0 = time.process_time()
    wall = median_time(fn, repeats=repeats, warmup=0)
    return wall, (time.process_time() - cpu0) / repeats


def _mujoco_compile_s(path: Path) -> float:
    """Wall time (s) of MuJoCo's own reading and compiling of ``path``, once."""
    import mujoco

    t0 = time.perf_counter()
    mujoco.MjSpec.from_file(str(path)).compile()
    return time.perf_counter() - t0


def run(quick: bool = False) -> dict[str, Any]:
    from robotsim import load_robot
    from robotsim.validation import YamlLimitError, safe_load

    n = 2_000 if quick else 20_000
    repeats = 1 if quick else 3
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="robotsim-bench-parse-") as tmp:
        urdf = Path(tmp) / "chain.urdf"
        urdf.write_text(urdf_chain(n))
        wall, cpu = _timed(lambda: load_robot(urdf), repeats)
        out[f"urdf_chain_{n}_links_s"] = wall
        out[f"urdf_chain_{n}_links_cpu_s"] = cpu
        mjcf = Path(tmp) / "wide.xml"
        mjcf.write_text(mjcf_wide(n))
        wall, cpu = _timed(lambda: load_robot(mjcf), repeats)
        out[f"mjcf_wide_{n}_bodies_s"] = wall
        out[f"mjcf_wide_{n}_bodies_cpu_s"] = cpu
        out[f"mjcf_wide_{n}_bodies_mujoco_s"] = _mujoco_compile_s(mjcf)
    bomb = (
        "a: &a ["
        + ",".join(['"lol"'] * 9)
        + "]\n"
        + "".join(
            f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]\n" for p, c in zip("abcdefgh", "bcdefghi")
        )
    )

    def refuse() -> None:
        try:
            safe_load(bomb)
        except YamlLimitError:
            return
        raise AssertionError("the alias bomb was accepted")

    out["yaml_alias_bomb_refused_s"] = median_time(refuse, repeats=5)
    return out
