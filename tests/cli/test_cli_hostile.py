"""A hostile user at the CLI (session 6's corpus): hand-made files and arguments for
each command, each refused with exit 2 and one line naming the file, field or value
and what is allowed. FIFOs and devices run in a child process with a timeout: a reader
that blocked on one would hang the test, not fail it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from robotsim.cli import main
from robotsim.shipped import shipped_dir

SWEEP = (shipped_dir("scenario").parent / "sweeps" / "pid_gains.yaml").read_text()
SOCCER = (shipped_dir("scenario") / "soccer_obstacles.yaml").read_text()
LIDAR = (shipped_dir("scenario") / "soccer_lidar.yaml").read_text()
KP_VALUES = "values: [0.5, 1.0, 2.0, 3.0, 4.0, 6.0]"


def _one_line(capsys: pytest.CaptureFixture[str], rc: int, *needles: str) -> str:
    out = capsys.readouterr()
    err = out.err.strip()
    assert rc == 2, (rc, err[-500:], out.out[-300:])
    assert err.count("\n") == 0 and "Traceback" not in err and "Warning" not in err, err
    for n in needles:
        assert n in err, err
    return err


def _variant(tmp: Path, text: str, old: str, new: str, name: str = "v.yaml") -> Path:
    assert old in text, old
    f = tmp / name
    f.write_text(text.replace(old, new, 1))
    return f


@pytest.mark.parametrize(
    ("old", "new", "needles"),
    [
        (KP_VALUES, "values: [.nan, 1.0]", ("parameters.kp", "nan is not a finite number")),
        (KP_VALUES, "range: {start: 0, stop: .inf, num: 3}", ("range.stop", "finite")),
        (KP_VALUES, "random: {low: 0, high: 1, count: 1000000000}", ("6e+09 runs", "1,000,000")),
        (KP_VALUES, "range: {start: 0, stop: 1, step: 1.0e-12}", ("6e+12 runs",)),
        ("design: grid", "design: random\nsamples: 100000000000", ("1e+11 runs", "samples")),
        ("design: grid", "design: grid\nrepeats: 1000000000000", ("repeats 1000000000000",)),
        ("format: robotsim-sweep/1", "format: robotsim-sweep/99", ("robotsim-sweep/1",)),
        ("duration: 22", "duration: .nan", ("set.duration", "finite")),
    ],
)
def test_hostile_sweep_files_refused_before_any_run(
    old: str, new: str, needles: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _variant(tmp_path, SWEEP, old, new)
    rc = main(["sweep", "run", str(f), "--out", str(tmp_path / "out")])
    _one_line(capsys, rc, str(f), *needles)
    assert not (tmp_path / "out" / "results.csv").exists()


@pytest.mark.parametrize(
    ("old", "new", "needle"),
    [
        ("size: [20, 14]", "size: [.inf, 14]", "field.size[0]: Input should be a finite number"),
        ("size: [20, 14]", "size: [1.0e308, 14]", "field.size[0]: Input should be less than"),
        ("mu: 1.0", "mu: 1.0e308", "contact.mu: Input should be less than or equal to 100"),
        ("diameter: 0.5", "diameter: 1.0e308", "obstacles.diameter"),
        ("- [-6.8, -3.4]", "- [.nan, -3.4]", "obstacles.positions[0][0]"),
        ("start: [-9, -5, 0]", "start: [-9, -5, 1.0e5]", "robots[0].start[2]"),
        ("goal: [5.5, 5, 0]", "goal: [.inf, 5, 0]", "robots[0].goal[0]"),
        ("safety_margin: 0.25", "safety_margin: 1.0e308", "robots[0].controller.safety_margin"),
    ],
)
def test_hostile_scene_numbers(
    old: str, new: str, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _variant(tmp_path, SOCCER, old, new)
    rc = main(["run", str(f), "--duration", "0.1", "--out", str(tmp_path / "o")])
    _one_line(capsys, rc, str(f.name), needle)


def test_sensor_mounted_1e308_m_away(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _variant(tmp_path, LIDAR, "position: [0, 0, 0.2]", "position: [0, 0, 1.0e308]")
    rc = main(["run", str(f), "--duration", "0.1", "--out", str(tmp_path / "o")])
    _one_line(capsys, rc, "robots[0].sensors[0].position[2]", "less than or equal to 10000")


@pytest.mark.parametrize(
    ("mesh", "needles"),
    [
        ("v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n", ("the mesh is flat", "a line")),
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n", ("flat", "a plane")),
        ("v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", ("line 2", "3 finite numbers")),
        (
            "v 0 0 0\nv 1e6 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\nf 1 4 2\nf 2 4 3\n",
            ("1e+06 m across", "at most 1000 m"),
        ),
    ],
)
def test_hostile_object_meshes(
    mesh: str, needles: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "thing.obj"
    f.write_text(mesh)
    rc = main(["object", str(f)])
    _one_line(capsys, rc, "thing.obj", *needles)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["object", "box:1e308,1,1"], "size[0]: Input should be less than or equal to 1000"),
        (["object", "box:0.1,0.1,0.1", "--scale", "1e9"], "scale"),
        (["object", "box:0.1,0.1,0.1", "--density", "1e300"], "density"),
        (["ik", "puma560", "--target", "1e308,1e308,1e308"], "beyond 1e+06 m"),
        (["ik", "puma560", "--target", "0.5,0,0.5,0,0,0,0"], "orientation qw,qx,qy,qz is zero"),
        (["ik", "puma560", "--target", "nan,0,0"], "values must be finite"),
        (
            ["serve", "pid_p_vs_pd", "--rate", "1e308", "--duration", "1"],
            "--rate must be a positive number at most 1000",
        ),
        (["serve", "pid_p_vs_pd", "--duration", "nan"], "--duration must be a finite"),
        (
            [
                "grasp",
                "dual_arm_hands",
                "--object",
                "box:0.04,0.04,0.04",
                "--table",
                "0,0,1e308,1,1,1",
                "--out",
                "g",
            ],
            "centre and sizes within 1000 m",
        ),
        (["walk", "humanoid17", "--distance", "1e308", "--out", "w"], "within 10000 m"),
        (
            ["walk", "humanoid17", "--distance", "0.1", "--step-period", "1e308", "--out", "w"],
            "--step-period",
        ),
        (
            ["walk", "humanoid17", "--distance", "0.1", "--friction", "1e308", "--out", "w"],
            "--friction",
        ),
    ],
)
def test_hostile_arguments(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _one_line(capsys, main(args), needle)


def test_corrupted_and_foreign_run_stores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as con:
        con.executescript("CREATE TABLE runs (x TEXT); INSERT INTO runs VALUES ('a')")
    rc = main(["runs", "list", "--db", str(foreign)])
    _one_line(capsys, rc, str(foreign), "not a robotsim run store")
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 16)
    rc = main(["runs", "show", "last", "--db", str(junk)])
    _one_line(capsys, rc, "junk.sqlite")


def test_export_into_a_file_where_a_folder_belongs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from robotsim.recording import Recorder

    db = tmp_path / "runs.sqlite"
    with Recorder(str(db)) as rec:
        rec.start_run("x.yaml", {})
        rec.signal("r", 0.0, ("x",), [1.0])
    target = tmp_path / "taken"
    target.write_text("keep me")
    rc = main(["export", "last", "--db", str(db), "--format", "csv", "--out", str(target)])
    _one_line(capsys, rc, f"--out {target}: not a folder")
    assert target.read_text() == "keep me"


def _child(code: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``python`` with ``code`` (arguments) in a child with this checkout's source."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    return subprocess.run(
        [sys.executable, *code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_fifo_device_and_folder_where_a_file_belongs(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "scene.yaml")
    os.mkfifo(tmp_path / "walk.yaml")
    (tmp_path / "robot.urdf").mkdir()
    os.symlink("/dev/zero", tmp_path / "cube.stl")
    cases = [
        (["run", "scene.yaml"], "scene.yaml: not a regular file"),
        (["motion", "play", "walk.yaml", "--out", "o"], "walk.yaml: not a regular file"),
        (["inspect", "robot.urdf"], "robot.urdf: a folder, not a file"),
        (["object", "cube.stl"], "cube.stl: not a regular file"),
        (["input", "watch", "--mapping", "scene.yaml"], "scene.yaml: not a regular file"),
    ]
    # one child runs every command in turn through the CLI's own error handling
    calls = "; ".join(f"print(main({args!r}), flush=True)" for args, _ in cases)
    proc = _child(["-c", f"from robotsim.cli import main; {calls}"], tmp_path)
    assert proc.stdout.split() == ["2"] * len(cases), (proc.stdout, proc.stderr[-800:])
    assert "Traceback" not in proc.stderr, proc.stderr[-800:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == len(cases), proc.stderr
    for line, (_, needle) in zip(lines, cases, strict=True):
        assert needle in line, line


def test_hostile_file_through_a_real_process(tmp_path: Path) -> None:
    """As a user types it: a sweep of NaN values, exit 2 and one line on stderr."""
    (tmp_path / "s.yaml").write_text(SWEEP.replace(KP_VALUES, "values: [.nan]"))
    proc = _child(["-m", "robotsim", "sweep", "run", "s.yaml", "--out", "o"], tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "nan is not a finite" in proc.stderr


@pytest.mark.parametrize(
    ("scenario", "command", "old", "new", "needle"),
    [
        ("three_puma_clearance", "clearance", "xyz: [1.22, 0, 0]", "xyz: [1.0e308, 0, 0]",
         "robots[1].base.xyz[0]: Input should be less than or equal to 10000000"),
        ("three_puma_clearance", "plan", "radii: [0.120, 0.125, 0.250]",
         "radii: [0.120, 0.125, 1.0e308]", "robots[0].volumes[0].radii[2]"),
        ("walk_commands", "run", "goal: [0.2, 0.0, 0.0]", "goal: [1.0e308, 0.0, 0.0]",
         "a goal within 10000 m"),
        ("pid_p_vs_pd", "run", "timestep: 0.002", "timestep: 1.0e-320",
         "timestep: Input should be greater than or equal to"),
    ],
)  # fmt: skip
def test_hostile_numbers_in_other_kinds(
    scenario: str, command: str, old: str, new: str, needle: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    text = (shipped_dir("scenario") / f"{scenario}.yaml").read_text()
    f = _variant(tmp_path, text, old, new)
    rc = main([command, str(f), "--out", str(tmp_path / "o")])
    _one_line(capsys, rc, needle)
