"""The fuzz suite's size: a small seeded corpus in every test run, ``--fuzz-long`` for
a larger one (``--fuzz-long`` = 20x the cases; ``ROBOTSIM_FUZZ_SEED`` picks another
seed)."""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz-long", action="store_true", default=False, help="Run 20x more fuzz cases."
    )


@pytest.fixture(scope="session")
def fuzz_scale(request: pytest.FixtureRequest) -> int:
    return 20 if request.config.getoption("--fuzz-long") else 1


@pytest.fixture(scope="session")
def fuzz_seed() -> int:
    return int(os.environ.get("ROBOTSIM_FUZZ_SEED", "17"))
