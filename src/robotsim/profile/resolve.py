"""The profile of a model: inferred, then overridden by a profile file.

The file is ``--profile FILE`` when given, else ``<robot file stem>.profile.yaml`` next to
the robot file (built-in robots keep theirs in the library folder). Every section the
file gives replaces the inferred one; names in it are checked against the model and a
wrong one is reported with its field path (``legs[0].joints[2]: unknown joint ...``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from robotsim.errors import InputError, UnknownNameError
from robotsim.model.robot import Frame, RobotModel
from robotsim.profile.file import RobotProfile, SoleSpec, read_profile_file
from robotsim.profile.infer import _tl, infer_profile
from robotsim.profile.types import (
    Arm,
    Drive,
    Foot,
    Gripper,
    Kind,
    Leg,
    Profile,
    SiteFrame,
    Wheel,
)
from robotsim.profile.wheels import drive_matrix
from robotsim.profile.wheels import drive_of_wheels as _drive

__all__ = ["default_tool", "profile_file_for", "resolve_profile", "soles_of", "with_frames"]


def profile_file_for(model: RobotModel) -> Path | None:
    """``<stem>.profile.yaml`` next to the model's file, if there is one."""
    if model.source is None:
        return None
    p = Path(model.source)
    side = p.with_name(p.stem + ".profile.yaml")
    return side if side.is_file() else None


class _Checker:
    def __init__(self, model: RobotModel, where: str) -> None:
        self.m = model
        self.where = where

    def fail(self, field: str, msg: str) -> InputError:
        return InputError(f"{self.where}: {field}: {msg}")

    def joint(self, field: str, name: str, movable: bool = True) -> str:
        names = [j.name for j in self.m.joints if j.movable or not movable]
        if name not in names:
            raise self.fail(field, str(UnknownNameError("joint", name, names)))
        return name

    def link(self, field: str, name: str) -> str:
        if name not in self.m.link_names:
            raise self.fail(field, str(UnknownNameError("link", name, self.m.link_names)))
        return name

    def frame(self, field: str, name: str, extra: dict[str, SiteFrame]) -> SiteFrame:
        for f in self.m.frames:
            if f.name == name:
                return SiteFrame(f.name, f.link, _tl(np.asarray(f.T_link_frame)))
        if name in extra:
            return extra[name]
        if name in self.m.link_names:
            return SiteFrame(name, name, _tl(np.eye(4)))
        valid = [*self.m.frame_names, *extra, *self.m.link_names]
        raise self.fail(field, str(UnknownNameError("frame", name, valid)))


def _wheel_geometry(model: RobotModel, base: str, joint: str, radius: float) -> Wheel:
    j = model.joint(joint)
    T = model.fk_all(model.zero())
    idx = {n: i for i, n in enumerate(model.link_names)}
    T_base, T_child = T[idx[base]], T[idx[j.child]]
    post = np.asarray(j.post)
    axis_w = T_child[:3, :3] @ (post[:3, :3].T @ np.asarray(j.axis))
    centre = T_child[:3, :3] @ (-(post[:3, :3].T @ post[:3, 3])) + T_child[:3, 3]
    R = T_base[:3, :3]
    return Wheel(
        joint,
        float(radius),
        tuple(float(x) for x in R.T @ axis_w),
        tuple(float(x) for x in R.T @ (centre - [0, 0, radius] - T_base[:3, 3])),
    )


def resolve_profile(model: RobotModel, file: str | Path | None = None) -> Profile:
    """The model's profile: inferred, with the profile file's sections on top."""
    inferred = infer_profile(model)
    path = Path(file) if file is not None else profile_file_for(model)
    if path is None:
        return inferred
    spec = read_profile_file(path)
    return apply_overrides(model, inferred, spec, str(path))


def apply_overrides(model: RobotModel, p: Profile, spec: RobotProfile, where: str) -> Profile:
    """``p`` with every section ``spec`` gives replaced (names checked)."""
    c = _Checker(model, where)
    out = dataclasses.replace(p)
    added = {f.sole.name: f.sole for f in p.feet if f.sole.added}
    for g in p.grippers:
        added.update({t.name: t for t in g.fingertips if t.added})
    for a in p.arms:
        if a.tool.added:
            added[a.tool.name] = a.tool
    if spec.base_link is not None:
        out = dataclasses.replace(out, base_link=c.link("base_link", spec.base_link))
    if spec.feet is not None:
        feet = []
        for i, f in enumerate(spec.feet):
            fld = f"feet[{i}]"
            c.link(fld + ".link", f.link)
            sole = c.frame(fld + ".frame", f.frame, added)
            if f.polygon is not None:
                poly = tuple((float(x), float(y)) for x, y in f.polygon)
                if len(poly) < 3:
                    raise c.fail(fld + ".polygon", f"needs >= 3 corners, got {len(poly)}")
            elif f.size is not None:
                corners = SoleSpec(frame=f.frame, size=f.size, center=f.center).corners()
                poly = tuple((float(x), float(y)) for x, y, _ in corners[::-1])
            else:
                raise c.fail(fld, "give the sole 'polygon' or its 'size'")
            feet.append(Foot(f.name, f.link, sole, poly))
        out = dataclasses.replace(out, feet=tuple(feet))
    if spec.legs is not None:
        foot_names = [f.name for f in out.feet]
        legs = []
        for i, lg in enumerate(spec.legs):
            fld = f"legs[{i}]"
            for k, jn in enumerate(lg.joints):
                c.joint(f"{fld}.joints[{k}]", jn)
            if lg.foot not in foot_names:
                raise c.fail(fld + ".foot", str(UnknownNameError("foot", lg.foot, foot_names)))
            legs.append(Leg(lg.name, tuple(lg.joints), lg.foot))
        out = dataclasses.replace(out, legs=tuple(legs))
    if spec.grippers is not None:
        grippers = []
        for i, g in enumerate(spec.grippers):
            fld = f"grippers[{i}]"
            c.link(fld + ".link", g.link)
            for a, finger in enumerate(g.fingers):
                for k, jn in enumerate(finger):
                    c.joint(f"{fld}.fingers[{a}][{k}]", jn)
            if len(g.fingertips) != len(g.fingers):
                raise c.fail(fld + ".fingertips", f"{len(g.fingertips)} fingertips for "
                             f"{len(g.fingers)} fingers; give one per finger")  # fmt: skip
            tips = tuple(
                c.frame(f"{fld}.fingertips[{k}]", t, added) for k, t in enumerate(g.fingertips)
            )
            grippers.append(Gripper(g.name, g.link, tuple(map(tuple, g.fingers)), tips))
        out = dataclasses.replace(out, grippers=tuple(grippers))
    if spec.arms is not None:
        gnames = [g.name for g in out.grippers]
        arms = []
        for i, a in enumerate(spec.arms):
            fld = f"arms[{i}]"
            for k, jn in enumerate(a.joints):
                c.joint(f"{fld}.joints[{k}]", jn)
            tool = c.frame(fld + ".tool", a.tool, added)
            if a.gripper is not None and a.gripper not in gnames:
                raise c.fail(fld + ".gripper", str(UnknownNameError("gripper", a.gripper, gnames)))
            arms.append(Arm(a.name, tuple(a.joints), tool, a.gripper))
        out = dataclasses.replace(out, arms=tuple(arms))
    if spec.wheels is not None:
        wheels = []
        for i, w in enumerate(spec.wheels):
            c.joint(f"wheels[{i}].joint", w.joint)
            wheels.append(_wheel_geometry(model, out.base_link, w.joint, w.radius))
        drive = _drive(wheels)
        if drive is not None and p.drive is not None and drive.type == "diff":
            drive = dataclasses.replace(drive, casters=p.drive.casters)
        out = dataclasses.replace(out, wheels=tuple(wheels), drive=drive)
    if spec.drive is not None:
        names = spec.drive.wheels or tuple(w.joint for w in out.wheels)
        by = {w.joint: w for w in out.wheels}
        for k, n in enumerate(names):
            if n not in by:
                raise c.fail(f"drive.wheels[{k}]", str(UnknownNameError("wheel", n, list(by))))
        ws = [by[n] for n in names]
        need = (2,) if spec.drive.type == "diff" else (3, 4)
        if len(ws) not in need:
            raise c.fail("drive.type", f"{spec.drive.type!r} needs "
                         f"{' or '.join(map(str, need))} wheels, found {len(ws)}")  # fmt: skip
        M = drive_matrix(ws)
        if spec.drive.type == "omni" and np.linalg.matrix_rank(M, tol=1e-9) < 3:
            raise c.fail("drive.type", "'omni' needs wheels whose axles are not all parallel")
        mat = tuple(tuple(float(x) for x in row) for row in M)
        track = None
        if spec.drive.type == "diff":
            a = np.asarray(ws[0].axis)
            track = float(abs((np.asarray(ws[0].position) - ws[1].position) @ a))
        casters = () if out.drive is None or spec.drive.type != "diff" else out.drive.casters
        if spec.drive.casters is not None:
            casters = tuple(
                c.link(f"drive.casters[{k}]", n) for k, n in enumerate(spec.drive.casters)
            )
        drive = Drive(spec.drive.type, tuple(names), mat, track, casters)
        out = dataclasses.replace(out, drive=drive)
    if spec.kind is not None:
        out = dataclasses.replace(out, kind=Kind(spec.kind))
    elif any(getattr(spec, s) is not None for s in ("legs", "arms", "wheels", "drive")):
        out = dataclasses.replace(out, kind=_kind(out))
    return out


def _kind(p: Profile) -> Kind:
    if p.drive is not None:
        return Kind.MOBILE_DIFF if p.drive.type == "diff" else Kind.MOBILE_OMNI
    if len(p.legs) >= 2:
        return Kind.HUMANOID if len(p.arms) >= 2 and len(p.legs) == 2 else Kind.LEGGED
    return {1: Kind.ARM, 2: Kind.DUAL_ARM}.get(len(p.arms), Kind.OTHER)


def with_frames(model: RobotModel, profile: Profile) -> RobotModel:
    """The model with the frames the profile adds (inferred sole, tool and fingertip
    frames) so they can be used by name like the model's own."""
    have = set(model.frame_names) | set(model.link_names)
    new: list[Frame] = []
    sites = [f.sole for f in profile.feet] + [a.tool for a in profile.arms]
    sites += [t for g in profile.grippers for t in g.fingertips]
    for s in sites:
        if s.added and s.name not in have:
            new.append(Frame(s.name, s.link, s.T))
            have.add(s.name)
    if not new:
        return model
    return dataclasses.replace(model, frames=(*model.frames, *new))


def soles_of(profile: Profile) -> tuple[SoleSpec, ...]:
    """The feet as motion soles (frame + polygon)."""
    return tuple(SoleSpec(frame=f.sole.name, polygon=f.polygon) for f in profile.feet)


def default_tool(model: RobotModel) -> tuple[RobotModel, str]:
    """``(model, frame)``: the frame ``fk``/``ik`` place when none is named: the model's
    own default frame when its file names one, else the tool of the profile's first arm
    (the returned model carries it when the profile adds it, e.g. between a gripper's
    fingertips), else the model's last link."""
    if model.default_frame is not None:
        return model, model.default_frame
    prof = resolve_profile(model)
    if prof.arms:
        return with_frames(model, prof), prof.arms[0].tool.name
    return model, model.tool_frame
