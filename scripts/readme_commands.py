"""Run the README's shell commands against an installed ``robotsim`` (the one on PATH).

Used by ``scripts/check_install.sh`` from an empty temporary directory, so every
command must work from anywhere against a wheel install. Standard library only.

The commands are the ``robotsim ...`` lines of the first ``bash`` block after the
"What you can do" heading, run as written (comments dropped) with these exceptions,
because the rest serve until Ctrl+C or would take minutes:

- ``robotsim studio ...`` and ``robotsim teleop ...`` (no ``--headless``): started,
  the printed URL must serve the page, then Ctrl+C (SIGINT) must stop them (exit 0);
- ``robotsim serve ...``: ``--duration 3`` is added and its port becomes 0 (any free
  port: a busy 9870 on a shared machine is not what this checks);
- ``robotsim bench ...``: ``--quick`` is added.

``--extras`` instead checks what the ``io`` extra adds (Parquet export), and
``--base`` additionally checks that an extra-only command says which extra to install.
Exit status: the number of failed commands (0 = all passed).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

TIMEOUT = 900  # s per command: a loaded 2-core machine compiles numba kernels slowly


def readme_commands(readme: Path) -> list[str]:
    text = readme.read_text(encoding="utf-8")
    section = text[text.index("## What you can do") :]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.S)
    if block is None:
        raise SystemExit("readme_commands: no bash block under 'What you can do'")
    out = []
    for line in block.group(1).splitlines():
        cmd = line.split("  #")[0].strip()
        if cmd.startswith("robotsim"):
            out.append(cmd)
    return out


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # we stop servers with Ctrl-C


def run_plain(argv: list[str], expect: int = 0, needle: str | None = None) -> str | None:
    """Run to completion; None if it exited ``expect`` (and printed ``needle``), else
    what went wrong."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"did not finish in {TIMEOUT} s"
    if proc.returncode != expect:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        return f"exit {proc.returncode} (expected {expect}): " + " | ".join(tail)
    if needle is not None and needle not in proc.stdout + proc.stderr:
        return f"output lacks {needle!r}: {(proc.stdout + proc.stderr).strip()[-300:]}"
    return None


def run_server(argv: list[str]) -> str | None:
    """Start a studio-like command, fetch the URL it prints, stop it with Ctrl-C."""
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=_default_sigint,
    )
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        url = None
        deadline = time.monotonic() + TIMEOUT
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                return "exited before printing a URL: " + " | ".join(seen[-5:])
            seen.append(line.rstrip())
            m = re.search(r"open (http://\S+)", line)
            url = m.group(1) if m else None
        if url is None:
            return f"printed no URL in {TIMEOUT} s"
        with urllib.request.urlopen(url, timeout=60) as resp:
            if resp.status != 200 or b"<html" not in resp.read(4096).lower():
                return f"{url} answered {resp.status} without a page"
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=60)
        return None if rc == 0 else f"exit {rc} after Ctrl-C"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{exc.__class__.__name__}: {exc}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def check(cmd: str) -> str | None:
    argv = shlex.split(cmd)
    if argv[1:2] in (["studio"], ["teleop"]) and "--headless" not in argv:
        return run_server(argv)
    if argv[1:2] == ["serve"]:
        argv = [re.sub(r":\d+$", ":0", a) if re.match(r"[\d.]+:\d+$", a) else a for a in argv]
        return run_plain([*argv, "--duration", "3"])
    if argv[1:2] == ["bench"]:
        return run_plain([*argv, "--quick"])
    return run_plain(argv)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--readme", type=Path, required=True)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--base", action="store_true", help="README commands + extra messages")
    mode.add_argument("--extras", action="store_true", help="what the extras add")
    args = ap.parse_args()
    checks: list[tuple[str, object]] = []
    if args.base:
        checks += [(cmd, lambda c=cmd: check(c)) for cmd in readme_commands(args.readme)]
        parquet = "robotsim export last --db out/soccer --format parquet --out out/pq"
        checks.append(
            (
                parquet + "  (exit 2, names the extra)",
                lambda: run_plain(shlex.split(parquet), 2, "pip install 'robotsim[io]'"),
            )
        )
    else:
        checks.append(
            ("robotsim run pid_p_vs_pd --out out/pid --duration 1", lambda: run_plain(
                shlex.split("robotsim run pid_p_vs_pd --out out/pid --duration 1")))
        )  # fmt: skip
        parquet = "robotsim export last --db out/pid --format parquet --out out/pq"
        checks.append((parquet, lambda: run_plain(shlex.split(parquet))))
        mods = "import serial, dynamixel_sdk, pygame, psycopg, pyarrow, playwright"
        checks.append((f"python -c '{mods}'", lambda: run_plain([sys.executable, "-c", mods])))
    failed = 0
    for label, fn in checks:
        t0 = time.monotonic()
        problem = fn()  # type: ignore[operator]
        took = time.monotonic() - t0
        print(f"{'ok  ' if problem is None else 'FAIL'} {took:6.1f} s  {label}", flush=True)
        if problem is not None:
            print(f"       {problem}", flush=True)
            failed += 1
    print(f"readme_commands: {len(checks) - failed} passed, {failed} failed in {os.getcwd()}")
    return failed


if __name__ == "__main__":
    sys.exit(main())
