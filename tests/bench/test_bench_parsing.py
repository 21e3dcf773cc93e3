"""``robotsim bench parsing --quick``: the 2,000-link URDF and MJCF figures, MuJoCo's
own part of the MJCF one beside it, and the alias bomb refused."""

from __future__ import annotations

import json

from robotsim.cli import main


def test_bench_parsing_reports_ours_beside_mujocos(capsys) -> None:
    assert main(["bench", "parsing", "--quick", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    for key in ("urdf_chain_2000_links", "mjcf_wide_2000_bodies"):
        assert got[f"{key}_s"] > 0 and got[f"{key}_cpu_s"] > 0, key
    assert got["mjcf_wide_2000_bodies_mujoco_s"] > 0  # MuJoCo's part, shown beside ours
    assert got["yaml_alias_bomb_refused_s"] > 0
