"""Shipped scenarios and motions are package data, found by name from any directory;
a path that exists wins over a name; an unknown name lists the valid ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robotsim.cli import main
from robotsim.errors import ScenarioError
from robotsim.shipped import (
    DATA,
    catalogue,
    find_shipped,
    is_shipped,
    resolve,
    shipped_dir,
    shipped_names,
)
from tests.paths import REPO


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with no scenarios/ or motions/ in it."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_shipped_files_live_in_the_package() -> None:
    assert shipped_dir("scenario") == DATA / "scenarios"
    assert DATA.parent == Path(__import__("robotsim").__file__).resolve().parent
    assert {"soccer_obstacles", "three_puma_clearance", "hand_ball_transfer"} <= set(
        shipped_names("scenario")
    )
    assert shipped_names("motion") == ["walk_forward"]


def test_pyproject_ships_every_data_file() -> None:
    """Each file under data/ matches a package-data glob (else a wheel would lack it)."""
    import tomllib
    from fnmatch import fnmatch

    globs = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["robotsim"]
    pkg = DATA.parent
    for p in DATA.rglob("*"):
        if p.is_file():
            rel = p.relative_to(pkg).as_posix()
            assert any(fnmatch(rel, g) for g in globs), rel


def test_resolve_by_name_with_or_without_suffix(elsewhere: Path) -> None:
    want = shipped_dir("scenario") / "soccer_obstacles.yaml"
    assert resolve("soccer_obstacles", "scenario") == want
    assert resolve("soccer_obstacles.yaml", "scenario") == want
    assert resolve("walk_forward", "motion") == shipped_dir("motion") / "walk_forward.yaml"
    assert is_shipped(want) and not is_shipped(elsewhere)
    assert find_shipped("scenarios/soccer_obstacles.yaml", "scenario") is None  # a path


def test_a_path_that_exists_wins_over_a_name(elsewhere: Path) -> None:
    own = elsewhere / "soccer_obstacles.yaml"
    own.write_text("kind: mobile\n")
    assert resolve("soccer_obstacles.yaml", "scenario") == Path("soccer_obstacles.yaml")
    assert resolve("soccer_obstacles", "scenario") == shipped_dir("scenario") / own.name
    (elsewhere / "scenarios").mkdir()
    mine = elsewhere / "scenarios" / "mine.yaml"
    mine.write_text("kind: mobile\n")
    assert resolve("scenarios/mine.yaml", "scenario") == Path("scenarios/mine.yaml")


def test_unknown_names_list_the_shipped_ones(elsewhere: Path) -> None:
    with pytest.raises(ScenarioError) as err:
        resolve("socer", "scenario")
    msg = str(err.value)
    assert msg.startswith("socer: no such file")
    assert all(n in msg for n in shipped_names("scenario"))
    with pytest.raises(ScenarioError, match="did you mean the shipped scenario 'pid_p_vs_pd'"):
        resolve("scenarios/pid_p_vs_pd.yaml", "scenario")
    with pytest.raises(ScenarioError, match="shipped motions: walk_forward"):
        resolve("walk_backward", "motion")


def test_cli_unknown_name_is_a_one_line_error(capsys, elsewhere: Path) -> None:
    cases = {
        ("run", "nope"): "soccer_obstacles",
        ("clearance", "nope", "--out", "o"): "three_puma_clearance",
        ("motion", "play", "nope", "--out", "o"): "walk_forward",
    }
    for args, listed in cases.items():
        code, out, err = run(capsys, *args)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith("error: nope: no such file") and listed in err


def test_scenarios_command_lists_every_shipped_file(capsys) -> None:
    code, out, _ = run(capsys, "scenarios", "--json")
    assert code == 0
    rows = {r["name"]: r for r in json.loads(out)}
    assert set(rows) == set(shipped_names("scenario")) | set(shipped_names("motion"))
    assert rows["three_puma_clearance"]["run_with"] == "robotsim clearance"
    assert rows["soccer_obstacles"]["runs_as"] == "mobile"
    assert rows["walk_forward"]["run_with"] == "robotsim motion play"
    assert all(Path(r["path"]).is_file() and r["description"] for r in rows.values())
    code, out, _ = run(capsys, "scenarios")
    assert code == 0 and all(e.name in out and e.description in out for e in catalogue())


def test_scenarios_name_prints_the_file_to_start_your_own_from(capsys, elsewhere) -> None:
    code, out, _ = run(capsys, "scenarios", "pid_p_vs_pd")
    assert code == 0 and out == (shipped_dir("scenario") / "pid_p_vs_pd.yaml").read_text()
    (elsewhere / "mine.yaml").write_text(out.replace("pid_p_vs_pd", "mine"))
    code, out, err = run(capsys, "run", "mine.yaml", "--duration", "0.1", "--json")
    assert code == 0, err
    code, out, _ = run(capsys, "scenarios", "walk_forward", "--json")
    assert code == 0 and json.loads(out)["text"].startswith(
        (shipped_dir("motion") / "walk_forward.yaml").read_text()[:40]
    )
    code, _, err = run(capsys, "scenarios", "socer_obstacles")
    assert code == 2 and err.strip().endswith("did you mean 'soccer_obstacles'?")


def test_run_clearance_and_motion_by_name_from_another_directory(capsys, elsewhere) -> None:
    code, out, err = run(capsys, "run", "soccer_obstacles", "--duration", "0.2", "--json")
    assert code == 0, err
    assert json.loads(out)["sim_time"] == pytest.approx(0.2, abs=0.01)
    code, out, err = run(capsys, "clearance", "three_puma_clearance", "--out", "c", "--dt", "0.05")
    assert code == 0, err
    assert (elsewhere / "c").is_dir() and "A-B" in out, out
    code, out, err = run(capsys, "motion", "play", "walk_forward", "--out", "w", "--no-strip")
    assert code == 0, err
    assert json.loads((elsewhere / "w" / "summary.json").read_text())["program"] == "walk_forward"


def test_serve_and_studio_open_shipped_scenarios_by_name(elsewhere: Path) -> None:
    from robotsim.cli.serve import build_target
    from robotsim.scenario_yaml import read_scenario_yaml

    target = build_target("soccer_obstacles")
    want = [r["name"] for r in read_scenario_yaml("soccer_obstacles")["robots"]]
    assert list(target.robots()) == want
    assert target.dt == pytest.approx(0.004)
