"""Turning pydantic validation errors into robotsim's one-line messages.

Every file format (robot files, scenarios, motion files, mappings) reports the first
problem as ``FILE: field.path[2].name: what is wrong``; an unknown key lists the keys
allowed at that level.
"""

from __future__ import annotations

from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

__all__ = [
    "describe_validation_error",
    "field_path",
    "fields_at",
    "format_validation_error",
    "yaml_error_message",
]


def field_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    cur: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(cur, type) and issubclass(cur, BaseModel)):
            return None
        f = cur.model_fields.get(str(part))
        if f is None:
            return None
        cur = _unwrap(f.annotation)
    return cur if isinstance(cur, type) and issubclass(cur, BaseModel) else None


def fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Field names of the model nested in ``model`` at ``loc`` (list indices and dict
    keys skipped; ``[]`` when ``loc`` does not lead to a model): what an unknown-key
    message lists as valid."""
    found = _model_at(model, loc)
    return list(found.model_fields) if found is not None else []


def _unwrap(tp: Any) -> Any:
    while True:
        args = get_args(tp)
        origin = get_origin(tp)
        if origin in (list, tuple) and args:
            tp = args[0]
        elif origin is dict and args:
            tp = args[1]
        elif args and any(isinstance(a, type) and issubclass(a, BaseModel) for a in args):
            tp = next(a for a in args if isinstance(a, type) and issubclass(a, BaseModel))
        else:
            return tp


def describe_validation_error(exc: ValidationError, model: type[BaseModel]) -> tuple[str, str]:
    """(field path, message) of the first error; unknown keys list the valid ones."""
    err = exc.errors()[0]
    loc = tuple(err["loc"])
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        parent = _model_at(model, loc[:-1])
        valid = ", ".join(parent.model_fields) if parent is not None else ""
        msg = f"unknown key {loc[-1]!r}" + (f"; valid: {valid}" if valid else "")
    elif err["type"] == "literal_error":
        msg = f"{err['input']!r} is not allowed; {msg[0].lower()}{msg[1:]}"
    elif "input" in err and err["type"] not in ("missing",):
        shown = repr(err["input"])
        if len(shown) > 60:
            shown = shown[:57] + "..."
        msg = f"{msg}, got {shown}"
    more = len(exc.errors()) - 1
    tail = f" (+{more} more error{'s' if more > 1 else ''})" if more > 0 else ""
    return field_path(loc), msg + tail


def format_validation_error(exc: ValidationError, model: type[BaseModel], source: object) -> str:
    """The first error as ``FILE: field.path: message``."""
    where, msg = describe_validation_error(exc, model)
    return f"{source}: {where}: {msg}"


def yaml_error_message(exc: Exception) -> str:
    """One line for a PyYAML error: ``not valid YAML (line L, column C): problem``."""
    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"not valid YAML{where}: {problem}"
