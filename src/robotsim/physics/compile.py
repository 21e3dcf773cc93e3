"""Scene -> ``mujoco.MjSpec`` -> ``mujoco.MjModel``.

Naming in the compiled model: scene bodies, geoms and joints keep their names (a
hinge2 joint becomes ``<body>.steer`` and ``<body>.drive``; a body's one geom is named
like the body); robot parts are ``<robot>/<link>`` and ``<robot>/<joint>``; the ground
is ``ground``. Every motor is an actuator named like its joint.

Visual-only robot geoms are left out unless ``Scene.keep_visuals`` (they carry no mass
and no contacts, and cost a large share of each step); viewers draw robots from their
RobotModel at the poses the world reports.

Collision groups (``contype``/``conaffinity`` bits): world things (ground, static and
free bodies) use bit 1 and accept 1|2; robots use 1|2 and accept 1|2, except robots
placed with ``collide_with_robots=False`` which use bit 2 and accept bit 1 only: they
touch the world but not each other (the P-versus-PD comparison needs that).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from robotsim.errors import PhysicsError, UnknownNameError
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Sphere
from robotsim.physics.drives import DriveInfo, add_drive_model, placement_motor
from robotsim.physics.feedforward import FeedForward, add_feedforward
from robotsim.physics.freebase import free_robots
from robotsim.physics.scene import Body, Compound, Joint, Motor, Plane, RobotPlacement, Scene
from robotsim.physics.surface import ContactSurface, to_mujoco
from robotsim.spatial import R_to_quat

__all__ = ["Compiled", "MotorInfo", "compile_scene", "integrator_for", "islands_for"]

WORLD_BITS = (1, 3)
ROBOT_BITS = (3, 3)
LONER_BITS = (2, 1)
INFERRED_DENSITY = 1000.0  # kg/m^3: MuJoCo's geom density, weighing links without inertial


@dataclass(frozen=True)
class MotorInfo:
    """A compiled motor: actuator name, its joint, the Motor spec."""

    name: str
    joint: str
    motor: Motor


@dataclass
class Compiled:
    """The result of :func:`compile_scene` (internal to :mod:`robotsim.physics`)."""

    spec: Any
    model: Any
    motors: list[MotorInfo]
    drives: dict[str, DriveInfo]
    qpos0: np.ndarray
    #: the scene as compiled: robots set free and put down (:mod:`.freebase`)
    scene: Scene
    #: servos whose feed-forward the World computes every step chunk (:mod:`.feedforward`)
    feedforward: FeedForward
    geom_surface: dict[str, ContactSurface] = field(default_factory=dict)
    #: moving geoms whose surface has bounce and bounce_vel: (geom id, bounce_vel m/s,
    #: bouncy solref, dead solref); the World picks one at each contact onset
    bounce_geoms: list[tuple[int, float, tuple[float, float], tuple[float, float]]] = field(
        default_factory=list
    )


def _quat(T: np.ndarray) -> list[float]:
    return [float(v) for v in R_to_quat(np.asarray(T)[:3, :3])]


def _geom_kw(spec: Any, shape: Any, name: str) -> dict[str, Any]:
    """The MjsGeom fields of one primitive or mesh shape (its mesh added to ``spec``)."""
    import mujoco

    gt = mujoco.mjtGeom
    if isinstance(shape, Box):
        return {"type": gt.mjGEOM_BOX, "size": [s / 2 for s in shape.size]}
    if isinstance(shape, Sphere):
        return {"type": gt.mjGEOM_SPHERE, "size": [shape.radius, 0, 0]}
    if isinstance(shape, Cylinder):
        return {"type": gt.mjGEOM_CYLINDER, "size": [shape.radius, shape.length / 2, 0]}
    if isinstance(shape, Capsule):
        return {"type": gt.mjGEOM_CAPSULE, "size": [shape.radius, shape.length / 2, 0]}
    if isinstance(shape, Ellipsoid):
        return {"type": gt.mjGEOM_ELLIPSOID, "size": list(shape.radii)}
    if isinstance(shape, Plane):
        sx, sy = shape.size
        return {"type": gt.mjGEOM_PLANE, "size": [sx, sy, 0.1]}
    if isinstance(shape, Mesh):
        from robotsim.model.meshes import load_mesh

        mesh = load_mesh(shape.path)
        spec.add_mesh(
            name=f"mesh:{name}",
            uservert=(np.asarray(mesh.vertices) * shape.scale).ravel().tolist(),
            userface=np.asarray(mesh.faces, dtype=int).ravel().tolist(),
        )
        return {"type": gt.mjGEOM_MESH, "meshname": f"mesh:{name}"}
    # pragma: no cover - the Scene types are closed
    raise PhysicsError(f"body {name!r}: unsupported shape {type(shape).__name__}")


def _add_shape_geom(spec: Any, body: Any, b: Body) -> list[Any]:
    """The body's geoms: one for a shape, one per part for a :class:`Compound`
    (``<body>:<k>``). Mass: ``inertial`` (explicit, the geoms then only collide), else
    ``mass``, else ``density``."""
    if isinstance(b.shape, Compound):
        placed = [(p.geometry, p.T_link_shape, p.rgba, f"{b.name}:{k}")
                  for k, p in enumerate(b.shape.parts)]  # fmt: skip
    else:
        placed = [(b.shape, None, b.rgba, b.name)]
    geoms = []
    for shape, T, rgba, name in placed:
        kw: dict[str, Any] = {"name": name, "rgba": list(rgba), **_geom_kw(spec, shape, name)}
        if T is not None:
            kw.update(pos=[float(v) for v in T[:3, 3]], quat=_quat(T))
        if not isinstance(shape, Plane):
            kw["density"] = float(b.density)
        geoms.append(body.add_geom(**kw))
    if b.inertial is not None:
        i = b.inertial
        I = np.asarray(i.inertia)
        body.explicitinertial = True
        body.mass = float(i.mass)
        body.ipos = [float(v) for v in i.com]
        body.fullinertia = [float(I[0, 0]), float(I[1, 1]), float(I[2, 2]),
                            float(I[0, 1]), float(I[0, 2]), float(I[1, 2])]  # fmt: skip
    elif b.mass is not None and not isinstance(b.shape, Plane):
        geoms[0].mass = float(b.mass)  # one geom (a compound takes inertial or density)
    return geoms


def _add_motor(spec: Any, name: str, motor: Motor, motors: list[MotorInfo]) -> None:
    import mujoco

    act = spec.add_actuator(name=name, target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT)
    if motor.kind == "velocity":
        act.set_to_velocity(kv=motor.gain)
        # The servo's kv is integrated explicitly (always under euler; under implicitfast
        # too once its force limit clips it): kv h / inertia <= 1/2 needs a rotor-inertia
        # floor of 2 kv h, the wheels' rule (drives.py) on every joint: a 10 g flap at
        # kv 5 with a force limit chattered between 0 and 40 rad/s, or diverged.
        joint = spec.joint(name)
        joint.armature = max(float(joint.armature), 2.0 * motor.gain * spec.option.timestep)
        if math.isfinite(motor.velocity):
            act.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE
            act.ctrlrange = [-motor.velocity, motor.velocity]
    elif motor.kind == "position":
        act.set_to_position(kp=motor.gain, kv=motor.damping)
    else:
        act.set_to_motor()
        if math.isfinite(motor.force):
            act.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE
            act.ctrlrange = [-motor.force, motor.force]
    if math.isfinite(motor.force):
        act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
        act.forcerange = [-motor.force, motor.force]
    motors.append(MotorInfo(name, name, motor))


def _add_joint(spec: Any, body: Any, b: Body, motors: list[MotorInfo]) -> None:
    import mujoco

    j: Joint | None = b.joint
    if j is None or j.type == "fixed":
        return
    jt = mujoco.mjtJoint
    if j.type == "free":
        body.add_freejoint(name=b.name)
        return
    pos = list(j.anchor)
    if j.type == "hinge2":
        specs = [
            (f"{b.name}.steer", j.axis, j.motor, j.range),
            (f"{b.name}.drive", j.axis2, j.motor2, None),
        ]
        for name, axis, motor, rng in specs:
            jj = body.add_joint(
                name=name, type=jt.mjJNT_HINGE, axis=list(axis), pos=pos, damping=j.damping
            )
            _limit(jj, rng)
            if motor is not None:
                _add_motor(spec, name, motor, motors)
        return
    kind = {"hinge": jt.mjJNT_HINGE, "slider": jt.mjJNT_SLIDE, "ball": jt.mjJNT_BALL}[j.type]
    jj = body.add_joint(name=b.name, type=kind, axis=list(j.axis), pos=pos, damping=j.damping)
    if j.stiffness:
        jj.stiffness = _poly(j.stiffness)
        jj.springref = j.rest
    _limit(jj, j.range)
    if j.motor is not None:
        _add_motor(spec, b.name, j.motor, motors)


def _poly(linear: float) -> list[float]:
    """MuJoCo's joint stiffness/damping as a spec value (linear term, higher ones 0)."""
    return [float(linear), 0.0, 0.0]


def _limit(jj: Any, rng: tuple[float, float] | None) -> None:
    import mujoco

    if rng is not None:
        jj.limited = mujoco.mjtLimited.mjLIMITED_TRUE
        jj.range = [float(rng[0]), float(rng[1])]


def _ordered(bodies: tuple[Body, ...]) -> list[Body]:
    done: set[str] = set()
    out: list[Body] = []
    pending = list(bodies)
    while pending:
        progressed = False
        for b in list(pending):
            if b.parent is None or b.parent in done:
                out.append(b)
                done.add(b.name)
                pending.remove(b)
                progressed = True
        if not progressed:
            names = ", ".join(b.name for b in pending)
            raise PhysicsError(f"scene bodies form a cycle or hang from a robot: {names}")
    return out


def _set_bits(geom: Any, bits: tuple[int, int]) -> None:
    if geom.contype == 0 and geom.conaffinity == 0:
        return  # visual-only geoms stay out of collisions
    geom.contype, geom.conaffinity = bits


def _attach_robot(
    spec: Any, r: RobotPlacement, motors: list[MotorInfo], scene: Scene, ff: FeedForward
) -> None:
    from robotsim.model.mjcf import to_mjspec

    prefix = f"{r.name}/"
    from robotsim.model.mjcf_export import mjcf_body_names

    rspec = to_mjspec(r.model, world_root=False)  # a root called 'world' -> 'world_link'
    frame = spec.worldbody.add_frame(
        pos=[float(v) for v in r.T_world_base[:3, 3]], quat=_quat(r.T_world_base)
    )
    bodies = mjcf_body_names(r.model, world_root=False)
    frame.attach_body(rspec.body(bodies[r.model.root]), prefix, "")
    for link, body in bodies.items():
        if body != link:  # prefixed names are legal: give the link its own name back
            spec.body(prefix + body).name = prefix + link
    bits = ROBOT_BITS if r.collide_with_robots else LONER_BITS
    for lk in r.model.links:
        body = spec.body(prefix + lk.name)
        for g in list(body.geoms):
            if g.contype == 0 and g.conaffinity == 0 and not scene.keep_visuals:
                spec.delete(g)  # visual-only: no mass (density 0), no contact, ~40% of a step
            else:
                _set_bits(g, bits)
    names = [lk.name for lk in r.model.links]
    if r.self_collision:  # adjacent links never touch (MuJoCo's parent filter does not
        # apply when the parent is welded to the world: a fixed base)
        pairs = [(j.parent, j.child) for j in r.model.joints]
    else:
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    for a, b in pairs:
        spec.add_exclude(bodyname1=prefix + a, bodyname2=prefix + b)
    for jn, dyn in r.joint_dynamics.items():
        joint = spec.joint(prefix + jn)
        joint.armature, joint.frictionloss = dyn.armature, dyn.friction
        joint.damping, joint.stiffness = _poly(dyn.damping), _poly(dyn.stiffness)
        joint.springref = dyn.rest
    placed: dict[str, Motor | None] = {}
    for jn in r.model.joint_names:
        motor = placement_motor(r, jn, scene)
        placed[prefix + jn] = motor
        if motor is not None:
            _add_motor(spec, prefix + jn, motor, motors)
            if math.isfinite(motor.velocity) and motor.kind != "velocity":
                spec.joint(prefix + jn).frictionloss = 0.0
            if motor.kind == "position":
                # The servo's stiffness is integrated explicitly: keep omega*h <= 1 with a
                # rotor-inertia floor kp*h^2 (a light wrist link would diverge otherwise).
                joint = spec.joint(prefix + jn)
                joint.armature = max(float(joint.armature), motor.gain * scene.timestep**2)
    add_feedforward(spec, r, placed, ff)


def compile_scene(scene: Scene) -> Compiled:
    """Build the MjSpec of ``scene``, compile it and apply the contact surfaces. Robots
    that stand on legs or wheels are set free first (:func:`.freebase.free_robots`);
    ``Compiled.scene`` is the scene so compiled."""
    import mujoco

    scene = free_robots(scene)
    simulated = scene
    scene = _with_world_softness(scene)
    spec = mujoco.MjSpec()
    spec.modelname = scene.name
    spec.option.timestep = scene.timestep
    spec.option.gravity = list(scene.gravity)
    spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC  # anisotropic friction converges
    spec.option.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_AUTORESET)
    spec.compiler.autolimits = True
    for i, lt in enumerate(scene.lights):
        spec.worldbody.add_light(
            name=f"light{i}", pos=list(lt.pos), dir=list(lt.direction), diffuse=list(lt.diffuse)
        )
    if scene.ground is not None:
        sx, sy = scene.ground.size
        g = spec.worldbody.add_geom(
            name="ground",
            type=mujoco.mjtGeom.mjGEOM_PLANE,
            size=[sx, sy, 0.1],
            rgba=[0.35, 0.55, 0.35, 1],
        )
        _set_bits(g, WORLD_BITS)
    motors: list[MotorInfo] = []
    feedforward = FeedForward()
    for b in _ordered(scene.bodies):
        parent = spec.worldbody if b.parent is None else spec.body(b.parent)
        T = b.T_parent_body
        body = parent.add_body(name=b.name, pos=[float(v) for v in T[:3, 3]], quat=_quat(T))
        for geom in _add_shape_geom(spec, body, b):
            _set_bits(geom, WORLD_BITS)
        _add_joint(spec, body, b, motors)
    for r in scene.robots:
        _attach_robot(spec, r, motors, scene, feedforward)
    drives: dict[str, DriveInfo] = {}
    geom_surface: dict[str, ContactSurface] = {}
    for r in scene.robots:
        info = add_drive_model(spec, r, scene)
        if info is not None:
            drives[r.name] = info
    _surfaces_on_spec(spec, scene, geom_surface)
    spec.option.integrator = {
        "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST,
        "euler": mujoco.mjtIntegrator.mjINT_EULER,
    }[integrator_for(scene, motors, drives)]
    if not islands_for(motors, drives):
        spec.option.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
    try:
        model = spec.compile()
    except Exception as exc:  # MuJoCo's compiler errors are ValueError with a message
        raise PhysicsError(f"scene {scene.name!r} does not compile: {exc}") from None
    bounce_geoms = _surfaces_on_model(model, scene, geom_surface, drives)
    for r in scene.robots:
        _say_inferred_masses(model, r)
    qpos0 = model.qpos0.copy()
    for r in scene.robots:
        for jn, v in r.q0.items():
            if jn not in r.model.joint_names:
                raise UnknownNameError(f"joint of robot {r.name!r}", jn, r.model.joint_names)
            jid = model.joint(f"{r.name}/{jn}").id
            qpos0[model.jnt_qposadr[jid]] = float(v)
    return Compiled(
        spec, model, motors, drives, qpos0, simulated, feedforward, geom_surface, bounce_geoms
    )


_SAID: set[str] = set()  # the inferred-mass notes said (one per robot file and mass)


def _say_inferred_masses(model: Any, r: RobotPlacement) -> None:
    """One warning for a robot whose file gives moving links no ``<inertial>``: MuJoCo
    weighs them from their collision shapes at its default density (as its URDF import
    does); the line names them with the masses physics gives and the robot's total."""
    prefix = f"{r.name}/"
    named = []
    for lk in r.model.links:
        if lk.inertial is not None or not lk.collisions:
            continue
        bid = _body_id(model, prefix + lk.name)
        if bid >= 0 and model.body_mass[bid] > 0:
            named.append(f"{lk.name!r} {model.body_mass[bid]:.3g} kg")
    if not named:
        return
    root = _body_id(model, prefix + r.model.root)
    total = float(model.body_subtreemass[root]) if root >= 0 else float("nan")
    note = (f"robot {r.model.name!r}: no inertial in its file for {', '.join(named)}: "
            f"physics weighs {'them' if len(named) > 1 else 'it'} from the collision "
            f"shapes at {INFERRED_DENSITY:g} kg/m^3 (MuJoCo's default); the robot weighs "
            f"{total:.3g} kg in physics")  # fmt: skip
    if note in _SAID:
        return
    import warnings

    from robotsim.errors import ModelWarning

    _SAID.add(note)
    warnings.warn(note, ModelWarning, stacklevel=4)


def _body_id(model: Any, name: str) -> int:
    """The body id of ``name`` in a compiled MuJoCo ``model``, -1 when there is none."""
    import mujoco

    return int(mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name))


def integrator_for(scene: Scene, motors: list[MotorInfo], drives: dict[str, DriveInfo]) -> str:
    """``scene.integrator``; for ``auto``: ``euler`` when every motor of the scene is a
    wheel's velocity servo of a drive (wheeled bases: each carries an armature of at
    least ``2 kv h``, so the explicit servo term is stable), otherwise ``implicitfast``.

    Why ``euler`` for wheeled bases: with ``implicitfast`` MuJoCo keeps the implicitly
    corrected acceleration as the next step's warm start, which is not the constraint
    solver's solution; the anisotropic wheel contacts (friction 3 along the rolling
    direction, ~0 along the axle) then take about 5 Newton iterations and 100
    line-search evaluations per step instead of under one, so ``euler`` steps a wheeled
    base 3-4x faster. Joint damping stays implicit under ``euler``; paths agree within
    millimetres (docs/performance.md). ``auto`` is the default."""
    if scene.integrator != "auto":
        return scene.integrator
    return "euler" if _wheels_only(motors, drives) else "implicitfast"


def islands_for(motors: list[MotorInfo], drives: dict[str, DriveInfo]) -> bool:
    """Whether MuJoCo solves the constraints island by island (its default), or, with
    ``mjDSBL_ISLAND``, as one problem: one problem when every motor of the scene is a
    wheel's velocity servo of a drive (wheeled bases).

    There every robot is an island of its own whose six wheel contacts the warm-started
    Newton solver settles in one or two iterations, the same count in every island, so
    per-island solving saves no iterations and only adds its bookkeeping (finding the
    islands, a solve and its sparse structures per island): ten omni robots step 8 %
    fewer instructions as one problem, one robot 5 %. The problem is separable, so the
    solution is the same; only the stopping test is taken over the whole system instead
    of per island (one robot: bit for bit; ten robots: positions within 3e-9 m after
    10 s; docs/performance.md). Scenes with arms or servos keep MuJoCo's default."""
    return not _wheels_only(motors, drives)


def _wheels_only(motors: list[MotorInfo], drives: dict[str, DriveInfo]) -> bool:
    """True when the scene has motors and every one is a wheel's velocity servo."""
    wheels = {j for info in drives.values() for j in info.wheel_joints}
    return bool(motors) and all(m.motor.kind == "velocity" and m.joint in wheels for m in motors)


def _with_world_softness(scene: Scene) -> Scene:
    """The scene with its world ERP/CFM given to every surface that sets neither."""
    if scene.erp is None and scene.cfm is None:
        return scene

    def soften(s: ContactSurface) -> ContactSurface:
        if s.soft_erp is not None or s.soft_cfm is not None:
            return s
        return replace(s, soft_erp=scene.erp, soft_cfm=scene.cfm)

    return replace(
        scene,
        surfaces={k: soften(v) for k, v in scene.surfaces.items()},
        default_surface=soften(scene.default_surface),
    )


def _surfaces_on_spec(spec: Any, scene: Scene, geom_surface: dict[str, ContactSurface]) -> None:
    """Record which surface each named geom carries; explicit pairs become <pair>s."""
    import mujoco

    for b in scene.bodies:
        if b.surface is not None:
            for g in spec.body(b.name).geoms:  # one geom, or a compound's parts
                geom_surface[g.name] = scene.surfaces[b.surface]
                g.priority = 1
    for r in scene.robots:
        if r.surface is None:
            continue
        for lk in r.model.links:
            for g in spec.body(f"{r.name}/{lk.name}").geoms:
                if g.name and (g.contype or g.conaffinity):
                    geom_surface[g.name] = scene.surfaces[r.surface]
                    g.priority = 1
    for p in scene.pairs:
        # the pair replaces the dynamic contacts of these two bodies (no double contact)
        b1 = "world" if p.body1 == "ground" else p.body1
        b2 = "world" if p.body2 == "ground" else p.body2
        spec.add_exclude(bodyname1=b1, bodyname2=b2)
        for g1 in _geoms_of(spec, p.body1):
            for g2 in _geoms_of(spec, p.body2):
                spec.add_pair(
                    name=f"pair:{g1}|{g2}|{p.surface}", geomname1=g1, geomname2=g2, condim=3
                )
    del mujoco


def _geoms_of(spec: Any, body_name: str) -> list[str]:
    if body_name == "ground":
        return ["ground"]
    body = spec.body(body_name)
    if body is None:
        raise UnknownNameError("body", body_name, [b.name for b in spec.bodies if b.name])
    names = []
    for i, g in enumerate(body.geoms):
        if g.contype == 0 and g.conaffinity == 0:
            continue
        if not g.name:
            g.name = f"{body_name}#{i}"
        names.append(g.name)
    return names


def _moving_mass(model: Any, body_id: int) -> float:
    """Mass of the moving subtree a body belongs to (inf for the static world)."""
    if body_id == 0 or model.body_weldid[body_id] == 0:
        return math.inf
    root = int(model.body_rootid[body_id])
    return float(model.body_subtreemass[root])


def _heaviest(masses: list[float]) -> float:
    """The mass a static geom's mass-dependent ``solref`` is computed for.

    MuJoCo combines two direct (negative) ``solref`` element by element with the
    minimum, i.e. the stiffer reference wins. A static geom computed for the heaviest
    moving body is the softest of all, so in a contact with the world every moving geom
    keeps the reference of its own mass: ODE's ERP/CFM act per contact, whatever else
    lies in the scene (a lighter body elsewhere used to stiffen every ground contact).
    """
    finite = [m for m in masses if math.isfinite(m)]
    return max(finite) if finite else 1.0


def _lightest(masses: list[float]) -> float:
    finite = [m for m in masses if math.isfinite(m)]
    return min(finite) if finite else 1.0


def _surfaces_on_model(
    model: Any,
    scene: Scene,
    geom_surface: dict[str, ContactSurface],
    drives: dict[str, DriveInfo],
) -> list[tuple[int, float, tuple[float, float], tuple[float, float]]]:
    """Write friction/solref/solimp per geom and per pair (mass-dependent parts need the
    compiled masses, hence on the model)."""
    import mujoco

    h = scene.timestep
    bounce: list[tuple[int, float, tuple[float, float], tuple[float, float]]] = []
    free_masses = [_moving_mass(model, b) for b in range(1, model.nbody)]
    static_mass = _heaviest(free_masses)
    for gid in range(model.ngeom):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, gid) or ""
        surf = geom_surface.get(name, scene.default_surface)
        m = _moving_mass(model, int(model.geom_bodyid[gid]))
        mc = to_mujoco(surf, h, m if math.isfinite(m) else static_mass)
        if surf.bounce > 0 and surf.bounce_vel > 0 and math.isfinite(m):
            dead = to_mujoco(replace(surf, bounce=0.0), h, m).solref
            bounce.append((gid, surf.bounce_vel, mc.solref, dead))
            model.geom_priority[gid] = 2  # its solref decides, also against a bouncy floor
        model.geom_friction[gid] = (mc.friction[0], mc.friction[2], mc.friction[3])
        model.geom_solref[gid] = mc.solref
        model.geom_solimp[gid] = mc.solimp
        model.geom_condim[gid] = mc.condim
    for pid in range(model.npair):
        pname = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_PAIR, pid) or ""
        g1, g2 = int(model.pair_geom1[pid]), int(model.pair_geom2[pid])
        m = _lightest([_moving_mass(model, int(model.geom_bodyid[g])) for g in (g1, g2)])
        if pname.startswith("pair:"):
            surf = scene.surfaces[pname.rsplit("|", 1)[1]]
            capsule = mujoco.mjtGeom.mjGEOM_CAPSULE in (model.geom_type[g1], model.geom_type[g2])
        else:
            drive = next((d for d in drives.values() if pname in d.pairs), None)
            if drive is None:
                continue
            surf, capsule = drive.pairs[pname]
        mc = to_mujoco(surf, h, m, capsule_frame=capsule)
        model.pair_friction[pid] = mc.friction
        model.pair_solref[pid] = mc.solref
        model.pair_solreffriction[pid] = mc.solreffriction
        model.pair_solimp[pid] = mc.solimp
        model.pair_dim[pid] = mc.condim
    return bounce
