"""Studio openers of ``kind: sweep`` and ``kind: motion_check`` files.

A sweep opens as one of its runs: the base scenario with that run's overrides (and
seed), shown by the base kind's own opener. Opening a sweep folder's ``sweep.yaml``
(what ``robotsim sweep --out DIR`` writes) replays its first finished run;
:func:`open_sweep_run` opens any run of a folder by its key (``p00012-r0``), which the
Sweep tab (:mod:`robotsim.studio.sweep.panel`) offers as a run picker. A
``motion_check`` file opens its program's robot at the start pose (the Motion tab plays
the program).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from robotsim.errors import InputError

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["open_motion_check", "open_sweep", "open_sweep_run"]


def _open_task(studio: Studio, sweep_file: Path, key: str | None, rows: dict[str, Any]) -> str:
    from robotsim.scenario.kinds import kind_of
    from robotsim.scenario_yaml import apply_overrides
    from robotsim.sweep import load_sweep
    from robotsim.sweep.engine import known_tasks

    sw = load_sweep(sweep_file)
    tasks = {t.key: t for t in known_tasks(sw, rows)}
    if not tasks:
        raise InputError(f"{sweep_file}: the optimiser has run nothing yet (no runs to open)")
    if key is None:
        done = [k for k in tasks if rows.get(k, {}).get("status") == "ok"]
        key = done[0] if done else next(iter(tasks))
    if key not in tasks:
        raise InputError(f"{sweep_file}: no run {key!r}; runs: {', '.join(list(tasks)[:10])} ...")
    task = tasks[key]
    data = apply_overrides(sw.base_data, list(task.overrides), str(sw.base_path))
    if task.seed is not None:
        data["seed"] = task.seed
    opener = kind_of(data, str(sw.base_path)).load_opener()
    if opener is None:
        raise InputError(f"{sw.base_path}: its kind has no studio opener")
    shown = opener(studio, sw.base_path, data)
    params = ", ".join(
        f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in task.params.items()
    )
    return f"sweep {sw.spec.name} run {key} ({params}): {shown}"


def open_sweep(studio: Studio, path: Path, doc: dict[str, Any]) -> str:
    """The ``kind: sweep`` opener: the first finished run of the folder the file sits
    in (a sweep folder), else the sweep's first run."""
    from robotsim.sweep import read_rows

    del doc  # load_sweep reads and checks the file itself
    return _open_task(studio, path, None, read_rows(path.parent))


def open_sweep_run(studio: Studio, sweep: str | Path, key: str) -> str:
    """Replay run ``key`` of a sweep folder (``robotsim sweep --out DIR``) or of a sweep
    file in the studio."""
    from robotsim.sweep import read_meta, read_rows

    target = Path(sweep)
    if target.is_dir():
        read_meta(target)  # a clear error for a folder that is not a sweep's
        target = target / "sweep.yaml"
    return _open_task(studio, target, key, read_rows(target.parent))


def open_motion_check(studio: Studio, path: Path, doc: dict[str, Any]) -> str:
    """The ``kind: motion_check`` opener: the program's robot at its start pose."""
    from pydantic import ValidationError

    from robotsim.errors import ScenarioError
    from robotsim.file_scope import OutsideScopeError
    from robotsim.model import load_robot
    from robotsim.motion.check_kind import MotionCheckScenario
    from robotsim.motion.schema import load_program
    from robotsim.studio.interface import SceneRobot
    from robotsim.validation import format_validation_error

    try:
        sc = MotionCheckScenario.model_validate(doc)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(exc, MotionCheckScenario, path)) from None
    try:
        program = load_program((path.resolve().parent / sc.program).resolve())
    except OutsideScopeError as exc:
        raise ScenarioError(f"{path}: program: {exc}") from None
    try:
        model = load_robot(sc.robot or program.robot or "")
    except OutsideScopeError as exc:
        raise ScenarioError(f"{path}: robot: {exc}") from None
    q0 = model.pose(program.start) if isinstance(program.start, str) else None
    return studio.load_scene(
        f"scenario {path.stem} (motion_check: {program.name})",
        [SceneRobot(model, model.name, q=q0, on_ground=True)],
    )
