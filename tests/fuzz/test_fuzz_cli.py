"""Fuzz the CLI's arguments as a user types them: NaN, inf, -0, 1e308, 1e-320,
empty strings, huge counts and digits, negative rates, in the options of the fast
commands (fk, ik, dynamics, object, motion play, run). Each call ends with exit 0
(a result), 1 (a verdict: no IK solution, a fault) or 2 with one line on stderr;
never a traceback or a numpy warning on stderr (seeded; see conftest.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from robotsim.cli import main
from tests.fuzz.harness import Verdicts

VALUES = ["nan", "inf", "-inf", "-0", "0", "-1", "1e308", "-1e308", "1e-320", "1e999", "",
          " ", "0x10", "9" * 400, "1,2", "a", "0.5", "1e-9", "-1e-9"]  # fmt: skip


def _nums(rng: random.Random, n: int) -> str:
    k = rng.choice([n, n, n, 1, 0, n + 1, 300])
    return ",".join(rng.choice([*VALUES, "0.1", "1"]) for _ in range(k))


def _args(rng: random.Random, out: Path) -> list[str]:
    v = lambda: rng.choice(VALUES)  # noqa: E731
    r = rng.randrange(7)
    if r == 0:
        return ["fk", "puma560", "--q", _nums(rng, 6), *(["--deg"] if rng.random() < 0.5 else [])]
    if r == 1:
        args = ["ik", "puma560", "--target", _nums(rng, rng.choice([3, 7]))]
        return args + (["--q0", _nums(rng, 6)] if rng.random() < 0.5 else [])
    if r == 2:
        return ["dynamics", "puma560", "--q", _nums(rng, 6), "--qd", _nums(rng, 6),
                "--qdd", _nums(rng, 6)]  # fmt: skip
    if r == 3:
        shape = rng.choice(["box", "sphere", "cylinder", "capsule", "ellipsoid"])
        args = ["object", f"{shape}:{_nums(rng, 3)}"]
        for opt in ("--mass", "--density", "--scale", "--friction"):
            if rng.random() < 0.4:
                args += [opt, v()]
        return args
    if r == 4:
        return ["motion", "play", "walk_forward", "--tick", v(), "--out", str(out)]
    if r == 5:
        return ["run", "pid_p_vs_pd", "--duration", rng.choice(["-0", "0", "-1", "1e-320",
                "nan", "inf", "1e308", "", "1e999"]), "--out", str(out)]  # fmt: skip
    key = rng.choice(["timestep", "duration", "robots.0.start", "contact.mu",
                      "robots.1.controller.gains.x.kp", "field.size", "seed"])  # fmt: skip
    # (not 1e-9: a timestep of 1e-9 s for 0.05 s is within the work budget, minutes of
    # honest stepping, not a fault)
    value = rng.choice([x for x in VALUES if x != "1e-9"])
    return ["run", "pid_p_vs_pd", "--duration", "0.05", "--set", f"{key}={value}",
            "--out", str(out)]  # fmt: skip


@pytest.mark.slow
def test_fuzz_cli_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fuzz_scale: int, fuzz_seed: int
) -> None:
    rng = random.Random(f"{fuzz_seed}:cli")
    v = Verdicts()
    for i in range(40 * fuzz_scale):
        args = _args(rng, tmp_path / f"o{i}")
        label = f"cli#{i} robotsim {' '.join(a[:40] for a in args)}"

        def call(args: list[str] = args) -> None:
            rc = main(args)
            err = capsys.readouterr().err.strip()
            if "Traceback" in err or "Warning:" in err:
                raise AssertionError(f"exit {rc}, stderr: {err[-500:]}")
            if rc not in (0, 1, 2) or (rc == 2 and (err.count("\n") or not err)):
                raise AssertionError(f"exit {rc}, stderr: {err[-500:]}")

        v.check(label, call)
    v.assert_clean()
