"""Opening things: a built-in robot, a robot file (URDF, MJCF, robot YAML) by path, a
shipped scenario, a recorded run of a run store (replayed: :mod:`robotsim.studio.replay`),
or the default scene. Opening replaces the scene; "Add" puts a robot
beside the others. A bad file shows an error notification; the scene stays as it was.
The Profile folder below shows the opened robot's inferred profile
(:mod:`robotsim.studio.profile`). Paths typed here are confined to the studio's
workspace (:mod:`robotsim.studio.workspace`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from robotsim.errors import InputError
from robotsim.model import library_names
from robotsim.shipped import find_shipped
from robotsim.studio.scenarios import list_scenarios

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["FilesPanel"]


class FilesPanel:
    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        gui = studio.gui
        lib = tuple(library_names()) or ("",)
        self.library = gui.add_dropdown("Built-in robot", lib, initial_value=lib[0])
        lib_buttons = gui.add_button_group("Robot", ("Open", "Add"))
        self.path = gui.add_text("Robot file", initial_value="",
                                 hint="Path to a .urdf, .xml (MJCF) or robot .yaml, "
                                 f"in {studio.workspace.root}")  # fmt: skip
        path_buttons = gui.add_button_group("File", ("Open file", "Add file"))
        self.scenarios: dict[str, Path] = {}
        self.scenario = gui.add_dropdown("Scenario", ("",), initial_value="")
        scen_buttons = gui.add_button_group("Scenarios", ("Open scenario", "Rescan"))
        self.run_store = gui.add_text(
            "Run store",
            initial_value="",
            hint="A run store (runs.sqlite, or the folder of robotsim run --out) to replay",
        )
        self.run_id = gui.add_text("Run", initial_value="last", hint="A run id, or last")
        run_button = gui.add_button("Replay run", icon="player-play")
        self.default = gui.add_button("Default scene", icon="home")
        self.status = gui.add_markdown("")
        with gui.add_folder("Profile"):  # what robotsim infers about the opened robot
            from robotsim.studio.profile.panel import ProfilePanel

            self.profile = ProfilePanel(studio)

        @lib_buttons.on_click
        @studio.guarded("open robot")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            self.open_robot(self.library.value, add=event.target.value == "Add")

        @path_buttons.on_click
        @studio.guarded("open robot file")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            self.open_robot(self.path.value, add=event.target.value == "Add file")

        @scen_buttons.on_click
        @studio.guarded("scenario")
        def _(event) -> None:  # type: ignore[no-untyped-def]
            if event.target.value == "Rescan":
                self.rescan()
            else:
                self.open_scenario(self.scenario.value)

        @run_button.on_click
        @studio.guarded("replay run")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            self.open_run(self.run_store.value, self.run_id.value)

        @self.default.on_click
        @studio.guarded("default scene")
        def _(_) -> None:  # type: ignore[no-untyped-def]
            studio.load_default()
            self.status.content = studio.title

        self.rescan()

    def rescan(self) -> None:
        """Re-list the shipped scenarios."""
        self.scenarios = {p.stem: p for p in list_scenarios(self.studio.workspace.root)}
        names = tuple(self.scenarios) or ("",)
        self.scenario.options = names
        if self.scenario.value not in names:
            self.scenario.value = names[0]
        self.status.content = f"{len(self.scenarios)} scenarios found"

    def open_robot(self, target: str, add: bool = False) -> None:
        """Open (or ``add``) a built-in robot, a shipped scenario (by name) or a file in
        the workspace; a path outside it is refused."""
        st = self.studio
        text = str(target).strip()
        source: str | Path | None = text if text in library_names() else None
        if source is None and not add:
            source = find_shipped(text, "scenario")
        if source is None:
            source = st.workspace.readable(text)
        with st.workspace.reading(text):
            if add:
                view = st.add_robot(source)
                st.frame_camera()
                self.status.content = f"added {view.name}"
            else:
                self.status.content = st.open(source)

    def open_run(self, store: str, run: str = "last") -> None:
        """Replay run ``run`` (an id or ``last``) of a run store in the workspace (a
        file, or a folder holding ``runs.sqlite``); a path outside it is refused."""
        from robotsim.studio.replay import open_run

        st = self.studio
        text = str(store).strip()
        if not text:
            raise InputError("Run store: give a runs.sqlite file or its folder")
        path = st.workspace.resolve(text)
        if path.is_dir():
            path = path / "runs.sqlite"
        if not path.is_file():
            raise InputError(f"Run store: {text}: no run store there")
        with st.workspace.reading(text):
            self.status.content = open_run(st, path, str(run).strip() or "last")

    def open_scenario(self, name: str) -> None:
        from robotsim.errors import UnknownNameError

        if name not in self.scenarios:
            raise UnknownNameError("scenario", name, list(self.scenarios))
        self.status.content = self.studio.open(self.scenarios[name])
