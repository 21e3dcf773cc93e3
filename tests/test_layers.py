"""The import graph of ``src/robotsim`` follows the layer order of ``docs/architecture.md``.

Every ``import`` (module level, inside functions, under ``TYPE_CHECKING``) is read with
``ast``; each is an edge between two *units* (a subpackage or a top-level module of
``robotsim``; ``robotsim`` itself is the package root). An edge may point to the same
layer or a lower one, never upward, and the units must not import each other in a
cycle. A unit that the document does not list counts as a capability.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "robotsim"
DOC = REPO / "docs" / "architecture.md"
ROOT = "robotsim"
DEFAULT_LAYER = "capabilities"

# Edges that break the order today, each with the reason; the list only shrinks.
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {}


def read_layers() -> list[tuple[str, list[str]]]:
    """``[(layer name, [units])]`` from the numbered list under "## Layer order"."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Layer order", 1)[1].split("\n## ", 1)[0]
    layers = []
    for m in re.finditer(r"^\d+\. \*\*([\w ]+)\*\*:(.*)$", section, re.MULTILINE):
        layers.append((m.group(1).strip(), re.findall(r"`([\w.]+)/?`", m.group(2))))
    return layers


def unit_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, is_package: bool) -> list[tuple[str, int]]:
    """``[(absolute module name, line)]`` of every robotsim import in ``source``, the
    text of ``module`` (``is_package`` for an ``__init__.py``)."""
    package = module if is_package else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from robotsim import plots`` imports a submodule, not the package root
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if target == ROOT and _is_module(sub):
                    out.append((sub, node.lineno))
                else:
                    out.append((target, node.lineno))
    return [(m, line) for m, line in out if m.split(".")[0] == ROOT]


def _is_module(name: str) -> bool:
    rel = Path(*name.split(".")[1:])
    return (SRC / rel).is_dir() or (SRC / rel).with_suffix(".py").is_file()


def unit_edges() -> dict[tuple[str, str], list[str]]:
    """``{(from unit, to unit): ["file:line", ...]}`` over all of ``src/robotsim``."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(SRC.rglob("*.py")):
        src_unit = unit_of(module_name(path))
        text = path.read_text(encoding="utf-8")
        for target, line in imported_modules(text, module_name(path), path.name == "__init__.py"):
            dst_unit = unit_of(target)
            if dst_unit != src_unit:
                edges[src_unit, dst_unit].append(f"{path.relative_to(REPO)}:{line}")
    return edges


def all_units() -> set[str]:
    units = {ROOT}
    for p in SRC.iterdir():
        if p.is_dir() and (p / "__init__.py").is_file():
            units.add(p.name)
        elif p.suffix == ".py" and p.name != "__init__.py":
            units.add(p.stem)
    return units


def layer_index() -> dict[str, int]:
    layers = read_layers()
    names = [name for name, _ in layers]
    default = names.index(DEFAULT_LAYER)
    index = {u: i for i, (_, units) in enumerate(layers) for u in units}
    return {u: index.get(u, default) for u in all_units()}


def test_the_document_lists_layers() -> None:
    layers = read_layers()
    names = [name for name, _ in layers]
    assert DEFAULT_LAYER in names, names
    listed = [u for _, units in layers for u in units]
    assert len(listed) == len(set(listed)), f"a unit is listed twice: {listed}"
    assert {"errors", "spatial", "model", "cli", "studio", ROOT} <= set(listed)


def test_no_upward_imports() -> None:
    layer = layer_index()
    names = [name for name, _ in read_layers()]
    bad = []
    for (a, b), where in sorted(unit_edges().items()):
        if layer[b] > layer[a] and (a, b) not in KNOWN_EXCEPTIONS:
            bad.append(f"{a} ({names[layer[a]]}) imports {b} ({names[layer[b]]}) at {where[0]}"
                       + (f" (+{len(where) - 1} more)" if len(where) > 1 else ""))  # fmt: skip
    assert not bad, "imports against the layer order of docs/architecture.md:\n" + "\n".join(bad)


def test_known_exceptions_are_still_needed() -> None:
    edges = unit_edges()
    stale = [f"{a} -> {b}" for a, b in KNOWN_EXCEPTIONS if (a, b) not in edges]
    assert not stale, f"remove from KNOWN_EXCEPTIONS (the edge is gone): {stale}"


def test_no_cycles_between_units() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in unit_edges():
        if (a, b) not in KNOWN_EXCEPTIONS:
            graph[a].add(b)
    cycles = [c for c in strongly_connected(graph) if len(c) > 1]
    assert not cycles, f"units that import each other in a cycle: {cycles}"


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm: the strongly connected components of ``graph``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_reader_resolves_every_import_form() -> None:
    source = (
        "import robotsim.spatial\n"
        "from robotsim import plots, load_robot\n"
        "from ..kinematics import tree\n"
        "from . import dh\n"
        "def f():\n"
        "    from robotsim.cli.common import echo_json\n"
        "import numpy\n"
    )
    got = imported_modules(source, "robotsim.model.fake", is_package=False)
    assert got == [
        ("robotsim.spatial", 1),
        ("robotsim.plots", 2),
        ("robotsim", 2),
        ("robotsim.kinematics", 3),
        ("robotsim.model", 4),
        ("robotsim.cli.common", 6),
    ]
    assert [unit_of(m) for m, _ in got] == ["spatial", "plots", ROOT, "kinematics", "model", "cli"]


def test_cycles_are_found() -> None:
    assert strongly_connected({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"], ["c"]]


def test_no_test_imports_another_test_module() -> None:
    """Tests share code through fixtures (conftest.py, found by pytest) and helper
    modules (``tests/paths.py``, ``tests/motion/programs.py`` ...), never by importing a
    ``test_*`` module or a ``conftest``."""
    bad = []
    for path in sorted((REPO / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                last = name.rsplit(".", 1)[-1]
                if last.startswith("test_") or last == "conftest":
                    bad.append(f"{path.relative_to(REPO)}:{node.lineno} imports {name}")
    assert not bad, "\n".join(bad)


def module_edges() -> dict[str, set[str]]:
    """``{module: {modules of the same unit it imports}}`` over ``src/robotsim`` (every
    import, typing-only and function-level ones too; ``from pkg import sub`` is an edge
    to the submodule ``pkg.sub``, ``from pkg import name`` to ``pkg`` itself)."""
    files = {module_name(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for mod, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1])
                    target = f"{base}.{node.module}" if node.module else base
                else:
                    target = node.module or ""
                targets = [
                    f"{target}.{a.name}" if f"{target}.{a.name}" in files else target
                    for a in node.names
                ]
            for t in targets:
                if t in files and t != mod and unit_of(t) == unit_of(mod) != ROOT:
                    graph[mod].add(t)
    return graph


def test_no_import_cycles_inside_packages() -> None:
    """Inside one package the modules import each other one way too (typing-only
    imports count: a ``TYPE_CHECKING`` import is still an arrow a reader follows)."""
    cycles = [c for c in strongly_connected(module_edges()) if len(c) > 1]
    assert not cycles, "modules of one package that import each other in a cycle:\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


# Units that may import MuJoCo (docs/architecture.md), and single modules of other
# units that drive a world directly, each with the reason.
MUJOCO_UNITS = {"physics", "sensors", "model", "bench"}
MUJOCO_MODULES = {
    "robotsim.hands.physics": "the hands' physics simulation steps its own MjData",
    "robotsim.motion.physics_check": "the motion physics check builds its own model",
    "robotsim.motion.render": "thumbnails on MuJoCo's renderer",
    "robotsim.recording.commands_run": "joint commands read the joint types of a world",
    "robotsim.recording.recorder": "the MuJoCo version stamped on a run",
}


def test_mujoco_is_imported_only_where_the_architecture_says() -> None:
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        mod = module_name(path)
        if unit_of(mod) in MUJOCO_UNITS or mod in MUJOCO_MODULES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            if any(n.split(".")[0] == "mujoco" for n in names):
                bad.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not bad, "MuJoCo imported outside physics/, sensors/, model/ (docs): " + ", ".join(bad)


def test_the_mujoco_exceptions_are_still_needed() -> None:
    for mod in MUJOCO_MODULES:
        path = SRC.parent / (mod.replace(".", "/") + ".py")
        assert "import mujoco" in path.read_text(encoding="utf-8"), f"remove {mod}"
    text = DOC.read_text(encoding="utf-8")
    assert "`physics/`" in text and "`sensors/`" in text and "MUJOCO_UNITS" in text
