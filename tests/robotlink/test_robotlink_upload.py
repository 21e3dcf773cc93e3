"""Program upload/download through the emulated controller over a pty, with damaged,
lost and never-answered frames and a port that disappears mid-upload."""

from __future__ import annotations

from pathlib import Path

import pytest

from robotsim.errors import InputError, LinkError
from robotsim.motion.schema import Keyframe, Motion, Program, load_program
from robotsim.robotlink import ControllerLink, FaultPlan, SerialTransport
from robotsim.robotlink.controller import encode_program
from robotsim.shipped import shipped_dir
from tests.robotlink.ptys import emulated_robot

WALK = shipped_dir("motion") / "walk_forward.yaml"


def _small(name: str = "wave") -> Program:
    kfs = [Keyframe(name=f"k{i}", targets={"head_yaw": 10.0 * i}, speed=5) for i in range(3)]
    return Program(name=name, robot="humanoid17", motions=[Motion(name="m", keyframes=kfs)])


def _link(dev: str, **kw: float) -> ControllerLink:
    """A host link; the generous default timeout keeps retry counts exact on a busy
    machine (only the tests that wait for silence shorten it)."""
    return ControllerLink(
        SerialTransport(dev), timeout=kw.get("timeout", 1.0), retries=int(kw.get("retries", 3))
    )


def test_round_trip_of_the_walk() -> None:
    walk = load_program(WALK)
    with emulated_robot() as (dev, emu), _link(dev) as link:
        assert link.hello()["max_keyframes_per_motion"] == 30
        rep = link.upload(walk)
        assert rep.chunks > 10 and rep.retransmissions == 0
        assert emu.program == encode_program(walk)
        assert link.download() == walk
        assert link.hello()["stored"] == "walk_forward"


def test_damaged_and_lost_frames_are_retried() -> None:
    walk = load_program(WALK)
    # frame 0 = BEGIN, 1.. = DATA chunks; damage requests and replies, lose one request
    faults = FaultPlan(corrupt_rx={2, 9}, corrupt_tx={4, 12}, drop_rx={6})
    with emulated_robot(faults) as (dev, emu), _link(dev) as link:
        rep = link.upload(walk)
        assert rep.retransmissions == 5
        assert emu.program == encode_program(walk)
        assert link.download() == walk


def test_silent_robot_never_reports_success(tmp_path: Path) -> None:
    store = tmp_path / "flash.json"
    with emulated_robot(store=store) as (dev, _), _link(dev) as link:
        link.upload(_small("old"))
    silent = FaultPlan(silent_after=5)
    with emulated_robot(silent, store=store) as (dev, emu), _link(dev, timeout=0.2) as link:
        with pytest.raises(
            LinkError,
            match=r"upload of 'walk_forward' failed: robot did not "
            r"acknowledge DATA chunk 5/\d+ after 4 attempts .*keeps its "
            r"previous program",
        ):
            link.upload(load_program(WALK))
        assert emu.program == encode_program(_small("old"))
    with emulated_robot(store=store) as (dev, _), _link(dev) as link:
        assert link.download() == _small("old")


def test_port_unplugged_mid_upload(tmp_path: Path) -> None:
    store = tmp_path / "flash.json"
    with emulated_robot(store=store) as (dev, _), _link(dev) as link:
        link.upload(_small("old"))
    with emulated_robot(FaultPlan(close_after=8), store=store) as (dev, emu), _link(dev) as link:
        with pytest.raises(LinkError, match=r"upload of 'walk_forward' failed: .*previous program"):
            link.upload(load_program(WALK))
        assert emu.program == encode_program(_small("old"))
    assert store.read_bytes() == encode_program(_small("old"))


def test_robot_refuses_a_program_beyond_its_capacity() -> None:
    big = Program(
        name="big",
        motions=[
            Motion(
                name="m",
                keyframes=[Keyframe(name=f"k{i}", targets={"head_yaw": i}) for i in range(31)],
            )
        ],
    )
    with emulated_robot() as (dev, emu), _link(dev) as link:
        with pytest.raises(
            LinkError, match=r"robot refused COMMIT: INVALID_PROGRAM: .*31 keyframes"
        ):
            link.upload(big)
        assert emu.program is None
        with pytest.raises(LinkError, match="download failed: robot refused GET: NOTHING_STORED"):
            link.download()


def test_unknown_joint_is_refused_by_the_robot() -> None:
    bad = Program(
        name="bad", motions=[Motion(name="m", keyframes=[Keyframe(name="k", targets={"tail": 3})])]
    )
    with emulated_robot() as (dev, _), _link(dev) as link:
        with pytest.raises(LinkError, match=r"INVALID_PROGRAM: .*targets.tail: unknown joint") as e:
            link.upload(bad)
        # an explicit refusal is not a lost reply: the robot kept what it had
        assert str(e.value).endswith("the robot keeps its previous program")


def test_bad_timeout_and_retries_are_refused_before_opening_the_port() -> None:
    with pytest.raises(InputError, match="timeout must be > 0 s"):
        ControllerLink("/dev/nonexistent-robot-port", timeout=0.0)
    with pytest.raises(InputError, match="retries must be >= 0"):
        ControllerLink("/dev/nonexistent-robot-port", retries=-1)


def test_lost_commit_ack_is_resent_not_recommitted() -> None:
    walk = load_program(WALK)
    chunks = -(-len(encode_program(walk)) // 256)
    commit = 1 + chunks  # frame index of COMMIT (BEGIN is 0)
    with emulated_robot(FaultPlan(corrupt_tx={commit})) as (dev, emu), _link(dev) as link:
        rep = link.upload(walk)
        assert rep.retransmissions == 1 and rep.chunks == chunks
        assert emu.frames_in == commit + 2  # the COMMIT arrived twice, answered from cache
        assert emu.program == encode_program(walk)
