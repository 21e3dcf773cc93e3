"""Degenerate inertias (issue 22, items 2 and 6): files MuJoCo and pinocchio load load
here too, the dynamics keeps the file's values, the physics export makes them
acceptable to MuJoCo (merged across fixed joints, or bounded), one warning line names
the links, and impossible tensors stay errors naming the link and the values."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import mujoco
import numpy as np
import pytest
import yaml

from robotsim.cli import main
from robotsim.errors import ModelError, ModelFileError, ModelWarning, ScenarioError
from robotsim.model import load_robot
from robotsim.model.inertia_bounds import BOUND_MASS, physics_inertials
from robotsim.model.mjcf import load_mjcf
from robotsim.model.mjcf_export import to_mjcf_string

TINY = '<inertial><mass value="1e-9"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>'  # noqa: E501


def _inertial(m: float, ixx: float, iyy: float, izz: float, xyz: str = "0 0 0") -> str:
    return (f'<inertial><origin xyz="{xyz}"/><mass value="{m}"/><inertia ixx="{ixx}" ixy="0" '
            f'ixz="0" iyy="{iyy}" iyz="0" izz="{izz}"/></inertial>')  # fmt: skip


def _joint(name: str, kind: str, parent: str, child: str, xyz: str = "0 0 0",
           axis: str = "0 0 1") -> str:  # fmt: skip
    limit = '<limit lower="-2" upper="2" effort="10" velocity="2"/>' if kind == "revolute" else ""
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}"/><axis xyz="{axis}"/>{limit}</joint>')  # fmt: skip


# An arm as onshape-to-robot writes it: every frame a link of mass 1e-9 and zero inertia
# on a fixed joint (the base's, the elbow's, the tool's).
ONSHAPE = f"""<robot name="onshape_arm">
  <link name="base_link">{_inertial(2.0, 0.02, 0.02, 0.03, "0 0 0.05")}
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision></link>
  <link name="frame_base">{TINY}</link>
  <link name="upper">{_inertial(0.8, 0.004, 0.004, 0.001, "0 0 0.15")}</link>
  <link name="frame_elbow">{TINY}</link>
  <link name="fore">{_inertial(0.5, 0.002, 0.002, 0.0005, "0.1 0 0")}</link>
  <link name="frame_tool">{TINY}</link>
  {_joint("frame_base_fixed", "fixed", "base_link", "frame_base", "0.05 0 0.1")}
  {_joint("shoulder", "revolute", "base_link", "upper", "0 0 0.1", "0 1 0")}
  {_joint("frame_elbow_fixed", "fixed", "upper", "frame_elbow", "0 0 0.3")}
  {_joint("elbow", "revolute", "upper", "fore", "0 0 0.3", "1 0 0")}
  {_joint("frame_tool_fixed", "fixed", "fore", "frame_tool", "0.2 0 0")}
</robot>"""

# Moving links MuJoCo refuses as they are: 'hub' (mass 1e-9, zero tensor) carries three
# point masses fixed below it (their composite is a full body: merged); 'probe' (the
# same, nothing below: bounded); 'rotor' (the Robotics Toolbox's PUMA link 1 kind: mass 0,
# a lumped 0.35 kg m^2 about its own axis only: bounded, the 0.35 kept).
DEGENERATE_MOVING = f"""<robot name="degenerate">
  <link name="base">{_inertial(3.0, 0.03, 0.03, 0.03)}</link>
  <link name="rotor">{_inertial(0.0, 0.0, 0.0, 0.35)}</link>
  <link name="hub">{TINY}</link>
  <link name="p1">{_inertial(0.1, 0, 0, 0)}</link>
  <link name="p2">{_inertial(0.1, 0, 0, 0)}</link>
  <link name="p3">{_inertial(0.1, 0, 0, 0)}</link>
  <link name="probe">{TINY}</link>
  {_joint("j_rotor", "continuous", "base", "rotor", "0 0 0.1", "0 0 1")}
  {_joint("j_hub", "revolute", "rotor", "hub", "0.2 0 0", "0 1 0")}
  {_joint("f1", "fixed", "hub", "p1", "0.1 0 0")}
  {_joint("f2", "fixed", "hub", "p2", "0 0.1 0")}
  {_joint("f3", "fixed", "hub", "p3", "0 0 0.1")}
  {_joint("j_probe", "revolute", "hub", "probe", "0.1 0.1 0.1", "1 0 0")}
</robot>"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _load_warning(path: Path) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = load_robot(str(path))
    return model, [str(w.message) for w in caught if issubclass(w.category, ModelWarning)]


def _mujoco_urdf(path: Path) -> mujoco.MjModel:
    """MuJoCo's own URDF import, bodies not fused (its fusion drops massless tensors)."""
    text = re.sub(r"(<robot[^>]*>)", r'\1<mujoco><compiler fusestatic="false"/></mujoco>',
                  path.read_text(), count=1)  # fmt: skip
    return mujoco.MjModel.from_xml_string(text)


def _mujoco_M(mjm: mujoco.MjModel, model, q: np.ndarray) -> np.ndarray:
    """MuJoCo's mass matrix at ``q`` (our joint order) of a model without mimics."""
    data = mujoco.MjData(mjm)
    for name, v in zip(model.joint_names, q):
        data.qpos[mjm.jnt_qposadr[mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_JOINT, name)]] = v
    mujoco.mj_forward(mjm, data)
    full = np.zeros((mjm.nv, mjm.nv))
    mujoco.mj_fullM(mjm, data, full)
    idx = [mjm.jnt_dofadr[mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_JOINT, n)]
           for n in model.joint_names]  # fmt: skip
    return full[np.ix_(idx, idx)]


def test_onshape_frames_load_with_one_warning_and_match_mujoco(tmp_path: Path) -> None:
    path = _write(tmp_path, "onshape.urdf", ONSHAPE)
    model, notes = _load_warning(path)
    assert len(notes) == 1
    for name in ("frame_base", "frame_elbow", "frame_tool"):
        assert repr(name) in notes[0]
    assert "'upper'" not in notes[0] and "rigidly joined" in notes[0]
    assert model.link("frame_tool").inertial.mass == 1e-9  # kept as the file says
    mjm = _mujoco_urdf(path)  # MuJoCo loads the file too
    rng = np.random.default_rng(1)
    exported = mujoco.MjModel.from_xml_string(to_mjcf_string(model))
    for q in rng.uniform(-1.5, 1.5, (4, model.nq)):
        M = model.mass_matrix(q)
        np.testing.assert_allclose(M, _mujoco_M(mjm, model, q), rtol=0, atol=1e-12)
        np.testing.assert_allclose(M, _mujoco_M(exported, model, q), rtol=0, atol=1e-12)
    # every body's mass in MuJoCo is the model's link mass
    for lk in model.links:
        bid = mujoco.mj_name2id(exported, mujoco.mjtObj.mjOBJ_BODY, lk.name)
        assert exported.body_mass[bid] == lk.inertial.mass


def test_onshape_frames_match_pinocchio(tmp_path: Path) -> None:
    pin = pytest.importorskip("pinocchio", reason="pinocchio (the 'bench' extra, pip "
                              "package 'pin') is not installed")  # fmt: skip
    path = _write(tmp_path, "onshape.urdf", ONSHAPE)
    model, _ = _load_warning(path)
    pm = pin.buildModelFromUrdf(str(path))
    pd = pm.createData()
    idx = [pm.idx_vs[pm.getJointId(n)] for n in model.joint_names]
    q, qd, qdd = np.random.default_rng(2).uniform(-1, 1, (3, model.nq))
    qp = np.zeros(pm.nq)
    vp, ap = np.zeros(pm.nv), np.zeros(pm.nv)
    qp[idx], vp[idx], ap[idx] = q, qd, qdd
    tau = pin.rnea(pm, pd, qp, vp, ap)[idx]
    np.testing.assert_allclose(model.inverse_dynamics(q, qd, qdd), tau, rtol=0, atol=1e-12)


def test_degenerate_moving_links_are_merged_or_bounded_for_mujoco(tmp_path: Path) -> None:
    path = _write(tmp_path, "degenerate.urdf", DEGENERATE_MOVING)
    model, notes = _load_warning(path)
    assert len(notes) == 1
    phys = physics_inertials(model)
    assert phys.merged == ("hub", "p1", "p2", "p3")
    assert phys.bounded == ("rotor", "probe")
    assert "'hub', 'p1', 'p2', 'p3' (merged" in notes[0]
    assert "'rotor', 'probe' (bounded" in notes[0]
    # the rotor keeps its 0.35 about its axis; the two others raised to meet A + B >= C
    rotor = phys.written["rotor"]
    np.testing.assert_allclose(np.diag(rotor.inertia), [0.175, 0.175, 0.35], rtol=1e-15)
    assert rotor.mass == BOUND_MASS and model.link("rotor").inertial.mass == 0.0
    # merged: the hub carries the three points (0.3 kg about their centre)
    hub = phys.written["hub"]
    assert hub.mass == pytest.approx(0.3 + 1e-9, rel=1e-15)
    np.testing.assert_allclose(hub.com, [0.1 / 3] * 3, rtol=1e-7)
    exported = mujoco.MjModel.from_xml_string(to_mjcf_string(model))  # MuJoCo accepts it
    rng = np.random.default_rng(3)
    for q in rng.uniform(-1.5, 1.5, (4, model.nq)):
        M = model.mass_matrix(q)
        Mj = _mujoco_M(exported, model, q)
        # only the bounds differ: 1e-6 kg at most 0.35 m from an axis, 1e-10 kg m^2
        np.testing.assert_allclose(M, Mj, rtol=0, atol=BOUND_MASS * 0.35**2 + 3e-10)


def test_rotor_dynamics_use_the_lumped_tensor_as_given(tmp_path: Path) -> None:
    """A massless link with diag(0, 0, 0.35) about its joint axis: M = 0.35 exactly (the
    toolbox's and pinocchio's reading), and MuJoCo's bounded body gives the same."""
    text = f"""<robot name="r"><link name="base"/>
      <link name="rotor">{_inertial(0.0, 0.0, 0.0, 0.35)}</link>
      {_joint("j", "continuous", "base", "rotor")}</robot>"""
    model, notes = _load_warning(_write(tmp_path, "rotor.urdf", text))
    assert len(notes) == 1 and "'rotor' (bounded" in notes[0]
    assert model.mass_matrix([0.3])[0, 0] == 0.35
    exported = mujoco.MjModel.from_xml_string(to_mjcf_string(model))
    assert _mujoco_M(exported, model, np.array([0.3]))[0, 0] == pytest.approx(0.35, abs=1e-15)


@pytest.mark.parametrize(
    ("mass", "moments", "message"),
    [
        (
            1.0,
            (0.001, 0.001, 0.003),
            r"link 'l1': inertia violates the triangle inequality "
            r"\(principal moments \[0.001, 0.001, 0.003\]",
        ),
        (
            0.0,
            (0.0, -0.1, 0.35),
            r"link 'l1': inertia has a negative principal moment "
            r"\(principal moments \[-0.1, 0, 0.35\]",
        ),
        (1e-9, (0.0, 0.0, -1e-12), "link 'l1': inertia has a negative principal moment"),
    ],
    ids=["triangle", "negative-massless", "negative-tiny"],
)
def test_impossible_inertias_stay_errors(tmp_path: Path, mass, moments, message) -> None:
    text = f"""<robot name="r"><link name="base"/><link name="l1">{_inertial(mass, *moments)}
      </link>{_joint("j", "revolute", "base", "l1")}</robot>"""
    with pytest.raises(ModelFileError, match=message):
        load_robot(str(_write(tmp_path, "bad.urdf", text)))


def test_robotics_toolbox_puma_link1_loads_and_link3_is_refused(tmp_path: Path) -> None:
    """The toolbox's own PUMA 560 parameters (shared/reference/puma560.json) as a robot
    file: link 1 (mass 0, diag(0, 0.35, 0)) loads; link 3 (4.8 kg, 0.066 + 0.0125 <
    0.086) breaks the triangle inequality and is refused, naming link and moments."""
    import json

    from tests.paths import SHARED

    ref = json.loads((SHARED / "reference" / "puma560.json").read_text())["standard_DH"]
    rows = []
    for k, lk in enumerate(ref["links"], start=1):
        inertia = list(lk["I"][:3]) if k != 3 else [0.086, 0.086, 0.0125]  # see below
        row = {k: lk[k] for k in ("d", "a", "alpha", "offset")}
        row["inertial"] = {"mass": lk["m"], "com": lk["r"], "inertia": inertia}
        rows.append(row)
    doc = {"format": "robotsim-robot/1", "name": "puma_rtb", "units": {"angle": "rad"},
           "dh": {"convention": "standard", "joints": rows}}  # fmt: skip
    f = tmp_path / "puma_rtb.yaml"
    f.write_text(yaml.safe_dump(doc))
    model, notes = _load_warning(f)
    assert len(notes) == 1 and "'link1' (bounded" in notes[0]
    np.testing.assert_array_equal(np.diag(model.link("link1").inertial.inertia), [0, 0.35, 0])
    rows[2]["inertial"]["inertia"] = list(ref["links"][2]["I"][:3])
    f.write_text(yaml.safe_dump(doc))
    with pytest.raises(ModelError, match=r"link 'link3': inertia violates the triangle "
                       r"inequality \(principal moments \[0.0125, 0.066, 0.086\]"):  # fmt: skip
        load_robot(str(f))


def test_mjcf_with_a_tiny_welded_body_loads_through_both_readers(tmp_path: Path) -> None:
    xml = """<mujoco><worldbody><body name="a"><joint name="j" axis="0 1 0"/>
      <geom type="box" size="0.1 0.1 0.1"/>
      <body name="frame" pos="0.1 0 0"><inertial pos="0 0 0" mass="1e-9" diaginertia="0 0 0"/>
      </body></body>
      <body name="b" pos="1 0 0"><joint name="k" axis="1 0 0"/><inertial pos="0 0 0" mass="0"
        diaginertia="0 0 0"/><body name="c"><geom size="0.05"/></body></body>
      </worldbody></mujoco>"""
    path = _write(tmp_path, "tiny.xml", xml)
    mjm = mujoco.MjModel.from_xml_path(str(path))
    ours, theirs = load_mjcf(path), load_mjcf(path, reader="mujoco")
    assert ours.metadata["reader"] == "robotsim"
    for model in (ours, theirs):
        for name in ("a", "frame", "b", "c"):
            bid = mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_BODY, name)
            ine = model.link(name).inertial
            assert (0.0 if ine is None else ine.mass) == pytest.approx(mjm.body_mass[bid],
                                                                        rel=1e-12)  # fmt: skip


def test_massless_fixed_base_exports_massless(tmp_path: Path) -> None:
    """A KUKA iiwa's base: mass 0 with a tensor, collision shapes (MuJoCo inferred
    5.69 kg from them); and a base without any inertial: MuJoCo's masses are the
    model's (the base's mass changes nothing: it is static)."""
    for base in (_inertial(0.0, 0.05, 0.06, 0.03, "-0.1 0 0.07"), ""):
        text = f"""<robot name="iiwa_like"><link name="base">{base}
          <collision><geometry><cylinder radius="0.1" length="0.2"/></geometry></collision>
          </link><link name="l1">{_inertial(4.0, 0.1, 0.09, 0.02)}
          <collision><geometry><box size="0.1 0.1 0.3"/></geometry></collision></link>
          {_joint("j1", "revolute", "base", "l1", "0 0 0.15")}</robot>"""
        model = load_robot(str(_write(tmp_path, "iiwa_like.urdf", text)))
        mjm = mujoco.MjModel.from_xml_string(to_mjcf_string(model))
        masses = {mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_BODY, b): mjm.body_mass[b]
                  for b in range(1, mjm.nbody)}  # fmt: skip
        assert masses == {"base": 0.0, "l1": 4.0}


def test_model_without_inertias_warns_once(tmp_path: Path) -> None:
    text = f"""<robot name="bare"><link name="base"/><link name="l1">
      <collision><geometry><box size="0.1 0.1 0.3"/></geometry></collision></link>
      {_joint("j1", "revolute", "base", "l1", "0 0 0.15", "1 0 0")}</robot>"""
    model = load_robot(str(_write(tmp_path, "bare.urdf", text)))
    with pytest.warns(ModelWarning, match="robot 'bare' has no inertias") as caught:
        g = model.gravity_torques([0.4])
        model.mass_matrix([0.4])
    assert len([w for w in caught if issubclass(w.category, ModelWarning)]) == 1
    assert g.tolist() == [0.0]
    full, _ = _load_warning(_write(tmp_path, "onshape.urdf", ONSHAPE))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelWarning)
        full.gravity_torques(np.zeros(full.nq))


def test_cli_prints_one_warning_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "onshape.urdf", ONSHAPE)
    assert main(["inspect", str(path)]) == 0
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("warning: ") and "frame_tool" in lines[0]


def test_scenario_says_the_load_error_not_no_robot_file(tmp_path: Path) -> None:
    from robotsim.mobile.load import load_mobile

    text = f"""<robot name="r"><link name="base"/><link name="l1">{_inertial(1.0, 0.001,
      0.001, 0.003)}</link>{_joint("j", "continuous", "base", "l1")}</robot>"""  # fmt: skip
    bad = _write(tmp_path, "bad.urdf", text)
    for name in (str(bad), "bad.urdf"):
        data = {"kind": "mobile", "name": "s",
                "robots": [{"name": "r", "model": name, "start": [0, 0, 0]}]}  # fmt: skip
        with pytest.raises(ScenarioError) as info:
            load_mobile(data, str(tmp_path / "s.yaml"))
        msg = str(info.value)
        assert "no robot file" not in msg and "link 'l1': inertia violates the triangle" in msg
