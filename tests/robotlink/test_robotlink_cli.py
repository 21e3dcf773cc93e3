"""``robotsim robotlink emulate`` in its own process on one end of a socat pty pair;
``robotsim motion upload/download`` and ``robotlink ping/stream`` on the other."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from robotsim.cli import main
from robotsim.motion.schema import load_program
from robotsim.shipped import shipped_dir
from tests.procs import default_sigint

WALK = shipped_dir("motion") / "walk_forward.yaml"


@pytest.fixture
def socat_pair() -> Iterator[tuple[str, str]]:
    if shutil.which("socat") is None:
        pytest.fail("socat is missing: run `bash scripts/setup.sh` (as root) once")
    proc = subprocess.Popen(
        ["socat", "-d", "-d", "pty,raw,echo=0", "pty,raw,echo=0"], stderr=subprocess.PIPE, text=True
    )
    devs: list[str] = []
    assert proc.stderr is not None
    deadline = time.monotonic() + 5
    while len(devs) < 2 and time.monotonic() < deadline:
        m = re.search(r"PTY is (\S+)", proc.stderr.readline())
        if m:
            devs.append(m.group(1))
    try:
        assert len(devs) == 2, "socat did not report two ptys"
        yield devs[0], devs[1]
    finally:
        proc.terminate()
        proc.wait(5)


@pytest.fixture
def emulator(socat_pair: tuple[str, str], tmp_path: Path) -> Iterator[tuple[str, Path]]:
    yield from _emulator(socat_pair, tmp_path)


@pytest.fixture
def slow_emulator(socat_pair: tuple[str, str], tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The emulator answering every servo packet 60 ms late: longer than the SDK's fixed
    wait for a status packet (2 x 16 ms latency timer + 2 ms), what a loaded machine
    did to `robotlink stream` (issue 29)."""
    yield from _emulator(socat_pair, tmp_path, "--latency", "0.06")


def _emulator(
    socat_pair: tuple[str, str], tmp_path: Path, *extra: str
) -> Iterator[tuple[str, Path]]:
    robot_end, host_end = socat_pair
    store = tmp_path / "flash.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "robotsim",
            "robotlink",
            "emulate",
            "--port",
            robot_end,
            "--store",
            str(store),
            *extra,
        ],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,  # stopped with Ctrl-C below
    )
    assert proc.stderr is not None
    assert "emulating humanoid17" in proc.stderr.readline()
    try:
        yield host_end, store
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_upload_download_through_the_emulator_process(emulator, capsys, tmp_path: Path) -> None:
    dev, store = emulator
    assert main(["motion", "upload", str(WALK), "--port", dev]) == 0
    assert "uploaded 'walk_forward'" in capsys.readouterr().out
    assert store.is_file()
    out = tmp_path / "back.yaml"
    assert main(["motion", "download", "--port", dev, "--out", str(out)]) == 0
    assert load_program(out) == load_program(WALK)


def test_servo_ping_and_stream(emulator, capsys) -> None:
    dev, _ = emulator
    assert main(["robotlink", "ping", "--port", dev]) == 0
    assert capsys.readouterr().out.count("model 1060") == 17

    assert main(["robotlink", "stream", str(WALK), "--port", dev, "--tick", "0.5", "--fast"]) == 0
    assert "largest error 0 ticks" in capsys.readouterr().out


@pytest.mark.slow
def test_timeouts_follow_the_measured_round_trip(slow_emulator, capsys) -> None:
    dev, _ = slow_emulator
    assert main(["robotlink", "ping", "--port", dev]) == 0  # 17 servos, each 60 ms late
    assert capsys.readouterr().out.count("model 1060") == 17
    assert main(["robotlink", "stream", str(WALK), "--port", dev, "--tick", "0.5", "--fast"]) == 0
    assert "largest error 0 ticks" in capsys.readouterr().out
    # the SDK's own fixed timeout on the same line: no status packet (the failure before)
    import dynamixel_sdk as sdk

    port = sdk.PortHandler(dev)
    assert port.openPort() and port.setBaudRate(1_000_000)
    try:
        _, result, _ = sdk.PacketHandler(2.0).ping(port, 1)
        assert result == sdk.COMM_RX_TIMEOUT
    finally:
        port.closePort()


def test_no_robot_on_the_line_is_a_clear_error(socat_pair, capsys) -> None:
    _, dev = socat_pair  # nothing listens on the other end
    code = main(
        ["motion", "upload", str(WALK), "--port", dev, "--timeout", "0.05", "--retries", "1"]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert (
        "upload of 'walk_forward' failed: robot did not acknowledge BEGIN after 2 attempts" in err
    )
