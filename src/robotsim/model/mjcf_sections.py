"""The MJCF sections beside the body tree, for the MJCF reader: names other sections
use must exist (``<contact>``, ``<tendon>``, ``<actuator>``, ``<sensor>``,
``<equality>``, cameras' and lights' targets), ``<equality><joint>`` couplings and
``<key>`` frames (``qpos`` padded with ``qpos0``, as MuJoCo does). What MuJoCo would
refuse raises :class:`Unsupported`, so that MuJoCo says why.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Protocol

import numpy as np

from robotsim.model.mjcf_xml import Attrs, Unsupported

__all__ = ["Named", "body_equalities", "check_references", "equalities", "keys", "unique"]


class Named(Protocol):
    """What the reader collected: the names of bodies, joints, sites and geoms."""

    b_name: list[str]
    j_name: list[str]
    j_type: list[str]
    s_name: list[str]
    s_body: list[int]
    g_name: list[str]

    def attrs(self, el: ET.Element, tag: str, cc: str | None, what: str) -> Attrs: ...


# attributes elsewhere in the file that name a body, joint, site or geom
_REFS = {"joint": "joint", "jointinparent": "joint", "joint1": "joint", "joint2": "joint",
         "body": "body", "body1": "body", "body2": "body", "target": "body",
         "site": "site", "site1": "site", "site2": "site", "cranksite": "site",
         "slidersite": "site", "refsite": "site", "geom": "geom", "geom1": "geom",
         "geom2": "geom"}  # fmt: skip


def unique(names: list[str], kind: str) -> set[str]:
    named = [n for n in names if n]
    out = set(named)
    if len(out) != len(named):
        raise Unsupported(f"a repeated {kind} name")
    return out


_ACTUATORS = {"general", "motor", "position", "velocity", "intvelocity", "damper", "cylinder",
              "muscle", "adhesion"}  # fmt: skip
_TENDON_SCHEMA = {"fixed": {"joint"}, "spatial": {"site", "geom", "pulley"}}


def check_references(root: ET.Element, r: Named) -> None:
    """Names other sections use must exist (MuJoCo refuses the file otherwise)."""
    for sec in root.iter("tendon"):
        for ten in sec:
            if ten.tag not in _TENDON_SCHEMA or any(c.tag not in _TENDON_SCHEMA[ten.tag]
                                                    for c in ten):  # fmt: skip
                raise Unsupported(f"<tendon> <{ten.tag}>: unknown element")
            used = [c.get("joint") for c in ten if c.tag == "joint"]
            if len(set(used)) != len(used):
                raise Unsupported(f"<tendon> <{ten.tag}>: a joint repeated")
    unique([t.get("name", "") for sec in root.iter("tendon") for t in sec], "tendon")
    actuators = [a for sec in root.iter("actuator") for a in sec]
    if any(a.tag not in _ACTUATORS for a in actuators):
        raise Unsupported("<actuator>: an element this reader does not know")
    unique([a.get("name", "") for a in actuators], "actuator")
    known = {"body": set(r.b_name) | {"world"}, "joint": set(r.j_name), "site": set(r.s_name),
             "geom": set(r.g_name)}  # fmt: skip
    for sec in root:
        if sec.tag not in ("contact", "tendon", "actuator", "sensor", "equality", "worldbody"):
            continue
        els = sec.iter() if sec.tag != "worldbody" else (
            e for e in sec.iter() if e.tag in ("camera", "light"))  # fmt: skip
        for el in els:
            for attr, kind in _REFS.items():
                v = el.get(attr)
                if v is not None and v not in known[kind]:
                    raise Unsupported(f"<{el.tag} {attr}={v!r}>: no such {kind}")


def equalities(root: ET.Element, r: Named) -> list[tuple[int, bool, int, int, np.ndarray]]:
    jid = {n: j for j, n in enumerate(r.j_name) if n}
    out = []
    e = 0
    for sec in root.iter("equality"):
        for el in sec:
            what = f"<equality> <{el.tag} {el.get('name', '')}>"
            if el.tag not in ("connect", "weld", "joint"):
                raise Unsupported(what)
            a = r.attrs(el, "equality", None, what)
            active = str(a.get("active", "true"))
            if active not in ("true", "false"):
                raise Unsupported(f"{what}: active={active!r}")
            if el.tag == "joint":
                j1 = jid.get(str(a.get("joint1", "")), -1)
                j2 = jid.get(str(a["joint2"]), -1) if "joint2" in a else -1
                if j1 < 0 or (j2 < 0 and "joint2" in a):
                    raise Unsupported(f"{what}: unknown joint")
                coef = a.get("polycoef", [0.0, 1.0, 0.0, 0.0, 0.0])
                out.append((e, active == "true", j1, j2, np.array(coef, float)))
            e += 1
    return out


def body_equalities(root: ET.Element, r: Named) -> list[tuple[int, str, int, int]]:
    """Active ``<connect>``/``<weld>`` equalities: (index among all equalities, tag, body1,
    body2), bodies by id (a site's body for ``site1``/``site2``; 0: the world)."""
    bid = {n: b for b, n in enumerate(r.b_name) if n}
    sid = {n: r.s_body[s] for s, n in enumerate(r.s_name) if n}
    out = []
    for e, el in enumerate(el for sec in root.iter("equality") for el in sec):
        if el.tag not in ("connect", "weld"):
            continue
        a = r.attrs(el, "equality", None, f"<equality> <{el.tag} {el.get('name', '')}>")
        if str(a.get("active", "true")) != "true":
            continue
        if "site1" in a:
            ends = [sid.get(str(a.get("site1")), 0), sid.get(str(a.get("site2", "")), 0)]
        else:
            ends = [bid.get(str(a.get("body1", "")), 0), bid.get(str(a.get("body2", "")), 0)]
        out.append((e, el.tag, ends[0], ends[1]))
    return out


def keys(root: ET.Element, r: Named, qpos0: np.ndarray) -> list[tuple[str, np.ndarray]]:
    nv = sum({"free": 6, "ball": 3}.get(t, 1) for t in r.j_type)
    nu = sum(len(sec) for sec in root.iter("actuator"))
    out = []
    for sec in root.iter("keyframe"):
        for el in sec:
            what = f"<key {el.get('name', '')}>"
            if el.get("name") and any(el.get("name") == k for k, _ in out):
                raise Unsupported(f"{what}: a repeated name")
            if el.tag != "key" or el.attrib.keys() - {"name", "time", "qpos", "qvel", "ctrl"}:
                raise Unsupported(what)
            qpos = qpos0.copy()
            for attr, n in (("qpos", len(qpos0)), ("qvel", nv), ("ctrl", nu)):
                text = el.get(attr)
                if text is None:
                    continue
                try:
                    v = [float(x) for x in text.split()]
                except ValueError:
                    raise Unsupported(f"{what} {attr}: not numbers") from None
                if len(v) > n or not all(math.isfinite(x) for x in v):
                    raise Unsupported(f"{what} {attr}: {len(v)} numbers for {n}")
                if attr == "qpos":
                    qpos[: len(v)] = v
            out.append((el.get("name", ""), qpos))
    return out
