"""The physics World: the ODE contact vocabulary behaves as a user expects, the three ways
of moving a body, joints and motors, fail-fast divergence, pause/reset, determinism."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from robotsim.errors import InputError, PhysicsError, UnknownNameError
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Sphere
from robotsim.physics import Body, ContactSurface, Joint, Motor, Plane, Scene, World
from robotsim.spatial import make_T, rot_y, trans

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"


def _ball_world(surface: ContactSurface, height: float, timestep: float = 0.002) -> World:
    ball = Body(
        "ball", Sphere(0.1), trans([0, 0, 0.1 + height]), joint=Joint("free"), mass=1.0, surface="s"
    )
    return World(Scene(bodies=(ball,), surfaces={"s": surface}, timestep=timestep))


def _rebound_ratio(world: World, height: float) -> float:
    z = []
    for _ in range(int((2.2 * math.sqrt(2 * height / 9.81) + 0.1) / world.timestep)):
        world.step()
        z.append(world.body("ball").position[2] - 0.1)
    z = np.array(z)
    first = int(np.argmin(z[: int(1.1 * math.sqrt(2 * height / 9.81) / world.timestep) + 20]))
    return float(z[first:].max() / height)


@pytest.mark.parametrize(("height", "timestep"), [(1.0, 0.002), (0.6, 0.001)])
def test_bounce_09_rebounds_to_081_of_drop_height(height: float, timestep: float) -> None:
    # restitution e: rebound height = e^2 * drop height; the mapping promises +-0.04
    ratio = _rebound_ratio(_ball_world(ContactSurface(bounce=0.9), height, timestep), height)
    assert ratio == pytest.approx(0.81, abs=0.04)


def test_bounce_0_does_not_rebound_and_half_bounce_is_lower() -> None:
    assert _rebound_ratio(_ball_world(ContactSurface(bounce=0.0), 0.5), 0.5) < 0.01
    assert _rebound_ratio(_ball_world(ContactSurface(bounce=0.5), 0.5), 0.5) == pytest.approx(
        0.25, abs=0.04
    )


def test_bounce_vel_is_the_minimum_impact_speed_for_a_bounce() -> None:
    surface = ContactSurface(bounce=0.9, bounce_vel=1.0)
    # 0.3 m drop hits at 2.4 m/s > 1 m/s: bounces; 3 cm drop hits at 0.77 m/s: dead
    assert _rebound_ratio(_ball_world(surface, 0.3), 0.3) == pytest.approx(0.81, abs=0.04)
    assert _rebound_ratio(_ball_world(surface, 0.03), 0.03) < 0.05
    assert _rebound_ratio(_ball_world(ContactSurface(bounce=0.9), 0.03), 0.03) > 0.7


def _slide_distance(mu: float, degrees: float) -> float:
    """Box resting on an inclined plane: distance travelled along it in 1 s."""
    R = rot_y(-math.radians(degrees))
    slope = Body("slope", Plane(), make_T(R, [0, 0, 0]))
    box = Body(
        "box", Box((0.2, 0.2, 0.1)), make_T(R, R @ [0, 0, 0.051]), joint=Joint("free"), mass=1.0
    )
    w = World(Scene(bodies=(slope, box), ground=None, default_surface=ContactSurface(mu=mu)))
    w.step(100)
    p0 = w.body("box").position
    w.step(500)
    return float(np.linalg.norm(w.body("box").position - p0))


@pytest.mark.parametrize("mu", [0.3, 0.6])
def test_mu_sets_the_slide_stick_threshold_on_a_slope(mu: float) -> None:
    critical = math.degrees(math.atan(mu))
    assert _slide_distance(mu, critical - 3.0) < 0.005  # sticks (soft friction creeps < 5 mm/s)
    # slides with about g (sin - mu cos): at +3 degrees that is > 0.2 m/s^2, > 5 cm in 1 s
    assert _slide_distance(mu, critical + 3.0) > 0.05


def _rest_penetration(cfm: float) -> float:
    ball = Body("ball", Sphere(0.1), trans([0, 0, 0.1]), joint=Joint("free"), mass=2.0)
    w = World(Scene(bodies=(ball,), default_surface=ContactSurface(soft_erp=0.2, soft_cfm=cfm)))
    w.step(1000)
    return 0.1 - float(w.body("ball").position[2])


def test_soft_cfm_makes_contacts_softer_as_in_ode() -> None:
    # ODE: kp = erp / (h cfm); a resting body sinks m g / kp = m g h cfm / erp
    pens = [_rest_penetration(c) for c in (1e-5, 1e-4, 1e-3)]
    assert pens[0] < pens[1] < pens[2]
    for cfm, pen in zip((1e-5, 1e-4, 1e-3), pens):
        assert pen == pytest.approx(2.0 * 9.81 * 0.002 * cfm / 0.2, rel=0.1)


def _ball_sink(mass: float, others: tuple[float, ...] = ()) -> float:
    """How deep (m) a ball of ``mass`` rests in the ground under the world's ERP 0.2 and
    CFM 1e-3 (2 ms steps), with balls of ``others`` kg lying elsewhere."""
    ball = Body("ball", Sphere(0.1), trans([0, 0, 0.1]), joint=Joint("free"), mass=mass)
    extra = tuple(
        Body(f"other{i}", Sphere(0.1), trans([1.0 + i, 0, 0.1]), joint=Joint("free"), mass=m)
        for i, m in enumerate(others)
    )
    w = World(Scene(bodies=(ball, *extra), erp=0.2, cfm=1e-3))
    w.step(1000)
    return 0.1 - float(w.body("ball").position[2])


@pytest.mark.parametrize("others", [(), (1.0,), (0.05, 40.0)])
def test_world_erp_cfm_act_on_each_contact_alone(others: tuple[float, ...]) -> None:
    # ODE's ERP/CFM give each contact the spring kp = erp / (h cfm): a 5 kg ball sinks
    # m g h cfm / erp = 0.491 mm whatever else lies in the scene (seed 002; it sank
    # 0.097 mm when a 1 kg ball lay elsewhere, the lightest body setting the ground)
    ode = 5.0 * 9.81 * 0.002 * 1e-3 / 0.2
    assert _ball_sink(5.0, others) == pytest.approx(ode, rel=0.05)


def test_world_erp_cfm_sink_follows_each_bodys_own_mass() -> None:
    # the same scene, each ball its own depth: the check that says no to a shared setting
    light, heavy = _ball_sink(1.0, (5.0,)), _ball_sink(5.0, (1.0,))
    assert heavy / light == pytest.approx(5.0, rel=0.05)


def _creep_speed(slip: float) -> float:
    """Box on a 10 degree slope (mu 1: it sticks) with an explicit surface pair."""
    from robotsim.physics import SurfacePair

    R = rot_y(-math.radians(10.0))
    slope = Body("slope", Box((4, 4, 0.1)), make_T(R, R @ [0, 0, -0.05]))
    box = Body(
        "box", Box((0.2, 0.2, 0.1)), make_T(R, R @ [0, 0, 0.0505]), joint=Joint("free"), mass=1.0
    )
    surf = ContactSurface(mu=1.0, slip1=slip, slip2=slip)
    w = World(
        Scene(
            bodies=(slope, box),
            ground=None,
            surfaces={"s": surf},
            pairs=(SurfacePair("slope", "box", "s"),),
        )
    )
    w.step(250)
    p0 = w.body("box").position
    w.step(250)
    return float(np.linalg.norm(w.body("box").position - p0)) / 0.5


def test_slip_makes_a_sticking_body_creep() -> None:
    # ODE's force-dependent slip, mapped approximately (docs/physics.md): monotonic creep
    v0, v1, v5 = _creep_speed(0.0), _creep_speed(0.01), _creep_speed(0.05)
    assert v0 < 1e-3 < v1 < v5
    assert v5 < 0.05 * 9.81 * math.sin(math.radians(10.0))  # never more than ODE's


def _free_box() -> World:
    box = Body("box", Box((0.2, 0.2, 0.2)), trans([0, 0, 0.1]), joint=Joint("free"), mass=2.0)
    return World(Scene(bodies=(box,), default_surface=ContactSurface(mu=0.0)))


def test_three_ways_of_moving_a_body() -> None:
    # 1. a force: frictionless ground, F = 4 N on 2 kg for 0.5 s -> v = 1 m/s
    w = _free_box()
    for _ in range(250):
        w.body("box").apply_force([4.0, 0.0, 0.0])
        w.step()
    assert w.body("box").velocity[0][0] == pytest.approx(1.0, abs=0.01)
    # force accumulators are cleared after each step call
    w.step(50)
    assert w.body("box").velocity[0][0] == pytest.approx(1.0, abs=0.01)
    # 3. direct velocity set
    w = _free_box()
    w.body("box").set_velocity([0.0, 0.5, 0.0], [0.0, 0.0, 1.0])
    w.step(250)
    lin, ang = w.body("box").velocity
    assert lin[1] == pytest.approx(0.5, abs=0.01) and ang[2] == pytest.approx(1.0, abs=0.01)
    # 2. a motor's target velocity (see test_velocity_motor_reaches_target_with_limits)


def _wheel_world(motor: Motor) -> World:
    base = Body("base", Box((0.4, 0.4, 0.4)), trans([0, 0, 1.0]))
    wheel = Body(
        "wheel",
        Cylinder(0.1, 0.05),
        trans([0, 0.4, 0]),
        parent="base",
        joint=Joint("hinge", axis=(0, 0, 1), motor=motor),
        mass=1.0,
    )
    return World(Scene(bodies=(base, wheel), ground=None))


def test_velocity_motor_reaches_target_with_limits() -> None:
    w = _wheel_world(Motor("velocity", gain=5.0, force=2.0, velocity=3.0, acceleration=10.0))
    w.motor("wheel").set(10.0)  # clipped to the velocity limit
    assert w.motor("wheel").target == 3.0
    w.step(25)  # 0.05 s: the acceleration limit allows 0.5 rad/s of target
    assert w.motor("wheel").applied == pytest.approx(0.5, abs=1e-9)
    assert 0.1 < w.joint("wheel").qd < 0.5  # the wheel followed the ramp, not a jump
    w.step(500)
    assert w.joint("wheel").qd == pytest.approx(3.0, rel=0.02)


def test_position_and_torque_motors() -> None:
    w = _wheel_world(Motor("position", gain=20.0, damping=1.0, velocity=2.0))
    w.motor("wheel").set(1.0)
    w.step(100)  # 0.2 s: the velocity limit lets the target move 0.4 rad
    assert w.motor("wheel").applied == pytest.approx(0.4)
    w.step(1400)
    assert w.joint("wheel").q == pytest.approx(1.0, abs=0.01)
    w = _wheel_world(Motor("torque", force=0.5))
    w.motor("wheel").set(5.0)  # clipped to the 0.5 N m force limit
    w.step(500)
    inertia = 0.5 * 1.0 * 0.1**2  # solid cylinder about its axis
    assert w.joint("wheel").qd == pytest.approx(0.5 / inertia * 1.0, rel=0.02)


def test_joint_types_compile_and_move() -> None:
    base = Body("base", Box((0.2, 0.2, 0.2)), trans([0, 0, 2.0]))
    bodies = (
        base,
        Body(
            "pend",
            Capsule(0.03, 0.3),
            trans([0.3, 0, 0]),
            parent="base",
            joint=Joint("ball", anchor=(-0.2, 0, 0)),
            mass=0.5,
        ),
        Body(
            "slide",
            Box((0.1, 0.1, 0.1)),
            trans([0, 0.5, 0]),
            parent="base",
            joint=Joint("slider", axis=(0, 0, 1), range=(-0.3, 0.0)),
            mass=0.5,
        ),
        Body(
            "fixed",
            Ellipsoid((0.1, 0.05, 0.05)),
            trans([0, -0.5, 0]),
            parent="base",
            joint=Joint("fixed"),
        ),
        Body(
            "steer",
            Cylinder(0.1, 0.04),
            trans([0.5, 0.5, 0]),
            parent="base",
            joint=Joint(
                "hinge2",
                axis=(0, 0, 1),
                axis2=(0, 1, 0),
                motor=Motor("position", gain=10.0, damping=0.5),
                motor2=Motor("velocity", gain=2.0),
            ),
            mass=0.3,
        ),
    )
    w = World(Scene(bodies=bodies, ground=None))
    assert {"slide", "steer.steer", "steer.drive"} <= set(w.joint_names)
    w.motor("steer.steer").set(math.pi / 2)
    w.motor("steer.drive").set(2.0)
    w.step(1000)
    assert w.joint("slide").q == pytest.approx(-0.3, abs=0.01)  # fell to its lower limit
    assert w.joint("steer.steer").q == pytest.approx(math.pi / 2, abs=0.02)
    assert w.joint("steer.drive").qd == pytest.approx(2.0, rel=0.05)
    # hinge2: after steering 90 deg about z, the drive axis (y) points along -x
    R = w.body("steer").pose[:3, :3]
    spin = R @ np.array([0.0, 1.0, 0.0])
    assert spin == pytest.approx([-1.0, 0.0, 0.0], abs=0.03)
    assert w.body("pend").position[2] < 2.0  # the ball-jointed pendulum hangs down


@pytest.mark.parametrize(
    "rel", ["X/test_cube_text.x", "X/test_cube_binary.x", "3DS/RotatingCube.3DS", "OBJ/box.obj"]
)
def test_legacy_mesh_bodies_fall_and_rest_on_their_convex_hull(rel: str) -> None:
    from robotsim.model.meshes import load_mesh

    path = FIXTURES / "meshes" / rel
    extent = float(np.max(load_mesh(path).extents))
    s = 0.3 / extent  # any file unit -> a 0.3 m object
    body = Body("thing", Mesh(path, (s, s, s)), trans([0, 0, 1.0]), joint=Joint("free"), mass=1.0)
    w = World(Scene(bodies=(body,)))
    w.step(1500)
    lowest = w.data.geom_xpos[w.model.geom("thing").id][2]
    assert 0.0 < lowest < 0.9  # fell and rests on the ground, not through it
    assert any("ground" in (a, b) for a, b, _ in w.contacts())
    assert np.linalg.norm(w.body("thing").velocity[0]) < 0.05


def test_divergence_raises_naming_time_and_body() -> None:
    w = _free_box()
    w.step(10)
    w.body("box").apply_force([1e12, 0, 0])
    with pytest.raises(PhysicsError, match=r"t=0\.0[0-9]+ s.*'box'"):
        for _ in range(20):
            w.step(5)
    w = _free_box()
    w.data.qvel[0] = np.nan
    with pytest.raises(PhysicsError, match=r"diverged at t=.*'box'"):
        w.step()


def test_pause_resume_reset_and_single_step() -> None:
    w = _ball_world(ContactSurface(), 1.0)
    w.pause()
    assert w.advance(0.1) == 0 and w.time == 0.0
    w.step()  # single-stepping while paused
    assert w.time == pytest.approx(w.timestep)
    w.resume()
    w.advance(0.1)
    assert w.time == pytest.approx(0.1 + w.timestep)
    z = w.body("ball").position[2]
    w.reset()
    assert w.time == 0.0 and w.body("ball").position[2] == pytest.approx(1.1) != z


def test_same_scene_and_seed_give_the_same_numbers() -> None:
    def run() -> np.ndarray:
        w = _ball_world(ContactSurface(bounce=0.5, mu=0.4), 0.7)
        w.body("ball").set_velocity([0.3, -0.2, 0.0], [1.0, 2.0, 0.0])
        w.step(700)
        return np.concatenate(
            [w.state().body_pos.ravel(), w.state().body_quat.ravel(), w.rng.random(3)]
        )

    assert np.array_equal(run(), run())


def test_bad_names_and_values_are_clear() -> None:
    w = _free_box()
    with pytest.raises(UnknownNameError, match="unknown body 'nope'; valid: box"):
        w.body("nope")
    with pytest.raises(UnknownNameError, match="motor"):
        w.motor("box")
    with pytest.raises(InputError, match="bounce"):
        ContactSurface(bounce=1.5)
    with pytest.raises(InputError, match="unknown surface"):
        Scene(bodies=(Body("b", Sphere(0.1), surface="ice"),))
    with pytest.raises(InputError, match="no free joint"):
        World(Scene(bodies=(Body("wall", Box((1, 1, 1))),))).body("wall").set_velocity()


def test_library_arm_in_a_world_with_position_motors() -> None:
    from robotsim.model import load_robot
    from robotsim.physics import RobotPlacement

    puma = load_robot("puma560")
    q0 = dict(zip(puma.joint_names, [0.0, -0.5, 0.5, 0.0, 0.3, 0.0]))
    arm = RobotPlacement(
        "arm",
        puma,
        trans([0, 0, 0]),
        q0=q0,
        default_motor=Motor("position", gain=2000.0, damping=50.0),
    )
    w = World(Scene(robots=(arm,)))
    assert set(w.motor_names) == {f"arm/{j}" for j in puma.joint_names}
    assert w.joint("arm/" + puma.joint_names[1]).q == pytest.approx(-0.5)
    w.motor("arm/" + puma.joint_names[0]).set(0.4)
    w.step(500)
    assert w.joint("arm/" + puma.joint_names[0]).q == pytest.approx(0.4, abs=0.02)
    # the body poses MuJoCo reports agree with our kinematics at the same q
    q = np.array([w.joint("arm/" + j).q for j in puma.joint_names])
    tip = puma.fk(q, puma.links[-1].name)[:3, 3]
    assert w.body("arm/" + puma.links[-1].name).position == pytest.approx(tip, abs=1e-6)


def test_body_velocity_is_the_origins_not_the_centre_of_mass() -> None:
    # An arm spinning about its own origin with its mass 0.5 m out along x: the origin
    # stays still (MuJoCo's mj_objectVelocity alone would give the CoM's 1 m/s).
    from robotsim.model import RobotBuilder
    from robotsim.model.robot import Inertial
    from robotsim.physics import RobotPlacement

    arm = (
        RobotBuilder("spinner")
        .link("base", [Box((0.1, 0.1, 0.1))], inertial=Inertial(1.0))
        .link("arm", [Sphere(0.05)], collisions=[],
              inertial=Inertial(1.0, np.array([0.5, 0.0, 0.0]), np.eye(3) * 1e-3))
        .joint("spin", "continuous", "base", "arm", origin=trans([0, 0, 1.0]))
        .build()
    )  # fmt: skip
    motor = Motor("velocity", gain=50.0)
    w = World(Scene(robots=(RobotPlacement("r", arm, motors={"spin": motor}),),
                    gravity=(0.0, 0.0, 0.0), ground=None))  # fmt: skip
    w.motor("r/spin").set(2.0)
    w.step(500)
    lin, ang = w.body("r/arm").velocity
    assert ang[2] == pytest.approx(2.0, abs=0.02)
    assert np.linalg.norm(lin) < 1e-9  # the origin is on the spin axis
    # A free body: what set_velocity sets is what velocity reads.
    w = _free_box()
    w.body("box").set_velocity([0.3, -0.2, 0.0], [0.0, 0.0, 1.5])
    w.step(1)
    lin, ang = w.body("box").velocity
    assert lin[:2] == pytest.approx([0.3, -0.2], abs=1e-6) and ang[2] == pytest.approx(1.5)
