"""``robotsim object``: the description, the warning line and bad input (exit 2)."""

from __future__ import annotations

import json

from robotsim.cli import main


def test_object_json_and_warning(make_urdf, capsys) -> None:  # type: ignore[no-untyped-def]
    p = make_urdf(
        "duck",
        '<box size="0.05 0.04 0.03"/>',
        '<inertial><mass value="0.1"/><inertia ixx="1" iyy="1" izz="1"/></inertial>',
    )
    assert main(["object", str(p), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["mass_kg"] == 0.1 and d["inertia_source"] == "geometry" and len(d["warnings"]) == 1
    assert main(["object", str(p)]) == 0
    out, err = capsys.readouterr()
    assert "0.1 kg (mass: file, inertia: geometry)" in out
    assert err.count("\n") == 1 and err.startswith("warning: ") and "impossible" in err


def test_object_bad_input_exits_2(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["object", "box:0.1"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "error: OBJECT 'box:0.1': a box takes 3 number(s) (size), e.g. box:0.05,0.03,0.08"
    )
    assert main(["object", "sphere:0.02", "--scale", "1,2"]) == 2
    assert "--scale: expected 1 or 3 numbers" in capsys.readouterr().err
