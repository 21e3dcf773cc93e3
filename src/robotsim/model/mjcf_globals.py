"""The model-wide MJCF sections, checked as MuJoCo checks them, for the linear reader.

``<compiler>`` (and its ``<lengthrange>``), ``<option>`` (and ``<flag>``), ``<size>``,
``<visual>`` (and its ``<global>``, ``<quality>``, ``<headlight>``, ``<map>``,
``<scale>``, ``<rgba>``) and ``<statistic>`` change nothing a RobotModel holds, but
MuJoCo refuses a file whose values it cannot read, so the reader must refuse the same
files. :func:`check_globals` walks them against MuJoCo's schema (:data:`SCHEMA`, taken
from MuJoCo 4.0 and checked against it by ``tests/model/test_mjcf_globals.py``):

- an unknown element or attribute, a keyword outside its set, a child element given
  twice: MuJoCo always refuses these, so the error is ours
  (:class:`~robotsim.errors.ModelFileError` naming the file, element, attribute, value
  and what is allowed);
- a number the reader cannot be sure MuJoCo reads the same way (not plain decimal, not
  finite, too many or too few values, out of the range MuJoCo accepts) and any value
  whose acceptance depends on the rest of the model or on the machine (``memory``,
  ``nuser_*``, large ``njmax``...): :class:`~robotsim.model.mjcf_xml.Unsupported`, so
  MuJoCo reads the file and gives its own verdict (and error).

With another MuJoCo version installed the schema may differ, so any content in these
sections beyond the compiler options the reader itself reads goes to MuJoCo.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from robotsim.errors import ModelFileError
from robotsim.model.mjcf_xml import Unsupported, plain_numbers

__all__ = ["MUJOCO_VERSION", "SCHEMA", "Num", "check_globals", "installed_mujoco"]

MUJOCO_VERSION = "4.0"  # the MuJoCo whose schema SCHEMA is (major.minor)
_INT32 = 2**31


@dataclass(frozen=True)
class Num:
    """``count`` (min, max) numbers, each in ``[lo, hi]`` (``lo_open``: ``> lo``)."""

    count: tuple[int, int] = (1, 1)
    integer: bool = False
    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = False


# an attribute's rule: its keywords (a tuple), Num, STR (any text) or MUJOCO (let
# MuJoCo decide: it depends on the rest of the model or on the machine)
STR = "text"
MUJOCO = "mujoco decides"
Rule = tuple[str, ...] | Num | str

_BOOL = ("false", "true")
_FLAG = ("disable", "enable")
_F = Num()
_F3 = Num((3, 3))
_I = Num(integer=True, lo=-_INT32, hi=_INT32 - 1)
_POS = Num(lo=0.0, lo_open=True)
_RGBA = Num((4, 4))


def _all(names: str, rule: Rule) -> dict[str, Rule]:
    return dict.fromkeys(names.split(), rule)


# element path -> attribute -> rule (MuJoCo 4.0's schema, mj_printSchema)
SCHEMA: dict[str, dict[str, Rule]] = {
    "compiler": {
        **_all("alignfree autolimits balanceinertia discardvisual fitaabb fusestatic "
               "savecanonical savecompiled saveinertial strippath usethread", _BOOL),
        "angle": ("degree", "radian"),
        "inertiafromgeom": ("false", "true", "auto"),
        **_all("assetdir meshdir texturedir eulerseq", STR),
        **_all("boundinertia boundmass settotalmass", _F),
        "coordinate": ("local",),  # MuJoCo refuses "global" since 2.3.3
        "inertiagrouprange": Num((2, 2), integer=True, lo=0, hi=5),
        **_all("conflict passthrough", MUJOCO),
    },
    "compiler/lengthrange": {
        "mode": ("none", "muscle", "muscleuser", "all"),
        **_all("useexisting uselimit", _BOOL),
        **_all("accel interval inttotal maxforce timeconst timestep tolrange", _F),
    },
    "option": {
        "integrator": ("Euler", "RK4", "implicit", "implicitfast", "discrete"),
        "cone": ("pyramidal", "elliptic"),
        "jacobian": ("dense", "sparse", "auto"),
        "solver": ("PGS", "CG", "Newton"),
        **_all("ccd_tolerance density impratio ls_tolerance noslip_tolerance o_margin "
               "sleep_tolerance timestep tolerance viscosity", _F),
        **_all("gravity magnetic wind", _F3),
        "o_friction": Num((1, 5)),
        "o_solimp": Num((1, 5)),
        "o_solref": Num((1, 2)),
        **_all("ccd_iterations iterations ls_iterations noslip_iterations sdf_initpoints "
               "sdf_iterations", _I),
        "actuatorgroupdisable": Num((1, 31), integer=True, lo=0, hi=30),
    },
    "option/flag": {
        **_all("actuation autoreset clampctrl constraint contact damper diagexact energy "
               "equality eulerdamp filterparent frictionloss fwdinv gravity invdiscrete "
               "island limit midphase multiccd nativeccd override refsafe sensor sleep "
               "speculative spring warmstart", _FLAG),
        "ipc": _FLAG,  # "enable" needs integrator="discrete": MuJoCo decides
    },
    "size": {
        **_all("njmax nconmax", Num(integer=True, lo=-1, hi=10_000)),
        "nstack": Num(integer=True, lo=-1, hi=_INT32 - 1),
        "nuserdata": Num(integer=True, lo=0, hi=_INT32 - 1),
        **_all("memory nkey nuser_actuator nuser_body nuser_cam nuser_geom nuser_jnt "
               "nuser_sensor nuser_site nuser_tendon", MUJOCO),
    },
    "statistic": {
        "center": _F3,
        "extent": _POS,
        **_all("meaninertia meanmass meansize", _F),
    },
    "visual": {},
    "visual/global": {
        **_all("azimuth elevation fovy glow ipd linewidth", _F),
        "realtime": _POS,
        **_all("bvactive ellipsoidinertia orthographic", _BOOL),
        **_all("cameraid offheight offwidth", _I),
    },
    "visual/quality": _all("numquads numslices numstacks offsamples shadowsize", _I),
    "visual/headlight": {
        "active": ("0", "1"),  # and what MuJoCo also reads (true, 2...): see _OPEN_KEYWORDS
        **_all("ambient diffuse specular", _F3),
    },
    "visual/map": {
        **_all("actuatortendon alpha fogend fogstart force haze shadowclip shadowscale "
               "stiffness stiffnessrot torque zfar", _F),
        "znear": _POS,
    },
    "visual/scale": _all(
        "actuatorlength actuatorwidth camera com connect constraint contactheight "
        "contactwidth forcewidth framelength framewidth frustum jointlength jointwidth "
        "light selectpoint slidercrank", _F),
    "visual/rgba": _all(
        "actuator actuatornegative actuatorpositive bv bvactive camera com connect "
        "constraint contactforce contactfriction contactgap contactpoint contacttorque "
        "crankbroken fog force frustum haze inertia joint light rangefinder selectpoint "
        "slidercrank", _RGBA),
}  # fmt: skip
# keyword values MuJoCo reads that the reader leaves to it (they depend on the model)
_LEAVE_TO_MUJOCO = {("option/flag", "ipc", "enable")}
# keyword attributes whose other values go to MuJoCo, not refused: headlight "active"
# is read as a keyword that also takes "true", "2"...
_OPEN_KEYWORDS = {("visual/headlight", "active")}
_CHILDREN = {path: sorted(p.rsplit("/", 1)[1] for p in SCHEMA if p.startswith(path + "/"))
             for path in SCHEMA}  # fmt: skip
# compiler options the reader reads and checks itself (mjcf_xml.read_compiler), stable
# across MuJoCo versions
_OWN_COMPILER = {"angle", "eulerseq", "meshdir", "texturedir", "assetdir", "autolimits",
                 "inertiafromgeom", "inertiagrouprange", "settotalmass", "boundmass",
                 "boundinertia", "balanceinertia", "strippath", "discardvisual",
                 "fusestatic", "coordinate"}  # fmt: skip
_SECTIONS = ("compiler", "option", "size", "visual", "statistic")


@lru_cache(maxsize=1)
def installed_mujoco() -> str:
    """The installed MuJoCo's ``major.minor`` ("" if none), read without importing it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return ".".join(version("mujoco").split(".")[:2])
    except PackageNotFoundError:
        return ""


def check_globals(root: ET.Element, path: Path) -> None:
    """Check every model-wide section of ``root`` (includes expanded) as MuJoCo would
    (see the module doc): :class:`ModelFileError` where MuJoCo certainly refuses,
    :class:`Unsupported` where only MuJoCo can tell."""
    for sec in root:
        if sec.tag not in _SECTIONS:
            continue
        if installed_mujoco() != MUJOCO_VERSION:  # read once (cached), only when needed
            extra = sec.attrib.keys() - _OWN_COMPILER if sec.tag == "compiler" else sec.attrib
            if extra or len(sec):
                raise Unsupported(
                    f"<{sec.tag}>: MuJoCo {installed_mujoco() or '?'} installed; the reader "
                    f"knows {MUJOCO_VERSION}'s rules for this section"
                )
            continue
        _check_element(sec, sec.tag, path)


def _check_element(el: ET.Element, spath: str, path: Path) -> None:
    rules = SCHEMA[spath]
    outer = "".join(f"<{p}> " for p in spath.split("/")[:-1])
    for attr, text in el.attrib.items():
        rule = rules.get(attr)
        what = f"{outer}<{el.tag} {attr}={text[:40]!r}>"
        if rule is None:
            valid = ", ".join(sorted(rules)) or "none"
            raise ModelFileError(path, f"unknown attribute {attr!r}; valid: {valid}", what)
        if isinstance(rule, tuple):
            if text in rule and (spath, attr, text) not in _LEAVE_TO_MUJOCO:
                continue
            if text in rule or (spath, attr) in _OPEN_KEYWORDS:
                raise Unsupported(f"{what}: MuJoCo decides")
            valid = ", ".join(repr(k) for k in rule)
            raise ModelFileError(path, f"not a valid value; valid: {valid}", what)
        if isinstance(rule, Num):
            _check_num(rule, text, what)
        elif rule == MUJOCO:
            raise Unsupported(f"{what}: depends on the whole model (MuJoCo decides)")
    seen: set[str] = set()
    children = _CHILDREN[spath]
    for child in el:
        if child.tag not in children:
            valid = ", ".join(f"<{c}>" for c in children) or "none"
            raise ModelFileError(
                path,
                f"unknown element <{child.tag}>; valid inside it: {valid}",
                f"{outer}<{el.tag}>",
            )
        if child.tag in seen:
            raise ModelFileError(
                path, f"<{child.tag}> given twice; allowed once", f"{outer}<{el.tag}>"
            )
        seen.add(child.tag)
        _check_element(child, f"{spath}/{child.tag}", path)


def _check_num(rule: Num, text: str, what: str) -> None:
    vals = plain_numbers(text, rule.integer)
    if vals is None:
        raise Unsupported(f"{what}: not plain decimal numbers (MuJoCo decides)")
    lo_n, hi_n = rule.count
    ok = lo_n <= len(vals) <= hi_n and all(
        math.isfinite(v) and (v > rule.lo if rule.lo_open else v >= rule.lo) and v <= rule.hi
        for v in vals
    )
    if not ok:
        raise Unsupported(f"{what}: number(s) MuJoCo may refuse (MuJoCo decides)")
