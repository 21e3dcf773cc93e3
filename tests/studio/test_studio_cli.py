"""``robotsim studio`` as a user starts it: the printed URL carries the token (the bare
address answers 403), the workspace root is printed, ``--no-token`` and a wide
``--host`` warn, a bad ``--root`` is a one-line error (real processes, real HTTP)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from tests.procs import default_sigint, free_port, served_port


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def _start(args: list[str], cwd: Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "robotsim", "studio", "puma560", *args],
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
        f"the studio did not start: {''.join(lines)}{proc.stderr.read() if proc.stderr else ''}"
    )


def _stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return err


def test_the_printed_url_carries_the_token(tmp_path: Path) -> None:
    asked = free_port()
    proc, out = _start(["--port", str(asked)], tmp_path)
    try:
        port = served_port(out, asked)
        m = re.search(rf"open (http://127\.0\.0\.1:{port}/\?token=([\w-]+)) in a browser", out)
        assert m, out
        assert len(m.group(2)) >= 32
        assert f"the page reads and writes files in {tmp_path.resolve()}" in out
        assert _status(f"http://127.0.0.1:{port}/") == 403
        assert _status(m.group(1)) == 200
    finally:
        err = _stop(proc)
    assert "warning" not in err


def test_a_busy_port_is_replaced_by_the_next_free_one_and_said(tmp_path: Path) -> None:
    with socket.socket() as other:  # another program (the other test worker) has it
        other.bind(("127.0.0.1", 0))
        other.listen()
        asked = other.getsockname()[1]
        proc, out = _start(["--port", str(asked)], tmp_path)
        try:
            port = served_port(out, asked)
            assert port != asked and f"(port {asked} was busy)" in out, out
            m = re.search(rf"open (http://127\.0\.0\.1:{port}/\?token=[\w-]+) in a browser", out)
            assert m, out
            assert _status(m.group(1)) == 200
        finally:
            _stop(proc)


def test_no_token_and_a_wide_host_warn(tmp_path: Path) -> None:
    asked = free_port()
    proc, out = _start(["--port", str(asked), "--no-token", "--root", str(tmp_path)], tmp_path)
    try:
        port = served_port(out, asked)
        assert f"open http://127.0.0.1:{port}/ in a browser" in out
        assert _status(f"http://127.0.0.1:{port}/") == 200
    finally:
        err = _stop(proc)
    assert "warning: no token: every program and user on this machine" in err
    port = free_port()
    proc, out = _start(["--port", str(port), "--host", "0.0.0.0"], tmp_path)
    try:
        assert "?token=" in out
    finally:
        err = _stop(proc)
    assert "warning: robotsim studio is listening on 0.0.0.0: anyone with the URL" in err


def test_a_missing_root_is_a_one_line_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "robotsim", "studio", "--port", str(free_port()),
         "--root", str(tmp_path / "nowhere")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == f"error: --root {tmp_path / 'nowhere'}: no such folder\n"


@pytest.mark.parametrize("command", ["studio", "teleop"])
def test_the_page_commands_take_a_memory_budget(command: str, tmp_path: Path) -> None:
    """``--max-memory`` bounds what a served page records (its live FrameLogs); a value
    that is not a size is a one-line error before anything is served."""
    done = subprocess.run(
        [sys.executable, "-m", "robotsim", command, "--max-memory", "12x"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().endswith("use e.g. 512M, 4G or a byte count"), done.stderr
    assert "Traceback" not in done.stderr


def test_ctrl_c_right_after_the_url_is_a_normal_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl+C while the serving loop is still starting (the URL is already printed)
    stops the page like any other Ctrl+C: no half-started thread to join, no abort.
    The interrupt is raised inside ``Studio.start`` just after its thread exists."""
    import threading

    from robotsim.cli.studio_page import serve_page
    from robotsim.studio import Studio

    studio = Studio(port=free_port(), root=tmp_path)
    real_start = threading.Thread.start

    def interrupted_start(self: threading.Thread) -> None:
        if self.name == "studio-loop":
            raise KeyboardInterrupt
        real_start(self)

    with monkeypatch.context() as m:
        m.setattr(threading.Thread, "start", interrupted_start)
        serve_page(studio, "studio", "127.0.0.1", studio.port, no_token=False)
    studio.stop()  # a second stop does nothing more
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", studio.port), timeout=2).close()
