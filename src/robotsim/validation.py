"""Turning pydantic validation errors into robotsim's one-line messages.

Every file format (robot files, scenarios, motion files, mappings) reports the first
problem as ``FILE: field.path[2].name: what is wrong``; an unknown key lists the keys
allowed at that level.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError

__all__ = [
    "MAX_INPUT_BYTES",
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "YamlLimitError",
    "check_input_file",
    "describe_validation_error",
    "field_path",
    "fields_at",
    "first_duplicate",
    "format_validation_error",
    "read_input_bytes",
    "read_yaml_file",
    "safe_load",
    "validate_as",
    "yaml_error_message",
]

M = TypeVar("M", bound=BaseModel)


def first_duplicate(names: Iterable[str]) -> str | None:
    """The first name that occurs a second time in ``names``, or None if all differ."""
    seen: set[str] = set()
    for n in names:
        if n in seen:
            return n
        seen.add(n)
    return None


def field_path(loc: tuple[Any, ...], model: type[BaseModel] | None = None) -> str:
    """``("robots", 0, "name")`` -> ``robots[0].name``. With ``model``, the tags pydantic
    adds for a union of models (``segments[0].line.to`` -> ``segments[0].to``) are
    left out, so the path is the one written in the file."""
    out = ""
    models: list[type[BaseModel]] = [model] if model is not None else []
    keyed = False  # the next string is a key of a dict, not a field
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        if keyed:
            out += ("." if out else "") + str(part)
            keyed = False
            continue
        field = next(
            (f for m in models for n, f in m.model_fields.items() if part in (n, f.alias)), None
        )
        if field is None and len(models) > 1:
            continue  # a union tag: not written in the file
        out += ("." if out else "") + str(part)
        models, keyed = _models_in(field.annotation) if field is not None else ([], False)
    return out or "(top level)"


def _models_in(tp: Any) -> tuple[list[type[BaseModel]], bool]:
    """The pydantic models a field's values are (through lists, dict values, unions),
    and whether they sit in a dict (the error path then names a key first)."""
    keyed = False
    while True:
        origin, args = get_origin(tp), get_args(tp)
        if origin is Annotated:
            tp = args[0]
        elif origin in (list, tuple) and args:
            tp = args[0]
        elif origin is dict and args:
            tp, keyed = args[1], True
        else:
            break
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [tp], keyed
    models = [a for a in get_args(tp) if isinstance(a, type) and issubclass(a, BaseModel)]
    return models, keyed and bool(models)


def _model_at(model: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    cur: Any = model
    keys = 0  # dict keys to skip next (``gains.x``: ``x`` names an entry, not a field)
    for part in loc:
        if isinstance(part, int):
            continue
        if keys:
            keys -= 1
            continue
        if not (isinstance(cur, type) and issubclass(cur, BaseModel)):
            return None
        f = cur.model_fields.get(str(part))
        if f is None:
            return None
        keys = _dict_depth(f.annotation)
        cur = _unwrap(f.annotation)
    return cur if isinstance(cur, type) and issubclass(cur, BaseModel) else None


def _dict_depth(tp: Any) -> int:
    """How many dict levels (keyed by strings) lead from ``tp`` to its model."""
    n = 0
    while True:
        args, origin = get_args(tp), get_origin(tp)
        if origin is dict and args:
            n, tp = n + 1, args[1]
        elif origin in (list, tuple) and args:
            tp = args[0]
        elif args and any(isinstance(a, type) and issubclass(a, BaseModel) for a in args):
            tp = next(a for a in args if isinstance(a, type) and issubclass(a, BaseModel))
        elif origin in (Union, UnionType) and any(get_origin(a) is dict for a in args):
            tp = next(a for a in args if get_origin(a) is dict)  # dict[...] | None
        else:
            return n


def fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Field names of the model nested in ``model`` at ``loc`` (list indices and dict
    keys skipped; ``[]`` when ``loc`` does not lead to a model): what an unknown-key
    message lists as valid."""
    found = _model_at(model, loc)
    return list(found.model_fields) if found is not None else []


def _unwrap(tp: Any) -> Any:
    """The model a field's annotation leads to (through lists, dict values,
    ``Annotated`` and unions: the first member that leads to a model), else the type."""
    while True:
        args = get_args(tp)
        origin = get_origin(tp)
        if origin is Annotated and args:
            tp = args[0]
        elif origin in (Union, UnionType) and args:
            inner = [_unwrap(a) for a in args]
            models = [m for m in inner if isinstance(m, type) and issubclass(m, BaseModel)]
            return models[0] if models else tp
        elif origin in (list, tuple) and args:
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
    elif not loc and err["type"] == "value_error" and isinstance(err.get("input"), dict):
        # a check of the whole file that names its own field: "field.path: problem"
        text = msg.removeprefix("Value error, ")
        head, sep, rest = text.partition(": ")
        if sep and head and " " not in head:
            more = len(exc.errors()) - 1
            tail = f" (+{more} more error{'s' if more > 1 else ''})" if more > 0 else ""
            return head, rest + tail
    elif "input" in err and err["type"] not in ("missing",):
        shown = repr(err["input"])
        if len(shown) > 60:
            shown = shown[:57] + "..."
        msg = f"{msg}, got {shown}"
    more = len(exc.errors()) - 1
    tail = f" (+{more} more error{'s' if more > 1 else ''})" if more > 0 else ""
    return field_path(loc, model), msg + tail


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


def validate_as(model: type[M], data: Any, source: object, error: Callable[[str], Exception]) -> M:
    """``model.model_validate(data)``; a failure raises ``error("FILE: field: message")``."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise error(format_validation_error(exc, model, source)) from None


#: Largest robot, scene or program file read (bytes): URDF and MJCF files with their
#: meshes apart are at most a few MB; YAML has its own, smaller limit.
MAX_INPUT_BYTES = 64 * 1024 * 1024


def check_input_file(
    path: str | Path, error: Callable[[str], Exception], max_bytes: int | None = MAX_INPUT_BYTES
) -> None:
    """Nothing when ``path`` is a regular file of at most ``max_bytes`` (None: any
    size); ``error(problem)`` otherwise (one line, without the path): a missing file, a
    folder, a FIFO, device or socket (reading one would block or never end), a file
    too large."""
    import os
    import stat

    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error("no such file") from None
    except (OSError, ValueError) as exc:
        raise error(f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise error("a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise error("not a regular file (a FIFO, device or socket); give a file")
    if max_bytes is not None and st.st_size > max_bytes:
        raise error(f"{st.st_size:,} bytes, more than the {max_bytes:,}-byte limit")


def read_input_bytes(
    path: str | Path, error: Callable[[str], Exception], max_bytes: int = MAX_INPUT_BYTES
) -> bytes:
    """The bytes of the regular file ``path``, checked before reading
    (:func:`check_input_file`); ``error(problem)`` otherwise."""
    check_input_file(path, error, max_bytes)
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}") from None
    if len(data) > max_bytes:
        raise error(f"more than the {max_bytes:,}-byte limit")
    return data


def read_yaml_file(path: str | Path, error: Callable[[str], Exception]) -> Any:
    """The YAML document in ``path`` (read by :func:`safe_load`, so bounded); a file that
    cannot be read or parsed raises ``error("FILE: what is wrong")``; so does one outside
    the folder a confined caller reads from (:mod:`robotsim.file_scope`)."""
    from robotsim.file_scope import OutsideScopeError, check_readable

    try:
        check_readable(path)
    except OutsideScopeError as exc:
        raise error(str(exc)) from None
    data = read_input_bytes(path, lambda m: error(f"{path}: {m}"), MAX_YAML_BYTES)
    try:
        return safe_load(data)
    except yaml.YAMLError as exc:
        raise error(f"{path}: {yaml_error_message(exc)}") from None


# -- the YAML loader: bounded size, depth and alias expansion ------------------------------

#: Largest YAML file read (bytes). Robot, scenario and motion files are a few KB.
MAX_YAML_BYTES = 16 * 1024 * 1024
#: Deepest nesting of mappings/sequences (real files need fewer than 10 levels).
MAX_YAML_DEPTH = 100
#: Most nodes the document may have once every alias is expanded (an "alias bomb" of
#: 600 bytes expands to hundreds of millions).
MAX_YAML_NODES = 1_000_000


class YamlLimitError(yaml.YAMLError):
    """A YAML text beyond the loader's limits (or not UTF-8). ``problem`` is one line;
    ``problem_mark`` is where, when known (read by :func:`yaml_error_message`)."""

    def __init__(self, problem: str, mark: Any = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


def _expanded_nodes(root: Any, limit: int) -> int:
    """Node count of the document with every alias expanded (iterative, memoised)."""
    from yaml.nodes import CollectionNode, MappingNode

    size: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_stack.discard(key)
            if isinstance(node, MappingNode):
                kids = [n for pair in node.value for n in pair]
            else:
                kids = list(node.value)
            total = 1 + sum(size[id(k)] for k in kids)
            size[key] = total
            if total > limit:
                raise YamlLimitError(
                    f"the document expands to more than {limit:,} nodes through its "
                    "aliases (*name); write the values out or use fewer aliases",
                    node.start_mark,
                )
            continue
        if key in size:
            continue
        if not isinstance(node, CollectionNode):
            size[key] = 1
            continue
        if key in on_stack:
            raise YamlLimitError("an alias refers to a node that contains it", node.start_mark)
        on_stack.add(key)
        stack.append((node, True))
        kids = (
            [n for pair in node.value for n in pair]
            if isinstance(node, MappingNode)
            else node.value
        )
        for k in kids:
            if id(k) not in size:
                stack.append((k, False))
    return size[id(root)]


def safe_load(
    data: str | bytes,
    max_bytes: int = MAX_YAML_BYTES,
    max_depth: int = MAX_YAML_DEPTH,
    max_nodes: int = MAX_YAML_NODES,
) -> Any:
    """``yaml.safe_load`` with limits; every failure is a :class:`yaml.YAMLError`.

    ``data`` as bytes (a file's content) is decoded as UTF-8 here, so a binary or
    Latin-1 file gives a one-line error instead of a ``UnicodeDecodeError``. Nesting is
    checked on the event stream before anything recursive runs (PyYAML's composer
    recurses once per level), and aliases are expanded in a count before the Python
    objects are built.
    """
    from yaml.events import (
        AliasEvent,
        CollectionEndEvent,
        CollectionStartEvent,
    )

    if isinstance(data, bytes | bytearray):
        if len(data) > max_bytes:
            raise YamlLimitError(f"{len(data):,} bytes is more than the {max_bytes:,}-byte limit")
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            bad = data[exc.start]
            raise YamlLimitError(
                f"not UTF-8 text (byte 0x{bad:02x} at offset {exc.start}); save the file as UTF-8"
            ) from None
    else:
        text = data
        if len(text) > max_bytes:
            raise YamlLimitError(
                f"{len(text):,} characters is more than the {max_bytes:,}-byte limit"
            )
    loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    depth = aliases = 0
    for ev in yaml.parse(text, Loader=loader_cls):
        if isinstance(ev, CollectionStartEvent):
            depth += 1
            if depth > max_depth:
                raise YamlLimitError(f"nested more than {max_depth} levels deep", ev.start_mark)
        elif isinstance(ev, CollectionEndEvent):
            depth -= 1
        elif isinstance(ev, AliasEvent):
            aliases += 1
    loader = loader_cls(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if aliases:
            _expanded_nodes(node, max_nodes)
        try:
            return loader.construct_document(node)
        except (ValueError, OverflowError) as exc:  # e.g. an integer of 5,000 digits
            first = str(exc).split(";")[0].splitlines()[0]
            raise YamlLimitError(f"a value cannot be read: {first}") from None
    finally:
        loader.dispose()
