"""A ``script: planned`` transfer file in the studio: opened as the page opens it, the
transfer planned from the object phase by phase as the studio plays it (the same
player as ``robotsim run``), and its verdict shown with its numbers."""

from __future__ import annotations

import pytest
import yaml

PLANNED = {
    "kind": "hand_ball_transfer",
    "robot": "dual_arm_hands",
    "start": {f"{s}_finger{k}": 60 for s in "LR" for k in (1, 2, 3)},
    "object": {"type": "box", "size": [0.045, 0.045, 0.045], "position": [0.5, 0.25, 0.4925]},
    "tables": [{"name": "table", "center": [0.5, 0.25, 0.235], "size": [0.2, 0.2, 0.47]}],
    "script": "planned",
    "speed": 90,
}


@pytest.mark.slow
def test_a_planned_transfer_plays_and_shows_its_verdict(studio, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ROBOTSIM_CACHE_DIR", str(tmp_path / "cache"))
    shown: list[tuple[str, str, bool]] = []
    real = studio.notify

    def notify(title: str, body: str, error: bool = False) -> None:
        shown.append((title, body, error))
        real(title, body, error)

    monkeypatch.setattr(studio, "notify", notify)
    f = tmp_path / "planned_cube.yaml"
    f.write_text(yaml.safe_dump(PLANNED))
    said = studio.open(f)
    assert "planned" in said and "kinematic" in said, said
    d = studio.driver
    while d.verdict is None and studio.time < 60.0:
        studio.step()
    v = d.verdict
    assert v is not None, studio.time
    # the phases were planned and played: the giver grasped, the receiver holds it
    assert v["planned"]["giver"] == "L" and v["planned"]["first_grasp"]["ok"]
    assert v["success"], v.get("reason")
    assert v["held_alone_s"] >= 2.0 and v["slip_m"] <= 0.01 and v["lifted_m"] >= 0.1
    titles = [t for t, _, _ in shown]
    assert "transfer (kinematic)" in titles
    body = next(b for t, b, _ in shown if t == "transfer (kinematic)")
    assert body.startswith("yes (R held it alone") and "lifted" in body
    # Reset plays it again from the start (a fresh plan)
    studio.reset()
    assert d.verdict is None and d.player.index == 0
