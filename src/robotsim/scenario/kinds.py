"""The registry of scenario kinds: the ``kind:`` key of a scenario file selects them.

Every kind is declared once, in :data:`KINDS`, as a :class:`ScenarioKind`: its schema,
its runner, the command that runs it, and its studio opener and panel. Each is a
``"module:attribute"`` string, imported only when used, so importing this module
imports neither MuJoCo nor viser. Adding a kind is one new package (schema, runner,
studio opener/panel) plus one line here.

Contracts (what the strings point at):

- ``schema``: the pydantic model of the file (documentation, conformance tests);
- ``runner``: ``run(data, source, options) -> summary dict``, with the parsed YAML
  mapping (``--set`` overrides applied), the file name for messages, and
  :class:`robotsim.run_io.RunOptions`; ``None`` when ``robotsim run`` does not run the
  kind (``command`` names the command that does);
- ``studio_opener``: ``open(studio, path, doc) -> str`` replaces the studio's scene
  with the file (through ``studio.load_scene``) and returns a one-line description;
- ``studio_panel``: a class called as ``Panel(studio)`` inside its own tab
  ``panel_tab = (label, icon)``.

Files that say ``format: robotsim-clearance/1`` and no ``kind:`` are clearance files
(``legacy_formats``); :mod:`robotsim.clearance.scenario` prints a deprecation note.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from robotsim.errors import ScenarioError
from robotsim.run_io import RunOptions

__all__ = ["KINDS", "RunOptions", "ScenarioKind", "kind_of", "resolve", "runner_for"]


def resolve(ref: str) -> Any:
    """The object a ``"module:attribute"`` reference names (imports the module)."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class ScenarioKind:
    """One kind of scenario file (see the module docstring for the contracts)."""

    name: str
    summary: str
    schema: str
    runner: str | None = None
    command: str = "run"
    studio_opener: str | None = None
    studio_panel: str | None = None
    panel_tab: tuple[str, str] | None = None
    legacy_formats: tuple[str, ...] = ()

    def load_runner(self) -> Callable[[dict[str, Any], str, RunOptions], dict[str, Any]]:
        if self.runner is None:
            raise ScenarioError(f"kind: {self.name} has no runner")
        return resolve(self.runner)  # type: ignore[no-any-return]

    def load_schema(self) -> Any:
        return resolve(self.schema)

    def load_opener(self) -> Callable[..., str] | None:
        return None if self.studio_opener is None else resolve(self.studio_opener)

    def load_panel(self) -> Any:
        return None if self.studio_panel is None else resolve(self.studio_panel)


def _table(*kinds: ScenarioKind) -> Mapping[str, ScenarioKind]:
    return MappingProxyType({k.name: k for k in kinds})


# The table: one line per kind.
KINDS: Mapping[str, ScenarioKind] = _table(
    ScenarioKind(
        "mobile", "wheeled robots driving to goals among obstacles (seed 002)",
        schema="robotsim.mobile.schema:MobileScenario",
        runner="robotsim.mobile.run:run_scenario",
        studio_opener="robotsim.studio.mobile.driver:open_mobile",
        studio_panel="robotsim.studio.mobile.panel:MobilePanel", panel_tab=("Mobile", "car"),
    ),
    ScenarioKind(
        "hand_ball_transfer", "two arms with hands passing a ball (seed 001)",
        schema="robotsim.hands.scenario_spec:HandScenario",
        runner="robotsim.grasp.transfer:run_transfer_kind",
        studio_opener="robotsim.studio.hands.driver:open_hand_scenario",
    ),
    ScenarioKind(
        "grasp", "grasp trials of any object with any hand, in MuJoCo (seed 001's next step)",
        schema="robotsim.grasp.scenario:GraspScenario",
        runner="robotsim.grasp.scenario:run_grasp_kind",
        studio_opener="robotsim.studio.grasp.driver:open_grasp",
    ),
    ScenarioKind(
        "clearance", "robot-pair distance curves and collision intervals (seed 004)",
        schema="robotsim.clearance.scenario:ClearanceScenario",
        command="clearance",
        studio_opener="robotsim.studio.clearance.driver:open_clearance",
        studio_panel="robotsim.studio.clearance.panel:ClearancePanel",
        panel_tab=("Clearance", "ruler-measure"),
        legacy_formats=("robotsim-clearance/1",),
    ),
    ScenarioKind(
        "motion_check", "a motion program's physics check, profile physics overridable",
        schema="robotsim.motion.check_kind:MotionCheckScenario",
        runner="robotsim.motion.check_kind:run_motion_check_kind",
        studio_opener="robotsim.studio.sweep.opener:open_motion_check",
    ),
    ScenarioKind(
        "walk", "a humanoid walking in physics on a schedule of commands (seed 000)",
        schema="robotsim.walk.run:WalkScenario",
        runner="robotsim.walk.run:run_walk_kind",
        studio_opener="robotsim.studio.walk.driver:open_walk",
        studio_panel="robotsim.studio.walk.panel:WalkPanel", panel_tab=("Walk", "walk"),
    ),
    ScenarioKind(
        "sweep", "many runs of a base scenario over parameters",
        schema="robotsim.sweep.schema:SweepSpec",
        command="sweep",
        studio_opener="robotsim.studio.sweep.opener:open_sweep",
        studio_panel="robotsim.studio.sweep.panel:SweepPanel", panel_tab=("Sweep", "chart-dots"),
    ),
)  # fmt: skip


def kind_of(
    doc: Mapping[str, Any], source: str, kinds: Mapping[str, ScenarioKind] = KINDS
) -> ScenarioKind:
    """The kind of a parsed scenario file: its ``kind:``, or a legacy ``format:``;
    :class:`ScenarioError` naming the file and the valid kinds otherwise."""
    name = doc.get("kind")
    if name is None:
        fmt = doc.get("format")
        for k in kinds.values():
            if fmt in k.legacy_formats:
                return k
    if not isinstance(name, str) or name not in kinds:
        shown = "missing" if name is None else repr(name)
        raise ScenarioError(
            f"{source}: kind: {shown} is not a scenario kind; valid: {', '.join(kinds)}"
        )
    return kinds[name]


def runner_for(kind: object, source: str) -> Callable[[dict[str, Any], str, RunOptions], dict]:
    """The ``robotsim run`` runner of kind ``kind`` (a name)."""
    return kind_of({"kind": kind}, source).load_runner()
