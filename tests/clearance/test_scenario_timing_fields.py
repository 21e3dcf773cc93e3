"""The scenario fields plans write: ``delay``, ``time_warp``, ``hold`` and ``spline``
segments (values and the errors naming the field)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from robotsim.clearance.scenario import load_scenario
from robotsim.errors import ScenarioError

BASE = {
    "kind": "clearance",
    "robots": [
        {
            "name": "A",
            "model": "puma560",
            "volumes": [{"link": "link3", "type": "ellipsoid", "radii": [0.12, 0.125, 0.25]}],
            "start": {"joint2": -30},
            "delay": 0.5,
            "segments": [
                {"type": "hold", "duration": 0.5},
                {
                    "type": "spline",
                    "joints": ["joint1", "joint2"],
                    "t": [0, 1, 2],
                    "q": [[0, -30], [10, -20], [20, -10]],
                    "qd": [[0, 0], [10, 10], [0, 0]],
                },
            ],
        }
    ],
}


def _write(tmp_path: Path, doc: dict) -> Path:  # type: ignore[type-arg]
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


def test_delay_hold_spline_and_warp(tmp_path: Path) -> None:
    tr = load_scenario(_write(tmp_path, BASE)).trajectories["A"]
    assert tr.start == 0.5 and tr.end == pytest.approx(3.0)
    q = np.degrees(tr.q([0.0, 1.0, 2.0, 3.0]))
    np.testing.assert_allclose(q[:, :2], [[0, -30], [0, -30], [10, -20], [20, -10]], atol=1e-9)
    doc = {
        **BASE,
        "robots": [
            {
                **BASE["robots"][0],
                "time_warp": {
                    "t": [0, 1, 3, 4],
                    "s": [0, 0.75, 1.75, 2.5],
                    "rate": [1, 0.5, 0.5, 1],
                },
            }
        ],
    }
    warped = load_scenario(_write(tmp_path, doc)).trajectories["A"]
    np.testing.assert_allclose(warped.q([2.0]), tr.q([1.25]), atol=1e-12)  # s(2) = 1.25


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"delay": -1}, r"robots\[0\]\.delay: Input should be greater than or equal to 0"),
        (
            {"time_warp": {"t": [0, 1], "s": [0, 0.1], "rate": [1, 1]}},
            r"robots\[0\]\.time_warp: time warp: piece 0 .* is not monotone",
        ),
        (
            {
                "segments": [
                    {"type": "spline", "joints": ["joint1"], "t": [0, 1], "q": [[0]], "qd": [[0]]}
                ]
            },
            r"robots\[0\]\.segments\[0\]: Value error, q and qd need one row per knot",
        ),
        (
            {
                "segments": [
                    {
                        "type": "spline",
                        "joints": ["joint9"],
                        "t": [0, 1],
                        "q": [[0], [1]],
                        "qd": [[0], [0]],
                    }
                ]
            },
            r"segments\[0\]\.joints\[0\]: unknown joint 'joint9'",
        ),
        (
            {
                "segments": [
                    {
                        "type": "spline",
                        "joints": ["joint1"],
                        "t": [0, 1],
                        "q": [[5], [1]],
                        "qd": [[0], [0]],
                    }
                ]
            },
            r"segments\[0\]\.q\[0\]: the spline must start",
        ),
    ],
)
def test_errors_name_the_field(tmp_path: Path, edit: dict, message: str) -> None:  # type: ignore[type-arg]
    doc = {**BASE, "robots": [{**BASE["robots"][0], **edit}]}
    with pytest.raises(ScenarioError, match=message):
        load_scenario(_write(tmp_path, doc))
