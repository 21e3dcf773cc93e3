"""``robotsim teleop`` (headless loop and studio panel) and ``robotsim run`` for the
hand-to-hand transfer scenario."""

from __future__ import annotations

import json
import socket
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.hands.kinematic import KinematicHands
from robotsim.hands.scene import default_scene
from robotsim.hands.teleop import HandsTeleop
from robotsim.model import load_robot
from robotsim.shipped import shipped_dir
from robotsim.teleop import GamepadManager, VirtualGamepad

SCENARIO = shipped_dir("scenario") / "hand_ball_transfer.yaml"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_robotsim_run_writes_the_event_timeline(tmp_path: Path, capsys) -> None:
    assert main(["run", str(SCENARIO), "--out", str(tmp_path), "--mode", "kinematic"]) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    types = [e["type"] for e in summary["events"]]
    assert {"touch", "grasp", "hold_both", "release", "landed"} <= set(types)
    assert summary["mode"] == "kinematic" and summary["completed"]
    out = capsys.readouterr().out.splitlines()  # the outcome is printed too
    assert out[1] == f"  events ({len(types)}): " + ", ".join(
        f"{e['t']:.2f} s {e['type']} ({e['hand']})" if e.get("hand") else
        f"{e['t']:.2f} s {e['type']}" for e in summary["events"]
    )  # fmt: skip
    v = summary["transfer"]  # the verdict and the numbers behind it
    assert v["success"] and out[2] == (
        f"  transfer: yes (R held it alone {v['held_alone_s']:.2f} s, slip "
        f"{v['slip_m'] * 100:.2f} cm, lifted {v['lifted_m']:.3f} m)"
    )
    assert out[3] == f"  completed: yes ({len(summary['steps'])} script steps, every expected " \
        "event seen)"  # fmt: skip


def test_robotsim_run_duration_cuts_the_script_short(tmp_path: Path, capsys) -> None:
    # cut short on purpose: exit 0, the missing events named on stderr
    assert main(["run", str(SCENARIO), "--out", str(tmp_path), "--duration", "5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "  completed: NO (missing events: hold_both, release, landed)" in out
    assert "  transfer: NO (second grasp: R never grasped the object (at most 0 of 3 " \
        "fingers touched))" in out  # fmt: skip
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["sim_time"] == pytest.approx(5.0)
    assert not summary["completed"] and "landed" in summary["missing_events"]
    assert [e["type"] for e in summary["events"] if e["type"] != "touch"] == ["grasp"]


def test_teleop_headless_loop_with_a_virtual_gamepad(capsys) -> None:
    with GamepadManager(max_slots=2), VirtualGamepad(naxes=4, nbuttons=8, nhats=2) as pad:
        pad.set_hat(0, (0, 1))
        rc = main(["teleop", "dual_arm_hands", "--gamepad", "0", "--headless", "--duration",
                   "0.25"])  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0
    assert "gamepad 0 -> L arm" in out
    assert "15 ticks of 16.7 ms" in out


def test_teleop_bad_options_exit_2(capsys) -> None:
    assert main(["teleop", "--gamepad", "a,b", "--headless", "--duration", "0.1"]) == 2
    assert "--gamepad" in capsys.readouterr().err
    assert main(["teleop", "puma560", "--gamepad", "none", "--headless"]) == 2
    assert "unknown joint 'L_shoulder_x'" in capsys.readouterr().err


def test_studio_teleop_panel_shows_touch_and_grasp_state() -> None:
    from robotsim.studio import Studio
    from robotsim.studio.app import SceneRobot
    from robotsim.studio.hands.driver import ROBOT_NAME, HandsDriver
    from robotsim.studio.hands.panel import HandsPanel, hands_status_markdown
    from robotsim.studio.panels import Tab

    sim = KinematicHands(default_scene(load_robot("dual_arm_hands")), dt=1 / 60)
    tele = HandsTeleop(sim, gamepads=[], manager=None)
    tabs = [Tab("Teleop", "device-gamepad", partial(HandsPanel, teleop=tele))]
    studio = Studio(port=_free_port(), dt=sim.dt, tabs=tabs)
    try:
        driver = HandsDriver(tele)
        studio.load_scene("teleop", [SceneRobot(sim.model, ROBOT_NAME, q=sim.snapshot().q)],
                          driver=driver)  # fmt: skip
        for _ in range(5):
            studio.step()
        assert driver.ticks == 5 and sim.t == studio.clock.t
        assert np.allclose(studio.robots[ROBOT_NAME].q, sim.q)
        assert np.allclose(driver.ball.position, sim.ball_T[:3, 3])
        panel = studio.panels["teleop"]
        panel.refresh()
        text = panel.text.content
        assert text == hands_status_markdown(tele)
        assert "**L** touch ○ ○ ○" in text and "resting on table" in text
    finally:
        studio.stop()


def test_robotsim_run_records_into_the_run_store_with_overrides(tmp_path: Path) -> None:
    from robotsim.recording.store import RunStore

    db = tmp_path / "runs.sqlite"
    args = ["run", str(SCENARIO), "--out", str(tmp_path / "out"), "--db", str(db),
            "--set", "ball.bounce=0.5"]  # fmt: skip
    assert main(args) == 0
    with RunStore(str(db)) as store:
        (info,) = store.runs()
        assert info.scenario == "hand_ball_transfer" and info.status.value == "completed"
        events = store.events(info.id)
        types = [e["type"] for e in events]
        assert types.count("landed") == 1 and "hold_both" in types
        t_land = next(e["t"] for e in events if e["type"] == "landed")
        table = store.signals(info.id, "hands", ["ball_z"])
        t, z = table.t, table.column("ball_z")
    # With bounce 0.5 the ball rebounds from the floor, then comes to rest on it.
    r = 0.03
    assert z[t > t_land].max() > r + 0.05
    assert z[-1] == pytest.approx(r, abs=1e-12)


def test_studio_opens_the_transfer_scenario_and_plays_its_script() -> None:
    from robotsim.studio import Studio

    studio = Studio(port=_free_port())
    try:
        text = studio.open(str(SCENARIO))
        assert "scripted hand-to-hand transfer" in text
        driver = studio.driver
        assert driver.name == "hand transfer script"
        for _ in range(1200):  # 20 s of simulated time at the studio's 60 Hz
            studio.tick()
        kinds = [(e.type, e.hand) for e in driver.player.events if e.type != "touch"]
        assert kinds[-1] == ("landed", None) and ("hold_both", None) in kinds
        studio.push()
        assert np.allclose(driver.ball.position, driver.sim.ball_T[:3, 3])
        studio.reset()
        assert driver.sim.t == 0.0 and driver.player.index == 0
    finally:
        studio.stop()
