"""``robotsim teleop`` serves its page like ``robotsim studio`` (one set of options,
``robotsim.cli.studio_page``): the printed URL carries the token (the bare address
answers 403), ``--no-token`` opens it and warns, ``--root`` chooses the workspace (a
missing one is a one-line error) (real processes, real HTTP; the wide ``--host``
warning, shared code, is tested through ``robotsim studio``)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import click
import pytest
from tests.procs import default_sigint, free_port, served_port

from robotsim.cli import cli


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def _teleop(args: list[str], cwd: Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "robotsim", "teleop", "--gamepad", "none", *args],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=default_sigint,
    )  # fmt: skip
    lines = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line:
            break
        lines.append(line)
        if "in a browser" in line:
            return proc, "".join(lines)
    proc.kill()
    pytest.fail(
        f"teleop did not start: {''.join(lines)}{proc.stderr.read() if proc.stderr else ''}"
    )


def _stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return err


def test_studio_and_teleop_share_the_page_options() -> None:
    from robotsim.cli import _register_all

    _register_all()
    wanted = {"port", "host", "root", "no_token"}
    for name in ("studio", "teleop"):
        cmd = cli.commands[name]
        assert isinstance(cmd, click.Command)
        opts = {p.name: p for p in cmd.params if isinstance(p, click.Option)}
        assert wanted <= set(opts), name
        assert opts["no_token"].is_flag
        assert opts["root"].metavar == "DIR"


@pytest.mark.slow
def test_teleop_url_carries_the_token_and_no_token_warns(tmp_path: Path) -> None:
    asked = free_port()
    proc, out = _teleop(["--port", str(asked)], tmp_path)
    try:
        port = served_port(out, asked)
        m = re.search(rf"open (http://127\.0\.0\.1:{port}/\?token=([\w-]+)) in a browser", out)
        assert m, out
        assert len(m.group(2)) >= 32
        assert f"robotsim teleop: the page reads and writes files in {tmp_path.resolve()}" in out
        assert _status(f"http://127.0.0.1:{port}/") == 403
        assert _status(m.group(1)) == 200
    finally:
        err = _stop(proc)
    assert "warning" not in err

    root = tmp_path / "work"
    root.mkdir()
    asked = free_port()
    proc, out = _teleop(["--port", str(asked), "--no-token", "--root", str(root)], tmp_path)
    try:
        port = served_port(out, asked)
        assert f"open http://127.0.0.1:{port}/ in a browser" in out
        assert f"the page reads and writes files in {root.resolve()}" in out
        assert _status(f"http://127.0.0.1:{port}/") == 200
    finally:
        err = _stop(proc)
    assert "warning: no token: every program and user on this machine can drive the teleop" in err


def test_teleop_missing_root_is_a_one_line_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "robotsim", "teleop", "--gamepad", "none", "--port",
         str(free_port()), "--root", str(tmp_path / "nowhere")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == f"error: --root {tmp_path / 'nowhere'}: no such folder\n"
