"""The compiled ray caster against MuJoCo's own ray functions: every primitive type at
random poses and sizes, rays from outside and inside, and whole scans (primitives and a
mesh) against ``mj_ray``."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from robotsim.model.geometry import Mesh
from robotsim.physics import Body
from robotsim.sensors._raycast import ray_primitive
from robotsim.spatial import make_T, rpy_to_R
from tests.sensors.worlds import omni_placement, post, rig, wall, world_of

TYPES = {"plane": 0, "sphere": 2, "capsule": 3, "ellipsoid": 4, "cylinder": 5, "box": 6}


@pytest.mark.parametrize("name", list(TYPES))
def test_each_primitive_matches_mju_raygeom(name: str) -> None:
    gtype = TYPES[name]
    rng = np.random.default_rng(gtype)
    hits = 0
    for _ in range(3000):
        size = rng.uniform(0.05, 1.0, 3)
        if name == "plane" and rng.random() < 0.5:
            size[:2] = 0.0  # infinite
        R = rpy_to_R(rng.uniform(-np.pi, np.pi, 3))
        pos = rng.uniform(-1, 1, 3)
        pnt = pos + rng.normal(0, 1.0 if rng.random() < 0.7 else 0.2, 3)  # some inside
        vec = rng.normal(0, 1, 3)
        vec /= np.linalg.norm(vec)
        ref = mujoco.mju_rayGeom(pos, R.ravel(), size, pnt, vec, gtype)
        lp = R.T @ (pnt - pos)
        lv = R.T @ vec
        got = ray_primitive(gtype, *size, *lp, *lv)
        if ref < 0:
            assert got < 0, (ref, got)
        else:
            hits += 1
            assert got == pytest.approx(ref, rel=1e-9, abs=1e-12)
    assert hits > 300  # the cases cover hits, not only misses


def test_scans_match_mj_ray_with_every_shape_and_a_mesh(tmp_path) -> None:
    import trimesh

    mesh_file = tmp_path / "rock.obj"
    trimesh.creation.icosphere(subdivisions=2, radius=0.4).export(mesh_file)
    rng = np.random.default_rng(11)
    bodies = [wall("w", 4.0), post("p", 1.5, 1.0, 0.3)]
    from robotsim.model.geometry import Box, Capsule, Ellipsoid, Sphere

    shapes = [Sphere(0.3), Capsule(0.2, 0.6), Ellipsoid((0.4, 0.2, 0.3)), Box((0.3, 0.5, 0.4))]
    for k, shape in enumerate(shapes):
        T = make_T(rpy_to_R(rng.uniform(-1, 1, 3)), [-2.0 + k, rng.uniform(-3, -1), 0.6])
        bodies.append(Body(f"s{k}", shape, T))
    bodies.append(Body("rock", Mesh(str(mesh_file)), make_T(None, [-1.5, 2.0, 0.4])))
    world = world_of([omni_placement("r", yaw=0.3), omni_placement("o", x=-3.0, y=0.5)], bodies)
    r = rig(world, "r", {"type": "lidar", "position": [0, 0, 0.3], "rays": 720,
                         "layers": 4, "vertical_fov_deg": 30})  # fmt: skip
    r.step(1)
    reading = r.latest("r", "lidar")
    s = r.sensor("r", "lidar")
    R, p = s.frame()
    own = [world.body(n).id for n in world.body_names if n.startswith("r/")]
    ref = []
    for v in s.directions() @ R.T:
        # mj_ray excludes one body: cast on past the robot's own bodies by hand
        start, travelled, excl = p.copy(), 0.0, own[0]
        while True:
            gid = np.zeros(1, np.int32)
            d = mujoco.mj_ray(world.model, world.data, start, v, None, 1, excl, gid)
            if d >= 0 and world.model.geom_bodyid[gid[0]] in own:
                travelled += d
                start = start + d * v
                excl = int(world.model.geom_bodyid[gid[0]])
                continue
            break
        ref.append(np.inf if d < 0 or travelled + d > 30 else travelled + d)
    got = reading["ranges"].ravel()
    np.testing.assert_allclose(got, np.array(ref), rtol=2e-6)
    hit_geoms = {world.model.geom(int(g)).name for g in s.scan()[1] if g >= 0}
    assert {"rock", "s0", "s1", "s2", "s3", "p", "w", "ground"} <= hit_geoms
    assert any(n.startswith("o/") for n in hit_geoms)  # the other robot
