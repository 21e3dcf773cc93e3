"""The force an MJCF file's actuators can put on each joint: its rated effort.

A joint's own ``actuatorfrcrange`` is one way a file states a limit; the actuators that
drive it are the other, and the common one (mujoco_menagerie's arms and grippers): a
``<general>``/``<motor>``/``<position>`` on the joint with a ``forcerange`` and a
``gear``, or one actuator on a fixed tendon that couples several joints (the Panda's
two fingers: one actuator on a tendon ``0.5 q1 + 0.5 q2``). A tendon's force ``F``
puts ``coef * F`` on each of its joints (the tendon's length is ``sum(coef * q)``).

What one actuator can exert (:func:`actuator_bound`), on its transmission:

- ``forcerange`` when it is force-limited: the maker's limit (``gear`` times it on the
  transmission);
- for an actuator without feedback (a motor: a fixed gain, no length or velocity term
  in its bias, no activation dynamics), at most ``|gain * ctrl + bias0|`` over its
  ``ctrlrange``;
- a servo without ``forcerange`` is unbounded: a servo's gain is the maker's
  controller, not the motor's rating (robotsim drives joints with servos of its own;
  menagerie's Panda gripper servo, a stiffness of 100 N/m over 4 cm, reaches 4 N of
  the 100 N its ``forcerange`` allows).

A joint's effort is the sum over the actuators that reach it (unbounded if any is),
capped by its own ``actuatorfrcrange``: :func:`joint_efforts` from a compiled
``MjModel``, :func:`joint_efforts_xml` from the XML (the ``<default>``, ``<tendon>``
and ``<actuator>`` sections, the shortcuts and their defaults resolved as MuJoCo does:
one actuator default per class that every shortcut in it updates; a ``<position>``
takes the class's gain as its ``kp`` unless it gives one).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import numpy as np

from robotsim.model.mjcf_xml import Unsupported, floats, plain_numbers

__all__ = ["actuator_bound", "joint_efforts", "joint_efforts_xml"]

_ACTUATOR_TAGS = {"general", "motor", "position", "velocity", "intvelocity", "damper",
                  "cylinder", "muscle", "adhesion"}  # fmt: skip


def actuator_bound(
    forcelimited: bool,
    forcerange: np.ndarray,
    gaintype: int,
    gainprm: np.ndarray,
    biastype: int,
    biasprm: np.ndarray,
    dyntype: int,
    ctrllimited: bool,
    ctrlrange: np.ndarray,
) -> float:
    """The largest force (module doc) one actuator exerts on its transmission, before
    ``gear``; ``inf`` when nothing bounds it. Types are MuJoCo's enum values (gain and
    bias: 0 fixed/none, 1 affine; dynamics: 0 none)."""
    bound = float(np.max(np.abs(forcerange))) if forcelimited else math.inf
    motor = gaintype == 0 and (biastype == 0 or (biastype == 1 and biasprm[1] == biasprm[2] == 0))
    if motor and dyntype == 0 and ctrllimited:
        b0 = float(biasprm[0]) if biastype else 0.0
        bound = min(bound, max(abs(float(gainprm[0]) * float(c) + b0) for c in ctrlrange))
    return bound


def joint_efforts(mjm: Any) -> np.ndarray:
    """Each joint's effort from the actuators of the compiled model ``mjm`` (``(njnt,)``,
    ``inf`` where none bounds it; the joints' own ``actuatorfrcrange`` not applied)."""
    import mujoco

    njnt = int(mjm.njnt)
    total = np.zeros(njnt)
    reached = np.zeros(njnt, bool)
    joint_trn = (int(mujoco.mjtTrn.mjTRN_JOINT), int(mujoco.mjtTrn.mjTRN_JOINTINPARENT))
    for a in range(int(mjm.nu)):
        F = actuator_bound(
            bool(mjm.actuator_forcelimited[a]), np.asarray(mjm.actuator_forcerange[a]),
            int(mjm.actuator_gaintype[a]), np.asarray(mjm.actuator_gainprm[a]),
            int(mjm.actuator_biastype[a]), np.asarray(mjm.actuator_biasprm[a]),
            int(mjm.actuator_dyntype[a]), bool(mjm.actuator_ctrllimited[a]),
            np.asarray(mjm.actuator_ctrlrange[a]),
        )  # fmt: skip
        gear = abs(float(mjm.actuator_gear[a][0]))
        trn, tid = int(mjm.actuator_trntype[a]), int(mjm.actuator_trnid[a][0])
        if trn in joint_trn:
            shares = [(tid, 1.0)]
        elif trn == int(mujoco.mjtTrn.mjTRN_TENDON):
            adr, num = int(mjm.tendon_adr[tid]), int(mjm.tendon_num[tid])
            if any(int(mjm.wrap_type[w]) != int(mujoco.mjtWrap.mjWRAP_JOINT)
                   for w in range(adr, adr + num)):  # fmt: skip
                continue  # a spatial tendon: its moment arms change with the pose
            shares = [(int(mjm.wrap_objid[w]), abs(float(mjm.wrap_prm[w])))
                      for w in range(adr, adr + num)]  # fmt: skip
        else:
            continue  # site, body, slider-crank: no single joint
        for j, c in shares:
            if c > 0:
                reached[j] = True
                total[j] += gear * c * F if math.isfinite(F) else math.inf
    return np.where(reached, total, math.inf)


_FRESH: dict[str, Any] = {"forcelimited": "auto", "ctrllimited": "auto", "gear": 1.0,
                          "gaintype": "fixed", "gain": [1.0, 0.0, 0.0], "biastype": "none",
                          "bias": [0.0, 0.0, 0.0], "dyntype": "none"}  # fmt: skip


def _nums(text: str, what: str) -> list[float]:
    vals = plain_numbers(text)
    if not vals or not all(math.isfinite(v) for v in vals):
        raise Unsupported(f"{what}: not numbers: {text[:40]!r}")
    return vals


def _apply(tag: str, at: dict[str, str], base: dict[str, Any], what: str) -> dict[str, Any]:
    """``base`` (an actuator's resolved settings) overridden by an element or default
    ``<tag>``, as MuJoCo's shortcuts set them (a ``<position>`` keeps the class's gain
    as its ``kp`` and ``-bias[2]`` as its ``kv`` unless given)."""
    s = dict(base)
    for k in ("forcelimited", "ctrllimited"):
        if k in at:
            s[k] = at[k]
    for k in ("forcerange", "ctrlrange"):
        if k in at:
            s[k] = floats(at[k], 2, f"{what} {k}")
    if "gear" in at:
        s["gear"] = _nums(at["gear"], f"{what} gear")[0]
    if tag == "general":
        for k in ("gaintype", "biastype", "dyntype"):
            if k in at:
                s[k] = at[k]
        for k, key in (("gainprm", "gain"), ("biasprm", "bias")):
            if k in at:
                vals = _nums(at[k], f"{what} {k}")[:3]
                s[key] = vals + list(s[key])[len(vals) :]
    elif tag == "motor":
        s.update(gaintype="fixed", gain=[1.0, 0.0, 0.0], biastype="none", bias=[0.0] * 3,
                 dyntype="none")  # fmt: skip
    elif tag == "position":
        kp = _nums(at["kp"], f"{what} kp")[0] if "kp" in at else s["gain"][0]
        kv = _nums(at["kv"], f"{what} kv")[0] if "kv" in at else -s["bias"][2]
        if "dampratio" in at:
            kv = math.nan  # set from the joint's inertia: a damped servo in any case
        timeconst = _nums(at["timeconst"], f"{what} timeconst")[0] if "timeconst" in at else 0
        s.update(gaintype="fixed", gain=[kp, 0.0, 0.0], biastype="affine", bias=[0.0, -kp, -kv],
                 dyntype="filterexact" if timeconst > 0 else "none")  # fmt: skip
    elif tag == "velocity":
        kv = _nums(at["kv"], f"{what} kv")[0] if "kv" in at else 1.0
        s.update(gaintype="fixed", gain=[kv, 0.0, 0.0], biastype="affine", bias=[0.0, 0.0, -kv],
                 dyntype="none")  # fmt: skip
    elif tag == "damper":
        s.update(gaintype="affine", biastype="none", dyntype="none")
    else:  # intvelocity, cylinder, muscle, adhesion: actuator dynamics of their own
        s.update(dyntype=tag)
    return s


def _classes(root: ET.Element) -> dict[str, dict[str, Any]]:
    """Each default class's resolved actuator settings (one for every actuator tag, as
    MuJoCo keeps one actuator default per class)."""
    out: dict[str, dict[str, Any]] = {}

    def walk(el: ET.Element, name: str, inherited: dict[str, Any]) -> None:
        mine = dict(inherited)
        for child in el:
            if child.tag in _ACTUATOR_TAGS:
                mine = _apply(child.tag, child.attrib, mine, f"<default class={name!r}>")
        out[name] = mine
        for child in el:
            if child.tag == "default":
                walk(child, child.get("class", ""), mine)

    for top in root.findall("default"):
        walk(top, "main", _FRESH)
    out.setdefault("main", dict(_FRESH))
    return out


def joint_efforts_xml(
    root: ET.Element,
    jnt_name: list[str],
    jnt_type: list[str],
    limited: Callable[[dict[str, object], str, str, list[float], str], bool],
) -> np.ndarray:
    """:func:`joint_efforts` for the MJCF tree ``root`` (includes expanded) whose joints
    the reader found, with its ``limited`` rule (``autolimits``); read from the XML
    (the actuators' defaults resolved as MuJoCo does), without MuJoCo."""
    njnt = len(jnt_name)
    total = np.zeros(njnt)
    reached = np.zeros(njnt, bool)
    acts = [a for sec in root.iter("actuator") for a in sec if a.tag in _ACTUATOR_TAGS]
    if not acts:
        return np.full(njnt, math.inf)
    jid = {n: j for j, n in enumerate(jnt_name) if n}
    fixed: dict[str, list[tuple[int, float]]] = {}
    for sec in root.iter("tendon"):
        for t in sec:
            if t.tag == "fixed" and t.get("name"):
                fixed[t.get("name", "")] = [
                    (jid[str(c.get("joint"))], abs(_nums(c.get("coef", "1"), "coef")[0]))
                    for c in t if c.tag == "joint"]  # fmt: skip
    classes = _classes(root)
    types = {"fixed": 0, "affine": 1, "none": 0}
    for a in acts:
        what = f"<{a.tag} {a.get('name', '')}>"
        cls = a.get("class", "main")
        if cls not in classes:
            raise Unsupported(f"{what}: unknown default class {cls!r}")
        s = _apply(a.tag, a.attrib, classes[cls], what)
        target = a.get("joint") or a.get("jointinparent")
        if target is not None:
            shares = [(jid[target], 1.0)] if target in jid else []
        elif a.get("tendon") is not None:
            shares = fixed.get(str(a.get("tendon")), [])
        else:
            continue
        frc = [float(v) for v in s.get("forcerange", [0.0, 0.0])]
        ctrl = [float(v) for v in s.get("ctrlrange", [0.0, 0.0])]
        attrs = {k: v for k, v in (("forcelimited", s["forcelimited"]),
                                   ("ctrllimited", s["ctrllimited"])) if v != "auto"}  # fmt: skip
        if "forcerange" in s:
            attrs["forcerange"] = frc
        if "ctrlrange" in s:
            attrs["ctrlrange"] = ctrl
        F = actuator_bound(
            limited(attrs, "forcelimited", "forcerange", frc, what), np.array(frc),
            types.get(s["gaintype"], 2), np.array(s["gain"], float),
            {"none": 0, "affine": 1}.get(s["biastype"], 2), np.array(s["bias"], float),
            0 if s["dyntype"] == "none" else 1,
            limited(attrs, "ctrllimited", "ctrlrange", ctrl, what), np.array(ctrl),
        )  # fmt: skip
        for j, c in shares:
            if c > 0 and jnt_type[j] in ("hinge", "slide"):
                reached[j] = True
                total[j] += abs(s["gear"]) * c * F if math.isfinite(F) else math.inf
    return np.where(reached, total, math.inf)
