"""Fuzz the file formats: robot YAML, URDF, MJCF, scenarios of every kind, motions and
meshes, mutated from the shipped and shared files (seeded; see conftest.py)."""

from __future__ import annotations

import copy
import os
import random
from pathlib import Path

import pytest

from robotsim import load_robot
from robotsim.shipped import shipped_dir
from tests.fuzz.harness import Verdicts
from tests.fuzz.mutate import any_mutation, byte_mutation

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO.parent / "shared" / "fixtures"
LIBRARY = REPO / "src" / "robotsim" / "model" / "library"

BASE_COUNT = 12  # cases per seed file in the normal run


def _cases(seed_file: Path, kind: str, count: int, seed: int) -> list[tuple[str, bytes]]:
    data = seed_file.read_bytes()
    rng = random.Random(f"{seed}:{seed_file.name}")
    return [(f"{seed_file.name}#{i}", any_mutation(rng, data, kind)) for i in range(count)]


def _mirror(folder: Path, tmp: Path) -> None:
    """Link a seed file's neighbours (meshes...) next to the mutated copy."""
    for entry in folder.iterdir():
        link = tmp / entry.name
        if not link.exists():
            os.symlink(entry, link)


def _fuzz_model_files(seeds: list[Path], kind: str, suffix: str, tmp_path: Path,
                      count: int, seed: int) -> Verdicts:  # fmt: skip
    v = Verdicts()
    for sf in seeds:
        work = tmp_path / sf.stem
        work.mkdir()
        _mirror(sf.parent, work)
        for label, data in _cases(sf, kind, count, seed):
            f = work / f"case{suffix}"
            f.write_bytes(data)
            v.check(label, lambda f=f: load_robot(f))
    return v


@pytest.mark.slow
def test_fuzz_robot_yaml(tmp_path: Path, fuzz_scale: int, fuzz_seed: int) -> None:
    seeds = sorted(LIBRARY.glob("*.yaml"))
    v = _fuzz_model_files(seeds, "yaml", ".yaml", tmp_path, BASE_COUNT * fuzz_scale, fuzz_seed)
    v.assert_clean()


def test_fuzz_urdf(tmp_path: Path, fuzz_scale: int, fuzz_seed: int) -> None:
    seeds = [
        FIXTURES / "urdf" / "franka_panda" / "panda.urdf",
        FIXTURES / "urdf" / "turtlebot3_burger" / "turtlebot3_description" / "urdf"
        / "turtlebot3_burger.urdf",
    ]  # fmt: skip
    v = _fuzz_model_files(seeds, "xml", ".urdf", tmp_path, 2 * BASE_COUNT * fuzz_scale, fuzz_seed)
    v.assert_clean()


def test_fuzz_mjcf(tmp_path: Path, fuzz_scale: int, fuzz_seed: int) -> None:
    seeds = [FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"]
    v = _fuzz_model_files(seeds, "xml", ".xml", tmp_path, 2 * BASE_COUNT * fuzz_scale, fuzz_seed)
    v.assert_clean()


def _load_scenario_any(path: Path) -> None:
    """Validate a scenario of any kind (the ``kind:`` registry) as ``robotsim run``
    and the studio would before running it."""
    from robotsim.clearance.scenario import load_scenario
    from robotsim.hands.scenario_spec import load_hand_scenario
    from robotsim.mobile.load import load_mobile
    from robotsim.scenario.kinds import kind_of
    from robotsim.scenario_yaml import read_scenario_yaml

    data = read_scenario_yaml(path)
    kind = kind_of(data, str(path)).name
    if kind == "clearance":
        load_scenario(path)
    elif kind == "hand_ball_transfer":
        load_hand_scenario(path)
    else:
        load_mobile(data, str(path))


def test_fuzz_scenarios_of_every_kind(tmp_path: Path, fuzz_scale: int, fuzz_seed: int) -> None:
    v = Verdicts()
    for sf in sorted((shipped_dir("scenario")).glob("*.yaml")):
        for label, data in _cases(sf, "yaml", BASE_COUNT * fuzz_scale, fuzz_seed):
            f = tmp_path / sf.name
            f.write_bytes(data)
            v.check(label, lambda f=f: _load_scenario_any(f))
    v.assert_clean()


def test_fuzz_motions(tmp_path: Path, fuzz_scale: int, fuzz_seed: int) -> None:
    from robotsim.motion.schema import load_program
    from robotsim.motion.timeline import compile_program

    model = load_robot("humanoid17")

    def play(f: Path) -> None:
        program = load_program(f)
        tl = compile_program(program, model, f)
        tl.sample("fixed_tick", 0.05)

    v = Verdicts()
    for sf in sorted((shipped_dir("motion")).glob("*.yaml")):
        for label, data in _cases(sf, "yaml", 3 * BASE_COUNT * fuzz_scale, fuzz_seed):
            f = tmp_path / sf.name
            f.write_bytes(data)
            v.check(label, lambda f=f: play(f))
    v.assert_clean()


def test_fuzz_meshes(tmp_path: Path, fuzz_scale: int, fuzz_seed: int) -> None:
    from robotsim.model.meshes import load_mesh

    seeds = [p for p in sorted((FIXTURES / "meshes").rglob("*")) if p.is_file()]
    seeds = [p for p in seeds if p.suffix.lower() in (".stl", ".obj", ".3ds", ".x", ".dae")]
    seeds += sorted((FIXTURES / "urdf" / "franka_panda" / "meshes" / "collision").glob("*.obj"))[:2]
    v = Verdicts()
    for sf in seeds:
        rng = random.Random(f"{fuzz_seed}:{sf.name}")
        data = sf.read_bytes()
        for i in range(BASE_COUNT * fuzz_scale):
            f = tmp_path / f"m{i}{sf.suffix}"
            f.write_bytes(byte_mutation(rng, data))
            v.check(f"{sf.name}#{i}", lambda f=f: load_mesh(f))
    v.assert_clean()


@pytest.mark.parametrize("name", ["empty", "binary", "deep", "bomb", "huge_number"])
def test_hand_written_nasties(name: str, tmp_path: Path) -> None:
    body = {
        "empty": b"",
        "binary": bytes(range(256)) * 4,
        "deep": b"a: " + b"{x: " * 5000 + b"1" + b"}" * 5000,
        "bomb": b"a: &a [x,x,x,x,x,x,x,x,x]\n"
        + b"".join(
            f"{c}: &{c} [{','.join([f'*{p}'] * 9)}]\n".encode()
            for p, c in zip("abcdefgh", "bcdefghi")
        ),
        "huge_number": b"name: x\nlinks: [{name: a, mass: 1" + b"0" * 5000 + b"}]\n",
    }[name]
    v = Verdicts()
    for suffix in (".yaml", ".urdf", ".xml"):
        f = tmp_path / f"case{suffix}"
        f.write_bytes(body)
        v.check(f"{name}{suffix}", lambda f=f: load_robot(f))
    f = tmp_path / "scenario.yaml"
    f.write_bytes(body)
    v.check(f"{name} scenario", lambda: _load_scenario_any(f))
    v.assert_clean()


def test_fuzz_generated_hostile_meshes(tmp_path: Path, fuzz_scale: int, fuzz_seed: int) -> None:
    """Meshes damaged at the level of their format (tests/fuzz/meshes.py), read as a
    mesh and loaded as a grasp object: a solid, or one line naming the file."""
    from robotsim.model.meshes import load_mesh
    from robotsim.objects import load_object
    from tests.fuzz.meshes import hostile_mesh

    rng = random.Random(f"{fuzz_seed}:meshes")
    v = Verdicts()
    for i in range(5 * BASE_COUNT * fuzz_scale):
        what, suffix, data = hostile_mesh(rng)
        f = tmp_path / f"g{i}{suffix}"
        f.write_bytes(data)
        label = f"mesh#{i} {suffix} ({what})"
        v.check(label, lambda f=f: load_mesh(f))
        v.check(label + " as object", lambda f=f: load_object(
            {"file": str(f), "decomposition": "hull"}, cache=tmp_path / "cache"
        ))  # fmt: skip
    v.assert_clean()


def test_fuzz_sweep_files(tmp_path: Path, fuzz_scale: int, fuzz_seed: int) -> None:
    """Every shipped sweep file, mutated, read as ``robotsim sweep run`` reads it before
    any run (design expanded, paths checked against the base scenario)."""
    from robotsim.sweep.engine import SHIPPED_SWEEPS, load_sweep

    v = Verdicts()
    for sf in sorted(SHIPPED_SWEEPS.glob("*.yaml")):
        for label, data in _cases(sf, "yaml", BASE_COUNT * fuzz_scale, fuzz_seed):
            f = tmp_path / sf.name
            f.write_bytes(data)
            v.check(label, lambda f=f: load_sweep(f))
    v.assert_clean()


def test_fuzz_grasp_object_specs(tmp_path: Path, fuzz_scale: int, fuzz_seed: int) -> None:
    """``object:`` mappings of a grasp scenario with hostile values in every field."""
    from robotsim.objects import load_object
    from tests.fuzz.mutate import NASTY

    fields = ["type", "size", "radius", "length", "radii", "scale", "mass", "density",
              "friction", "decomposition", "file", "name"]  # fmt: skip
    seeds = [
        {"type": "box", "size": [0.05, 0.04, 0.03]},
        {"type": "cylinder", "radius": 0.03, "length": 0.1, "mass": 0.2},
        {"type": "ellipsoid", "radii": [0.02, 0.03, 0.04], "scale": [1, 2, 1]},
    ]
    rng = random.Random(f"{fuzz_seed}:objects")
    v = Verdicts()
    for i in range(4 * BASE_COUNT * fuzz_scale):
        spec = dict(rng.choice(seeds))
        for _ in range(rng.randint(1, 3)):
            spec[rng.choice(fields)] = rng.choice(NASTY)
        v.check(f"object#{i} {spec!r:.150}", lambda s=spec: load_object(
            s, base_dir=tmp_path, cache=tmp_path / "cache"
        ))  # fmt: skip
    v.assert_clean()


SENSOR_FIELDS = {
    "type": ["lidar", "camera", "imu", "odometry", "force", "touch", "joint", "sonar"],
    "rays": [0, 1, 2, 65536, 65537, 10**9, -3, 1.5],
    "rate": [0, -1, 1e-9, 1e5, 1e6, 1e308, float("nan")],
    "range": [[0, 0], [12, 0.05], [0.05, 1e4], [0.05, 1e308], [-1, 5], [float("nan"), 1]],
    "width": [1, 4096, 4097, 0, 10**6], "height": [1, 4096, 0, -4],
    "position": [[0, 0, 1e4], [0, 0, 1e308], [float("inf"), 0, 0], [0, 0]],
    "rpy_deg": [[0, 0, 1e308], [float("nan"), 0, 0], [720, -720, 1e6]],
    "fov": [0, 1e-9, 180, 360, 1e308, -5], "link": ["nope", "", "base"],
    "noise": [{"range_std": 1e308}, {"dropout": 1.5}, {"accel_std": -1}, {"gyro_std": 1e-300}],
}  # fmt: skip


@pytest.mark.slow
def test_fuzz_sensor_definitions_run(tmp_path: Path, fuzz_scale: int, fuzz_seed: int) -> None:
    """Sensors of a lidar scene with hostile fields, validated and, when accepted, run
    for 0.05 s: a reading, or one line naming the sensor's field."""
    from robotsim.run_io import RunOptions
    from robotsim.scenario.any_kind import run_base
    from robotsim.scenario_yaml import read_scenario_yaml

    base = read_scenario_yaml(shipped_dir("scenario") / "soccer_lidar.yaml")
    rng = random.Random(f"{fuzz_seed}:sensors")
    v = Verdicts()
    for i in range(6 * fuzz_scale):
        data = copy.deepcopy(base)
        sensors = data["robots"][0]["sensors"]
        for _ in range(rng.randint(1, 3)):
            s = rng.choice(sensors)
            key = rng.choice(list(SENSOR_FIELDS))
            s[key] = copy.deepcopy(rng.choice(SENSOR_FIELDS[key]))
        label = f"sensors#{i} {sensors!r:.200}"
        v.check(label, lambda d=data: run_base(d, "hostile_sensors.yaml", RunOptions(
            duration=0.05
        )))  # fmt: skip
    v.assert_clean()
