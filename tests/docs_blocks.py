"""The examples of the documentation, found and run as a user would (``tests/test_docs.py``).

Every fenced block tagged ``python``, ``bash`` or ``sh`` in ``docs/*.md`` is an example
and runs; so do those of README.md after its first command block (that one, the
README's tour, is run from an installed wheel by ``scripts/check_install.sh``; the two
set-up blocks before it install things). A page's blocks run in order, in one fresh
folder that is not the checkout (examples work from any folder), so a block may use
what an earlier one wrote. Blocks of other tags (``yaml``, ``json``, ``text``...) and
untagged ones are shown, not run: a command synopsis with placeholders (``FILE``,
``[--db DB]``) belongs there, and :func:`untested_commands` finds a ``robotsim`` line
hiding in one without being a synopsis. A concrete command too long for the tests (a
sweep of many runs) stands in a block right after ``<!-- not run: REASON -->``, the
reason visible in the page's source (:func:`not_run`).

Python blocks run in a new interpreter. Shell blocks run in ``bash -e -o pipefail``
with ``robotsim`` a shell function calling this interpreter's robotsim, as written,
except for what would serve until Ctrl-C or take minutes (the exceptions of
``scripts/readme_commands.py``):

- ``robotsim studio`` / ``robotsim teleop`` (without ``--headless``): started, the URL
  it prints must serve the page, then Ctrl-C must stop it with exit 0; it gets a free
  ``--port`` unless the line names one;
- ``robotsim serve`` without ``--duration``: ``--duration 3``;
- ``robotsim bench``: ``--quick``;
- ``robotsim robotlink stream``: ``--fast`` (the poses as fast as the line takes them,
  not in the program's real time).

A background job (``... &``) lives until its block ends. ``socat ... pty ... pty`` in a
block makes a real pty pair; the block's ``/dev/pts/5`` and ``/dev/pts/6`` (the
placeholders the docs use) become the two ptys socat printed. ``examples/`` and
``sweeps/`` are the checkout's (what the docs run "from a checkout").
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.paths import REPO

__all__ = ["Block", "docs_blocks", "run_block", "untested_commands"]

RUN_TAGS = {"python", "bash", "sh"}
TIMEOUT = 600  # s per block, on a loaded two-core machine
_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.S | re.M)
_NOT_RUN = re.compile(r"<!-- not run: (.+?) -->\s*\Z", re.S)


@dataclass(frozen=True)
class Block:
    page: str  # path relative to the repository
    line: int  # 1-based line of the opening fence
    tag: str
    code: str
    not_run: str | None = None  # the reason of a ``<!-- not run: ... -->`` before it

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def _blocks_of(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    rel = str(path.relative_to(REPO))
    out = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = _NOT_RUN.search(text[max(0, m.start() - 300) : m.start()])
        reason = before.group(1).strip() if before else None
        out.append(Block(rel, line, m.group(1).lower(), m.group(2), reason))
    if rel == "README.md":  # from the tour on, without the tour itself
        tour = text.index("## What you can do")
        after = [b for b in out if text.count("\n", 0, tour) + 1 < b.line]
        out = after[1:]
    return out


def docs_blocks() -> dict[str, list[Block]]:
    """Page -> its blocks (every tag), for ``docs/*.md`` and README.md."""
    pages = [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]
    return {str(p.relative_to(REPO)): _blocks_of(p) for p in pages}


_SYNOPSIS = re.compile(r"\[|\]|\|| [A-Z][A-Z_]{2,}\b|\.\.\.|…")


def untested_commands(blocks: list[Block]) -> list[str]:
    """``robotsim`` lines in blocks that do not run and are no synopsis (no ``[...]``,
    ``a|b``, ``FILE``-like placeholder or ``...``): examples that would go untested."""
    found = []
    for b in blocks:
        if b.tag in RUN_TAGS or b.not_run:
            continue
        for line in b.code.splitlines():
            cmd = line.split("  #")[0].strip()
            if cmd.startswith("robotsim ") and not _SYNOPSIS.search(cmd):
                found.append(f"{b.where}: {cmd}")
    return found


_PREAMBLE = r"""
robotsim() {
  local sub="${1:-}"
  case "$sub" in
    studio|teleop)
      local a
      for a in "$@"; do [ "$a" = "--headless" ] && { "$DOCS_PY" -m robotsim "$@"; return; }; done
      "$DOCS_PY" "$DOCS_HELPER" serve-check "$@" ;;
    serve)
      local a
      for a in "$@"; do [ "$a" = "--duration" ] && { "$DOCS_PY" -m robotsim "$@"; return; }; done
      "$DOCS_PY" -m robotsim "$@" --duration 3 ;;
    bench) "$DOCS_PY" -m robotsim "$@" --quick ;;
    robotlink)
      if [ "${2:-}" = "stream" ]; then "$DOCS_PY" -m robotsim "$@" --fast
      else "$DOCS_PY" -m robotsim "$@"; fi ;;
    *) "$DOCS_PY" -m robotsim "$@" ;;
  esac
}
python() { "$DOCS_PY" "$@"; }
python3() { "$DOCS_PY" "$@"; }
"""


def _env(cwd: Path) -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(REPO / "src"), str(REPO)]
    env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("MUJOCO_GL", "egl")
    env["DOCS_PY"] = sys.executable
    env["DOCS_HELPER"] = str(Path(__file__).resolve())
    env["HOME"] = env.get("HOME", str(cwd))
    return env


def _pty_pair(code: str, cwd: Path, env: dict[str, str]) -> tuple[str, subprocess.Popen | None]:
    """Start the block's ``socat ... pty ... pty`` line (dropped from the code) and put
    the two ptys it prints where the block names ``/dev/pts/5`` and ``/dev/pts/6``."""
    lines = code.splitlines()
    for i, line in enumerate(lines):
        cmd = line.split("#")[0].strip()
        if cmd.startswith("socat ") and cmd.count("pty") >= 2:
            argv = cmd.split()
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stderr=subprocess.PIPE, text=True)
            assert proc.stderr is not None
            ptys: list[str] = []
            while len(ptys) < 2:
                out = proc.stderr.readline()
                if not out:
                    raise RuntimeError(f"socat printed no pty pair: {cmd}")
                m = re.search(r"PTY is (\S+)", out)
                if m:
                    ptys.append(m.group(1))
            del lines[i]
            code = "\n".join(lines).replace("/dev/pts/5", ptys[0]).replace("/dev/pts/6", ptys[1])
            return code, proc
    return code, None


def run_block(block: Block, cwd: Path) -> None:
    """Run one example in ``cwd``; raise AssertionError naming the block if it fails.
    The block's background jobs (and a pty pair) are stopped when it ends."""
    import tempfile

    env = _env(cwd)
    socat = None
    if block.tag == "python":
        argv = [sys.executable, "-c", block.code]
    else:
        code, socat = _pty_pair(block.code, cwd, env)
        argv = ["bash", "-e", "-o", "pipefail", "-c", _PREAMBLE + code]
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, text=True,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        try:
            rc = proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            rc = None
        finally:
            try:  # the block's own process group: its background jobs
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
            if socat is not None:
                socat.kill()
                socat.wait()
        log.seek(0)
        out = log.read()
    if rc != 0:
        tail = "\n".join(out.strip().splitlines()[-25:])
        what = f"did not finish in {TIMEOUT} s" if rc is None else f"exit {rc}"
        raise AssertionError(f"{block.where} ({block.tag}) failed, {what}:\n{tail}")


# ------------------------------------------------------------ the server check
def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_check(args: list[str]) -> int:
    """``robotsim studio|teleop ...``: start it, fetch the URL it prints, Ctrl-C it."""
    if "--port" not in args:
        args = [*args, "--port", str(_free_port())]
    proc = subprocess.Popen(
        [sys.executable, "-m", "robotsim", *args], stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        deadline = time.monotonic() + TIMEOUT
        url = None
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                print("exited before printing a URL:", *seen[-8:], sep="\n  ")
                return 1
            seen.append(line.rstrip())
            print(line.rstrip())
            m = re.search(r"open (http://\S+)", line)
            url = m.group(1) if m else None
        if url is None:
            print(f"printed no URL in {TIMEOUT} s")
            return 1
        with urllib.request.urlopen(url, timeout=60) as resp:
            if resp.status != 200 or b"<html" not in resp.read(4096).lower():
                print(f"{url} answered {resp.status} without a page")
                return 1
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=60)
        if rc != 0:
            print(f"exit {rc} after Ctrl-C")
        return rc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    if sys.argv[1:2] != ["serve-check"]:
        raise SystemExit("usage: docs_blocks.py serve-check robotsim-args...")
    sys.exit(serve_check(sys.argv[2:]))
