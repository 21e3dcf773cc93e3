"""``robotsim convert ROBOT --to urdf|mjcf --out FILE`` writes files that load back."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from robotsim import load_robot
from robotsim.cli import main


@pytest.mark.parametrize(("fmt", "suffix"), [("urdf", ".urdf"), ("mjcf", ".xml")])
def test_convert_library_robot(fmt: str, suffix: str, tmp_path: Path, capsys) -> None:
    out = tmp_path / f"puma{suffix}"
    code = main(["convert", "puma560", "--to", fmt, "--out", str(out), "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0 and info["out"] == str(out) and info["dof"] == 6
    again = load_robot(str(out))
    q = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    np.testing.assert_allclose(again.fk(q, "tool"), load_robot("puma560").fk(q), atol=1e-12)


def test_convert_bad_input_exits_2(tmp_path: Path, capsys) -> None:
    assert main(["convert", "no_such_robot", "--to", "urdf", "--out", str(tmp_path / "x")]) == 2
    assert "unknown robot 'no_such_robot'" in capsys.readouterr().err
    assert main(["convert", "puma560", "--to", "sdf", "--out", str(tmp_path / "x")]) == 2
