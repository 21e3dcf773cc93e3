"""The registry of scenario kinds: one table, lazy references, dispatch by ``kind:``,
legacy clearance files, and the commands that refuse a kind they do not run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel

import robotsim.clearance.scenario as clearance_scenario
from robotsim.cli import main
from robotsim.errors import ScenarioError
from robotsim.scenario.kinds import KINDS, ScenarioKind, kind_of
from robotsim.shipped import shipped_dir

SCENARIOS = shipped_dir("scenario")


def test_importing_the_registry_imports_neither_mujoco_nor_viser() -> None:
    code = (
        "import sys, robotsim.scenario.kinds as k, robotsim.scenario;"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('mujoco', 'viser')];"
        "print(len(k.KINDS), heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    assert out == [str(len(KINDS)), "[]"]


@pytest.mark.parametrize("kind", list(KINDS.values()), ids=list(KINDS))
def test_every_reference_of_every_kind_resolves(kind: ScenarioKind) -> None:
    assert issubclass(kind.load_schema(), BaseModel)
    if kind.runner is None:
        assert kind.command != "run"
    else:
        assert kind.command == "run" and callable(kind.load_runner())
    opener = kind.load_opener()
    assert opener is not None and callable(opener)
    panel = kind.load_panel()
    assert (panel is None) == (kind.panel_tab is None)
    if panel is not None:
        assert isinstance(panel, type)


def test_every_shipped_scenario_says_its_kind() -> None:
    files = sorted(SCENARIOS.glob("*.yaml"))
    assert files
    for f in files:
        doc = yaml.safe_load(f.read_text())
        assert doc.get("kind") in KINDS, f.name
        assert kind_of(doc, f.name).name == doc["kind"]


def test_kind_of_names_the_file_and_the_valid_kinds() -> None:
    with pytest.raises(
        ScenarioError, match=r"^x.yaml: kind: 'boat' is not a scenario kind; valid: mobile, "
    ):
        kind_of({"kind": "boat"}, "x.yaml")
    with pytest.raises(ScenarioError, match=r"^x.yaml: kind: missing is not a scenario kind"):
        kind_of({"name": "n"}, "x.yaml")
    assert kind_of({"format": "robotsim-clearance/1"}, "x.yaml").name == "clearance"


def test_a_new_kind_is_one_table_entry() -> None:
    mine = ScenarioKind("echo", "returns its data", schema="pydantic:BaseModel",
                        runner="builtins:dict")  # fmt: skip
    table = {**KINDS, "echo": mine}
    k = kind_of({"kind": "echo"}, "e.yaml", table)
    assert k is mine and k.load_runner()(a=1) == {"a": 1}
    with pytest.raises(ScenarioError):
        kind_of({"kind": "echo"}, "e.yaml")  # the shipped table is not changed


def test_run_and_clearance_refuse_each_others_kinds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clear = SCENARIOS / "three_puma_clearance.yaml"
    assert main(["run", str(clear)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"error: {clear}: kind: clearance is a clearance study, not a run "
                   f"scenario; use 'robotsim clearance {clear}'")  # fmt: skip
    mobile = SCENARIOS / "pid_p_vs_pd.yaml"
    assert main(["clearance", str(mobile), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err
        == f"error: {mobile}: kind: mobile is not a clearance study; use 'robotsim run {mobile}'"
    )


def test_legacy_clearance_files_load_with_one_deprecation_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = yaml.safe_load((SCENARIOS / "two_puma_fitted_volumes.yaml").read_text())
    del doc["kind"]
    doc["format"] = "robotsim-clearance/1"
    legacy = tmp_path / "legacy.yaml"
    legacy.write_text(yaml.safe_dump(doc))
    monkeypatch.setattr(clearance_scenario, "_noted", [])
    a = clearance_scenario.load_scenario(legacy)
    b = clearance_scenario.load_scenario(legacy)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "add 'kind: clearance'" in err and str(legacy) in err
    assert [r.name for r in a.scene.robots] == [r.name for r in b.scene.robots] == ["A", "B"]
    # the same file with kind: is quiet, and a file with neither is refused
    doc_new = dict(doc, kind="clearance")
    del doc_new["format"]
    legacy.write_text(yaml.safe_dump(doc_new))
    clearance_scenario.load_scenario(legacy)
    assert capsys.readouterr().err == ""
    del doc_new["kind"]
    legacy.write_text(yaml.safe_dump(doc_new))
    with pytest.raises(ScenarioError, match="a clearance file says 'kind: clearance'"):
        clearance_scenario.load_scenario(legacy)
