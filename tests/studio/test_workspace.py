"""The studio's workspace: paths from the page stay inside the root (symlinks too), a
save replaces a file only when confirmed, errors reach the page without file contents,
and the robot port is a serial device (real files, symlinks and a real pty)."""

from __future__ import annotations

import os
import pty
from pathlib import Path

import pytest

from robotsim.errors import ScenarioError
from robotsim.shipped import shipped_dir
from robotsim.studio.workspace import Workspace, WorkspaceError, redact, serial_device


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "work"
    (root / "motions").mkdir(parents=True)
    (root / "motions" / "m.yaml").write_text("x: 1\n")
    (tmp_path / "secret.yaml").write_text("password: hunter2\n")
    return Workspace(root)


def test_relative_paths_are_taken_from_the_root(ws: Workspace) -> None:
    assert ws.resolve("motions/m.yaml") == ws.root / "motions" / "m.yaml"
    assert ws.resolve("  motions/./new.yaml ") == ws.root / "motions" / "new.yaml"
    assert ws.resolve(ws.root / "motions" / "m.yaml") == ws.root / "motions" / "m.yaml"
    assert ws.readable("motions/m.yaml").read_text() == "x: 1\n"


@pytest.mark.parametrize(
    "text",
    ["../secret.yaml", "../../x.yaml", "motions/../../secret.yaml", "/etc/passwd",
     "/tmp/x.yaml", "~/x.yaml", "..", "/"],
)  # fmt: skip
def test_paths_outside_the_root_are_refused(ws: Workspace, text: str) -> None:
    with pytest.raises(WorkspaceError, match=r"outside the studio's workspace .*--root DIR"):
        ws.resolve(text)
    assert not ws.contains(text)


def test_a_symlink_out_of_the_root_is_refused(ws: Workspace, tmp_path: Path) -> None:
    (ws.root / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    (ws.root / "out").symlink_to(tmp_path)
    (ws.root / "inside.yaml").symlink_to(ws.root / "motions" / "m.yaml")
    for text in ("link.yaml", "out/secret.yaml", "out/new.yaml"):
        with pytest.raises(WorkspaceError, match="outside"):
            ws.resolve(text)
    with pytest.raises(WorkspaceError, match="outside"):
        ws.writable("out/new.yaml")
    assert ws.readable("inside.yaml") == ws.root / "motions" / "m.yaml"  # stays inside


def test_a_symlinked_root_is_resolved(tmp_path: Path, ws: Workspace) -> None:
    (tmp_path / "alias").symlink_to(ws.root)
    via = Workspace(tmp_path / "alias")
    assert via.root == ws.root
    assert via.readable(tmp_path / "alias" / "motions" / "m.yaml") == ws.root / "motions" / "m.yaml"


@pytest.mark.parametrize("text", ["", "   ", "a\x00b.yaml"])
def test_empty_and_nul_paths_are_refused(ws: Workspace, text: str) -> None:
    with pytest.raises(WorkspaceError):
        ws.resolve(text)


def test_a_loop_of_symlinks_is_one_line(ws: Workspace) -> None:
    (ws.root / "a").symlink_to(ws.root / "b")
    (ws.root / "b").symlink_to(ws.root / "a")
    with pytest.raises(WorkspaceError) as err:
        ws.readable("a/x.yaml")
    assert "\n" not in str(err.value)


def test_overwrite_needs_the_confirm(ws: Workspace) -> None:
    assert ws.writable("motions/new.yaml") == ws.root / "motions" / "new.yaml"
    with pytest.raises(WorkspaceError, match="exists; tick Overwrite"):
        ws.writable("motions/m.yaml")
    assert ws.writable("motions/m.yaml", overwrite=True) == ws.root / "motions" / "m.yaml"
    with pytest.raises(WorkspaceError, match="folder"):
        ws.writable("motions", overwrite=True)


def test_missing_files_and_roots(ws: Workspace, tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="no such file"):
        ws.readable("motions/none.yaml")
    with pytest.raises(WorkspaceError, match=r"--root .*no such folder"):
        Workspace(tmp_path / "nowhere")
    with pytest.raises(WorkspaceError, match="not a folder"):
        Workspace(tmp_path / "secret.yaml")


def test_find_takes_a_workspace_file_or_a_shipped_name(ws: Workspace) -> None:
    assert ws.find("motions/m.yaml", "motion") == ws.root / "motions" / "m.yaml"
    walk = ws.find("walk_forward", "motion")
    assert walk.parent == shipped_dir("motion")
    with pytest.raises(WorkspaceError, match="outside"):
        ws.find("../secret.yaml", "motion")
    with pytest.raises(ScenarioError, match="no shipped motion of that name"):
        ws.find("motions/none.yaml", "motion")


def test_reading_redacts_what_the_file_said(ws: Workspace, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ScenarioError) as err, ws.reading("s.yaml"):
        raise ScenarioError("s.yaml: unknown key 'password'; valid: name, links")
    assert "password" not in str(err.value) and "valid: name, links" in str(err.value)
    assert "unknown key 'password'" in capsys.readouterr().err  # the terminal has it all


@pytest.mark.parametrize(
    ("message", "hidden"),
    [
        ("f.yaml: name: Input should be a valid string, got {'api_key': 'abc123'}", "abc123"),
        ("f.yaml: kind: 'hunter2' is not a scenario kind; valid: mobile", "hunter2"),
        ('f.yaml: joint "secret_joint" has no parent', "secret_joint"),
        ("f.yaml: value hunter2 is not a number", "hunter2"),
    ],
)
def test_redact_hides_quoted_text_and_values(message: str, hidden: str) -> None:
    out = redact(message, "f.yaml")
    assert hidden not in out and out.startswith("f.yaml: ")


def test_redact_keeps_the_path_the_page_typed() -> None:
    assert redact("'my robot.yaml': no such file", "my robot.yaml") == (
        "'my robot.yaml': no such file"
    )


def test_the_robot_port_is_a_serial_device(tmp_path: Path) -> None:
    controller, device = pty.openpty()
    try:
        name = os.ttyname(device)
        assert name.startswith("/dev/pts/")
        assert serial_device(f" {name} ") == name
        (tmp_path / "robot-port").symlink_to(name)  # like /dev/serial/by-id/...
        assert serial_device(str(tmp_path / "robot-port")) == str(tmp_path / "robot-port")
    finally:
        os.close(controller)
        os.close(device)


@pytest.mark.parametrize(
    ("port", "why"),
    [
        ("", "give the robot's serial port"),
        ("/etc/passwd", "not a serial device"),
        ("/dev/null", "not a serial device"),
        ("/dev/zero", "not a serial device"),
        ("/dev/tty", "not a serial device"),  # the controlling terminal
        ("/dev/ttyUSB99", "no such device"),
        ("/dev/pts/../null", "not a serial device"),
        ("/dev", "not a serial device"),
    ],
)
def test_other_ports_are_refused(port: str, why: str) -> None:
    if port and not os.path.exists(port):
        why = "no such device"  # a device node this machine lacks is refused as missing
    with pytest.raises(WorkspaceError, match=why):
        serial_device(port)


def test_a_file_named_like_a_serial_device_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ttyUSB0").write_text("")
    with pytest.raises(WorkspaceError, match="not a serial device"):
        serial_device(str(tmp_path / "ttyUSB0"))
