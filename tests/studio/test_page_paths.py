"""Paths typed in the studio's page go through its workspace: the Open tab and the
motion editor refuse paths outside the root, a save asks before replacing a file, an
arbitrary YAML opened as a robot does not show its contents, and the robot port must
be a serial device (issue 17; the browser test drives the same from Chromium)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from robotsim.errors import InputError
from robotsim.studio.workspace import WorkspaceError

os.environ.setdefault("MUJOCO_GL", "egl")

SECRET = "password: hunter2\napi_key: 'abc123-not-a-robot'\nservers: [alpha, beta]\n"


@pytest.fixture
def inside(studio) -> Path:  # type: ignore[no-untyped-def]
    folder = studio.workspace.root / f"page-paths-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    return folder


def test_the_open_tab_refuses_paths_outside_the_root(studio, inside: Path) -> None:  # type: ignore[no-untyped-def]
    files = studio.panels["open"]
    studio.clear()
    studio.add_robot("puma560")
    outside = studio.workspace.root.parent / "robot.urdf"
    for text in ("../../robot.urdf", str(outside), "/etc/passwd"):
        with pytest.raises(WorkspaceError, match="outside the studio's workspace"):
            files.open_robot(text)
        with pytest.raises(WorkspaceError, match="outside the studio's workspace"):
            files.open_robot(text, add=True)
    assert list(studio.robots) == ["puma560"]
    # a forged dropdown value is a path like any other
    with pytest.raises(WorkspaceError, match="outside"):
        files.open_robot("/etc/hostname")
    files.open_robot("puma560", add=True)  # names stay allowed
    assert len(studio.robots) == 2


def test_an_arbitrary_yaml_opened_as_a_robot_does_not_show_its_contents(
    studio, inside: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    files = studio.panels["open"]
    for name in ("secrets.yaml", "secrets.urdf", "robot.yaml"):
        f = inside / name
        f.write_text(SECRET if name != "robot.yaml" else
                     "format: robotsim-robot/1\nname: hunter2\nlinks: {password: 5}\n")  # fmt: skip
        before = len(studio.errors)
        studio.guarded("open robot file")(files.open_robot)(str(f))
        shown = studio.errors[before:]
        assert len(shown) == 1 and name in shown[0], shown
        for secret in ("password", "hunter2", "abc123", "api_key", "alpha"):
            assert secret not in shown[0], shown[0]


def test_motion_save_stays_in_the_root_and_asks_before_overwriting(studio, inside: Path) -> None:  # type: ignore[no-untyped-def]
    studio.clear()
    studio.add_robot("humanoid17")
    editor = studio.panels["motion"]
    editor.new()
    editor.capture()
    root = studio.workspace.root
    escape = f"../../robotsim-escape-{uuid.uuid4().hex}.yaml"
    with pytest.raises(WorkspaceError, match="outside"):
        editor.save(escape)
    assert not (root / escape).resolve().exists()
    (inside / "out").symlink_to(root.parent)
    with pytest.raises(WorkspaceError, match="outside"):
        editor.save(inside / "out" / "m.yaml")
    assert not (root.parent / "m.yaml").exists()

    path = editor.save(inside / "m.yaml")
    assert path == inside / "m.yaml" and path.is_file()
    with pytest.raises(WorkspaceError, match="exists; tick Overwrite"):
        editor.save(inside / "m.yaml")
    assert editor.save(inside / "m.yaml", overwrite=True) == path
    # relative paths are taken from the root, not from the current folder
    rel = f"{inside.name}/n.yaml"
    assert editor.save(rel) == inside / "n.yaml"
    editor.new()


def test_motion_load_stays_in_the_root(studio, inside: Path) -> None:  # type: ignore[no-untyped-def]
    editor = studio.panels["motion"]
    with pytest.raises(WorkspaceError, match="outside"):
        editor.load("../../../etc/passwd")
    (inside / "secret.yaml").write_text(SECRET)
    with pytest.raises(InputError) as err:
        editor.load(inside / "secret.yaml")
    assert "hunter2" not in str(err.value) and "password" not in str(err.value)
    editor.load("walk_forward")  # a shipped name is not a path
    assert editor.program is not None
    editor.new()


def test_the_robot_port_must_be_a_serial_device(studio) -> None:  # type: ignore[no-untyped-def]
    studio.clear()
    studio.add_robot("humanoid17")
    editor = studio.panels["motion"]
    editor.new()
    editor.capture()
    for port in ("/etc/passwd", "/dev/null", str(studio.workspace.root)):
        with pytest.raises(WorkspaceError, match="not a serial device"):
            editor.upload(port)
    editor.new()
