"""Scenarios in the studio: listing the shipped files and opening one.

A file whose ``kind:`` is one of the studio's kinds (``Studio(kinds=...)``, the
registry :mod:`robotsim.scenario.kinds` by default) opens through that kind's
``studio_opener``. Any other scenario whose ``robots:`` section names robots is shown
generically: each robot from the library or a file, at its base pose.

The generic ``robots:`` entries accept (a list of mappings or a mapping by name)::

    robots:
      A: {robot: puma560, base: {xyz: [0, 0, 0], rpy: [0, 0, 90]}, q: [...]}

``rpy``/``yaw``/``q`` angles are radians unless the file says ``units: {angle: deg}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import yaml

from robotsim.errors import InputError, ScenarioError
from robotsim.shipped import shipped_dir
from robotsim.spatial import make_T, rpy_to_R
from robotsim.validation import MAX_YAML_BYTES, YamlLimitError, safe_load, yaml_error_message

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = [
    "is_motion_file",
    "is_scenario_file",
    "list_scenarios",
    "open_scenario",
    "read_yaml",
    "scenario_dirs",
]

_ROBOT_KEYS = ("robot", "model", "file")


def scenario_dirs(root: Path | None = None) -> list[Path]:
    """Where the picker looks: ``scenarios/`` in ``root`` (your own files; default: the
    current directory, the studio's workspace) and the shipped scenarios (package
    data), those that exist."""
    out: list[Path] = []
    for d in ((root or Path.cwd()) / "scenarios", shipped_dir("scenario")):
        if d.is_dir() and d.resolve() not in [o.resolve() for o in out]:
            out.append(d)
    return out


def list_scenarios(root: Path | None = None) -> list[Path]:
    """Every ``*.yaml``/``*.yml`` file in :func:`scenario_dirs`, sorted by name."""
    files = {p.resolve() for d in scenario_dirs(root) for p in d.glob("*.y*ml")}
    return sorted(files, key=lambda p: p.name)


def _load(path: Path) -> Any:
    """The YAML document in ``path`` through the bounded loader (size checked before
    reading); :class:`yaml.YAMLError` if it is not one."""
    size = path.stat().st_size
    if size > MAX_YAML_BYTES:
        raise YamlLimitError(f"{size:,} bytes is more than the {MAX_YAML_BYTES:,}-byte limit")
    return safe_load(path.read_bytes())


def read_yaml(path: Path) -> dict[str, Any]:
    """The YAML mapping in ``path``; :class:`ScenarioError` naming the file otherwise."""
    if not path.is_file():
        raise ScenarioError(f"{path}: no such scenario file")
    try:
        doc = _load(path)
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{path}: {yaml_error_message(exc)}") from None
    if not isinstance(doc, dict):
        raise ScenarioError(f"{path}: expected a YAML mapping at the top level")
    return doc


def is_motion_file(path: Path) -> bool:
    """A motion or program file (``format: robotsim-motion/1`` or ``robotsim-program/1``),
    which the studio opens in its motion editor as well as showing its robot."""
    try:
        doc = read_yaml(path)
    except ScenarioError:
        return False
    return str(doc.get("format", "")) in ("robotsim-motion/1", "robotsim-program/1")


def is_scenario_file(path: Path) -> bool:
    """A YAML file that is not a robot file (robot files say ``format: robotsim-robot/…``
    or have a ``dh:``/``links:`` section). A file that is not valid YAML counts as a
    scenario when it sits in a ``scenario(s)`` folder or mentions ``robots`` (so
    :func:`open_scenario` reports it), else as a robot file."""
    if path.suffix.lower() not in (".yaml", ".yml") or not path.is_file():
        return False
    try:
        doc = _load(path)
    except yaml.YAMLError as exc:
        if {"scenario", "scenarios"} & set(path.parts) or isinstance(exc, YamlLimitError):
            return True  # a scenario folder, or a file past the limits (not read again)
        return "robots" in path.read_text(encoding="utf-8", errors="replace")
    if not isinstance(doc, dict):
        return True  # let open_scenario report it
    fmt = str(doc.get("format", ""))
    return not (fmt.startswith("robotsim-robot") or "dh" in doc or "links" in doc)


def open_scenario(studio: Studio, path: Path) -> str:
    """Replace the studio's scene with the scenario in ``path``; returns a description.
    Bad files raise :class:`ScenarioError` and leave the current scene as it was."""
    from robotsim.scenario.kinds import kind_of

    doc = read_yaml(path)
    try:
        kind = kind_of(doc, str(path), studio.kinds)
    except ScenarioError:  # no kind this studio knows: show its robots
        return _open_generic(studio, path, doc)
    opener = kind.load_opener()
    if opener is None:
        raise ScenarioError(f"{path}: kind: {kind.name} has no studio view")
    return opener(studio, path, doc)


def _entries(path: Path, doc: dict[str, Any]) -> list[tuple[str | None, dict[str, Any]]]:
    robots = doc.get("robots")
    if robots is None and "robot" in doc:
        # One robot: the top level holds its start (``start``, ``start_pose``, ``base``).
        single = doc["robot"]
        entry = dict(single) if isinstance(single, dict) else {"robot": single}
        for key in ("start", "start_pose", "base", "q"):
            if key in doc and key not in entry:
                entry[key] = doc[key]
        robots = [entry]
    if robots is None:
        raise ScenarioError(
            f"{path}: no 'kind:', 'robots:' or 'robot:' section: not a scenario the studio can show"
        )
    if isinstance(robots, dict):
        items = [(str(k), v) for k, v in robots.items()]
    elif isinstance(robots, list):
        items = [(None, v) for v in robots]
    else:
        raise ScenarioError(f"{path}: robots: expected a list or a mapping")
    out = []
    for i, (name, entry) in enumerate(items):
        where = f"robots.{name if name is not None else i}"
        if isinstance(entry, str):
            entry = {"robot": entry}
        if not isinstance(entry, dict):
            raise ScenarioError(f"{path}: {where}: expected a mapping with 'robot:'")
        if name is None and "name" in entry:
            name = str(entry["name"])
        out.append((name, entry))
    return out


def _angle_scale(doc: dict[str, Any]) -> float:
    units = doc.get("units") or {}
    return np.pi / 180.0 if isinstance(units, dict) and units.get("angle") == "deg" else 1.0


def _base(path: Path, where: str, entry: dict[str, Any], k: float) -> np.ndarray | None:
    base = entry.get("base", entry.get("pose"))
    if base is None and "xyz" in entry:
        base = {"xyz": entry["xyz"], "rpy": entry.get("rpy", [0, 0, 0])}
    if base is None:
        return None
    try:
        if isinstance(base, list | tuple):
            vals = [float(v) for v in base]
            if len(vals) == 3:
                xyz, rpy = vals, [0.0, 0.0, 0.0]
            elif len(vals) == 4:  # x, y, z, yaw
                xyz, rpy = vals[:3], [0.0, 0.0, vals[3]]
            elif len(vals) == 6:
                xyz, rpy = vals[:3], vals[3:]
            else:
                raise ValueError("expected 3, 4 or 6 numbers")
        elif isinstance(base, dict):
            xyz = [float(v) for v in base.get("xyz", base.get("position", [0, 0, 0]))]
            rpy = [float(v) for v in base.get("rpy", [0, 0, float(base.get("yaw", 0.0))])]
            if len(xyz) != 3 or len(rpy) != 3:
                raise ValueError("xyz and rpy need 3 numbers each")
        else:
            raise ValueError("expected a list or a mapping")
    except (TypeError, ValueError) as exc:
        raise ScenarioError(f"{path}: {where}.base: {exc}") from None
    return make_T(rpy_to_R(np.asarray(rpy) * k), np.asarray(xyz))


def _start_q(
    path: Path, where: str, entry: dict[str, Any], model: Any, k: float
) -> np.ndarray | None:
    """The start configuration: ``start_pose`` (a named pose), then joint values by name
    (``start`` or ``q`` as a mapping) or a full ``q`` list, in the file's angle unit."""
    q = None
    if "start_pose" in entry:
        pose = str(entry["start_pose"])
        if pose not in model.poses:
            raise ScenarioError(
                f"{path}: {where}.start_pose: {model.name} has no pose {pose!r}; "
                f"valid: {', '.join(model.poses) or 'none'}"
            )
        q = model.pose(pose)
    for key in ("start", "q"):
        values = entry.get(key)
        if isinstance(values, dict):
            try:
                scaled = {str(n): float(v) * k for n, v in values.items()}
                q = model.q_from(scaled, base=q)
            except (TypeError, ValueError):
                raise ScenarioError(f"{path}: {where}.{key}: expected numbers") from None
            except InputError as exc:
                raise ScenarioError(f"{path}: {where}.{key}: {exc}") from None
        elif key == "q" and values is not None:
            try:
                q = np.asarray(values, dtype=float) * k
            except (TypeError, ValueError):
                raise ScenarioError(f"{path}: {where}.q: expected numbers") from None
            if q.shape != (model.nq,):
                raise ScenarioError(
                    f"{path}: {where}.q: {model.name} needs {model.nq} values, got {q.size}"
                )
    return q


def _open_generic(studio: Studio, path: Path, doc: dict[str, Any]) -> str:
    from robotsim.model import load_robot

    k = _angle_scale(doc)
    planned = []
    for name, entry in _entries(path, doc):
        where = f"robots.{name}" if name else "robots"
        ref = next((entry[key] for key in _ROBOT_KEYS if key in entry), None)
        if ref is None:
            raise ScenarioError(f"{path}: {where}: missing 'robot:' (a library name or file)")
        ref_path = Path(str(ref))
        if not ref_path.is_absolute() and (path.parent / ref_path).exists():
            ref_path = path.parent / ref_path
        try:
            model = load_robot(ref_path if ref_path.exists() else str(ref))
        except InputError as exc:
            raise ScenarioError(f"{path}: {where}: {exc}") from None
        q = _start_q(path, where, entry, model, k)
        T = _base(path, where, entry, k)
        start = entry.get("start")
        on_ground = model.floating and T is None
        if T is None and isinstance(start, list | tuple):  # a mobile start: x, y[, yaw]
            xy = list(start)
            T = _base(path, f"{where}.start", {"base": [*xy[:2], 0.0, *xy[2:3]]}, k)
            on_ground = True
        planned.append((name, model, T, q, on_ground))
    if not planned:
        raise ScenarioError(f"{path}: robots: is empty")
    from robotsim.studio.interface import SceneRobot
    from robotsim.studio.objects import add_objects

    fmt = str(doc.get("format", ""))
    what = {"robotsim-motion/1": "motion", "robotsim-program/1": "program"}.get(fmt, "scenario")
    return studio.load_scene(
        f"{what} {path.stem}",
        [SceneRobot(model, name, T, q, on_ground) for name, model, T, q, on_ground in planned],
        draw=lambda st: add_objects(st.scene, doc),
    )
