"""RobotModel -> URDF text.

Every link pose round-trips exactly (numbers are written with Python's shortest
round-trip ``repr``; origins as ``xyz``/``rpy``). What URDF cannot say is mapped so:

- a joint with a non-identity ``post`` (standard-DH links, MJCF joints away from their
  body origin) becomes the movable joint into an extra, empty link ``<child>__joint``
  plus a fixed joint ``<joint>__post`` (origin = ``post``) into the real child; on a
  branching tree every joint is split so (identity ``post`` for most), which keeps the
  breadth-first ``q`` order of the model;
- a revolute joint without position limits is written as ``continuous``; a prismatic
  one without limits gets ``lower="-inf" upper="inf"`` (read back by robotsim, but
  other URDF readers may refuse it); a missing effort or velocity limit is written
  as ``0`` (read back by robotsim as "no limit"); joint damping and friction go to
  ``<dynamics>`` (URDF has no armature or spring: those are lost);
- a floating model gets an empty link ``world`` and a ``floating`` joint
  ``floating_base`` to its root (read back as ``floating=True``);
- named frames become empty links joined to their link by fixed joints
  ``<frame>__frame``, so they keep their names and poses (as links, not frames);
- a capsule becomes a cylinder plus a sphere at each end (three elements), an
  ellipsoid a sphere of its largest semi-axis (URDF has neither shape);
- named poses and the default frame are not written (URDF has no place for them);
- inertias are written as in the model, except a turned tensor whose principal moments
  sit on the triangle boundary ``A + B = C``: readers that diagonalise it again
  (MuJoCo, with no tolerance) could round it outside, so its largest moment is lowered
  by 16 ulps (<= 4e-15 relative,
  :func:`~robotsim.model.principal_inertia.inside_for_readers`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from robotsim.atomic import write_text_atomic
from robotsim.model.export_numbers import num, vec
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Shape, Sphere
from robotsim.model.principal_inertia import inside_for_readers
from robotsim.model.robot import JointType, Link, RobotModel
from robotsim.spatial import R_to_rpy, trans

__all__ = ["save_urdf", "to_urdf_string", "urdf_omissions"]


def urdf_omissions(model: RobotModel) -> tuple[str, ...]:
    """What a URDF of ``model`` will not hold, one phrase each (empty when nothing is
    lost): joint armature and springs, named poses, the default frame, and the shapes
    written as approximations (module docs). ``robotsim convert`` prints them."""
    out = []

    def joints_with(attr: str) -> list[str]:
        return [j.name for j in model.joints if getattr(j.dynamics, attr) != 0.0]

    for attr, what in (("armature", "armature"), ("stiffness", "spring stiffness")):
        names = joints_with(attr)
        if names:
            out.append(f"{what} of {len(names)} joint(s) ({_some(names)})")
    if model.poses:
        out.append(f"{len(model.poses)} named pose(s) ({_some(list(model.poses))})")
    if model.default_frame is not None:
        out.append(f"the default frame {model.default_frame!r}")
    # one shape is often both a visual and a collision: count it once
    shapes = {id(s): s for lk in model.links for s in (*lk.visuals, *lk.collisions)}
    n_caps = sum(isinstance(s.geometry, Capsule) for s in shapes.values())
    n_ell = sum(isinstance(s.geometry, Ellipsoid) for s in shapes.values())
    if n_caps:
        out.append(f"{n_caps} capsule(s) (written as a cylinder and two spheres)")
    if n_ell:
        out.append(f"{n_ell} ellipsoid(s) (written as a sphere of the largest semi-axis)")
    return tuple(out)


def _some(names: list[str], most: int = 3) -> str:
    return ", ".join(names[:most]) + (", ..." if len(names) > most else "")


def _origin(parent: ET.Element, T: np.ndarray) -> None:
    T = np.asarray(T)
    if np.array_equal(T, np.eye(4)):
        return
    ET.SubElement(parent, "origin", xyz=vec(T[:3, 3]), rpy=vec(R_to_rpy(T[:3, :3])))


def _expand(shape: Shape) -> list[tuple[ET.Element, np.ndarray]]:
    """URDF geometry elements and their poses in the link for one shape."""
    geo = shape.geometry
    T = np.asarray(shape.T_link_shape)
    if isinstance(geo, Box):
        return [(ET.Element("box", size=vec(geo.size)), T)]
    if isinstance(geo, Sphere):
        return [(ET.Element("sphere", radius=num(geo.radius)), T)]
    if isinstance(geo, Cylinder):
        return [(ET.Element("cylinder", radius=num(geo.radius), length=num(geo.length)), T)]
    if isinstance(geo, Capsule):
        half = geo.length / 2
        ball = ET.Element("sphere", radius=num(geo.radius))
        out = [(ball, T @ trans([0, 0, -half])), (ET.Element("sphere", radius=num(geo.radius)),
                                                  T @ trans([0, 0, half]))]  # fmt: skip
        if geo.length > 0:
            cyl = ET.Element("cylinder", radius=num(geo.radius), length=num(geo.length))
            out.insert(0, (cyl, T))
        return out
    if isinstance(geo, Ellipsoid):
        return [(ET.Element("sphere", radius=num(max(geo.radii))), T)]
    assert isinstance(geo, Mesh)
    return [(ET.Element("mesh", filename=""), T)]


def _needs_uniform_padding(model: RobotModel) -> bool:
    """Whether every joint needs an intermediate link to keep the ``q`` order.

    A RobotModel orders its joints breadth first. Splitting only the joints with a
    ``post`` pushes their subtrees one level deeper and would reorder ``q`` on a
    branching tree; splitting every joint doubles all depths and keeps the order.
    """
    if not any(j.movable and not np.array_equal(j.post, np.eye(4)) for j in model.joints):
        return False
    parents = [j.parent for j in model.joints]
    return len(parents) != len(set(parents))


class _UrdfWriter:
    def __init__(self, model: RobotModel, relative_to: Path | None) -> None:
        self.model = model
        self.relative_to = relative_to
        self.robot = ET.Element("robot", name=model.name)

    def mesh_filename(self, geo: Mesh) -> str:
        p = Path(geo.path).resolve()
        if self.relative_to is not None:
            try:
                return p.relative_to(self.relative_to).as_posix()
            except ValueError:
                pass
        return str(p)

    def shapes(self, link_el: ET.Element, link: Link, tag: str) -> None:
        shapes = link.visuals if tag == "visual" else link.collisions
        for i, shape in enumerate(shapes):
            for k, (geo_el, T) in enumerate(_expand(shape)):
                el = ET.SubElement(link_el, tag)
                if shape.name:
                    el.set("name", shape.name if k == 0 else f"{shape.name}_{k}")
                _origin(el, T)
                g = ET.SubElement(el, "geometry")
                if geo_el.tag == "mesh":
                    assert isinstance(shape.geometry, Mesh)
                    geo_el.set("filename", self.mesh_filename(shape.geometry))
                    if any(s != 1.0 for s in shape.geometry.scale):
                        geo_el.set("scale", vec(shape.geometry.scale))
                g.append(geo_el)
                if tag == "visual":
                    mat = ET.SubElement(el, "material", name=f"{link.name}_visual{i}")
                    ET.SubElement(mat, "color", rgba=vec(shape.rgba))

    def link(self, link: Link) -> None:
        el = ET.SubElement(self.robot, "link", name=link.name)
        ine = link.inertial
        if ine is not None:
            ie = ET.SubElement(el, "inertial")
            if np.any(np.asarray(ine.com) != 0):
                ET.SubElement(ie, "origin", xyz=vec(ine.com), rpy="0 0 0")
            ET.SubElement(ie, "mass", value=num(ine.mass))
            I = np.asarray(ine.inertia)
            if ine.mass > 0.0:
                I = inside_for_readers(I, link.name)  # see the module doc
            ET.SubElement(ie, "inertia", ixx=num(I[0, 0]), ixy=num(I[0, 1]),
                          ixz=num(I[0, 2]), iyy=num(I[1, 1]), iyz=num(I[1, 2]),
                          izz=num(I[2, 2]))  # fmt: skip
        self.shapes(el, link, "visual")
        self.shapes(el, link, "collision")

    def joint(
        self, name: str, jtype: str, parent: str, child: str, origin: np.ndarray
    ) -> ET.Element:
        el = ET.SubElement(self.robot, "joint", name=name, type=jtype)
        _origin(el, origin)
        ET.SubElement(el, "parent", link=parent)
        ET.SubElement(el, "child", link=child)
        return el

    def build(self) -> ET.Element:
        m = self.model
        for link in m.links:
            self.link(link)
        if m.floating:
            ET.SubElement(self.robot, "link", name="world")
            self.joint("floating_base", "floating", "world", m.root, np.eye(4))
        pad_all = _needs_uniform_padding(m)
        for j in m.joints:
            post = np.asarray(j.post)
            has_post = not np.array_equal(post, np.eye(4))
            split = pad_all or (has_post and j.movable)
            child = f"{j.child}__joint" if split else j.child
            origin = np.asarray(j.origin) if split or not has_post else j.origin @ post
            lim = j.limits
            jtype = j.type.value
            if j.type is JointType.REVOLUTE and not (np.isfinite(lim.lower)
                                                     and np.isfinite(lim.upper)):  # fmt: skip
                jtype = "continuous"
            el = self.joint(j.name, jtype, j.parent, child, origin)
            if j.movable:
                ET.SubElement(el, "axis", xyz=vec(j.axis))
                le = ET.SubElement(el, "limit")
                if jtype != "continuous":
                    le.set("lower", num(lim.lower) if np.isfinite(lim.lower) else "-inf")
                    le.set("upper", num(lim.upper) if np.isfinite(lim.upper) else "inf")
                le.set("effort", num(lim.effort) if np.isfinite(lim.effort) else "0")
                le.set("velocity", num(lim.velocity) if np.isfinite(lim.velocity) else "0")
                if j.mimic is not None:
                    ET.SubElement(el, "mimic", joint=j.mimic.joint,
                                  multiplier=num(j.mimic.multiplier),
                                  offset=num(j.mimic.offset))  # fmt: skip
                if j.dynamics.damping or j.dynamics.friction:
                    ET.SubElement(el, "dynamics", damping=num(j.dynamics.damping),
                                  friction=num(j.dynamics.friction))  # fmt: skip
            if split:
                ET.SubElement(self.robot, "link", name=child)
                self.joint(f"{j.name}__post", "fixed", child, j.child, post)
        for fr in m.frames:
            ET.SubElement(self.robot, "link", name=fr.name)
            self.joint(f"{fr.name}__frame", "fixed", fr.link, fr.name, np.asarray(fr.T_link_frame))
        return self.robot


def to_urdf_string(model: RobotModel, relative_to: Path | None = None) -> str:
    """The model as URDF text (see the module doc for what is approximated).

    Mesh filenames are absolute unless ``relative_to`` (a directory) contains them.
    """
    root = _UrdfWriter(model, relative_to).build()
    ET.indent(root, space="  ")
    return '<?xml version="1.0"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def save_urdf(model: RobotModel, path: str | Path) -> Path:
    """Write the model as a URDF file; mesh paths relative to its folder when possible."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, to_urdf_string(model, relative_to=out.parent.resolve()))
    return out
