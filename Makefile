# The two commands a user needs (both do all set-up first):
#   make studio   -> the web studio on the default scene (open the URL it prints)
#   make test     -> the whole test suite, then the install check (scripts/check_install.sh)
#   make bench    -> every benchmark as JSON, with the peers (the 'bench' extra) installed
.PHONY: setup studio test check-install lint bench
PY := .venv/bin/python
ARGS ?=

setup:
	@bash scripts/setup.sh

studio: setup
	$(PY) -m robotsim studio $(ARGS)

test: setup
	$(PY) -m ruff check src tests
	MUJOCO_GL=egl $(PY) -m pytest -n 2 --dist loadgroup -q $(ARGS)
	bash scripts/check_install.sh

# The wheel, installed (not editable) into a clean venv, runs the README's commands.
check-install:
	@bash scripts/check_install.sh

lint: setup
	$(PY) -m ruff check src tests
	$(PY) -m ruff format --check src tests

bench:
	@ROBOTSIM_BENCH_PEERS=1 bash scripts/setup.sh
	$(PY) -m robotsim bench all --json
