"""The Clearance tab's "Plan around collisions" section (issue 25): choose a method and
a margin, press Plan; the plan (:func:`robotsim.plan.plan`) runs in the background on
the open scenario, its files are written into the workspace
(``plans/<scenario>/``: the planned ``scenario.yaml``, the curves, ``summary.json``),
and the section shows the verdict and every pair's distance before (dashed) and after
(solid). "Open planned scenario" opens the planned file: the robots then move along
the new trajectories and the tab's curves are the planned ones.
"""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.studio.clearance.driver import ClearanceDriver

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["PLAN_DIR", "PlanSection"]

#: Where plans are written, inside the studio's workspace.
PLAN_DIR = "plans"
_BUDGET_S = 30.0


def _png_array(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(path.read_bytes())) as im:
        return np.asarray(im.convert("RGB"))


class PlanSection:
    """The section's widgets and the last plan (``summary``, ``paths``); ``busy`` while
    a plan runs."""

    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        gui = studio.gui
        self.folder = gui.add_folder("Plan around collisions", expand_by_default=True)
        with self.folder:
            self.method = gui.add_dropdown(
                "Method",
                ("auto", "delay", "scale", "replan"),
                initial_value="auto",
                hint="delay: start one robot later; scale: slow "
                "one down over a window; replan: a new path for "
                "one robot; auto: the least added time",
            )
            self.margin = gui.add_number(
                "Margin (m)",
                initial_value=0.02,
                min=0.0,
                max=1.0,
                step=0.005,
                hint="Every pair keeps at least this distance over the whole run (certified)",
            )
            self.button = gui.add_button(
                "Plan",
                hint="Make the open scenario collision "
                "free; writes plans/<scenario>/ in the workspace",
            )
            self.result = gui.add_markdown("")
            self.image = gui.add_image(
                np.full((8, 8, 3), 245, np.uint8),
                label="Before / after",
                format="png",
                visible=False,
            )
            self.open_button = gui.add_button(
                "Open planned scenario",
                visible=False,
                hint="Show the robots on the planned trajectories",
            )
        self.summary: dict[str, Any] | None = None
        self.paths: dict[str, Path] = {}
        self.busy = False
        self._thread: threading.Thread | None = None

        @self.button.on_click
        @studio.guarded("plan")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.start()

        @self.open_button.on_click
        @studio.guarded("open planned scenario")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.open_planned()

    @property
    def driver(self) -> ClearanceDriver | None:
        return self.studio.driver_as(ClearanceDriver)

    def out_dir(self) -> Path:
        """``plans/<scenario stem>/`` in the workspace."""
        d = self.driver
        stem = d.title if d is not None else "scenario"
        return self.studio.workspace.resolve(f"{PLAN_DIR}/{stem}")

    def start(self) -> None:
        """Plan in a background thread (the page stays live); a second press while a
        plan runs is ignored."""
        if self.busy:
            return
        if self.driver is None:
            self.result.content = "Open a clearance scenario first."
            return
        self.busy = True
        self.result.content = f"Planning ({self.method.value}, margin {self.margin.value:g} m)…"
        self._thread = threading.Thread(target=self._run_guarded, name="robotsim-plan", daemon=True)
        self._thread.start()

    def wait(self, timeout: float | None = None) -> None:
        """Until the background plan has finished (tests, scripts)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _run_guarded(self) -> None:
        try:
            with self.studio.workspace.confined():
                self.run(self.method.value, float(self.margin.value))
        except Exception as exc:
            self.result.content = f"**Plan failed**: {exc}"
            self.studio.report_error("plan", exc)
        finally:
            self.busy = False

    def run(self, method: str, margin: float, budget_s: float = _BUDGET_S) -> dict[str, Any]:
        """Plan the open scenario now (in the calling thread) and show the result."""
        from robotsim.plan.report import write_plan
        from robotsim.plan.solve import plan
        from robotsim.scenario_yaml import read_scenario_yaml

        d = self.driver
        source = self.studio.source
        if d is None or source is None:
            raise RuntimeError("no clearance scenario is open")
        loaded = d.loaded
        result = plan(
            loaded.scene,
            loaded.trajectories,
            loaded.dt,
            method=method,  # type: ignore[arg-type]
            margin=margin,
            budget_s=budget_s,
        )
        summary, paths = write_plan(result, read_scenario_yaml(source), self.out_dir(), loaded.dt)
        self.summary, self.paths = summary, paths
        self.show(summary, paths)
        return summary

    def show(self, s: dict[str, Any], paths: dict[str, Path]) -> None:
        if s["collision_free"]:
            head = "**Collision free** (certified)"
        else:
            head = "**Not collision free**"
        changes = ", ".join(_change_text(c) for c in s["changes"]) or "no change"
        text = (
            f"{head} · {s['method']} · {changes}<br>min distance {s['min_distance_m']:.3f} m "
            f"(≥ {s['min_distance_lower_bound_m']:.3f} m) · margin {s['margin_m']:g} m · "
            f"added {s['added_time_s']:.2f} s · planned in {s['plan_time_s']:.1f} s<br>"
            f"wrote `{paths['scenario']}`"
        )
        if not s["collision_free"]:
            text += "<br>" + "<br>".join(str(r) for r in s["reasons"][-4:])
        self.result.content = text
        if "png" in paths:
            self.image.image = _png_array(paths["png"])
            self.image.visible = True
        self.open_button.visible = bool(s["changes"])

    def open_planned(self) -> str:
        """Open the planned scenario (robots on the new trajectories)."""
        if "scenario" not in self.paths:
            raise RuntimeError("no plan yet: press Plan first")
        return self.studio.open(self.paths["scenario"])


def _change_text(c: dict[str, Any]) -> str:
    """One change: robot, method, added time; a replan's timing against rest to rest."""
    text = f"{c['robot']}: {c['method']} {c['added_time_s']:+.2f} s"
    if c.get("timing") is not None:
        text += f" ({c['timing']}; rest to rest {c['rest_to_rest_added_time_s']:+.2f} s)"
    return text
