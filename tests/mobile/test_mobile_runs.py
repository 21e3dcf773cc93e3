"""Mobile scenarios end to end: the paper's two experiments, determinism, random layouts,
many robots, every shipped scenario, and clear errors for malformed files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from robotsim.cli import main
from robotsim.errors import ScenarioError
from robotsim.mobile import load_mobile
from robotsim.recording import RunStore
from robotsim.scenario import RunOptions, kind_of, run_file
from robotsim.scenario_yaml import read_scenario_yaml
from robotsim.shipped import shipped_dir

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = shipped_dir("scenario")


def test_soccer_robot_reaches_goal_without_touching_an_obstacle(tmp_path: Path) -> None:
    out = tmp_path / "soccer"
    code = main(
        [
            "run",
            str(SCENARIOS / "soccer_obstacles.yaml"),
            "--out",
            str(out),
            "--duration",
            "22",
            "--set",
            "stop_when_all_reached=true",
        ]
    )
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    r = summary["robots"]["omni"]
    assert r["reached_goal"] and r["time_to_goal"] < 22
    assert r["collisions"] == 0 and r["min_obstacle_clearance"] > 0.0
    assert len(summary["obstacles"]) == 8
    assert all(d == 0.5 for _, _, d in summary["obstacles"])
    for key in (
        "reached_goal",
        "time_to_goal",
        "path_length",
        "overshoot",
        "min_obstacle_clearance",
        "collisions",
    ):
        assert key in r
    assert r["path_length"] >= np.hypot(14.5, 10.0) - 0.1
    assert (out / "map.png").stat().st_size > 10_000
    table = RunStore(out).signals("last", "omni")
    assert table.names[:3] == ("x", "y", "theta") and len(table.t) > 100
    assert RunStore(out).run("last").status.value == "completed"


def test_p_versus_pd_with_the_same_gain(tmp_path: Path) -> None:
    """The fair experiment (seed 002, fig. 5): P and PD share kp; P is tuned to the
    paper's 16.2 s without overshoot. The D term alone only damps a velocity-commanded
    base (u = kp e - kd v, so v = kp e / (1 + kd)): PD is slower and does not overshoot."""
    data = read_scenario_yaml(SCENARIOS / "pid_p_vs_pd.yaml")
    gp, gpd = (r["controller"]["gains"] for r in data["robots"])
    assert all(gp[a]["kp"] == gpd[a]["kp"] for a in ("x", "y", "theta"))
    assert "kd" not in gp["x"] and gpd["x"]["kd"] > 0
    summary = run_file(SCENARIOS / "pid_p_vs_pd.yaml", RunOptions(out_dir=tmp_path, duration=20))
    p, pd = summary["robots"]["P"], summary["robots"]["PD"]
    assert p["reached_goal"] and pd["reached_goal"]
    assert p["time_to_goal"] == pytest.approx(16.239, abs=0.3)  # the paper's P
    assert p["overshoot"] < 0.005 and pd["overshoot"] < 0.005  # neither overshoots
    assert pd["time_to_goal"] > p["time_to_goal"] + 0.5  # damping alone: slower
    assert p["collisions"] == pd["collisions"] == 0  # same start, cannot interfere
    ref = summary["reference"]["time_to_goal"]
    assert ref["P"]["paper_s"] == pytest.approx(16.239) and ref["PD"]["paper_s"] == 14.026
    assert (tmp_path / "response.png").exists() and (tmp_path / "map.png").exists()


def test_p_versus_pd_gain_effect_recipe() -> None:
    """The documented --set recipe (PD at kp 2): the paper's ordering and PD's slight
    overshoot come with the higher proportional gain."""
    s = _short(
        SCENARIOS / "pid_p_vs_pd.yaml",
        20,
        "robots.1.controller.gains.x.kp=2",
        "robots.1.controller.gains.y.kp=2",
    )
    p, pd = s["robots"]["P"], s["robots"]["PD"]
    assert p["reached_goal"] and pd["reached_goal"]
    assert pd["time_to_goal"] < p["time_to_goal"] - 2.0  # the paper: 14.0 s < 16.2 s
    assert p["overshoot"] < 0.005 < pd["overshoot"] < 0.2  # PD: a slight overshoot


def _short(path: Path, seconds: float, *overrides: str) -> dict:
    return run_file(path, RunOptions(duration=seconds), list(overrides))


def test_same_scenario_and_seed_give_the_same_numbers(tmp_path: Path) -> None:
    a = run_file(SCENARIOS / "soccer_obstacles.yaml", RunOptions(tmp_path / "a", duration=3))
    b = run_file(SCENARIOS / "soccer_obstacles.yaml", RunOptions(tmp_path / "b", duration=3))
    assert a["robots"] == b["robots"]
    sa = RunStore(tmp_path / "a").signals("last", "omni")
    sb = RunStore(tmp_path / "b").signals("last", "omni")
    assert sa.names == sb.names
    assert np.array_equal(sa.t, sb.t) and np.array_equal(sa.values, sb.values, equal_nan=True)


def test_random_layout_follows_the_seed() -> None:
    data = read_scenario_yaml(SCENARIOS / "soccer_obstacles.yaml")
    data["obstacles"]["layout"] = "random"
    _, _, o1 = load_mobile(data, "soccer", seed=1)
    _, _, o1b = load_mobile(data, "soccer", seed=1)
    _, _, o2 = load_mobile(data, "soccer", seed=2)
    assert len(o1) == 8 and np.array_equal(o1, o1b) and not np.array_equal(o1, o2)
    gaps = np.hypot(*(o1[:, None, :2] - o1[None, :, :2]).transpose(2, 0, 1))
    assert gaps[~np.eye(8, dtype=bool)].min() >= 0.5 + 1.2 - 1e-9  # diameter + min_gap


def test_random_layout_run_reaches_goal_without_collision() -> None:
    s = _short(
        SCENARIOS / "soccer_obstacles.yaml",
        24,
        "obstacles.layout=random",
        "stop_when_all_reached=true",
    )
    r = s["robots"]["omni"]
    assert r["reached_goal"] and r["collisions"] == 0


def test_many_robots_from_one_entry(tmp_path: Path) -> None:
    sc = {
        "kind": "mobile",
        "name": "fleet",
        "duration": 2.0,
        "robots_collide": True,
        "robots": [
            {
                "name": "omni",
                "model": "omni3",
                "start": [-6, -4, 0],
                "goal": [-3, -4, 0],
                "count": 4,
                "spacing": [0, 1.5],
            },
            {"name": "dd", "model": "diffdrive", "start": [2, 0, 0], "goal": [3, 0, 0]},
        ],
    }
    f = tmp_path / "fleet.yaml"
    f.write_text(yaml.safe_dump(sc))
    s = run_file(f, RunOptions(out_dir=tmp_path / "out"))
    assert sorted(s["robots"]) == ["dd", "omni1", "omni2", "omni3", "omni4"]
    assert s["robots"]["omni4"]["start"][1] == pytest.approx(-4 + 3 * 1.5)
    for name in ("omni1", "omni4", "dd"):
        assert s["robots"][name]["path_length"] > 0.2  # every robot drove
    assert all(r["collisions"] == 0 for r in s["robots"].values())


RUN_SCENARIOS = [
    p
    for p in sorted(SCENARIOS.glob("*.yaml"))
    if kind_of(read_scenario_yaml(p), str(p)).runner is not None
]


@pytest.mark.parametrize("path", RUN_SCENARIOS, ids=lambda p: p.name)
def test_every_shipped_scenario_runs(path: Path, tmp_path: Path) -> None:
    """Every file `robotsim run` takes (clearance studies run under `robotsim clearance`,
    tested in tests/clearance)."""
    data = read_scenario_yaml(path)
    assert main(["run", str(path), "--out", str(tmp_path), "--duration", "1"]) == 0
    assert (tmp_path / "summary.json").exists()
    if data["kind"] == "mobile":
        assert (tmp_path / "map.png").exists()


BASE = {
    "kind": "mobile",
    "name": "bad",
    "robots": [{"name": "r", "model": "omni3", "start": [0, 0, 0], "goal": [3, 0, 0]}],
}


def _err(tmp_path: Path, data: dict, capsys: pytest.CaptureFixture[str]) -> str:
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump(data))
    assert main(["run", str(f), "--duration", "0.1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    return err


def test_malformed_files_give_one_line_errors_with_the_field_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = json.loads(json.dumps(BASE))
    bad["robots"][0]["controler"] = {}
    err = _err(tmp_path, bad, capsys)
    assert "bad.yaml: robots[0].controler: unknown key 'controler'; valid: name, model" in err

    bad = json.loads(json.dumps(BASE))  # inside a dict entry too (gains.x), issue 29
    bad["robots"][0]["controller"] = {"gains": {"x": {"kpp": 1}}}
    err = _err(tmp_path, bad, capsys)
    assert "controller.gains.x.kpp: unknown key 'kpp'; valid: kp, ki, kd, integral_limit" in err

    bad = json.loads(json.dumps(BASE))
    bad["robots"][0]["controller"] = {"gains": {"x": {"kp": "fast"}}}
    err = _err(tmp_path, bad, capsys)
    assert "robots[0].controller.gains.x.kp:" in err and "'fast'" in err

    bad = json.loads(json.dumps(BASE))
    bad["obstacles"] = {"positions": [[5, 5], [0.3, 0.1]]}
    err = _err(tmp_path, bad, capsys)
    assert "obstacles.positions[1]: obstacle at (0.3, 0.1) overlaps the start of robot 'r'" in err

    bad = json.loads(json.dumps(BASE))
    bad["robots"][0]["model"] = "omni4"
    err = _err(tmp_path, bad, capsys)
    assert "robots[0].model: unknown robot 'omni4'; valid:" in err and "omni3" in err
    assert "did you mean 'omni3'? (or give a robot file)" in err

    bad = json.loads(json.dumps(BASE))
    bad["robots"][0]["model"] = "robots/tb3.urdf"
    err = _err(tmp_path, bad, capsys)
    missing = str(tmp_path / "robots" / "tb3.urdf")
    assert f"robots[0].model: no robot file {missing!r} (a path is read relative" in err

    bad = json.loads(json.dumps(BASE))
    bad["robots"][0]["model"] = "puma560"
    assert "has no wheel drive" in _err(tmp_path, bad, capsys)

    bad = json.loads(json.dumps(BASE))
    bad["kind"] = "mobil"
    assert "kind: 'mobil' is not a scenario kind; valid: mobile" in _err(tmp_path, bad, capsys)

    bad = json.loads(json.dumps(BASE))
    bad["robots"][0]["controller"] = {"avoidance": "bug2"}
    err = _err(tmp_path, bad, capsys)
    assert "robots[0].controller.avoidance: 'bug2' is not allowed" in err

    bad = json.loads(json.dumps(BASE))
    bad["robots"][0]["goal"] = [30, 0, 0]
    assert "robots[0].goal: (30, 0) is outside the field" in _err(tmp_path, bad, capsys)

    bad = json.loads(json.dumps(BASE))
    bad["robots"].append({**bad["robots"][0], "name": "twin", "start": [0.2, 0, 0]})
    err = _err(tmp_path, bad, capsys)
    assert "robots: the starts of 'r' at (0, 0) and 'twin' at (0.2, 0) overlap" in err
    bad["robots_collide"] = False  # robots that cannot touch may share a start
    f = tmp_path / "ok.yaml"
    f.write_text(yaml.safe_dump(bad))
    assert main(["run", str(f), "--duration", "0.1"]) == 0


def test_a_clearance_file_given_to_run_names_the_right_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = SCENARIOS / "three_puma_clearance.yaml"
    assert main(["run", str(path), "--duration", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "robotsim clearance" in err


def test_bad_yaml_and_overrides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "broken.yaml"
    f.write_text("kind: mobile\nrobots: [\n")
    assert main(["run", str(f)]) == 2
    assert "broken.yaml: not valid YAML" in capsys.readouterr().err
    with pytest.raises(ScenarioError, match=r"expected KEY\.PATH=VALUE"):
        run_file(SCENARIOS / "soccer_obstacles.yaml", RunOptions(duration=0.1), ["layout"])
    with pytest.raises(ScenarioError, match="not an index"):
        run_file(
            SCENARIOS / "soccer_obstacles.yaml", RunOptions(duration=0.1), ["robots.5.model=omni3"]
        )
    data = read_scenario_yaml(SCENARIOS / "soccer_obstacles.yaml")
    data["obstacles"].update(layout="random", random={"count": 400, "region": [[0, 0], [1, 1]]})
    with pytest.raises(ScenarioError, match=r"obstacles\.random: placed only"):
        load_mobile(data, "soccer")


def test_objects_including_legacy_meshes_are_in_the_world(tmp_path: Path) -> None:
    fixtures = ROOT.parent / "shared" / "fixtures" / "meshes"
    sc = {
        "kind": "mobile",
        "name": "objects",
        "duration": 1.0,
        "robots": [{"name": "r", "model": "omni3", "start": [0, 0, 0], "goal": [1, 0, 0]}],
        "objects": [
            {
                "name": "ball",
                "shape": {"type": "sphere", "radius": 0.11},
                "position": [1, 2, 0.6],
                "mass": 0.45,
                "surface": {"bounce": 0.8},
            },
            {
                "name": "crate",
                "shape": {
                    "type": "mesh",
                    "file": str(fixtures / "X" / "test_cube_binary.x"),
                    "scale": 0.1,
                },
                "position": [3, 3, 0.5],
            },
            {
                "name": "wall",
                "shape": {"type": "box", "size": [0.2, 3, 0.5]},
                "position": [5, 0, 0.25],
                "free": False,
            },
        ],
    }
    f = tmp_path / "objects.yaml"
    f.write_text(yaml.safe_dump(sc))
    from robotsim.mobile import open_mobile

    run = open_mobile(f)
    for _ in range(40):
        run.step()
    assert run.world.body("ball").position[2] < 0.6  # falling or bouncing
    assert run.world.body("crate").position[2] < 0.5
    assert run.world.body("wall").position[2] == pytest.approx(0.25)
    bad = dict(sc, objects=[{"name": "x", "shape": {"type": "box"}, "position": [1, 1, 1]}])
    f.write_text(yaml.safe_dump(bad))
    with pytest.raises(ScenarioError, match=r"objects\[0\]\.shape\.size: required for a box"):
        open_mobile(f)
