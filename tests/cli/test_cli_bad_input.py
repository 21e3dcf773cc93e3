"""Bad input through the CLI: one-line errors and exit 2, never a traceback, a hang or
an allocation the machine cannot hold (issue 17's list)."""

from __future__ import annotations

from pathlib import Path

import pytest

from robotsim.cli import main
from robotsim.shipped import shipped_dir

REPO = Path(__file__).resolve().parents[2]
SCEN = shipped_dir("scenario")
WALK = shipped_dir("motion") / "walk_forward.yaml"

# 9 levels of 9 aliases: ~600 bytes expanding to 9^9 (387 million) strings
BOMB = (
    "a: &a ["
    + ",".join(['"lol"'] * 9)
    + "]\n"
    + "".join(
        f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]\n" for p, c in zip("abcdefgh", "bcdefghi")
    )
)


def _one_line_error(capsys: pytest.CaptureFixture[str], rc: int, *needles: str) -> str:
    out = capsys.readouterr()
    err = out.err.strip()
    assert rc == 2, (rc, err, out.out[-300:])
    assert err.count("\n") == 0 and "Traceback" not in err, err
    for n in needles:
        assert n in err, err
    return err


COMMANDS = {
    "inspect": lambda f, tmp: ["inspect", str(f)],
    "run": lambda f, tmp: ["run", str(f)],
    "clearance": lambda f, tmp: ["clearance", str(f), "--out", str(tmp / "c")],
    "motion play": lambda f, tmp: ["motion", "play", str(f), "--out", str(tmp / "p")],
    "motion check": lambda f, tmp: ["motion", "check", str(f), "--physics"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_non_utf8_file(command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "latin1.yaml"
    f.write_bytes("format: robotsim-scenario/1\nname: caf\xe9\n".encode("latin-1"))
    rc = main(COMMANDS[command](f, tmp_path))
    _one_line_error(capsys, rc, str(f), "not UTF-8")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_yaml_nested_20000_deep(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "deep.yaml"
    f.write_text("a: " + "[" * 20000 + "]" * 20000 + "\n")
    rc = main(COMMANDS[command](f, tmp_path))
    _one_line_error(capsys, rc, str(f), "nested more than 100 levels")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_alias_bomb(command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert len(BOMB) < 700
    f = tmp_path / "bomb.yaml"
    f.write_text(BOMB)
    rc = main(COMMANDS[command](f, tmp_path))
    _one_line_error(capsys, rc, str(f), "aliases")


def test_run_set_with_broken_yaml_value(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["run", str(SCEN / "pid_p_vs_pd.yaml"), "--set", "duration=[1,"])
    _one_line_error(capsys, rc, "--set duration=[1,", "not valid YAML")


def test_run_out_pointing_at_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "results"
    f.write_text("keep me")
    rc = main(["run", str(SCEN / "pid_p_vs_pd.yaml"), "--duration", "0.1", "--out", str(f)])
    _one_line_error(capsys, rc, f"--out {f}", "not a folder")
    assert f.read_text() == "keep me"


def test_motion_play_tiny_tick_is_refused_before_allocating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(["motion", "play", str(WALK), "--tick", "1e-9", "--out", str(tmp_path)])
    _one_line_error(capsys, rc, "ticks of 1e-09 s", "would need about", "TB", "--max-memory")


def _clearance_variant(tmp_path: Path, old: str, new: str) -> Path:
    text = (SCEN / "three_puma_clearance.yaml").read_text()
    assert old in text
    f = tmp_path / "variant.yaml"
    f.write_text(text.replace(old, new))
    return f


@pytest.mark.parametrize(
    ("old", "new", "needle"),
    [
        ("duration: 4}", "duration: 1.0e12}", "1e+14 samples of 0.01 s"),
        ("\ndt: 0.01", "\ndt: 1.0e-12", "samples of 1e-12 s"),
    ],
)
def test_clearance_huge_sampling_is_refused(
    old: str, new: str, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # streamed to its files in chunks (memory bounded), but not past the free disk
    f = _clearance_variant(tmp_path, old, new)
    rc = main(["clearance", str(f), "--out", str(tmp_path / "out")])
    _one_line_error(capsys, rc, needle, "would write about", "free in", "use a larger dt")


def test_max_memory_moves_the_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scen = str(SCEN / "three_puma_clearance.yaml")
    rc = main(["clearance", scen, "--out", str(tmp_path / "a"), "--max-memory", "64K"])
    _one_line_error(capsys, rc, "more than the budget of 64.0 KB")
    assert main(["clearance", scen, "--out", str(tmp_path / "b"), "--max-memory", "1G"]) == 0
    rc = main(["clearance", scen, "--out", str(tmp_path / "c"), "--max-memory", "lots"])
    _one_line_error(capsys, rc, "--max-memory", "not a size")
