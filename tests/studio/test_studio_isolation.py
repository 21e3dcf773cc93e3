"""The studio owns its registries: two studios in one process share no state, each
shows the kinds, tabs and drivers it was given, and no studio module keeps a mutable
table at module level."""

from __future__ import annotations

import ast
import socket
from pathlib import Path

import pytest

import robotsim.studio
from robotsim.scenario.kinds import KINDS
from robotsim.shipped import shipped_dir
from robotsim.studio import Studio
from robotsim.studio.app import SceneRobot
from robotsim.studio.drivers import PoseTour
from robotsim.studio.mobile.driver import MobileDriver
from robotsim.studio.panels import Tab, ViewPanel

SCENARIOS = shipped_dir("scenario")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Still:
    """A driver that holds every robot where it is."""

    name = "still"

    def reset(self, studio: Studio) -> None:
        pass

    def step(self, studio: Studio, t: float, dt: float) -> None:
        pass


@pytest.fixture(scope="module")
def pair():
    a = Studio(port=free_port())
    b = Studio(port=free_port(), kinds=[], tabs=[Tab("View", "eye", ViewPanel)],
               drivers={"still": _Still})  # fmt: skip
    yield a, b
    a.stop()
    b.stop()


def test_each_studio_shows_what_it_was_given(pair) -> None:
    a, b = pair
    assert list(a.kinds) == list(KINDS) and dict(b.kinds) == {}
    shown = {
        "sim",
        "live",
        "pose",
        "motion",
        "walk",
        "mobile",
        "clearance",
        "sweep",
        "open",
        "view",
    }
    assert set(a.panels) == shown
    assert set(b.panels) == {"sim", "live", "view"}
    assert a.params is not b.params and a.live is not b.live
    assert a.driver_names() == (PoseTour.name,) and b.driver_names() == ("still",)


def test_scenes_drivers_and_kinds_stay_in_their_studio(pair) -> None:
    a, b = pair
    a.open(SCENARIOS / "pid_p_vs_pd.yaml")
    b.load_scene("one arm", [SceneRobot("puma560")])
    assert set(a.robot_names()) == {"P", "PD"} and b.robot_names() == ("puma560",)
    assert isinstance(a.driver, MobileDriver) and b.driver_as(MobileDriver) is None
    assert a.driver_names() == (PoseTour.name, MobileDriver.name)
    assert b.driver_names() == ("still",)
    a.add_driver("still", _Still)
    assert "still" in a.driver_names() and b.driver_names() == ("still",)
    b.set_driver("still")
    assert isinstance(b.driver, _Still) and isinstance(a.driver, MobileDriver)
    # b opens no kinds: the same mobile file shows its robots generically, no physics
    desc = b.open(SCENARIOS / "pid_p_vs_pd.yaml")
    assert desc.startswith("scenario pid_p_vs_pd: ") and set(b.robot_names()) == {"P", "PD"}
    assert b.driver_as(MobileDriver) is None and a.driver_as(MobileDriver) is not None
    a.clear()
    assert a.robot_names() == () and set(b.robot_names()) == {"P", "PD"}
    assert a.driver_names() == (PoseTour.name, "still")


def test_load_scene_clears_adds_drives_titles_and_frames(pair) -> None:
    a, _ = pair
    drawn = []

    def draw(st: Studio):  # type: ignore[no-untyped-def]
        h = st.scene.add_icosphere("/objects/probe", radius=0.05)
        drawn.append(h)
        return [h]

    still = _Still()
    desc = a.load_scene("probe scene", [SceneRobot("puma560", "arm")], draw=draw, driver=still)
    assert desc == "probe scene: arm" and a.title == "probe scene"
    assert a.driver is still and a.objects == tuple(drawn) and a.robot_names() == ("arm",)
    assert a.driver_names()[-1] == "still"
    a.load_default()
    assert a.objects == () and a.driver.name == PoseTour.name and "arm" not in a.robot_names()


def _module_level_mutables(path: Path) -> list[str]:
    bad = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if names == ["__all__"]:
                continue
            v = node.value
            mutable = isinstance(v, ast.List | ast.Dict | ast.Set | ast.ListComp
                                 | ast.DictComp | ast.SetComp)  # fmt: skip
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name):
                mutable |= v.func.id in ("dict", "list", "set", "defaultdict", "OrderedDict")
            if mutable:
                bad.append(f"{path.name}:{node.lineno} {names}")
    return bad


def test_no_studio_module_keeps_a_mutable_table() -> None:
    root = Path(robotsim.studio.__file__).parent
    files = sorted(root.rglob("*.py"))
    assert len(files) > 10
    assert [b for f in files for b in _module_level_mutables(f)] == []


def test_only_the_studio_core_touches_its_clock() -> None:
    """Panels, openers and drivers read time through the studio's interface
    (``studio.time``, ``studio.dt``, the ``t, dt`` of ``Driver.step``), so the clock
    behind it can change without touching them."""
    root = Path(robotsim.studio.__file__).parent
    bad = []
    for path in sorted(root.rglob("*.py")):
        if path.name in ("app.py", "clock.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("clock", "_clock"):
                bad.append(f"{path.relative_to(root)}:{node.lineno}")
    assert not bad, f"reads the studio clock directly: {bad}"


def test_the_studio_offers_every_member_of_its_interface(pair) -> None:  # type: ignore[no-untyped-def]
    """``StudioAPI`` (what panels, openers and drivers are typed against) names only
    what ``Studio`` has, with the same signatures."""
    import inspect

    from robotsim.studio.interface import StudioAPI

    studio = pair[0]
    names = {n for n in vars(StudioAPI) if not n.startswith("_")} | set(StudioAPI.__annotations__)
    assert {"load_scene", "time", "dt", "source", "driver_as"} <= names
    for name in sorted(names):
        assert hasattr(studio, name), name
        declared = inspect.getattr_static(StudioAPI, name, None)
        if inspect.isfunction(declared):
            got = inspect.signature(getattr(Studio, name))
            assert list(got.parameters) == list(inspect.signature(declared).parameters), name
