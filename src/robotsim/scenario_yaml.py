"""Reading scenario files: a YAML mapping (errors name the file), and ``--set``
overrides applied to it. Every scenario kind reads its files through these, so they
sit below the capabilities; the ``kind:`` registry is :mod:`robotsim.scenario.kinds`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from robotsim.errors import ScenarioError
from robotsim.file_scope import check_readable
from robotsim.shipped import resolve
from robotsim.validation import MAX_YAML_BYTES, read_input_bytes, safe_load, yaml_error_message

__all__ = ["apply_overrides", "read_scenario_yaml"]


def read_scenario_yaml(path: str | Path) -> dict[str, Any]:
    """Parse a scenario file (a path, or the name of a shipped scenario) into a mapping
    (ScenarioError naming the file otherwise)."""
    p = resolve(path, "scenario")
    check_readable(p)
    if not p.exists():
        raise ScenarioError(f"{p}: no such scenario file")
    text = read_input_bytes(p, lambda m: ScenarioError(f"{p}: {m}"), MAX_YAML_BYTES)
    try:
        data = safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{p}: {yaml_error_message(exc)}") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{p}: a scenario file must be a mapping with a 'kind:' key")
    return data


def apply_overrides(data: dict[str, Any], overrides: list[str], source: str) -> dict[str, Any]:
    """``["obstacles.layout=random", "robots.0.controller.avoidance=vfh"]`` -> a patched
    copy; values are parsed as YAML."""
    import copy

    out = copy.deepcopy(data)

    def value(key: str, raw: str) -> Any:
        try:
            return safe_load(raw)
        except yaml.YAMLError as exc:
            raise ScenarioError(
                f"{source}: --set {key}={raw}: the value is {yaml_error_message(exc)}"
            ) from None

    for item in overrides:
        if "=" not in item:
            raise ScenarioError(f"--set {item!r}: expected KEY.PATH=VALUE")
        key, raw = item.split("=", 1)
        parts = [k for k in key.strip().split(".") if k]
        if not parts:
            raise ScenarioError(f"--set {item!r}: empty key")
        node: Any = out
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            if isinstance(node, list):
                if not part.isdigit() or int(part) >= len(node):
                    raise ScenarioError(
                        f"{source}: --set {key}: {part!r} is not an index of a list of {len(node)}"
                    )
                idx = int(part)
                if last:
                    node[idx] = value(key, raw)
                else:
                    node = node[idx]
            elif isinstance(node, dict):
                if last:
                    node[part] = value(key, raw)
                else:
                    node = node.setdefault(part, {})
            else:
                raise ScenarioError(f"{source}: --set {key}: {part!r} is inside a value")
    return out
