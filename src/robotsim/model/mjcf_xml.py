"""MJCF as MuJoCo's XML reader sees it, for :mod:`robotsim.model.mjcf_reader`.

``<include>`` expansion, the ``<compiler>`` options that shape a model, ``<default>``
classes (nested, each inheriting its parent's values; ``class`` on an element, else the
nearest ``childclass`` above it, else ``main``), numbers, and orientations (``quat``,
``axisangle``, ``euler`` with ``eulerseq``, ``xyaxes``, ``zaxis``) as unit quaternions
``w x y z``, computed the way MuJoCo's compiler does. Whatever this module does not
reproduce exactly raises :class:`Unsupported` with the reason: the caller then lets
MuJoCo read the file instead.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "IDENTITY",
    "Attrs",
    "Classes",
    "Compiler",
    "Quat",
    "Unsupported",
    "expand_includes",
    "floats",
    "merge",
    "mul_quat",
    "orientation",
    "plain_numbers",
    "read_compiler",
    "read_defaults",
    "rotate",
    "z_to_quat",
]

Quat = tuple[float, float, float, float]
IDENTITY: Quat = (1.0, 0.0, 0.0, 0.0)
_MINVAL = 1e-15  # MuJoCo's mjMINVAL
# attributes MuJoCo reads as "up to n numbers", each overwriting only what it gives
PARTIAL = {"size": 3, "polycoef": 5}
# what a <default> may hold (MuJoCo's schema)
DEFAULT_CHILDREN = {"default", "mesh", "material", "joint", "geom", "site", "camera", "light",
                    "pair", "equality", "tendon", "general", "motor", "position", "velocity",
                    "intvelocity", "damper", "cylinder", "muscle", "adhesion"}  # fmt: skip
ORIENTATIONS = ("quat", "axisangle", "euler", "xyaxes", "zaxis")


class Unsupported(Exception):
    """The file uses something this reader does not reproduce exactly."""


def plain_numbers(text: str, integer: bool = False) -> list[float] | None:
    """The numbers in ``text`` if each reads the same in Python and in MuJoCo (ASCII
    decimal, no ``_`` digit separators), else None."""
    if not text.isascii() or "_" in text:
        return None
    try:
        return (
            [float(int(x)) for x in text.split()] if integer else [float(x) for x in text.split()]
        )
    except ValueError:
        return None


def floats(text: str, n: int, what: str) -> list[float]:
    """Exactly ``n`` finite numbers from ``text``, else :class:`Unsupported`."""
    try:  # plain_numbers, inlined: this is the reader's hot path
        if not text.isascii() or "_" in text:
            raise ValueError
        v = [float(x) for x in text.split()]
    except ValueError:
        raise Unsupported(f"{what}: not numbers: {text[:40]!r}") from None
    if len(v) != n or not all(math.isfinite(x) for x in v):
        raise Unsupported(f"{what}: expected {n} finite numbers, got {text[:40]!r}")
    return v


def expand_includes(
    root: ET.Element, folder: Path, parsed: dict[Path, ET.Element] | None = None
) -> None:
    """Replace every ``<include file>`` by the children of the file's root, in place
    (paths relative to the main file's folder, as MuJoCo resolves them, also for an
    include inside an included file). ``parsed``: files already parsed (resolved path
    -> root), used instead of reading them again."""
    seen: set[Path] = set()
    parsed = parsed or {}

    def walk(el: ET.Element, depth: int) -> None:
        if depth > 50:
            raise Unsupported("<include> nested too deep")
        if not any(c.tag == "include" for c in el.iter()):
            return
        out: list[ET.Element] = []
        for child in el:
            if child.tag != "include":
                walk(child, depth)
                out.append(child)
                continue
            name = child.get("file", "")
            path = (folder / Path(name).expanduser()).resolve()
            if set(child.attrib) != {"file"} or path in seen or not path.is_file():
                raise Unsupported(f"<include file={name!r}>: missing, repeated or unusual")
            seen.add(path)
            inc = parsed.get(path)
            try:
                inc = ET.parse(path).getroot() if inc is None else inc
            except (ET.ParseError, OSError) as exc:
                raise Unsupported(f"<include file={name!r}>: {exc}") from None
            if inc.tag != "mujoco":
                raise Unsupported(f"<include file={name!r}>: its root is not <mujoco>")
            walk(inc, depth + 1)
            out.extend(inc)
        el[:] = out

    walk(root, 0)


@dataclass(frozen=True)
class Compiler:
    """The ``<compiler>`` options the reader honours (anything else: unsupported)."""

    angle_scale: float = math.pi / 180.0  # MuJoCo's default unit is the degree
    eulerseq: str = "xyz"
    meshdir: str | None = None
    texturedir: str | None = None
    assetdir: str | None = None
    autolimits: bool = True
    inertiafromgeom: str = "auto"
    inertiagrouprange: tuple[int, int] = (0, 5)
    settotalmass: float = -1.0  # > 0: every body's mass and inertia scaled to this total


# options that change nothing a RobotModel holds, or only at their default value
_COMPILER_HARMLESS = {"usethread", "saveinertial"}
_COMPILER_DEFAULTS = {
    "boundmass": "0", "boundinertia": "0", "balanceinertia": "false",
    "strippath": "false", "discardvisual": "false", "fusestatic": "false",
    "alignfree": "false", "fitaabb": "false", "coordinate": "local",
}  # fmt: skip


def _bool(text: str, what: str) -> bool:
    if text not in ("true", "false"):
        raise Unsupported(f"{what}={text!r}")
    return text == "true"


def read_compiler(root: ET.Element) -> Compiler:
    """The merged ``<compiler>`` elements (all before any ``<worldbody>``)."""
    opts: dict[str, str] = {}
    seen_world = False
    for el in root:
        if el.tag == "worldbody":
            seen_world = True
        if el.tag != "compiler":
            continue
        if seen_world:
            raise Unsupported("<compiler> after <worldbody>")
        if len(el):
            raise Unsupported("<compiler> with child elements (lengthrange)")
        opts.update(el.attrib)
    kw: dict[str, object] = {}
    for key, val in opts.items():
        if key in _COMPILER_HARMLESS:
            continue
        if key in _COMPILER_DEFAULTS:
            same = val == _COMPILER_DEFAULTS[key]
            if not same and key in ("boundmass", "boundinertia"):
                same = plain_numbers(val) == [0.0]
            if not same:
                raise Unsupported(f"<compiler {key}={val!r}>")
        elif key == "angle":
            if val not in ("degree", "radian"):
                raise Unsupported(f"<compiler angle={val!r}>")
            kw["angle_scale"] = math.pi / 180.0 if val == "degree" else 1.0
        elif key == "eulerseq":
            if len(val) != 3 or any(c not in "xyzXYZ" for c in val):
                raise Unsupported(f"<compiler eulerseq={val!r}>")
            kw["eulerseq"] = val
        elif key in ("meshdir", "texturedir", "assetdir"):
            kw[key] = val
        elif key == "autolimits":
            kw["autolimits"] = _bool(val, "<compiler autolimits>")
        elif key == "inertiafromgeom":
            if val not in ("true", "false", "auto"):
                raise Unsupported(f"<compiler inertiafromgeom={val!r}>")
            kw["inertiafromgeom"] = val
        elif key == "settotalmass":
            kw["settotalmass"] = floats(val, 1, "<compiler settotalmass>")[0]
        elif key == "inertiagrouprange":
            lo, hi = floats(val, 2, "<compiler inertiagrouprange>")
            kw["inertiagrouprange"] = (int(lo), int(hi))
        else:
            raise Unsupported(f"<compiler {key}>")
    return Compiler(**kw)  # type: ignore[arg-type]


Attrs = dict[str, object]  # attribute -> text (or a list of floats for PARTIAL ones)


def merge(base: Attrs, el_attrib: dict[str, str], what: str) -> Attrs:
    """``base`` overridden by an element's attributes (PARTIAL ones number by number)."""
    out = dict(base)
    for key, text in el_attrib.items():
        n = PARTIAL.get(key)
        if n is None:
            out[key] = text
            continue
        vals = plain_numbers(text)
        if vals is None:
            raise Unsupported(f"{what} {key}: not numbers: {text[:40]!r}")
        if not 1 <= len(vals) <= n or not all(math.isfinite(x) for x in vals):
            raise Unsupported(f"{what} {key}={text[:40]!r}")
        old = out.get(key)
        cur = list(old) if isinstance(old, list) else [0.0] * n
        cur[: len(vals)] = vals
        out[key] = cur
    return out


class Classes:
    """The ``<default>`` classes: class name -> element tag -> merged attributes."""

    def __init__(self) -> None:
        self.by_name: dict[str, dict[str, Attrs]] = {"main": {}}

    def get(self, name: str, tag: str) -> Attrs:
        try:
            return self.by_name[name].get(tag, {})
        except KeyError:
            raise Unsupported(f"unknown default class {name!r}") from None


def read_defaults(root: ET.Element, tags: set[str]) -> Classes:
    """Every ``<default>`` tree below ``root`` (the element tags in ``tags`` kept)."""
    classes = Classes()

    def walk(el: ET.Element, name: str, inherited: dict[str, Attrs]) -> None:
        if name in classes.by_name and name != "main":
            raise Unsupported(f"default class {name!r} defined twice")
        mine = dict(inherited)
        for child in el:
            if child.tag not in DEFAULT_CHILDREN:
                raise Unsupported(f"<default class={name!r}> <{child.tag}>")
        tags_here = [c.tag for c in el if c.tag != "default"]
        if len(set(tags_here)) != len(tags_here):
            raise Unsupported(f"<default class={name!r}>: an element given twice")
        for child in el:
            if child.tag in tags:
                mine[child.tag] = merge(mine.get(child.tag, {}), child.attrib,
                                        f"<default class={name!r}> <{child.tag}>")  # fmt: skip
        classes.by_name[name] = mine
        for child in el:
            if child.tag == "default":
                cname = child.get("class")
                if not cname or set(child.attrib) != {"class"}:
                    raise Unsupported("a nested <default> without a class name")
                walk(child, cname, mine)

    tops = [el for el in root if el.tag == "default"]
    if len(tops) > 1:
        raise Unsupported("several top-level <default> elements")
    for top in tops:
        if set(top.attrib) - {"class"} or top.get("class", "main") != "main":
            raise Unsupported("a top-level <default> other than class 'main'")
        walk(top, "main", {})
    return classes


# ------------------------------------------------------------------ orientations
def mul_quat(a: Quat, b: Quat) -> Quat:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


def rotate(q: Quat, v: list[float]) -> list[float]:
    """``R(q) @ v`` for a unit quaternion."""
    w, x, y, z = q
    vx, vy, vz = v
    # t = 2 * cross(q.xyz, v); v' = v + w t + cross(q.xyz, t)
    tx, ty, tz = 2 * (y * vz - z * vy), 2 * (z * vx - x * vz), 2 * (x * vy - y * vx)
    return [vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz),
            vz + w * tz + (x * ty - y * tx)]  # fmt: skip


def _normalized(v: list[float], what: str) -> list[float]:
    n = math.sqrt(sum(x * x for x in v))
    if n < 1e-10:
        raise Unsupported(f"{what}: zero-length vector")
    return [x / n for x in v]


def _axis_angle(axis: list[float], angle: float) -> Quat:
    s = math.sin(angle / 2)
    return (math.cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s)


def z_to_quat(z: list[float], what: str) -> Quat:
    """The smallest rotation taking (0, 0, 1) to ``z`` (MuJoCo's ``zaxis``, ``fromto``)."""
    z = _normalized(z, what)
    cross = [-z[1], z[0], 0.0]
    s = math.sqrt(cross[0] ** 2 + cross[1] ** 2)
    axis = [1.0, 0.0, 0.0] if s < _MINVAL else [c / s for c in cross]
    return _axis_angle(axis, math.atan2(s, z[2]))


def _frame_to_quat(x: list[float], y: list[float], z: list[float]) -> Quat:
    """The unit quaternion of the rotation with columns ``x, y, z``."""
    m00, m11, m22 = x[0], y[1], z[2]
    tr = m00 + m11 + m22
    if tr > 0:
        s = 2 * math.sqrt(tr + 1.0)
        q = (0.25 * s, (y[2] - z[1]) / s, (z[0] - x[2]) / s, (x[1] - y[0]) / s)
    elif m00 > m11 and m00 > m22:
        s = 2 * math.sqrt(1.0 + m00 - m11 - m22)
        q = ((y[2] - z[1]) / s, 0.25 * s, (y[0] + x[1]) / s, (z[0] + x[2]) / s)
    elif m11 > m22:
        s = 2 * math.sqrt(1.0 + m11 - m00 - m22)
        q = ((z[0] - x[2]) / s, (y[0] + x[1]) / s, 0.25 * s, (z[1] + y[2]) / s)
    else:
        s = 2 * math.sqrt(1.0 + m22 - m00 - m11)
        q = ((x[1] - y[0]) / s, (z[0] + x[2]) / s, (z[1] + y[2]) / s, 0.25 * s)
    n = math.sqrt(sum(c * c for c in q))
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def orientation(attrs: Attrs, own: dict[str, str], comp: Compiler, what: str) -> Quat | None:
    """The orientation ``attrs`` give (None: none given). ``own`` are the element's own
    attributes: an orientation in a default class yields to the element's own only when
    both use the same attribute (otherwise MuJoCo's precedence decides: unsupported)."""
    given = [k for k in ORIENTATIONS if k in attrs]
    if not given:
        return None
    if len(given) > 1:
        mine = [k for k in given if k in own]
        inherited = {k for k in given if k not in own}
        if len(mine) != 1 or not (mine[0] == "quat" or inherited <= {"quat"}):
            raise Unsupported(f"{what}: several orientations ({', '.join(given)})")
        given = mine
    key = given[0]
    text = str(attrs[key])
    if key == "quat":
        q = _normalized(floats(text, 4, f"{what} quat"), f"{what} quat")
        return (q[0], q[1], q[2], q[3])
    if key == "axisangle":
        v = floats(text, 4, f"{what} axisangle")
        return _axis_angle(_normalized(v[:3], f"{what} axisangle"), v[3] * comp.angle_scale)
    if key == "euler":
        v = floats(text, 3, f"{what} euler")
        q = IDENTITY
        for ch, a in zip(comp.eulerseq, v):
            axis = [1.0 if ch.lower() == c else 0.0 for c in "xyz"]
            r = _axis_angle(axis, a * comp.angle_scale)
            q = mul_quat(q, r) if ch.islower() else mul_quat(r, q)
        return q
    if key == "xyaxes":
        v = floats(text, 6, f"{what} xyaxes")
        x = _normalized(v[:3], f"{what} xyaxes")
        d = sum(a * b for a, b in zip(x, v[3:]))
        y = _normalized([v[3 + i] - d * x[i] for i in range(3)], f"{what} xyaxes")
        z = _normalized([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                         x[0] * y[1] - x[1] * y[0]], f"{what} xyaxes")  # fmt: skip
        return _frame_to_quat(x, y, z)
    return z_to_quat(floats(text, 3, f"{what} zaxis"), f"{what} zaxis")
