#!/usr/bin/env bash
# Install check: build robotsim's wheel, install it (not editable) into a clean virtual
# environment and run the README's commands from an empty temporary directory -- first
# the base install (no extras, no system site-packages: a dependency missing from
# pyproject.toml fails here), then the same environment with every extra.
# Run by `make test` (so by CI: .ci/run) and on its own: bash scripts/check_install.sh
#
# Dependencies come from a wheelhouse (${ROBOTSIM_WHEELHOUSE:-~/.cache/robotsim/wheelhouse})
# filled from the package index the first time and again when pyproject.toml changes;
# every other run installs offline from it (--no-index).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
PY=${PYTHON:-python3}
HOUSE=${ROBOTSIM_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/robotsim/wheelhouse}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/robotsim-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
say() { echo "check_install: $* [$((SECONDS - start)) s]"; }
pipq=(-q --disable-pip-version-check)

# 1. The wheelhouse: the build backend and every dependency of every extra.
stamp="$HOUSE/.stamp-$(sha1sum pyproject.toml | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  say "filling the wheelhouse $HOUSE (once per pyproject.toml; needs the package index)"
  mkdir -p "$HOUSE"
  "$PY" -m pip download "${pipq[@]}" -d "$HOUSE" "setuptools>=68" wheel
  "$PY" -m pip wheel "${pipq[@]}" --no-deps --no-index --find-links "$HOUSE" -w "$tmp/pre" .
  "$PY" -m pip download "${pipq[@]}" -d "$HOUSE" "$(ls "$tmp"/pre/robotsim-*.whl)[io,browser]"
  rm -f "$HOUSE"/robotsim-*.whl "$HOUSE"/.stamp-*
  touch "$stamp"
fi

# 2. The wheel, built offline from the wheelhouse's setuptools.
"$PY" -m pip wheel "${pipq[@]}" --no-deps --no-index --find-links "$HOUSE" -w "$tmp/dist" .
wheel=$(ls "$tmp"/dist/robotsim-*.whl)
say "built $(basename "$wheel")"

# 3. Base install into a clean venv; the README's commands from an empty directory.
"$PY" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install "${pipq[@]}" --no-index --find-links "$HOUSE" "$wheel"
say "installed the base wheel"
mkdir "$tmp/work"
cd "$tmp/work"
export PATH="$tmp/venv/bin:$PATH"
unset PYTHONPATH
rc=0
"$tmp/venv/bin/python" "$REPO/scripts/readme_commands.py" --readme "$REPO/README.md" --base || rc=1
say "base install checked"

# 4. Every extra, in the same environment.
"$tmp/venv/bin/python" -m pip install "${pipq[@]}" --no-index --find-links "$HOUSE" \
  "$wheel[io,browser]"
"$tmp/venv/bin/python" "$REPO/scripts/readme_commands.py" --readme "$REPO/README.md" --extras \
  || rc=1
say "install with every extra checked"
exit $rc
