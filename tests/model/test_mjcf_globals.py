"""The model-wide MJCF sections (``<compiler> <option> <size> <visual> <statistic>``)
against MuJoCo itself: the reader's schema is MuJoCo's, every value it accepts MuJoCo
accepts, what it refuses itself MuJoCo refuses too, and a seeded corpus of mutated
files gets the same accept/reject decision from ``load_mjcf`` as from MuJoCo."""

from __future__ import annotations

import random
import re
from pathlib import Path

import mujoco
import pytest
from tests.mujoco_verdict import mujoco_accepts, robotsim_reader

from robotsim.cli import main
from robotsim.errors import ModelFileError
from robotsim.model.mjcf import load_mjcf
from robotsim.model.mjcf_globals import MUJOCO_VERSION, SCHEMA, Num, installed_mujoco

pytestmark = pytest.mark.filterwarnings("ignore:.*is deprecated")
# The tables in robotsim.model.mjcf_globals are MuJoCo 4.0's; with another MuJoCo the reader
# hands these sections to MuJoCo instead (test_with_another_mujoco_the_sections_go_to_it,
# which runs with any version), so comparing the tables with it would test nothing.
same_mujoco = pytest.mark.skipif(
    installed_mujoco() != MUJOCO_VERSION,
    reason=f"compares robotsim's MuJoCo {MUJOCO_VERSION} schema tables with the installed "
    f"MuJoCo {installed_mujoco()}, which robotsim hands these sections to instead",
)

BODY = '<worldbody><body name="b"><joint name="j"/><geom size=".1"/></body></worldbody>'
RICH = """<mujoco model="globals">
  <compiler angle="radian" autolimits="true" usethread="false" boundmass="0"/>
  <option timestep="0.002" integrator="implicitfast" cone="elliptic" impratio="10"
          gravity="0 0 -9.81" iterations="50" o_solref="0.02 1" actuatorgroupdisable="1 2">
    <flag contact="enable" warmstart="disable"/>
  </option>
  <size njmax="500" nconmax="100" nstack="-1"/>
  <visual>
    <global azimuth="120" elevation="-20" offwidth="1280" realtime="1"/>
    <quality shadowsize="4096"/>
    <headlight ambient=".3 .3 .3" diffuse=".6 .6 .6" specular="0 0 0" active="1"/>
    <map znear="0.01" force="0.1"/>
    <scale framelength="0.2"/>
    <rgba haze=".15 .25 .35 1"/>
  </visual>
  <statistic center="0 0 0.5" extent="1.5" meansize="0.1"/>
""" + BODY + "</mujoco>"  # fmt: skip


def _write(tmp_path: Path, sections: str, name: str = "robot.xml") -> Path:
    path = tmp_path / name
    path.write_text(f"<mujoco>{sections}{BODY}</mujoco>")
    return path


def _wrap(spath: str, attrs: str) -> str:
    parts = spath.split("/")
    inner = f"<{parts[-1]} {attrs}/>"
    for p in reversed(parts[:-1]):
        inner = f"<{p}>{inner}</{p}>"
    return inner


def _schema_from_mujoco() -> dict[str, set[str]]:
    """Element path -> attributes, for the model-wide sections, from mj_printSchema."""
    out: dict[str, set[str]] = {}
    stack: list[str] = []
    cur: set[str] | None = None
    for line in mujoco.mj_printSchema(False, False).splitlines():
        m = re.match(r"^(\s*)(\w+) \((.)\)\s*(.*)$", line)
        if m:
            stack = [*stack[: len(m.group(1)) // 3], m.group(2)]
            cur = None
            if len(stack) >= 2 and stack[1] in ("compiler", "option", "size", "visual",
                                                 "statistic"):  # fmt: skip
                cur = out.setdefault("/".join(stack[1:]), set())
                cur.update(m.group(4).split())
        elif cur is not None:
            cur.update(line.split())
    return out


@same_mujoco
def test_the_schema_is_mujocos() -> None:
    assert {k: set(v) for k, v in SCHEMA.items()} == _schema_from_mujoco()


@same_mujoco
@pytest.mark.parametrize(
    ("attr", "enum"),
    [("integrator", "mjtIntegrator"), ("cone", "mjtCone"), ("jacobian", "mjtJacobian"),
     ("solver", "mjtSolver")],
)  # fmt: skip
def test_keyword_sets_are_complete(attr: str, enum: str) -> None:
    """One keyword per value of MuJoCo's enum: a value outside the set is refused."""
    keywords = SCHEMA["option"][attr]
    assert isinstance(keywords, tuple)
    assert len(keywords) == len(getattr(mujoco, enum).__members__)
    flags = set(SCHEMA["option/flag"])
    assert (
        len(flags)
        == len(mujoco.mjtDisableBit.__members__) - 1 + len(mujoco.mjtEnableBit.__members__) - 1
    )


def _samples(rule: object) -> list[str]:
    if isinstance(rule, tuple):
        return list(rule)
    if isinstance(rule, Num):
        n = rule.count[0]
        v = rule.hi if rule.hi < 1 else (1 if rule.lo < 1 or rule.lo_open else rule.lo)
        return [" ".join([str(int(v)) if rule.integer else f"{float(v):g}"] * n)]
    return []


@same_mujoco
def test_every_value_the_reader_accepts_mujoco_accepts(tmp_path: Path) -> None:
    """Each attribute alone, with each keyword or a number in its range: where the
    reader reads it, MuJoCo compiles it too; where it refuses, MuJoCo refuses."""
    read = 0
    for spath, rules in SCHEMA.items():
        for attr, rule in rules.items():
            for value in _samples(rule):
                path = _write(tmp_path, _wrap(spath, f'{attr}="{value}"'))
                try:
                    model = load_mjcf(path)
                except ModelFileError:
                    assert not mujoco_accepts(path), (spath, attr, value)
                    continue
                assert mujoco_accepts(path), (spath, attr, value)
                read += model.metadata["reader"] == "robotsim"
    assert read > 150


@same_mujoco
def test_a_rich_file_reads_without_mujoco(tmp_path: Path) -> None:
    path = tmp_path / "rich.xml"
    path.write_text(RICH)
    assert load_mjcf(path).metadata["reader"] == "robotsim"
    assert mujoco_accepts(path)


REFUSED = {
    '<option integrator="bogus"/>':
        r"<option integrator='bogus'>: not a valid value; valid: 'Euler', 'RK4', 'implicit'",
    '<option integrator="euler"/>': r"<option integrator='euler'>: not a valid value",
    '<option timestep="0.01" frobnicate="1"/>':
        r"<option frobnicate='1'>: unknown attribute 'frobnicate'; valid: .*timestep",
    '<option><flag contact="on"/></option>':
        r"<option> <flag contact='on'>: not a valid value; valid: 'disable', 'enable'",
    '<option><flag contact="enable"/><flag gravity="disable"/></option>':
        r"<option>: <flag> given twice; allowed once",
    '<visual><globl fovy="45"/></visual>':
        r"<visual>: unknown element <globl>; valid inside it: <global>, <headlight>",
    '<visual foo="1"/>': r"<visual foo='1'>: unknown attribute 'foo'; valid: none",
    '<compiler angle="Radian"/>': r"<compiler angle='Radian'>: not a valid value; valid: "
                                  r"'degree', 'radian'",
    '<compiler convexhull="false"/>': r"<compiler convexhull='false'>: unknown attribute",
    '<size><x/></size>': r"<size>: unknown element <x>; valid inside it: none",
    '<statistic extent="2" centre="0 0 0"/>': r"<statistic centre='0 0 0'>: unknown attribute",
}  # fmt: skip


@same_mujoco
@pytest.mark.parametrize("sections", REFUSED)
def test_what_mujoco_refuses_is_refused_with_a_one_line_error(
    sections: str, tmp_path: Path
) -> None:
    path = _write(tmp_path, sections)
    assert not mujoco_accepts(path)
    with pytest.raises(
        ModelFileError, match=re.escape(str(path)) + ": " + REFUSED[sections]
    ) as err:
        load_mjcf(path)
    assert "\n" not in str(err.value)


# numbers the reader leaves to MuJoCo: its verdict, either way
LEFT_TO_MUJOCO = {
    '<option timestep="abc"/>': False,
    '<option timestep="1_0"/>': False,  # Python reads 10; MuJoCo refuses
    '<option timestep="1e400"/>': False,
    '<option timestep="0x10"/>': True,  # MuJoCo reads hex
    '<option timestep="-1"/>': True,  # MuJoCo 4.0 compiles it (and so do we)
    '<option gravity="0 0"/>': False,
    '<option iterations="1.5"/>': False,
    '<statistic extent="0"/>': False,
    '<visual><map znear="-1"/></visual>': False,
    '<size memory="10M"/>': True,
    '<size memory="1 M"/>': False,
}


@same_mujoco
@pytest.mark.parametrize("sections", LEFT_TO_MUJOCO)
def test_doubtful_numbers_get_mujocos_verdict(sections: str, tmp_path: Path) -> None:
    path = _write(tmp_path, sections)
    assert mujoco_accepts(path) == LEFT_TO_MUJOCO[sections]
    if LEFT_TO_MUJOCO[sections]:
        assert load_mjcf(path).link_names
    else:
        with pytest.raises(ModelFileError, match=r"robot\.xml: MuJoCo cannot load it: .*Error"):
            load_mjcf(path)


@same_mujoco
def test_the_cli_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = _write(tmp_path, '<option integrator="bogus"/>')
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "robot.xml" in err and "integrator='bogus'" in err and "'implicitfast'" in err


# ------------------------------------------------------------------ differential fuzz
TRICKY = ["", "nan", "inf", "-inf", "1e308", "1e400", "1e-400", "0", "-1", "1", "0.5", "a",
          "1 2", "1 2 3", "1 2 3 4", "1 2 3 4 5 6", "0x10", "1,2", "1_0", "+1", ".5", "5.",
          " 2 ", "2147483648", "true", "True", "enable", "Euler", "\u00e9", "31",
          "1e9"]  # fmt: skip


def _mutate(rng: random.Random, text: str) -> str:
    """One change to a model-wide section of RICH: a value, an attribute's name, an
    extra attribute or child, a repeated child, a keyword's case."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(text)
    els = [el for sec in root if sec.tag != "worldbody" for el in sec.iter()]
    el = rng.choice(els)
    op = rng.randrange(6)
    if op <= 2 and el.attrib:
        key = rng.choice(sorted(el.attrib))
        el.set(key, rng.choice(TRICKY) if op < 2 else el.attrib[key].swapcase())
    elif op == 3 and el.attrib:
        key = rng.choice(sorted(el.attrib))
        el.set(key + rng.choice(["s", "_", ""]) if rng.random() < 0.5 else key[:-1],
               el.attrib.pop(key))  # fmt: skip
    elif op == 4:
        other = rng.choice([a for rules in SCHEMA.values() for a in rules])
        el.set(other, rng.choice([*TRICKY, "0 0 1", "1 1 1 1"]))
    elif len(el):
        el.append(rng.choice(list(el)))
    else:
        ET.SubElement(el, rng.choice(["flag", "global", "rgba", "x"]))
    return ET.tostring(root, encoding="unicode")


@same_mujoco
def test_mutated_sections_get_mujocos_decision(tmp_path: Path) -> None:
    """Seeded: for every mutated file, ``load_mjcf`` accepts it exactly when MuJoCo
    does; where it refuses, with a one-line error naming the file."""
    rng = random.Random("globals:23")
    counts = {"robotsim": 0, "mujoco": 0, "refused": 0}
    for i in range(800):
        path = tmp_path / f"m{i}.xml"
        path.write_text(_mutate(rng, RICH))
        theirs = mujoco_accepts(path)
        try:
            reader = robotsim_reader(path)
        except ModelFileError as exc:
            assert not theirs, (i, path.read_text())
            assert str(path) in str(exc) and "\n" not in str(exc)
            counts["refused"] += 1
            continue
        assert theirs, (i, reader, path.read_text())
        counts["robotsim" if reader == "robotsim" else "mujoco"] += 1
    assert counts["robotsim"] > 10 and counts["refused"] > 10 and counts["mujoco"] > 0, counts


def test_with_another_mujoco_the_sections_go_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The schema is MuJoCo 4.0's: with another version installed (its version number
    stands in here), a file with model-wide content beyond the compiler options the
    reader checks itself goes to MuJoCo, whose verdict it then is."""
    from robotsim.model import mjcf_globals

    monkeypatch.setattr(mjcf_globals, "installed_mujoco", lambda: "3.3")
    rich = tmp_path / "rich.xml"
    rich.write_text(RICH)
    reader = load_mjcf(rich).metadata["reader"]
    assert reader.startswith("mujoco: <compiler>: MuJoCo 3.3 installed"), reader
    plain = _write(tmp_path, '<compiler angle="radian" autolimits="true"/>', "plain.xml")
    assert load_mjcf(plain).metadata["reader"] == "robotsim"
    bogus = _write(tmp_path, '<option integrator="bogus"/>', "bogus.xml")
    with pytest.raises(ModelFileError, match=r"bogus\.xml: MuJoCo cannot load it: .*'bogus'"):
        load_mjcf(bogus)
