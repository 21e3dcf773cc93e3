"""``robotsim serve`` as a real process, and the physics world as a served target."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from robotsim import load_robot
from robotsim.cli import main
from robotsim.physics import Motor, RobotPlacement, Scene, World
from robotsim.recording import RunStatus, RunStore
from robotsim.remote import Client, RemoteError, RemoteServer, SimulationTarget
from robotsim.remote.world_target import WorldTarget
from tests.procs import default_sigint


def test_serve_process_answers_records_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    cmd = [
        sys.executable,
        "-m",
        "robotsim",
        "serve",
        "puma560",
        "--kinematic",
        "--udp",
        "127.0.0.1:0",
        "--json",
        "--db",
        str(tmp_path),
        "--record-rate",
        "100",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    try:
        assert proc.stdout is not None
        hello = json.loads(proc.stdout.readline())
        assert hello["host"] == "127.0.0.1" and hello["robots"]["puma560"]["joints"][0] == "joint1"
        with Client((hello["host"], hello["port"]), timeout=5.0) as c:
            c.set_joints("puma560", {"joint1": 0.2})
            deadline = time.monotonic() + 10  # 0.2 s of simulated time, on a busy machine
            while time.monotonic() < deadline:
                st = c.state()
                if st["robots"]["puma560"]["joints"]["joint1"] == pytest.approx(0.2):
                    break
                time.sleep(0.05)
            assert st["robots"]["puma560"]["joints"]["joint1"] == pytest.approx(0.2)
            with pytest.raises(Exception, match="unknown joint 'elbow'"):
                c.set_joints("puma560", {"elbow": 0.1})
            assert c.ping() >= st["t"]
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    final = json.loads(out)
    assert final["status"] == "interrupted" and final["stats"]["errors"] == 1
    with RunStore(tmp_path) as store:
        info = store.run(hello["run_id"])
        assert info.status is RunStatus.INTERRUPTED
        q1 = store.signals(info.id, "puma560").column("q.joint1")
        assert q1[0] == 0.0 and q1[-1] == pytest.approx(0.2)


def _arm_world(gain: float, damping: float = 0.0) -> World:
    motor = Motor("position", gain=gain, damping=damping)
    return World(Scene(robots=(RobotPlacement("arm", load_robot("puma560"), default_motor=motor),)))


def test_physics_world_as_a_target() -> None:
    world = _arm_world(gain=50.0, damping=5.0)  # a servo the light wrist links can take
    target = WorldTarget(world)
    assert isinstance(target, SimulationTarget)
    assert target.robots()["arm"].joints == load_robot("puma560").joint_names
    with RemoteServer(target, port=0).start() as srv, Client(srv.address) as c:
        c.pause()
        t0 = c.state()["t"]
        c.set_joints("arm", {"joint6": 0.3})
        c.step(1000)
        st = c.state()
        assert st["t"] - t0 == pytest.approx(2.0)
        assert st["robots"]["arm"]["joints"]["joint6"] == pytest.approx(0.3, abs=0.05)
        links = c.state(links=True)["robots"]["arm"]["links"]
        assert set(links) == set(load_robot("puma560").link_names)
        assert all(len(p) == 7 for p in links.values())
        c.reset()
        assert c.state()["t"] == 0.0


def test_a_diverging_world_pauses_with_the_error_and_the_server_lives_on() -> None:
    world = _arm_world(gain=1e7)
    world.model.dof_armature[:] = 0.0  # an absurdly stiff servo without its rotor inertia
    target = WorldTarget(world)  # MuJoCo diverges
    seen: list[tuple[float, str]] = []
    srv = RemoteServer(target, port=0, on_fault=lambda t, msg: seen.append((t, msg)))
    with srv.start(), Client(srv.address) as c:
        c.set_joints("arm", {"joint6": 1.0})  # while running
        deadline = time.monotonic() + 60  # ends at the fault, however slow the machine
        while c.state()["fault"] is None and time.monotonic() < deadline:
            time.sleep(0.02)
        st = c.state()
        assert st["paused"] is True and "simulation diverged" in st["fault"]
        assert "PhysicsFault" in c.request("ping")["fault"]  # still answering
        with pytest.raises(RemoteError, match=r"stopped on an error .* send 'reset' first"):
            c.resume()
        with pytest.raises(RemoteError, match="send 'reset' first"):
            c.step(1)
        # paused by hand, then a step diverges: the error comes back in the reply and a
        # reset clears it, leaving the simulation paused as it was
        c.pause()
        c.reset()
        assert c.state()["fault"] is None
        c.pause()
        c.set_joints("arm", {"joint6": 1.0})
        with pytest.raises(RemoteError, match="simulation diverged"):
            c.step(50)
        assert c.stats()["stats"]["faults"] >= 2
        c.reset()
        st = c.state()
        assert st["fault"] is None and st["paused"] is True and st["t"] == 0.0
    assert len(seen) >= 2 and all("simulation diverged" in msg for _, msg in seen)


def test_bad_serve_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "hands.yaml"
    other.write_text("format: robotsim-scenario/1\nkind: hand_ball_transfer\nname: x\n")
    assert main(["serve", str(other), "--udp", "127.0.0.1:0"]) == 2
    assert "robotsim serve runs 'mobile' scenarios" in capsys.readouterr().err
    assert main(["serve", "no_such_robot", "--kinematic"]) == 2
    assert "no_such_robot" in capsys.readouterr().err
    assert main(["serve", "puma560", "--kinematic", "--udp", "127.0.0.1:99999"]) == 2
    assert "port 99999 is outside" in capsys.readouterr().err
    assert main(["serve", "puma560", "--kinematic", "--rate", "0", "--udp", ":0"]) == 2
    assert "--rate must be a positive number" in capsys.readouterr().err
