"""The hand-transfer scenario with ``object:`` in the studio: the object drawn as its
mesh and moved by the script like the ball; ``robotsim teleop --object`` (a shape, a
mesh, a URDF) grasped, lifted and dropped from the page's keys."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from robotsim.errors import ScenarioError
from robotsim.shipped import shipped_dir
from robotsim.validation import read_yaml_file


@pytest.mark.slow
def test_an_object_is_drawn_and_carried(studio, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ROBOTSIM_CACHE_DIR", str(tmp_path / "cache"))
    data = read_yaml_file(shipped_dir("scenario") / "hand_ball_transfer.yaml", ScenarioError)
    data.pop("ball")
    data["object"] = {"type": "box", "size": [0.045, 0.045, 0.045], "position": [0.5, 0.25, 0.4925]}
    f = tmp_path / "cube_transfer.yaml"
    f.write_text(yaml.safe_dump(data))
    studio.open(f)
    d = studio.driver
    assert d.sim.scene.obj is not None and d.sim.scene.obj.name == "box_0.045x0.045x0.045"
    start = np.array(d.ball.position)
    np.testing.assert_allclose(start, [0.5, 0.25, 0.4925])
    while d.sim.snapshot().grasped_by != ("L",) and studio.time < 8.0:
        studio.step()
    assert d.sim.snapshot().grasped_by == ("L",), studio.time
    t_grasp = studio.time
    while studio.time < t_grasp + 1.5:  # the lift
        studio.step()
    state = d.sim.snapshot()
    np.testing.assert_allclose(np.array(d.ball.position), state.ball_position, atol=1e-12)
    assert state.ball_position[2] > start[2] + 0.02


def _post_key(kb, origin: str, kind: str, key: str) -> None:  # type: ignore[no-untyped-def]
    """A key event as the studio page posts it (real HTTP over a real socket)."""
    import http.client
    import json

    conn = http.client.HTTPConnection("127.0.0.1", kb.port, timeout=10)
    try:
        conn.request("POST", f"/keys?k={kb.token}", json.dumps({"type": kind, "key": key}),
                     {"Origin": origin})  # fmt: skip
        assert conn.getresponse().status == 204
    finally:
        conn.close()


#: the shipped transfer's "left hand above / down around the ball" (its script), which
#: the keys below reach joint by joint
ABOVE = {"shoulder_x": 0.5498, "elbow_y": -1.0297, "shoulder_y": 0.1134, "elbow_r": 0.0663,
         "wrist_x": -0.7086}  # fmt: skip
DOWN = {"shoulder_x": 0.3334, "elbow_y": -1.0018, "shoulder_y": 0.1117, "elbow_r": 0.0471,
        "wrist_x": -0.5236}  # fmt: skip
KEYS = {"shoulder_x": "ws", "shoulder_y": "da", "elbow_y": "ik", "elbow_r": "ou", "wrist_x": "lj"}


def _object(kind: str, tmp_path):  # type: ignore[no-untyped-def]
    """``robotsim teleop --object``'s argument: a shape, a mesh file, a URDF file whose
    inertia is a placeholder (``ixx=1`` on 0.1 kg)."""
    if kind == "box":
        return "box:0.045,0.045,0.045"
    if kind == "mesh":
        import trimesh

        f = tmp_path / "pill.stl"
        trimesh.creation.capsule(height=0.02, radius=0.022).export(f)
        return str(f)
    f = tmp_path / "cube.urdf"
    box = '<geometry><box size="0.045 0.045 0.045"/></geometry>'
    f.write_text(
        '<robot name="cube"><link name="cube"><inertial><mass value="0.1"/>'
        '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
        f"<visual>{box}</visual><collision>{box}</collision></link></robot>"
    )
    return str(f)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["box", "mesh", "urdf"])
def test_teleop_keys_grasp_lift_and_drop_any_object(kind, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``robotsim teleop --object OBJ --keyboard``'s studio, its page keys posted over real
    HTTP: the left arm keyed from its start pose down around the object (coarse at the
    mapping's 45 deg/s, then fine at 10), G closes the fingers until each touches, W
    lifts it, H lets it go and it falls back on the table; the Teleop tab shows the
    touches, who holds it and the events, and the drawn object follows it."""
    from tests.procs import free_port

    from robotsim.cli.teleop import teleop_studio
    from robotsim.hands.run import make_sim
    from robotsim.hands.scene import default_scene
    from robotsim.hands.teleop import HandsTeleop
    from robotsim.model import load_robot
    from robotsim.objects import load_object
    from robotsim.studio.keyboard import BrowserKeyboard

    monkeypatch.setenv("ROBOTSIM_CACHE_DIR", str(tmp_path / "cache"))
    obj = load_object(_object(kind, tmp_path))
    sim = make_sim(default_scene(load_robot("dual_arm_hands"), obj), "kinematic", 1 / 60, None)
    kb = BrowserKeyboard()
    tele = HandsTeleop(sim, [], True, "L", "arm_paper", "keyboard_arm", keyboard_device=kb)
    tele.open_devices()
    studio = teleop_studio(tele, port=free_port(), root=str(tmp_path))
    origin = f"http://127.0.0.1:{studio.port}"
    names = sim.model.joint_names

    def hold(key: str, ticks: int) -> None:
        _post_key(kb, origin, "down", key)
        for _ in range(ticks):
            studio.tick()
        _post_key(kb, origin, "up", key)
        studio.tick()

    def go(targets: dict[str, float]) -> None:
        step = tele.key_mapper.speed * sim.dt  # rad per tick at the speed step
        for role, target in targets.items():
            d = target - sim.q[names.index("L_" + role)]
            hold(KEYS[role][0 if d > 0 else 1], round(abs(d) / step))

    try:
        go(ABOVE)
        go(DOWN)
        hold("-", 1)
        hold("-", 1)  # 45 -> 20 -> 10 deg/s
        go(DOWN)
        q = {r: sim.q[names.index("L_" + r)] for r in DOWN}
        assert q == pytest.approx(DOWN, abs=0.003), q
        p0 = np.array(sim.snapshot().ball_position)
        _post_key(kb, origin, "down", "g")
        for _ in range(300):
            studio.tick()
            if sim.grasped["L"]:
                break
        _post_key(kb, origin, "up", "g")
        assert sim.touch["L"] == (True, True, True) and sim.snapshot().grasped_by == ("L",)
        hold("+", 1)
        hold("+", 1)
        hold("w", 30)  # half a second at 45 deg/s: the shoulder lifts it
        held = sim.snapshot()
        assert held.ball_position[2] > p0[2] + 0.1 and held.grasped_by == ("L",)
        np.testing.assert_allclose(studio.driver.ball.position, held.ball_position, atol=1e-9)
        studio.panels["teleop"].refresh()  # as on the clock's readout event
        text = studio.panels["teleop"].text.content
        assert f"**{obj.name}**" in text and "held by L" in text and "touch ● ● ●" in text
        hold("h", 60)
        for _ in range(60):
            studio.tick()
        end = sim.snapshot()
        assert end.grasped_by == () and end.ball_resting and end.ball_surface == "table"
        assert end.ball_position[2] < p0[2] + 0.01  # back down on the table top
        types = [e.type for e in sim.observable.events]
        assert types.count("touch") == 3 and types[3:] == ["grasp", "release", "landed"]
        studio.panels["teleop"].refresh()
        text = studio.panels["teleop"].text.content
        assert "release L" in text and "landed (table)" in text, text
    finally:
        studio.stop()
        tele.close()
        kb.close()
