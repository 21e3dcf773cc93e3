"""Files a scenario names are confined to the studio's workspace (issue 17): a scenario
inside the root that names a robot file, a mesh, a motion program, an MJCF include or
a base scenario outside it is refused where the loader would read it, with the scenario
field and the path in the page's error; the same files inside the root, built-in
robots and shipped scenarios open. Outside the studio (the command line, Python) every
path is read as given."""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
from pathlib import Path

import pytest

from robotsim.file_scope import OutsideScopeError, check_readable, confined
from robotsim.model import load_robot
from robotsim.shipped import find_shipped
from robotsim.studio import Studio

os.environ.setdefault("MUJOCO_GL", "egl")

URDF = """<robot name="two_link">
  <link name="base"><visual><geometry>{geometry}</geometry></visual></link>
  <link name="arm"><visual><geometry><box size="0.1 0.1 0.5"/></geometry></visual></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""
BOX = '<box size="0.2 0.2 0.1"/>'
STL = """solid t
facet normal 0 0 1
 outer loop
  vertex 0 0 0
  vertex 0.1 0 0
  vertex 0 0.1 0
 endloop
endfacet
endsolid t
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def setup(tmp_path_factory):  # type: ignore[no-untyped-def]
    base = tmp_path_factory.mktemp("scope")
    root, outside = base / "ws", base / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "arm.urdf").write_text(URDF.format(geometry=BOX))
    (root / "arm.urdf").write_text(URDF.format(geometry=BOX))
    (outside / "tri.stl").write_text(STL)
    st = Studio(port=free_port(), root=root)
    yield st, root, outside
    st.stop()


def _page_error(studio: Studio, path: Path) -> str:
    """Open ``path`` as the Open tab does (a guarded page callback); the error shown."""
    before = len(studio.errors)
    studio.guarded("open")(studio.panels["open"].open_robot)(str(path))
    shown = studio.errors[before:]
    assert len(shown) == 1, shown
    return shown[0]


def _refused(message: str, field: str, path: Path) -> None:
    assert f"{field}: " in message, message
    assert str(path) in message and "outside the studio's workspace" in message, message
    assert "--root DIR" in message, message


def test_generic_robots_outside_the_root_are_refused(setup) -> None:  # type: ignore[no-untyped-def]
    studio, root, _ = setup
    scen = root / "generic.yaml"
    scen.write_text("robots:\n  A: {robot: ../outside/arm.urdf}\n")
    msg = _page_error(studio, scen)
    _refused(msg, "robots.A", Path("../outside/arm.urdf"))
    scen.write_text("robots:\n  A: {robot: arm.urdf}\n  B: {robot: puma560}\n")
    studio.guarded("open")(studio.panels["open"].open_robot)(str(scen))
    assert set(studio.robots) == {"A", "B"}


def test_every_kind_names_the_field(setup) -> None:  # type: ignore[no-untyped-def]
    studio, root, outside = setup
    arm = outside / "arm.urdf"
    cases = {
        "mobile.yaml": ("kind: mobile\nname: m\nduration: 5\nrobots:\n"
                        f"  - {{name: r, model: {arm}, start: [0, 0, 0], goal: [1, 0, 0]}}\n",
                        "robots[0].model"),
        "clearance.yaml": (find_shipped("two_puma_fitted_volumes", "scenario").read_text()  # type: ignore[union-attr]
                           .replace("model: puma560", f"model: {arm}", 1), "robots[0].model"),
        "hands.yaml": (find_shipped("hand_ball_transfer", "scenario").read_text()  # type: ignore[union-attr]
                       .replace("robot: dual_arm_hands", f"robot: {arm}"), "robot"),
        "check.yaml": (f"kind: motion_check\nname: c\nprogram: {outside / 'walk.yaml'}\n",
                       "program"),
        "sweep.yaml": ("kind: sweep\nname: s\nbase: ../outside/base.yaml\n"
                       "parameters: {d: {path: duration, values: [1, 2]}}\n", "base"),
    }  # fmt: skip
    shutil.copy(find_shipped("walk_forward", "motion"), outside / "walk.yaml")  # type: ignore[arg-type]
    shutil.copy(find_shipped("soccer_obstacles", "scenario"), outside / "base.yaml")  # type: ignore[arg-type]
    for name, (text, field) in cases.items():
        (root / name).write_text(text)
        msg = _page_error(studio, root / name)
        assert re.search(rf"{re.escape(field)}(\.\w+)?: ", msg), (name, msg)
        assert "outside the studio's workspace" in msg, (name, msg)


def test_meshes_and_mjcf_includes_outside_are_refused(setup) -> None:  # type: ignore[no-untyped-def]
    studio, root, outside = setup
    stl = outside / "tri.stl"
    (root / "meshy.urdf").write_text(URDF.format(geometry=f'<mesh filename="{stl}"/>'))
    _refused(_page_error(studio, root / "meshy.urdf"), "mesh filename", stl)
    (root / "meshy.yaml").write_text(
        "format: robotsim-robot/1\nname: meshy\nlinks:\n"
        "  - {name: base, visuals: [{type: mesh, file: ../outside/tri.stl}]}\n"
    )
    msg = _page_error(studio, root / "meshy.yaml")
    assert "file: " in msg and "outside the studio's workspace" in msg, msg
    (outside / "part.xml").write_text("<mujoco><worldbody/></mujoco>")
    (root / "incl.xml").write_text(
        '<mujoco model="incl"><include file="../outside/part.xml"/>'
        '<worldbody><body><joint type="hinge"/><geom size="0.1"/></body></worldbody></mujoco>'
    )
    msg = _page_error(studio, root / "incl.xml")
    assert "<include file>: " in msg and "outside the studio's workspace" in msg, msg
    # the same mesh beside the robot, inside the root, opens
    shutil.copy(stl, root / "tri.stl")
    (root / "meshy.urdf").write_text(URDF.format(geometry='<mesh filename="tri.stl"/>'))
    before = len(studio.errors)
    studio.guarded("open")(studio.panels["open"].open_robot)(str(root / "meshy.urdf"))
    assert studio.errors[before:] == [] and "two_link" in studio.robots


def test_shipped_scenarios_still_open_in_the_studio(setup) -> None:  # type: ignore[no-untyped-def]
    studio, _, _ = setup
    before = len(studio.errors)
    studio.guarded("open")(studio.panels["open"].open_robot)("three_puma_clearance")
    assert studio.errors[before:] == []
    assert len(studio.robots) == 3


def test_the_sweep_tab_path_is_confined(setup) -> None:  # type: ignore[no-untyped-def]
    studio, _, outside = setup
    panel = studio.panels["sweep"]
    before = len(studio.errors)
    studio.guarded("load sweep")(panel.load_path)(str(outside))
    assert "outside the studio's workspace" in studio.errors[before], studio.errors[before:]


def test_outside_the_studio_every_path_is_read(setup) -> None:  # type: ignore[no-untyped-def]
    _, root, outside = setup
    assert load_robot(outside / "arm.urdf").name == "two_link"  # the user is the caller
    with confined(root, "the test folder"):
        with pytest.raises(OutsideScopeError, match="outside the test folder"):
            load_robot(outside / "arm.urdf")
        (root / "link").symlink_to(outside)
        with pytest.raises(OutsideScopeError):
            check_readable(root / "link" / "arm.urdf")  # a symlink out is outside
        assert load_robot("puma560").name  # built-in robots and package files stay readable
        seen: list[BaseException | None] = []

        def other_thread() -> None:
            try:
                check_readable(outside / "arm.urdf")
                seen.append(None)
            except OutsideScopeError as exc:
                seen.append(exc)

        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        assert seen == [None]  # the scope belongs to the thread that entered it
    check_readable(outside / "arm.urdf")
