"""The built-in robot library: one conformance walk over every robot, plus the checks that
tie each robot to its source (paper matrices, joint table, wheel geometry)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import robotsim
from robotsim.cli import main
from robotsim.model.robot import JointType, RobotModel
from robotsim.spatial import inv_T, rot_x, rot_z

NAMES = robotsim.library_names()
RNG_SEED = 20070801
# Published reference poses that lie outside their own tabulated limits (kept because FK
# is checked against the published values): PUMA 560 qn has joint3 = 180 deg, limit 135.
OUTSIDE_LIMITS = {("puma560", "qn")}


def random_q(model: RobotModel, n: int, rng: np.random.Generator) -> np.ndarray:
    """``(n, nq)`` configurations inside the limits (continuous joints: one turn)."""
    lo = np.where(np.isfinite(model.lower), model.lower, -np.pi)
    hi = np.where(np.isfinite(model.upper), model.upper, np.pi)
    return lo + (hi - lo) * rng.random((n, model.nq))


def parent_child(model: RobotModel, q: np.ndarray, joint: str) -> np.ndarray:
    """``T_parent_child`` of one joint from the model's world link poses."""
    j = model.joint(joint)
    Ts = model.fk_all(q)
    ip, ic = model.link_names.index(j.parent), model.link_names.index(j.child)
    return inv_T(Ts[..., ip, :, :]) @ Ts[..., ic, :, :]


# --------------------------------------------------------------------- conformance
def test_library_has_the_builtin_robots() -> None:
    assert {"puma560", "humanoid17", "dual_arm_hands", "omni3", "diffdrive"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_conformance(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    model = robotsim.load_robot(name)
    rng = np.random.default_rng(RNG_SEED)
    moving = {j.child for j in model.joints if j.movable}
    for lk in model.links:
        if lk.name in moving or lk.name == model.root:
            assert lk.visuals, f"{name}: link {lk.name} has no geometry"
    # FK of every link and frame is finite inside the limits
    q = random_q(model, 64, rng)
    assert np.all(np.isfinite(model.fk_all(q)))
    for fr in model.frame_names:
        T = model.fk(q, fr)
        assert T.shape == (64, 4, 4) and np.all(np.isfinite(T))
    model.fk(q, model.default_frame)
    # mimic joints stay inside their own limits over the leader's whole range
    for j in model.joints:
        if j.mimic is not None:
            lead = model.joint(j.mimic.joint).limits
            ends = j.mimic.multiplier * np.array([lead.lower, lead.upper]) + j.mimic.offset
            assert j.limits.lower - 1e-9 <= ends.min() and ends.max() <= j.limits.upper + 1e-9
    for pose in model.poses:
        if (name, pose) in OUTSIDE_LIMITS:
            with pytest.raises(robotsim.InputError):
                model.check_limits(model.pose(pose))
        else:
            model.check_limits(model.pose(pose))
    code = main(["inspect", name, "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0 and info["name"] == name and info["dof"] == model.nq


@pytest.mark.parametrize("name", [n for n in NAMES if n != "puma560"])
def test_physical_data(name: str) -> None:
    """Our own robots (puma560 comes from a published table without speed limits) carry
    what physics needs: speed and torque limits, a mass and a valid inertia per link."""
    model = robotsim.load_robot(name)
    for j in model.joints:
        if j.actuated:
            assert np.isfinite(j.limits.velocity) and np.isfinite(j.limits.effort), j.name
    for lk in model.links:
        assert lk.inertial is not None and lk.inertial.mass > 0, lk.name
        ev = np.linalg.eigvalsh(lk.inertial.inertia)
        assert ev.min() > 0, lk.name
        assert ev.max() <= ev.sum() - ev.max() + 1e-12, f"{lk.name}: triangle inequality"


# ------------------------------------------------------------------------ humanoid17
UNIT = 0.1  # metres per model unit of the paper
C_OURS_JAVA = np.array([[0.0, 0, 1], [1, 0, 0], [0, 1, 0]])  # x_ours = z_java, ...


def _T(R: list[list[float]], p: list[float]) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


def paper_left(t: np.ndarray) -> list[np.ndarray]:
    """The paper's left-leg matrices (seed 000, section 1.2), model units."""
    c, s = np.cos(t), np.sin(t)
    return [
        _T([[0, 0, 1], [c[0], -s[0], 0], [s[0], c[0], 0]], [0.281, 0.240, -0.696]),
        _T([[0, 0, -1], [-s[1], -c[1], 0], [-c[1], s[1], 0]], [0.060, -0.480, -0.261]),
        _T([[s[2], c[2], 0], [c[2], -s[2], 0], [0, 0, -1]], [-0.200, 0.410, 0]),
        _T([[0, c[3], -s[3]], [0, s[3], c[3]], [1, 0, 0]], [0.615, 0, 0.292]),
        _T([[c[4], -s[4], 0], [-s[4], -c[4], 0], [0, 0, -1]], [-0.351, 0.480, -0.031]),
    ]


def paper_right(t: np.ndarray, corrected: bool = True) -> list[np.ndarray]:
    """The paper's right-leg matrices; ``corrected`` flips the one sign that keeps
    leg1->leg2 from being a rotation (row 3, column 1: -cos -> +cos theta7)."""
    c, s = np.cos(t), np.sin(t)
    r31 = c[1] if corrected else -c[1]
    return [
        _T([[0, 0, 1], [c[0], -s[0], 0], [s[0], c[0], 0]], [0.281, -0.240, -0.696]),
        _T([[0, 0, 1], [-s[1], -c[1], 0], [r31, -s[1], 0]], [-0.060, -0.480, -0.261]),
        _T([[s[2], c[2], 0], [c[2], -s[2], 0], [0, 0, -1]], [0.200, 0.410, 0]),
        _T([[0, c[3], -s[3]], [0, s[3], c[3]], [1, 0, 0]], [0.615, 0, 0.292]),
        _T([[-c[4], s[4], 0], [-s[4], -c[4], 0], [0, 0, 1]], [-0.351, 0.480, 0.031]),
    ]


LEFT = ["left_hip_roll", "left_hip_pitch", "left_knee", "left_ankle_pitch", "left_ankle_roll"]
RIGHT = [n.replace("left", "right") for n in LEFT]


def to_ours(T_paper: np.ndarray) -> np.ndarray:
    """The paper's body frame is x forward, y left, z up already: only the scale."""
    T = T_paper.copy()
    T[:3, 3] *= UNIT
    return T


def test_humanoid_reproduces_the_paper_matrices() -> None:
    model = robotsim.load_robot("humanoid17")
    assert model.floating and model.root == "body" and model.nq == 17
    assert model.metadata["paper_angles"] == LEFT + RIGHT
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(20):
        q = random_q(model, 1, rng)[0]
        for names, paper in ((LEFT, paper_left), (RIGHT, paper_right)):
            theta = np.array([q[model.joint_index(n)] for n in names])
            Ms = paper(theta)
            for joint, M in zip(names, Ms):
                np.testing.assert_allclose(parent_child(model, q, joint), to_ours(M), atol=1e-12)
            # the whole chain body -> foot (eq. 1 with world = body)
            chain = Ms[0] @ Ms[1] @ Ms[2] @ Ms[3] @ Ms[4]
            foot = names[0].split("_")[0] + "_foot"
            np.testing.assert_allclose(model.fk(q, foot), to_ours(chain), atol=1e-12)


def test_paper_right_leg_matrix_needs_the_correction() -> None:
    t = np.array([0.0, 0.3, 0.0, 0.0, 0.0])
    printed = paper_right(t, corrected=False)[1][:3, :3]
    fixed = paper_right(t, corrected=True)[1][:3, :3]
    assert not np.allclose(printed.T @ printed, np.eye(3))
    assert np.allclose(fixed.T @ fixed, np.eye(3)) and np.isclose(np.linalg.det(fixed), 1.0)
    # corrected, the right leg is the mirror image (y -> -y) of the left one at q = 0
    zl = paper_left(np.zeros(5))
    zr = paper_right(np.zeros(5))
    mirror = np.diag([1.0, -1, 1, 1])
    pl = np.linalg.multi_dot(zl)[:3, 3]
    pr = np.linalg.multi_dot(zr)[:3, 3]
    np.testing.assert_allclose(pr, (mirror[:3, :3] @ pl), atol=1e-12)


def test_humanoid_axis_mapping_to_java3d() -> None:
    """At q = 0 the foot frames are parallel to Java 3D's world axes (y up): the foot part
    was modelled in the y-up world, which the documented mapping reproduces."""
    model = robotsim.load_robot("humanoid17")
    for foot in ("left_foot", "right_foot"):
        R_java_foot = C_OURS_JAVA.T @ model.fk(model.zero(), foot)[:3, :3]
        np.testing.assert_allclose(R_java_foot, np.eye(3), atol=1e-12)


def centre_of_mass(model: RobotModel, q: np.ndarray) -> np.ndarray:
    Ts = model.fk_all(q)
    total, acc = 0.0, np.zeros(3)
    for lk, T in zip(model.links, Ts):
        if lk.inertial is not None:
            acc += lk.inertial.mass * (T[:3, :3] @ lk.inertial.com + T[:3, 3])
            total += lk.inertial.mass
    return acc / total


@pytest.mark.parametrize("pose", ["zero", "stand", "crouch", "arms_forward"])
def test_humanoid_stands_on_flat_level_soles(pose: str) -> None:
    model = robotsim.load_robot("humanoid17")
    q = model.pose(pose)
    L, R = model.fk(q, "left_sole"), model.fk(q, "right_sole")
    for T in (L, R):
        np.testing.assert_allclose(T[:3, :3], np.eye(3), atol=1e-12)  # z up, x forward
    assert L[2, 3] == pytest.approx(R[2, 3], abs=1e-12)
    assert L[1, 3] > 0 > R[1, 3]
    # nothing reaches below the soles, and the centre of mass is over the feet
    for lk, T in zip(model.links, model.fk_all(q)):
        for s in lk.visuals:
            assert (T @ s.T_link_shape)[2, 3] > L[2, 3] - 1e-9
    com = centre_of_mass(model, q)
    half_len = model.metadata["foot_size_m"][0] / 2
    assert abs(com[0] - L[0, 3]) < 0.3 * half_len and abs(com[1]) < 1e-9
    height = -L[2, 3] + model.fk(q, "head")[2, 3]
    assert 0.4 < height + 0.09 < 0.6  # head link origin + head top = full height


def test_humanoid_crouch_is_lower_than_stand() -> None:
    model = robotsim.load_robot("humanoid17")
    z_stand = -model.fk(model.pose("stand"), "left_sole")[2, 3]
    z_crouch = -model.fk(model.pose("crouch"), "left_sole")[2, 3]
    assert 0.01 < z_stand - z_crouch < 0.05


def test_humanoid_crouches_on_an_anchored_sole() -> None:
    """Soles on the floor, left sole as the anchor (paper eq. 2): crouching keeps both
    soles on the floor and level; switching the anchor to the right sole moves nothing."""
    model = robotsim.load_robot("humanoid17")
    stand = model.pose("stand")
    root = np.eye(4)
    root[2, 3] = -model.fk(stand, "left_sole")[2, 3]
    state = robotsim.AnchoredState(model, stand, root, anchor="left_sole")
    left0 = state.pose("left_sole")
    state.set_q(model.pose("crouch"))
    np.testing.assert_allclose(state.pose("left_sole"), left0, atol=1e-12)
    right = state.pose("right_sole")
    assert right[2, 3] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(right[:3, :3], np.eye(3), atol=1e-12)
    before = state.link_poses().copy()
    state.set_anchor("right_sole")
    np.testing.assert_allclose(state.link_poses(), before, atol=1e-12)
    assert state.T_world_root[2, 3] < root[2, 3] - 0.01  # the body went down


# --------------------------------------------------------------------- dual_arm_hands
TABLE = {  # seed 001, table 1: initial value, range (deg)
    "shoulder_x": (0, (-90, 90)), "shoulder_y": (0, (-75, 75)),
    "elbow_y": (0, (-90, 90)), "elbow_r": (0, (0, 360)), "wrist_x": (-45, (-90, 15)),
    "finger1": (45, (0, 60)), "finger2": (45, (0, 60)), "finger3": (45, (0, 60)),
    "subfinger1": (-30, (-60, -10)), "subfinger2": (-30, (-60, -10)),
    "subfinger3": (-15, (-60, -10)),
    "subfinger11": (-15, (-30, -10)), "subfinger22": (-15, (-30, -10)),
}  # fmt: skip


def joint_value(model: RobotModel, q: np.ndarray, name: str) -> float:
    j = model.joint(name)
    if j.mimic is None:
        return float(q[model.joint_index(name)])
    return j.mimic.multiplier * float(q[model.joint_index(j.mimic.joint)]) + j.mimic.offset


@pytest.mark.parametrize("side", ["L", "R"])
def test_hand_follows_the_joint_table(side: str) -> None:
    model = robotsim.load_robot("dual_arm_hands")
    q = model.pose("initial")
    for short, (init, (lo, hi)) in TABLE.items():
        name = f"{side}_{short}"
        j = model.joint(name)
        assert np.degrees([j.limits.lower, j.limits.upper]) == pytest.approx([lo, hi])
        assert np.degrees(joint_value(model, q, name)) == pytest.approx(init)
    # one actuated joint per finger, the other phalanges follow it
    for f, followers in (("1", ["subfinger1", "subfinger11"]), ("2", ["subfinger2", "subfinger22"]),
                         ("3", ["subfinger3"])):  # fmt: skip
        for sub in followers:
            assert model.joint(f"{side}_{sub}").mimic.joint == f"{side}_finger{f}"
    # the thumb's base frame is turned 45 deg about its joint axis (and flipped to oppose)
    thumb = model.joint(f"{side}_finger3").origin[:3, :3]
    np.testing.assert_allclose(thumb, rot_x(np.pi) @ rot_z(np.pi / 4), atol=1e-12)


# Reachable range of every phalanx over its finger's 0..60 deg (docs/library.md, "Table 1,
# printed and reached"): all as printed except the middle phalanges of fingers 1 and 2
# (-60..-20: a linear coupling through the printed initial value -30 at 45 cannot
# span -60..-10) and the thumb's (-30..-10 of -60..-10, the same reason).
REACHED = {"subfinger1": (-60, -20), "subfinger2": (-60, -20), "subfinger3": (-30, -10),
           "subfinger11": (-30, -10), "subfinger22": (-30, -10)}  # fmt: skip


@pytest.mark.parametrize("side", ["L", "R"])
def test_phalanges_reach_the_documented_ranges(side: str) -> None:
    model = robotsim.load_robot("dual_arm_hands")
    q0 = model.pose("initial")
    for short, (lo, hi) in REACHED.items():
        ends = [np.degrees(joint_value(model, with_fingers(model, q0, side, f), f"{side}_{short}"))
                for f in (0.0, 60.0)]  # fmt: skip
        assert sorted(ends) == pytest.approx([lo, hi])
        printed = TABLE[short][1]
        assert printed[0] <= lo and hi <= printed[1]  # inside the printed range


def fingertips(model: RobotModel, q: np.ndarray, side: str) -> np.ndarray:
    return np.stack([model.fk(q, f"{side}_tip{i}")[..., :3, 3] for i in (1, 2, 3)], axis=-2)


def with_fingers(model: RobotModel, q: np.ndarray, side: str, deg: float) -> np.ndarray:
    return model.q_from({f"{side}_finger{i}": np.radians(deg) for i in (1, 2, 3)}, q)


@pytest.mark.parametrize("side", ["L", "R"])
def test_closing_the_hand_brings_the_fingertips_together(side: str) -> None:
    model = robotsim.load_robot("dual_arm_hands")
    r_tip = model.metadata["hands"][side]["tip_radius"]
    q0 = model.pose("initial")
    closed = with_fingers(model, q0, side, 0.0)  # closing limit of every finger
    tips = fingertips(model, closed, side)
    thumb_to_fingers = np.linalg.norm(tips[:2] - tips[2], axis=1)
    assert np.all(thumb_to_fingers <= 2 * r_tip + 0.005)
    assert np.linalg.norm(tips[0] - tips[1]) < 0.05
    open_tips = fingertips(model, q0, side)
    assert np.all(np.linalg.norm(open_tips[:2] - open_tips[2], axis=1) > 4 * thumb_to_fingers)


@pytest.mark.parametrize("side", ["L", "R"])
def test_initial_hand_takes_a_6cm_ball(side: str) -> None:
    """A 6 cm ball at the grasp frame is clear of the open hand; closing each finger
    until its tip sphere touches the ball gives a three-finger grasp with a wide spread."""
    model = robotsim.load_robot("dual_arm_hands")
    r_tip, r_ball = model.metadata["hands"][side]["tip_radius"], 0.03
    q0 = model.pose("initial")
    ball = model.fk(q0, f"{side}_grasp")[:3, 3]
    tips0 = fingertips(model, q0, side)
    assert np.all(np.linalg.norm(tips0 - ball, axis=1) > r_ball + r_tip + 0.01)
    palm = model.fk(q0, f"{side}_palm")[:3, 3]
    assert np.linalg.norm(palm - ball) > r_ball + 0.02
    sweep = np.linspace(45.0, 0.0, 181)
    qs = np.stack([with_fingers(model, q0, side, a) for a in sweep])
    d = np.linalg.norm(fingertips(model, qs, side) - ball, axis=-1)  # (181, 3)
    first = [int(np.argmax(d[:, f] <= r_ball + r_tip)) for f in range(3)]
    assert all(d[k, f] <= r_ball + r_tip for f, k in enumerate(first))
    assert all(sweep[k] > 5.0 for k in first)  # touched well before the closing limit
    touch = np.stack([fingertips(model, qs[k], side)[f] for f, k in enumerate(first)])
    assert np.all(np.linalg.norm(touch[:2] - touch[2], axis=1) > 0.05)


def test_hands_reach_the_table_and_the_floor() -> None:
    model = robotsim.load_robot("dual_arm_hands")
    down = model.q_from({"L_shoulder_x": -np.pi / 2, "L_wrist_x": 0.0,
                         "L_finger1": np.radians(45), "L_finger2": np.radians(45)})  # fmt: skip
    assert fingertips(model, down, "L")[:, 2].min() < 0.0
    res = model.ik([0.45, 0.2, 0.74], link="L_grasp", q0=model.pose("initial"))
    assert res.success


def test_arms_mirror_each_other() -> None:
    model = robotsim.load_robot("dual_arm_hands")
    rng = np.random.default_rng(RNG_SEED)
    qL = random_q(model, 1, rng)[0]
    q = qL.copy()
    for n in model.joint_names:
        if n.startswith("L_"):
            q[model.joint_index("R_" + n[2:])] = q[model.joint_index(n)]
    mirror = np.diag([1.0, -1.0, 1.0])
    for i in (1, 2, 3):
        pl, pr = model.fk(q, f"L_tip{i}")[:3, 3], model.fk(q, f"R_tip{i}")[:3, 3]
        np.testing.assert_allclose(pr, mirror @ pl, atol=1e-12)


# ------------------------------------------------------------------------ omni3
def test_omni_wheels_match_the_paper_decomposition() -> None:
    model = robotsim.load_robot("omni3")
    meta = model.metadata["omni"]
    assert (meta["alpha_deg"], meta["beta_deg"], meta["R"], meta["k"]) == (30, 60, 0.2, 0.035)
    a, b, R = np.radians(30), np.radians(60), 0.2
    paper = np.array([  # eq. (1) without k: rows v1..v3, columns Vx, Vy, Vr
        [np.sin(b), np.cos(b), R],
        [-np.cos(a), np.sin(a), R],
        [-np.cos(np.pi / 2), -np.sin(np.pi / 2), R],
    ])  # fmt: skip
    q = model.zero()
    centre = model.fk(q, "base_center")[:3, 3]
    rows = []
    for k, name in enumerate(meta["wheels"]):
        j = model.joint(name)
        assert j.type is JointType.CONTINUOUS
        T = model.fk(q, j.child)
        p = T[:3, 3] - centre
        assert np.hypot(p[0], p[1]) == pytest.approx(R) and p[2] == pytest.approx(0.0)
        assert np.degrees(np.arctan2(p[1], p[0])) == pytest.approx(meta["wheel_angles_deg"][k])
        assert T[2, 3] == pytest.approx(meta["wheel_radius"])  # wheels touch the floor z = 0
        axis = T[:3, :3] @ j.axis
        # rim speed of a wheel turning at +1 rad/s rolling on the floor: omega x (0,0,r)
        drive = np.cross(axis, [0, 0, 1.0])  # unit rolling direction for positive spin
        # rigid-body velocity of the wheel centre for (Vx, Vy, Vr) projected on it
        rows.append([drive[0], drive[1], np.cross([0, 0, 1.0], p) @ drive])
    np.testing.assert_allclose(np.array(rows), paper, atol=1e-12)


def test_diffdrive_dimensions() -> None:
    model = robotsim.load_robot("diffdrive")
    meta = model.metadata["diffdrive"]
    q = model.zero()
    pl = model.fk(q, model.joint(meta["left"]).child)[:3, 3]
    pr = model.fk(q, model.joint(meta["right"]).child)[:3, 3]
    assert pl[1] - pr[1] == pytest.approx(meta["wheel_separation"])
    assert pl[2] == pytest.approx(meta["wheel_radius"]) == pytest.approx(pr[2])
    centre = model.fk(q, "base_center")[:3, 3]
    np.testing.assert_allclose(centre, (pl + pr) / 2, atol=1e-12)
    # positive wheel speed drives forward on both sides
    for side in ("left", "right"):
        j = model.joint(meta[side])
        axis = model.fk(q, j.child)[:3, :3] @ j.axis
        assert np.cross(axis, [0, 0, 1.0])[0] == pytest.approx(1.0)
    caster = model.fk(q, meta["caster_link"])[2, 3]
    radius = model.link(meta["caster_link"]).visuals[0].geometry.radius
    assert caster - radius == pytest.approx(0.0, abs=1e-12)  # the caster touches the floor


# ------------------------------------------------------------------------ MuJoCo
def set_qpos(mjm, data, model: RobotModel, q: np.ndarray, prefix: str = "") -> None:
    """MuJoCo qpos from our ``q``, joint by joint by name (mimics at their coupled value)."""
    import mujoco

    for j in model.joints:
        if not j.movable:
            continue
        if j.mimic is None:
            v = q[model.joint_index(j.name)]
        else:
            v = j.mimic.multiplier * q[model.joint_index(j.mimic.joint)] + j.mimic.offset
        jid = mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_JOINT, prefix + j.name)
        data.qpos[mjm.jnt_qposadr[jid]] = v


@pytest.mark.parametrize("name", NAMES)
def test_mujoco_compiles_and_matches_fk(name: str) -> None:
    import mujoco

    from robotsim.model.mjcf_export import to_mjspec

    model = robotsim.load_robot(name)
    mjm = to_mjspec(model).compile()
    data = mujoco.MjData(mjm)
    rng = np.random.default_rng(RNG_SEED)
    for q in random_q(model, 5, rng):
        data.qpos[:] = 0.0
        if model.floating:
            data.qpos[3] = 1.0  # free joint at the origin, identity quaternion
        set_qpos(mjm, data, model, q)
        mujoco.mj_kinematics(mjm, data)
        Ts = model.fk_all(q)
        for lk, T in zip(model.link_names, Ts):
            b = mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_BODY, lk)
            np.testing.assert_allclose(data.xpos[b], T[:3, 3], atol=1e-9)
            np.testing.assert_allclose(data.xmat[b].reshape(3, 3), T[:3, :3], atol=1e-9)


@pytest.mark.parametrize("name", [n for n in NAMES if n != "puma560"])
def test_no_self_contact_in_named_poses(name: str) -> None:
    import mujoco

    from robotsim.model.mjcf_export import to_mjspec

    model = robotsim.load_robot(name)
    mjm = to_mjspec(model).compile()
    data = mujoco.MjData(mjm)
    for pose in model.poses:
        data.qpos[:] = 0.0
        if model.floating:
            data.qpos[3] = 1.0
        set_qpos(mjm, data, model, model.pose(pose))
        mujoco.mj_forward(mjm, data)
        pairs = [
            (mjm.geom(c.geom1).name, mjm.geom(c.geom2).name) for c in data.contact[: data.ncon]
        ]
        assert not pairs, f"{name} pose {pose}: {pairs}"


def humanoid_on_floor(pose: str, seconds: float) -> tuple[float, float, float]:
    """Stand humanoid17 on a floor with the position servos of its metadata; returns the
    base height at the start and the end and the final cosine of the body's tilt."""
    import mujoco

    from robotsim.model.mjcf_export import to_mjspec

    model = robotsim.load_robot("humanoid17")
    servo = model.metadata["servo"]
    spec = mujoco.MjSpec()
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[2, 2, 0.1])
    spec.attach(to_mjspec(model), prefix="h/", frame=spec.worldbody.add_frame())
    spec.option.timestep = servo["timestep"]
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    for jn in model.joint_names:
        act = spec.add_actuator(name=jn, target="h/" + jn, trntype=mujoco.mjtTrn.mjTRN_JOINT)
        act.set_to_position(kp=servo["kp"], kv=servo["kv"])
        act.forcerange = [-model.joint(jn).limits.effort, model.joint(jn).limits.effort]
        act.forcelimited = 1
    mjm = spec.compile()
    data = mujoco.MjData(mjm)
    q = model.pose(pose)
    set_qpos(mjm, data, model, q, prefix="h/")
    data.qpos[2] = -model.fk(q, "left_sole")[2, 3]  # soles on the floor
    data.qpos[3] = 1.0
    for jn in model.joint_names:
        data.ctrl[mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_ACTUATOR, jn)] = q[
            model.joint_index(jn)
        ]
    z0 = float(data.qpos[2])
    while data.time < seconds:
        mujoco.mj_step(mjm, data)
    x, y = data.qpos[4:6]
    return z0, float(data.qpos[2]), float(1 - 2 * (x * x + y * y))


@pytest.mark.parametrize("pose", ["stand", "crouch"])
def test_humanoid_stands_in_mujoco(pose: str) -> None:
    z0, z1, up = humanoid_on_floor(pose, 2.0)
    assert abs(z1 - z0) < 0.005 and up > 0.995


@pytest.mark.parametrize("name", ["omni3", "diffdrive"])
def test_mobile_base_rests_level_on_its_wheels(name: str) -> None:
    import mujoco

    from robotsim.model.mjcf_export import to_mjspec

    model = robotsim.load_robot(name)
    spec = mujoco.MjSpec()
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[2, 2, 0.1])
    spec.attach(to_mjspec(model), prefix="r/", frame=spec.worldbody.add_frame())
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    mjm = spec.compile()
    data = mujoco.MjData(mjm)
    data.qpos[2], data.qpos[3] = 0.001, 1.0  # root origin 1 mm above the floor
    while data.time < 1.0:
        mujoco.mj_step(mjm, data)
    x, y = data.qpos[4:6]
    assert abs(data.qpos[2]) < 0.001 and 1 - 2 * (x * x + y * y) > 0.9999
    assert np.hypot(data.qpos[0], data.qpos[1]) < 0.001
