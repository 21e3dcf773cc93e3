"""RobotModel -> MJCF text and ``mujoco.MjSpec`` (the physics layer builds worlds from it).

Each link becomes a body; each joint ``T_parent_child(q) = origin @ M(axis, q) @ post``
becomes the child body placed at ``origin @ post`` with its MuJoCo joint expressed in the
*child* body frame::

    axis_mj = R_post^T axis,      pos_mj = -R_post^T t_post

so that ``post^-1 M(axis, q) post`` (a rotation about ``axis_mj`` through ``pos_mj``, or
a slide along ``axis_mj``) is exactly MuJoCo's joint motion and every body pose equals
our forward kinematics for ``qpos == q``. Numbers are written with Python's shortest
round-trip ``repr``, so nothing is lost in the text (``MjSpec.to_xml`` prints only six
digits, which is why we write the XML ourselves and parse it with ``MjSpec``).

What is written:

- bodies ``<prefix><link>``; joints ``<prefix><joint>`` (hinge for revolute and
  continuous, slide for prismatic; finite position limits -> ``range``; finite effort
  -> ``actuatorfrcrange``). MuJoCo has no joint velocity limit: velocity limits stay in
  the RobotModel only.
- joint dynamics (:class:`~robotsim.model.JointDynamics`) -> ``armature``,
  ``damping``, ``frictionloss``, ``stiffness`` and ``springref``.
- a floating model gets a ``<freejoint name="<prefix>floating_base">`` on its root body.
- mimic joints -> ``<equality><joint joint1=mimic joint2=leader polycoef="offset
  multiplier 0 0 0">`` (a soft constraint in the dynamics, exact in the kinematics).
- shapes -> geoms. A shape that is both a visual and a collision shape (the same object
  in both tuples) is one geom in group 0; visual-only shapes are group 2 with
  ``contype=conaffinity=0`` and ``density=0``; collision-only shapes are group 3. Box,
  sphere, cylinder, capsule and ellipsoid map one to one. Mesh files MuJoCo reads
  itself (OBJ of triangles, binary STL up to 200000 triangles) are referenced by path; others
  (ASCII STL, 3DS, X, DAE, GLB, PLY...) are read with
  :func:`robotsim.model.meshes.load_mesh` and written inline as vertex/face lists.
  Visual-only meshes use ``inertia="shell"`` (open visual meshes then compile); flat
  meshes or meshes of fewer than 4 vertices, which MuJoCo refuses, are left out with a
  warning.
- a 3DS or DirectX file whose faces have several materials
  (:func:`robotsim.model.mesh_parts.mesh_parts`) is drawn part by part: one inline,
  visual-only mesh and geom per material, each with its material's colour and texture
  (a visual and collision shape keeps the whole mesh as a collision geom, group 3);
- mesh materials (:func:`robotsim.model.mesh_material.mesh_material`: OBJ ``.mtl``,
  DAE effects, 3DS/X materials): a mesh shape with the default colour gets a
  ``<material>`` asset with the file's diffuse ``rgba`` and, when the file names an
  image that exists and the mesh has texture coordinates (OBJ ``vt`` lines, or the
  loaded mesh's UVs written inline as ``texcoord``), a ``<texture type="2d">`` on it.
  PNG images are referenced by path (relative like meshes); other formats (MuJoCo reads
  PNG only) are converted to a PNG beside the saved file (:func:`save_mjcf`), or left
  out with a warning when there is no output folder. A shape with its own colour keeps
  it (``rgba`` on the geom, no material).
- inertia: a link gets what :func:`robotsim.model.inertia_bounds.physics_inertials`
  says: its :class:`Inertial` as the model has it (mass 0 and zero or singular tensors
  included), except where MuJoCo would refuse it (a moving body without mass or with a
  singular tensor: merged with the links fixed below it, or bounded as
  ``boundmass``/``boundinertia`` do; a massless link's lumped tensor breaking
  ``A + B >= C``: its smaller moments raised). The tensor is written in its principal
  frame (``diaginertia``, plus ``quat`` unless the tensor is already diagonal, then
  written bit for bit), decomposed by
  :func:`~robotsim.model.principal_inertia.principal_inertia` so that MuJoCo's exact
  ``A + B >= C`` check passes for tensors on the triangle boundary (``fullinertia``
  would let MuJoCo's own decomposition round them a few ulps outside: the PUMA 560's
  link 1). No compiler ``balanceinertia``/``boundmass``/``boundinertia``, which would let
  MuJoCo change other bodies. A link without an inertial gets no ``<inertial>``: MuJoCo
  infers its mass and inertia from its collision geoms at density 1000 kg/m^3
  (``inertiafromgeom="auto"``, as MuJoCo's URDF import), except on a fixed base, where
  it is written massless (static; MuJoCo's masses then equal the model's).
- body names: MuJoCo reserves ``world`` for its world body. A fixed-base model whose root
  link is called ``world`` (URDF's convention) exports that root *as* the world body (its
  geoms and frames go to ``<worldbody>``; the world has no mass). Any other link called
  ``world`` (a floating root, or a deeper link) becomes the body ``world_link`` (or
  ``world_link2``... if taken); with a non-empty ``prefix`` nothing needs renaming.
- geom names ``<prefix><link>/<shape name>`` (``visual<i>``/``collision<i>`` when the
  shape has none); a name already taken (URDF allows a visual and a collision of the
  same name) gets ``_2``, ``_3``...
- named frames -> sites ``<prefix><frame>`` on their link's body.
- named poses -> keyframes ``<prefix><pose>`` in files (qpos of this robot alone; only
  when the model is not floating); not in :func:`to_mjspec`, whose spec is meant to be
  attached into a world whose keyframes must cover every robot.
- a floating robot read from a file with a start pose (``metadata["T_world_root"]``,
  e.g. MuJoCo's humanoid at 1.28 m) keeps it as its root body's pose in files (not in
  :func:`to_mjspec`: a scene places its robots itself).
"""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from robotsim.atomic import write_text_atomic
from robotsim.model.export_numbers import num, vec
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Shape, Sphere
from robotsim.model.inertia_bounds import physics_inertials
from robotsim.model.principal_inertia import principal_inertia
from robotsim.model.robot import Inertial, Joint, JointType, Link, RobotModel
from robotsim.spatial import R_to_quat

if TYPE_CHECKING:
    import mujoco

    from robotsim.model.mesh_material import MeshMaterial

__all__ = ["mjcf_omissions", "save_mjcf", "to_mjcf_string", "to_mjspec"]

GROUP_BOTH, GROUP_VISUAL, GROUP_COLLISION = 0, 2, 3


def mjcf_omissions(model: RobotModel) -> tuple[str, ...]:
    """What an MJCF file of ``model`` will not hold, one phrase each (empty when nothing
    is lost): a floating robot's named poses (a keyframe's qpos starts with the free
    joint's base pose, which the poses do not have). ``robotsim convert`` prints them."""
    if model.floating and model.poses and model.nq > 0:
        names = list(model.poses)
        some = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        return (f"{len(names)} named pose(s) ({some}): a floating robot's poses have no base "
                "pose for MuJoCo keyframes",)  # fmt: skip
    return ()


def _mujoco_reads(path: Path) -> bool:
    """MuJoCo reads OBJ files and *binary* STL files of at most 200000 triangles."""
    suffix = path.suffix.lower()
    if suffix == ".obj":
        from robotsim.model.obj_file import obj_read_here

        return path.is_file() and not obj_read_here(path)  # n-gons: ours ear-clipped
    if suffix != ".stl":
        return False
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            head = fh.read(84)
    except OSError:
        return False
    if len(head) < 84:
        return False
    n = int.from_bytes(head[80:84], "little")
    return 0 < n <= 200_000 and size == 84 + 50 * n


def _native_vertices(path: Path) -> np.ndarray:
    """Vertices ``(n, 3)`` of an OBJ or binary STL file, read quickly (no faces): enough
    to tell whether MuJoCo will accept the mesh."""
    if path.suffix.lower() == ".stl":
        data = np.frombuffer(path.read_bytes(), dtype=np.uint8, offset=84)
        tri = data.reshape(-1, 50)[:, 12:48].copy().view("<f4").reshape(-1, 3)
        return tri.astype(np.float64)
    rows = []
    with path.open("r", errors="replace") as fh:
        for line in fh:
            if line.startswith("v "):
                rows.append(line.split()[1:4])
    try:
        return np.array(rows, dtype=np.float64).reshape(-1, 3)
    except ValueError:
        return np.zeros((0, 3))


DEFAULT_SHAPE_RGBA = (0.7, 0.7, 0.75, 1.0)  # Shape's default: "the file's own colour"


def _mesh_uv(path: Path, tm: object | None) -> np.ndarray | None:
    """Texture coordinates: for a file MuJoCo reads (``tm`` None) an empty array if it
    has ``vt`` lines (MuJoCo reads them itself); else the loaded mesh's per-vertex UVs
    ``(n, 2)``; None without any."""
    if tm is None:
        if path.suffix.lower() != ".obj":
            return None
        with path.open("r", errors="replace") as fh:
            return np.zeros((0, 2)) if any(line.startswith("vt ") for line in fh) else None
    uv = getattr(getattr(tm, "visual", None), "uv", None)
    n = len(getattr(tm, "vertices", ()))
    if uv is None or len(uv) != n:
        return None
    return np.asarray(uv, dtype=np.float64)


def _set_pose(el: ET.Element, T: np.ndarray) -> None:
    p = T[:3, 3]
    if np.any(p != 0.0):
        el.set("pos", vec(p))
    R = T[:3, :3]
    if not np.array_equal(R, np.eye(3)):
        el.set("quat", vec(R_to_quat(R)))


class _MjcfWriter:
    def __init__(
        self,
        model: RobotModel,
        prefix: str,
        relative_to: Path | None,
        keyframes: bool,
        world_root: bool = True,
    ) -> None:
        self.model = model
        self.keyframes = keyframes
        self.prefix = prefix
        self.relative_to = relative_to
        self.root = ET.Element("mujoco", model=prefix + model.name)
        ET.SubElement(
            self.root,
            "compiler",
            angle="radian",
            autolimits="true",
        )
        self.asset = ET.SubElement(self.root, "asset")
        self.world = ET.SubElement(self.root, "worldbody")
        self._meshes: dict[tuple[str, tuple[float, ...], bool], str | None] = {}
        self._geom_names: set[str] = set()
        self._mesh_material: dict[str, str] = {}  # mesh asset -> material asset
        self._parts: dict[tuple[str, tuple[float, ...]], list[tuple[str, str | None]]] = {}
        self._textures: dict[str, str] = {}  # image file -> texture asset
        self.body_names = mjcf_body_names(model, prefix, world_root)

    # ----------------------------------------------------------------- meshes
    def mesh_asset(self, geom: Mesh, visual_only: bool) -> str | None:
        """The asset name for a mesh geometry, or None if MuJoCo cannot use the mesh
        (fewer than 4 vertices or all in one plane: MuJoCo needs a volume)."""
        from robotsim.model.meshes import load_mesh

        path = Path(geom.path).resolve()
        # visual-only meshes get shell inertia: open or thin visual meshes then compile.
        key = (str(path), tuple(float(s) for s in geom.scale), visual_only)
        if key in self._meshes:
            return self._meshes[key]
        native = _mujoco_reads(path)
        tm = None if native else load_mesh(path)
        v = _native_vertices(path) if tm is None else np.asarray(tm.vertices, dtype=np.float64)
        if len(v) < 4 or np.linalg.matrix_rank(v - v.mean(axis=0), tol=1e-12) < 3:
            warnings.warn(
                f"{path}: mesh is flat or has fewer than 4 vertices; MuJoCo cannot use it, "
                "its geoms are left out of the MJCF",
                stacklevel=4,
            )
            self._meshes[key] = None
            return None
        name = f"{self.prefix}mesh{len(self._meshes)}_{path.stem}"
        el = ET.SubElement(self.asset, "mesh", name=name)
        if any(s != 1.0 for s in geom.scale):
            el.set("scale", vec(geom.scale))
        if visual_only:
            el.set("inertia", "shell")
        if tm is None:
            el.set("file", self.file_ref(path))
        else:
            el.set("vertex", vec(v.ravel()))
            el.set("face", " ".join(str(int(i)) for i in np.asarray(tm.faces).ravel()))
        uv = _mesh_uv(path, tm)
        if uv is not None and len(uv):
            # MuJoCo's images run top-down: v is flipped, as its own OBJ reader does
            el.set("texcoord", vec(np.c_[uv[:, 0], 1.0 - uv[:, 1]].ravel()))
        self.material_asset(name, path, has_uv=uv is not None)
        self._meshes[key] = name
        return name

    def file_ref(self, path: Path) -> str:
        """``path`` relative to the output folder when inside it, else absolute."""
        if self.relative_to is not None:
            try:
                return str(path.relative_to(self.relative_to))
            except ValueError:
                pass
        return str(path)

    def material_asset(self, mesh_name: str, path: Path, has_uv: bool) -> None:
        """A ``<material>`` (and ``<texture>``) asset for the mesh file's own material."""
        from robotsim.model.mesh_material import mesh_material

        mat = mesh_material(path)
        if mat is not None:
            self.material_of(mesh_name, mat, has_uv)

    def material_of(self, mesh_name: str, mat: MeshMaterial, has_uv: bool) -> None:
        """The ``<material>`` (and ``<texture>``) asset of ``mat`` for ``mesh_name``."""
        el = ET.Element("material", name=f"{mesh_name}_material", rgba=vec(mat.rgba))
        if mat.texture is not None and has_uv:
            tex = self.texture_asset(mat.texture)
            if tex is not None:
                el.set("texture", tex)
                el.set("rgba", vec([1.0, 1.0, 1.0, mat.rgba[3]]))  # the image's colours
        self.asset.append(el)
        self._mesh_material[mesh_name] = el.get("name", "")

    def texture_asset(self, image: Path) -> str | None:
        """The ``<texture>`` asset of an image file (PNG by reference; other formats
        converted to PNG in the output folder), or None if MuJoCo cannot read it."""
        key = str(image)
        if key in self._textures:
            return self._textures[key]
        file = image
        if image.suffix.lower() != ".png":
            if self.relative_to is None:
                warnings.warn(
                    f"{image}: MuJoCo reads PNG textures only and there is no output folder "
                    "to write a PNG copy to; the texture is left out (the colour stays)",
                    stacklevel=5,
                )
                return None
            from PIL import Image

            file = self.relative_to / f"{self.prefix}{image.stem}.png".replace("/", "_")
            Image.open(image).convert("RGBA").save(file)
        name = f"{self.prefix}texture{len(self._textures)}_{image.stem}"
        ET.SubElement(self.asset, "texture", name=name, type="2d", file=self.file_ref(file))
        self._textures[key] = name
        return name

    def part_assets(self, geom: Mesh) -> list[tuple[str, str | None]]:
        """``(mesh asset, material asset)`` per material of a multi-material mesh file
        (:func:`robotsim.model.mesh_parts.mesh_parts`: each part inline, visual only,
        with its own colour and texture); empty for a file of one material."""
        from robotsim.model.mesh_parts import mesh_parts

        path = Path(geom.path).resolve()
        key = (str(path), tuple(float(s) for s in geom.scale))
        if key in self._parts:
            return self._parts[key]
        parts = mesh_parts(path)
        out: list[tuple[str, str | None]] = []
        if len(parts) > 1:
            for i, part in enumerate(parts):
                v = np.asarray(part.mesh.vertices, dtype=np.float64)
                if len(v) < 4 or part.mesh.area <= 0.0:
                    continue  # MuJoCo needs 4 vertices, and an area for shell inertia
                name = (
                    f"{self.prefix}mesh{len(self._meshes) + len(self._parts)}_{path.stem}_part{i}"
                )
                el = ET.SubElement(self.asset, "mesh", name=name, inertia="shell")
                if any(s != 1.0 for s in geom.scale):
                    el.set("scale", vec(geom.scale))
                el.set("vertex", vec(v.ravel()))
                el.set("face", " ".join(str(int(k)) for k in np.asarray(part.mesh.faces).ravel()))
                uv = getattr(part.mesh.visual, "uv", None)
                if uv is not None and len(uv) == len(v):
                    uv = np.asarray(uv, dtype=np.float64)
                    el.set("texcoord", vec(np.c_[uv[:, 0], 1.0 - uv[:, 1]].ravel()))
                material = None
                if part.material is not None:
                    self.material_of(name, part.material, has_uv=uv is not None)
                    material = self._mesh_material.get(name)
                out.append((name, material))
        self._parts[key] = out
        return out

    # ----------------------------------------------------------------- geoms
    def geom(self, body: ET.Element, shape: Shape, name: str, group: int) -> None:
        geo = shape.geometry
        if (isinstance(geo, Mesh) and group != GROUP_COLLISION
                and tuple(shape.rgba) == DEFAULT_SHAPE_RGBA):  # fmt: skip
            parts = self.part_assets(geo)
            if parts:  # the file's faces drawn material by material
                if group == GROUP_BOTH:
                    self.geom(body, shape, name, GROUP_COLLISION)  # the whole mesh touches
                for i, (mesh_name, material) in enumerate(parts):
                    unique = self.unique_name(f"{name}/part{i}")
                    g = ET.SubElement(body, "geom", name=unique, type="mesh", mesh=mesh_name)
                    _set_pose(g, np.asarray(shape.T_link_shape))
                    if material is not None:
                        g.set("material", material)
                    g.set("group", str(GROUP_VISUAL))
                    g.set("contype", "0")
                    g.set("conaffinity", "0")
                    g.set("density", "0")
                return
        mesh_name = None
        if isinstance(geo, Mesh):
            mesh_name = self.mesh_asset(geo, group == GROUP_VISUAL)
            if mesh_name is None:
                return
        g = ET.SubElement(body, "geom", name=self.unique_name(name))
        if isinstance(geo, Box):
            g.set("type", "box")
            g.set("size", vec(np.asarray(geo.size) / 2.0))
        elif isinstance(geo, Sphere):
            g.set("type", "sphere")
            g.set("size", num(geo.radius))
        elif isinstance(geo, Cylinder):
            g.set("type", "cylinder")
            g.set("size", vec([geo.radius, geo.length / 2.0]))
        elif isinstance(geo, Capsule):
            g.set("type", "capsule")
            g.set("size", vec([geo.radius, geo.length / 2.0]))
        elif isinstance(geo, Ellipsoid):
            g.set("type", "ellipsoid")
            g.set("size", vec(geo.radii))
        elif isinstance(geo, Mesh):
            g.set("type", "mesh")
            g.set("mesh", str(mesh_name))
        _set_pose(g, np.asarray(shape.T_link_shape))
        material = self._mesh_material.get(str(mesh_name)) if mesh_name else None
        if material is not None and tuple(shape.rgba) == DEFAULT_SHAPE_RGBA:
            g.set("material", material)  # the file's own colour and texture
        else:
            g.set("rgba", vec(shape.rgba))
        g.set("group", str(group))
        if group == GROUP_VISUAL:
            g.set("contype", "0")
            g.set("conaffinity", "0")
            g.set("density", "0")

    def unique_name(self, name: str) -> str:
        """URDF names its visual and collision elements freely (often the same name for
        both): MuJoCo wants unique geom names, so a repeated one gets "_2", "_3"..."""
        unique, k = name, 2
        while unique in self._geom_names:
            unique, k = f"{name}_{k}", k + 1
        self._geom_names.add(unique)
        return unique

    def link_geoms(self, body: ET.Element, link: Link) -> None:
        coll_ids = {id(s) for s in link.collisions}
        vis_ids = {id(s) for s in link.visuals}
        base = self.prefix + link.name
        for i, s in enumerate(link.visuals):
            both = id(s) in coll_ids
            tag = s.name or f"visual{i}"
            self.geom(body, s, f"{base}/{tag}", GROUP_BOTH if both else GROUP_VISUAL)
        for i, s in enumerate(link.collisions):
            if id(s) in vis_ids:
                continue
            tag = s.name or f"collision{i}"
            self.geom(body, s, f"{base}/{tag}", GROUP_COLLISION)

    def inertial(self, body: ET.Element, link: Link, ine: Inertial | None) -> None:
        if ine is None:
            return
        moments, R = principal_inertia(np.asarray(ine.inertia), link=link.name)
        el = ET.SubElement(body, "inertial", pos=vec(ine.com), mass=num(ine.mass))
        if R is not None:
            el.set("quat", vec(R_to_quat(R)))
        el.set("diaginertia", vec(moments))

    # ------------------------------------------------------------------ tree
    def build(self) -> ET.Element:
        m = self.model
        p = self.prefix
        bodies: dict[str, ET.Element] = {}
        names = self.body_names
        root_link = m.links[0]
        if names[root_link.name] == "world":
            rb = self.world  # a fixed root called 'world' is the world
        else:
            rb = ET.SubElement(self.world, "body", name=names[root_link.name])
        if m.floating:
            start = m.metadata.get("T_world_root")
            if self.keyframes and start is not None:  # a file of its own: where it started
                _set_pose(rb, np.asarray(start, dtype=np.float64))
            ET.SubElement(rb, "freejoint", name=p + "floating_base")
        bodies[root_link.name] = rb
        equality: list[ET.Element] = []
        for j in m.joints:
            parent = bodies[j.parent]
            body = ET.Element("body", name=names[j.child])
            # Attributes before children: insert inertial/joints/geoms after placing.
            parent.append(body)
            origin = np.asarray(j.origin)
            post = np.asarray(j.post)
            _set_pose(body, origin @ post)
            bodies[j.child] = body
            if not j.movable:
                continue
            Rp, tp = post[:3, :3], post[:3, 3]
            axis = Rp.T @ np.asarray(j.axis)
            je = ET.SubElement(body, "joint", name=p + j.name)
            je.set("type", "slide" if j.type is JointType.PRISMATIC else "hinge")
            jpos = -(Rp.T @ tp)
            if np.any(jpos != 0.0):
                je.set("pos", vec(jpos))
            je.set("axis", vec(axis))
            lim = j.limits
            if j.type is not JointType.CONTINUOUS and np.isfinite(lim.lower) \
                    and np.isfinite(lim.upper):  # fmt: skip
                je.set("range", vec([lim.lower, lim.upper]))
            if np.isfinite(lim.effort):
                je.set("actuatorfrcrange", vec([-lim.effort, lim.effort]))
            dyn = j.dynamics
            for attr, value in (("armature", dyn.armature), ("damping", dyn.damping),
                                ("frictionloss", dyn.friction), ("stiffness", dyn.stiffness),
                                ("springref", dyn.rest if dyn.stiffness else 0.0)):  # fmt: skip
                if value:
                    je.set(attr, num(value))
            if j.mimic is not None:
                eq = ET.Element("joint", name=p + j.name + "__mimic", joint1=p + j.name,
                                joint2=p + j.mimic.joint)  # fmt: skip
                eq.set("polycoef", vec([j.mimic.offset, j.mimic.multiplier, 0, 0, 0]))
                equality.append(eq)
        written = physics_inertials(m).written
        for link in m.links:
            body = bodies[link.name]
            if body is self.world:
                self.link_geoms(body, link)
                continue
            # MJCF wants inertial first; joints were appended before geoms below.
            self.inertial(body, link, written[link.name])
            ine = body.find("inertial")
            if ine is not None:
                body.remove(ine)
                body.insert(0, ine)
            self.link_geoms(body, link)
        for fr in m.frames:
            site = ET.SubElement(bodies[fr.link], "site", name=p + fr.name)
            _set_pose(site, np.asarray(fr.T_link_frame))
            site.set("size", "0.005")
        if equality:
            eq_el = ET.SubElement(self.root, "equality")
            eq_el.extend(equality)
        if not list(self.asset):
            self.root.remove(self.asset)
        if self.keyframes and m.poses and not m.floating and m.nq > 0:
            key_el = ET.SubElement(self.root, "keyframe")
            for pname in m.poses:
                qpos = _full_qpos(m, m.pose(pname))
                ET.SubElement(key_el, "key", name=p + pname, qpos=vec(qpos))
        return self.root


def mjcf_body_names(model: RobotModel, prefix: str = "", world_root: bool = True) -> dict[str, str]:
    """Link name -> MJCF body name (``prefix + link``; see the module doc for ``world``).

    A fixed-base root called ``world`` maps to ``"world"``, MuJoCo's world body (with
    ``world_root=False`` it is renamed like any other link called ``world``)."""
    taken = {prefix + lk.name for lk in model.links}
    out = {}
    for i, lk in enumerate(model.links):
        name = prefix + lk.name
        if name == "world" and (i > 0 or model.floating or not world_root):
            k, name = 1, "world_link"
            while name in taken:
                k += 1
                name = f"world_link{k}"
            taken.add(name)
        out[lk.name] = name
    return out


def mujoco_joint_order(model: RobotModel) -> list[str]:
    """Movable joints (mimics included) in MuJoCo's order for the exported model: bodies
    in depth-first order of the nested XML, which differs from the model's breadth-first
    joint order on branching trees."""
    children: dict[str, list[Joint]] = {}
    for j in model.joints:
        children.setdefault(j.parent, []).append(j)
    out: list[str] = []
    stack = list(reversed(children.get(model.root, [])))
    while stack:  # pre-order, children in the order they were written
        j = stack.pop()
        if j.movable:
            out.append(j.name)
        stack.extend(reversed(children.get(j.child, [])))
    return out


def _full_qpos(model: RobotModel, q: np.ndarray) -> np.ndarray:
    """MuJoCo qpos (every movable joint, mimics included, MuJoCo's order) from ``q``."""
    values = {n: float(v) for n, v in zip(model.joint_names, q)}
    out = []
    for name in mujoco_joint_order(model):
        j = model.joint(name)
        if j.mimic is None:
            out.append(values[j.name])
        else:
            out.append(j.mimic.multiplier * values[j.mimic.joint] + j.mimic.offset)
    return np.array(out)


def to_mjcf_string(
    model: RobotModel,
    prefix: str = "",
    relative_to: Path | None = None,
    keyframes: bool = True,
    world_root: bool = True,
) -> str:
    """The model as MJCF text (see the module doc for what maps to what).

    ``prefix`` is prepended to every body, joint, geom, site, mesh and keyframe name so
    several robots can share one world. Mesh files are absolute paths unless
    ``relative_to`` (a directory) is given and contains them. ``keyframes=False`` leaves
    out the named poses.
    """
    root = _MjcfWriter(model, prefix, relative_to, keyframes, world_root).build()
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"


def to_mjspec(model: RobotModel, prefix: str = "", world_root: bool = True) -> mujoco.MjSpec:
    """The model as a ``mujoco.MjSpec``, ready to compile or to attach into a world.

    The spec holds one top-level body ``<prefix><root link>`` at the world origin (a
    ``freejoint`` on it if the model is floating). To place robots in a world, either
    let MuJoCo prefix the names while attaching::

        world = mujoco.MjSpec()
        for i, xyz in enumerate([(0, 0, 0), (1, 0, 0)]):
            frame = world.worldbody.add_frame(pos=xyz)
            world.attach(to_mjspec(model), prefix=f"r{i}/", frame=frame)

    (a fixed root called ``world`` is then MuJoCo's world body, which cannot be attached:
    pass ``world_root=False`` to get it as a body ``world_link``), or name them here and
    attach the root body alone::

        spec = to_mjspec(model, prefix="r1/")
        frame.attach_body(spec.body("r1/" + model.root))

    With ``qpos`` set from the model's ``q`` (by joint name, or with :func:`full_qpos`,
    which also sets mimic joints to their coupled values; MuJoCo orders joints depth
    first, the model breadth first), MuJoCo's body poses equal ``model.fk_all(q)``.
    Named poses are not included as keyframes (a keyframe must cover the world's qpos).
    """
    import mujoco

    xml = to_mjcf_string(model, prefix, keyframes=False, world_root=world_root)
    return mujoco.MjSpec.from_string(xml)


def full_qpos(model: RobotModel, q: np.ndarray) -> np.ndarray:
    """The robot's part of MuJoCo ``qpos`` for our ``q`` ``(nq,)``: one value per movable
    joint in MuJoCo's order (:func:`mujoco_joint_order`), mimic joints set to
    ``multiplier * q[leader] + offset``. A floating model's 7 free-joint coordinates come
    first in MuJoCo and are not included.
    """
    return _full_qpos(model, np.asarray(q, dtype=np.float64).reshape(model.nq))


def save_mjcf(model: RobotModel, path: str | Path) -> Path:
    """Write the model as an MJCF file; mesh paths relative to its folder when possible."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, to_mjcf_string(model, relative_to=out.parent.resolve()))
    return out


__all__ += ["full_qpos", "mjcf_body_names", "mujoco_joint_order"]
