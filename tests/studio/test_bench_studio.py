from robotsim.bench import studio as bench_studio
from robotsim.cli import main


def test_bench_studio_reports_updates_for_three_robots(capsys):
    out = bench_studio.run(quick=True)
    assert len(out["robots"]) == 3
    assert out["scene_updates_per_s"] > 0
    assert out["links_per_update"] >= 3


def test_bench_studio_json_is_clean(capsys):
    import json

    assert main(["bench", "studio", "--quick", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)  # nothing but JSON on stdout
    assert set(data) >= {"scene_updates_per_s", "scene_update_ms", "robots"}
