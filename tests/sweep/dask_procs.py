"""A real Dask cluster for the tests: ``dask scheduler`` and ``dask worker`` processes
on 127.0.0.1 (ports the system picks), stopped afterwards."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import robotsim

SRC = str(Path(robotsim.__file__).resolve().parents[1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class DaskProcs:
    """``start(n)``: a scheduler and ``n`` one-thread workers without nannies (a killed
    worker stays dead). ``pythonpath`` replaces the workers' PYTHONPATH."""

    def __init__(self) -> None:
        self.address = ""  # tcp://127.0.0.1:PORT once the scheduler listens
        self.scheduler: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self._info = Path(tempfile.mkdtemp(prefix="robotsim-dask-")) / "scheduler.json"

    def _env(self, pythonpath: str) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": pythonpath, "MUJOCO_GL": "egl"}

    def start(self, n: int, pythonpath: str = SRC, timeout: float = 120) -> DaskProcs:
        dask = [sys.executable, "-m", "dask"]
        # port 0 and the address read back: a free port chosen here could be taken by
        # another process (the other test worker) while the scheduler starts
        self.scheduler = subprocess.Popen(
            [*dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(self._info)],
            env=self._env(SRC),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.address = self._scheduler_address(timeout)
        for _ in range(n):
            self.add_worker(pythonpath)
        self.wait_for_workers(n, timeout)
        return self

    def _scheduler_address(self, timeout: float) -> str:
        """The address the scheduler writes to its file once it listens."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return str(json.loads(self._info.read_text())["address"])
            except (OSError, ValueError, KeyError):  # not written (completely) yet
                pass
            assert self.scheduler is not None
            if self.scheduler.poll() is not None:
                raise RuntimeError(f"dask scheduler exited ({self.scheduler.returncode})")
            if time.monotonic() > deadline:
                raise TimeoutError("the dask scheduler never wrote its address")
            time.sleep(0.1)

    def add_worker(self, pythonpath: str = SRC) -> subprocess.Popen:
        p = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dask",
                "worker",
                self.address,
                "--nthreads",
                "1",
                "--no-nanny",
                "--host",
                "127.0.0.1",
                "--no-dashboard",
                "--death-timeout",
                "60",
            ],
            env=self._env(pythonpath),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.workers.append(p)
        return p

    def wait_for_workers(self, n: int, timeout: float) -> None:
        from distributed import Client

        t0 = time.monotonic()
        while True:
            try:
                with Client(self.address, timeout=5, set_as_default=False) as c:
                    c.wait_for_workers(n, timeout=max(1.0, timeout - (time.monotonic() - t0)))
                    return
            except (OSError, TimeoutError):
                if time.monotonic() - t0 > timeout:
                    raise
                time.sleep(0.5)

    def stop(self) -> None:
        for p in [*self.workers, self.scheduler]:
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in [*self.workers, self.scheduler]:
            if p is None:
                continue
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(self._info.parent, ignore_errors=True)
