#!/usr/bin/env bash
# One-time (idempotent) set-up for a fresh Debian machine: system packages, then a
# virtual environment in .venv with robotsim installed in editable mode.
# Called by `make studio`, `make test` and `.ci/run`; safe to run again (it skips
# what is already there).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: Mesa EGL/OSMesa and its software driver (llvmpipe) for MuJoCo's
# offscreen renderer and the browser tests' WebGL, Chromium for the
# studio's browser tests, PostgreSQL for the run store tests, socat for serial pty pairs.
DEBS=(libegl1 libegl-mesa0 libgl1-mesa-dri libgl1 libgles2 libosmesa6 chromium postgresql socat)
missing=()
for pkg in "${DEBS[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "setup: installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: warning: missing Debian packages (need root to install): ${missing[*]}" >&2
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv --system-site-packages .venv
fi
# install_once NAME EXTRAS WHAT: pip-install robotsim with EXTRAS into .venv unless it
# was done for this pyproject.toml already (a stamp file .venv/.NAME-<hash>).
install_once() {
  local stamp=".venv/.$1-$(sha1sum pyproject.toml | cut -c1-12)"
  if [ ! -f "$stamp" ]; then
    echo "setup: installing $3 into .venv"
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[$2]"
    rm -f ".venv/.$1-"*
    touch "$stamp"
  fi
}
install_once stamp dev,io,browser,cluster,export,gym,objects,optimize "robotsim and its dependencies"
# `make bench` also installs the peers the benchmarks time side by side (pinocchio,
# coal, python-fcl, the Robotics Toolbox, PyBullet: the 'bench' extra).
if [ "${ROBOTSIM_BENCH_PEERS:-0}" = "1" ]; then
  install_once peers bench "the benchmark peers (the 'bench' extra)"
fi
# Compile the numba kernels once (`robotsim warm`), so the first fk, clearance, motion
# or mobile run starts at full speed: on a new install, and again when a kernel module
# changed (numba recompiles those on first use anyway; this only moves the wait here).
warm_stamp=.venv/.warm-stamp
mapfile -t kernels < <(grep -rl --include='*.py' 'cache=True' src/robotsim)
if [ ! -f "$warm_stamp" ] || [ -n "$(find "${kernels[@]}" -newer "$warm_stamp" | head -1)" ]; then
  echo "setup: compiling the numerical kernels once (robotsim warm; about half a minute on a new machine)"
  if .venv/bin/python -m robotsim warm --quiet; then
    touch "$warm_stamp"
  else
    echo "setup: warning: robotsim warm failed; the kernels compile on first use instead" >&2
  fi
fi
