"""``kind: grasp`` files: validated with errors naming the field, run by ``robotsim run``
and opened in the studio, whose driver plays the trials."""

from __future__ import annotations

import json
import socket

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.errors import ScenarioError
from robotsim.grasp.scenario import parse


def test_errors_name_the_field() -> None:
    with pytest.raises(ScenarioError, match=r"g\.yaml: object"):
        parse({"kind": "grasp", "robot": "dual_arm_hands"}, "g.yaml")
    with pytest.raises(ScenarioError, match="trials"):
        parse({"kind": "grasp", "robot": "x", "object": {"type": "sphere", "radius": 0.03},
               "trials": 0}, "g.yaml")  # fmt: skip


@pytest.mark.slow
def test_run_and_studio(panda_path, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "g.yaml"
    box = "{type: box, size: [0.05, 0.03, 0.06]}"
    f.write_text(f"kind: grasp\nrobot: {panda_path}\nobject: {box}\ntrials: 1\nseed: 3\n")
    assert main(["run", str(f), "--out", str(tmp_path / "o")]) == 0
    d = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert d["kind"] == "grasp" and d["trials"] == 1 and d["sim_time"] > 2.0
    assert (tmp_path / "o" / "grasps.png").is_file()
    from robotsim.studio import Studio

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    st = Studio(port=port, root=tmp_path)
    try:
        st.open(f)
        d = st.driver
        for _ in range(5):
            st.step()
        assert d.done == 1 and len(d.frames) > 100
        q_seen = st.robot("robot").q.copy()
        for _ in range(120):
            st.step()
        assert not np.allclose(q_seen, st.robot("robot").q)  # the arm moves as played
    finally:
        st.stop()
