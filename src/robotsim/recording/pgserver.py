"""A throwaway PostgreSQL server for tests and benchmarks.

Uses the Debian ``postgresql`` binaries (``/usr/lib/postgresql/<version>/bin``). As
``initdb`` refuses to run as root, a root caller runs the server as the ``postgres``
user (``runuser``) in a temporary folder owned by it. The server listens on a free TCP
port of 127.0.0.1 and on a unix socket in that folder; :attr:`TempPostgres.url` is an
SQLAlchemy URL for it. Stopping (always, also on errors) removes the folder.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from robotsim.recording.store import RecordingError

__all__ = ["TempPostgres", "find_pg_bin"]


def find_pg_bin() -> Path:
    """The newest ``/usr/lib/postgresql/*/bin`` holding ``initdb`` and ``pg_ctl``."""
    env = os.environ.get("ROBOTSIM_PG_BIN")
    cands = (
        [env]
        if env
        else sorted(
            glob.glob("/usr/lib/postgresql/*/bin"),
            key=lambda p: int(Path(p).parent.name),
            reverse=True,
        )
    )
    for c in cands:
        if c and (Path(c) / "initdb").exists() and (Path(c) / "pg_ctl").exists():
            return Path(c)
    raise RecordingError(
        "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin "
        "(install the Debian package 'postgresql': scripts/setup.sh does)"
    )


_PORT_ATTEMPTS = 5  # the port is chosen before initdb runs; another process may take it


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TempPostgres:
    """Start a PostgreSQL server in a temporary folder; stop and delete it on exit.

    Usage::

        with TempPostgres() as pg:
            store = RunStore(pg.url)
    """

    def __init__(self, startup_timeout: float = 60.0) -> None:
        self.bin = find_pg_bin()
        self.port = _free_port()
        self.startup_timeout = startup_timeout
        self.dir: Path | None = None
        self.url = ""
        self._user: str | None = "postgres" if os.geteuid() == 0 else None
        self._started = False

    def _run(self, *args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        cmd = list(args)
        if self._user is not None:
            cmd = ["runuser", "-u", self._user, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)

    def start(self) -> TempPostgres:
        self.dir = Path(tempfile.mkdtemp(prefix="robotsim-pg-"))
        if self._user is not None:
            pw = pwd.getpwnam(self._user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        data = self.dir / "data"
        r = self._run(
            str(self.bin / "initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        if r.returncode != 0:
            self.stop()
            raise RecordingError(f"initdb failed ({r.returncode}): {r.stderr.strip()[-500:]}")
        log = self.dir / "server.log"
        for attempt in range(_PORT_ATTEMPTS):
            if attempt:  # the free port was taken while initdb ran: another one
                self.port = _free_port()
            r = self._pg_ctl_start(data, log)
            tail = log.read_text()[-800:] if log.exists() else ""
            if r.returncode == 0 or "already in use" not in tail:
                break
        if r.returncode != 0:
            self.stop()
            raise RecordingError(
                f"PostgreSQL did not start ({r.returncode}): {r.stderr.strip()[-300:]} {tail}"
            )
        self._started = True
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        return self

    def _pg_ctl_start(self, data: Path, log: Path) -> subprocess.CompletedProcess[str]:
        log.unlink(missing_ok=True)  # this attempt's messages only
        opts = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c full_page_writes=off -c max_connections=30 -c shared_buffers=32MB"
        )
        return self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            opts,
            "-l",
            str(log),
            "-w",
            "-t",
            str(int(self.startup_timeout)),
            "start",
            timeout=self.startup_timeout + 10,
        )

    def stop(self) -> None:
        if self.dir is None:
            return
        if self._started:
            self._run(
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.dir / "data"),
                "-m",
                "immediate",
                "-w",
                "stop",
            )
            self._started = False
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def __enter__(self) -> TempPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
