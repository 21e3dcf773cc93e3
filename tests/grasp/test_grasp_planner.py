"""The planner on the Panda: a plan whose contacts lie on the object and whose poses the
collision checks clear, with the numbers behind it; and the reasons when there is none
(too large, too heavy, a table in the way)."""

from __future__ import annotations

import numpy as np

from robotsim.grasp.planner import Planner
from robotsim.hands.contact import BoxObstacle
from robotsim.objects import load_object
from robotsim.objects.query import signed_distance
from robotsim.spatial import make_T

TABLE = BoxObstacle("table", (0.5, 0.0, 0.15), (0.3, 0.4, 0.3))


def _on_table(obj):  # type: ignore[no-untyped-def]
    return make_T(None, [0.5, 0.02, TABLE.top - obj.bounds[0, 2]])


def test_a_plan_and_its_proof(panda_hand) -> None:  # type: ignore[no-untyped-def]
    obj = load_object("box:0.05,0.03,0.07")
    To = _on_table(obj)
    p = Planner(panda_hand, np.eye(4), (TABLE,)).plan(
        obj, To, panda_hand.home, np.random.default_rng(0)
    )
    assert p.ok, p.reason
    local = (p.contacts - To[:3, 3]) @ To[:3, :3]
    d, _ = signed_distance(obj.piece_set, local)
    np.testing.assert_allclose(d, 0.0, atol=1e-3)
    assert p.margin > 0 and p.held >= 2.0
    planner = Planner(panda_hand, np.eye(4), (TABLE,))
    for q in (p.q_pre, p.q_grasp):
        assert planner.collider.check(q, obj, To).hit is None
    m = panda_hand.model
    lift = m.fk(p.q_lift, panda_hand.tool)[2, 3] - m.fk(p.q_grasp, panda_hand.tool)[2, 3]
    assert lift > 0.1


def test_too_large_is_a_reason(panda_hand) -> None:  # type: ignore[no-untyped-def]
    big = load_object("box:0.15,0.15,0.15")
    p = Planner(panda_hand, np.eye(4), (TABLE,)).plan(big, _on_table(big), panda_hand.home,
                                                      np.random.default_rng(0))  # fmt: skip
    assert not p.ok
    assert p.reason.startswith("too large for panda_hand: its narrowest width 0.15 m exceeds "
                               "the hand's opening 0.08")  # fmt: skip


def test_too_heavy_is_a_reason(panda_hand) -> None:  # type: ignore[no-untyped-def]
    brick = load_object({"type": "box", "size": [0.05, 0.03, 0.07], "mass": 40.0})
    p = Planner(panda_hand, np.eye(4), (TABLE,)).plan(brick, _on_table(brick), panda_hand.home,
                                                      np.random.default_rng(0))  # fmt: skip
    assert not p.ok and "do not hold 1 x the weight (392 N) at 20 N per finger" in p.reason
    best = float(p.reason.rsplit("(the best ", 1)[1].split(" x;")[0])
    last = float(p.reason.rsplit("; ", 1)[1].split(" x at friction 0.8)")[0])
    assert 0 < best < 1 and best < last < 1  # the strongest reachable grasp, measured


def test_grasps_holding_only_at_nearly_physical_friction_come_last(panda_hand) -> None:  # type: ignore[no-untyped-def]
    """At the planner's friction 0.05 no grasp holds a 1 kg brick (2 N of friction at
    20 N per finger against 9.8 N); at ``last_mu`` 0.8 they do: one is the plan, and
    with ``last_mu`` as low as ``mu`` there is none."""
    from robotsim.grasp.planner import PlanOptions

    obj = load_object({"type": "box", "size": [0.05, 0.03, 0.07], "mass": 1.0})
    To = _on_table(obj)
    opts = PlanOptions(mu=0.05, last_mu=0.8, least_hold=1.0)
    p = Planner(panda_hand, np.eye(4), (TABLE,), options=opts).plan(
        obj, To, panda_hand.home, np.random.default_rng(0)
    )
    assert p.ok and p.counts["weaker"] == 2 and p.held >= 1.0
    no = PlanOptions(mu=0.05, last_mu=0.05, least_hold=1.0)
    q = Planner(panda_hand, np.eye(4), (TABLE,), options=no).plan(
        obj, To, panda_hand.home, np.random.default_rng(0)
    )
    assert not q.ok and "no grasp holds" in q.reason


def test_weaker_grasps_are_tried_when_none_holds_twice(panda_hand) -> None:  # type: ignore[no-untyped-def]
    """A grasp holding less than ``min_hold`` but at least ``least_hold`` weights is a
    plan (the strongest such) when no reachable grasp holds ``min_hold``."""
    from robotsim.grasp.planner import PlanOptions

    obj = load_object("box:0.05,0.03,0.07")
    To = _on_table(obj)
    opts = PlanOptions(min_hold=1e6, least_hold=1.0)
    p = Planner(panda_hand, np.eye(4), (TABLE,), options=opts).plan(
        obj, To, panda_hand.home, np.random.default_rng(0)
    )
    assert p.ok and p.counts["weaker"] == 1 and 1.0 <= p.held < 1e6


def test_the_collision_check_says_no(panda_hand) -> None:  # type: ignore[no-untyped-def]
    obj = load_object("box:0.05,0.03,0.07")
    To = _on_table(obj)
    p = Planner(panda_hand, np.eye(4), (TABLE,)).plan(
        obj, To, panda_hand.home, np.random.default_rng(0)
    )
    assert p.ok
    # a second table right where the hand grasps: the same joints now collide
    g = p.contacts.mean(axis=0)
    block = BoxObstacle("block", tuple(g + np.array([0, 0, 0.06])), (0.2, 0.2, 0.04))
    c = Planner(panda_hand, np.eye(4), (TABLE, block)).collider.check(p.q_grasp)
    assert c.hit == "table" and c.clearance < 0


def test_reach_map_poses_are_reachable_and_over_the_table(dual_hands) -> None:  # type: ignore[no-untyped-def]
    from robotsim.grasp.reachmap import ReachMap
    from robotsim.grasp.setup import place_table

    h = dual_hands["L_hand"]
    table = place_table(h, np.eye(4)).table
    rm = ReachMap(h, np.eye(4), table, samples=4000)
    assert len(rm) > 10
    # each stored frame is where forward kinematics of its stored joints puts the hand
    again = h.model.fk(rm.q, h.tool) @ rm.T_point
    np.testing.assert_allclose(again, rm.T, atol=1e-12)
    c = rm.T[:, :3, 3]
    assert np.all(c[:, 2] >= table.top) and np.all(rm.T[:, 2, 2] <= 0.3)
    near = rm.nearest(np.array([*table.center[:2], table.top + 0.05]), 5)
    assert 1 <= len(near) <= 5


def test_reach_maps_are_kept_per_hand_base_and_table(dual_hands, panda_hand) -> None:  # type: ignore[no-untyped-def]
    """One map per (hand, base pose, table): the same inputs give the same map again;
    another table, base pose or hand gives another (NO: not reused); at most
    CACHE_ENTRIES are kept."""
    from robotsim.grasp import reachmap
    from robotsim.grasp.reachmap import ReachMap, cache_info, clear_cache

    clear_cache()
    h = dual_hands["L_hand"]
    a = ReachMap.cached(h, np.eye(4), TABLE, samples=3000)
    assert ReachMap.cached(h, np.eye(4), TABLE, samples=3000) is a
    assert cache_info()["hits"] == 1 and cache_info()["misses"] == 1
    moved = BoxObstacle("table", (0.5, 0.05, 0.15), (0.3, 0.4, 0.3))
    b = ReachMap.cached(h, np.eye(4), moved, samples=3000)
    c = ReachMap.cached(h, make_T(None, [0.0, 0.0, 0.01]), TABLE, samples=3000)
    d = ReachMap.cached(panda_hand, np.eye(4), TABLE, samples=3000)
    assert len({id(x) for x in (a, b, c, d)}) == 4
    # the other hand's map is its own hand's: the frames are its forward kinematics
    np.testing.assert_allclose(panda_hand.model.fk(d.q, panda_hand.tool) @ d.T_point, d.T,
                               atol=1e-12)  # fmt: skip
    for k in range(reachmap.CACHE_ENTRIES + 2):
        ReachMap.cached(h, np.eye(4), BoxObstacle("t", (0.5, 0.01 * k, 0.1), (0.3, 0.4, 0.2)),
                        samples=500)  # fmt: skip
    info = cache_info()
    assert info["entries"] == reachmap.CACHE_ENTRIES and info["bytes"] <= reachmap.CACHE_BYTES
    clear_cache()


def _turn(h, qa, qb) -> float:  # type: ignore[no-untyped-def]
    Ra, Rb = h.model.fk(qa, h.tool)[:3, :3], h.model.fk(qb, h.tool)[:3, :3]
    return float(np.arccos(np.clip((np.trace(Ra.T @ Rb) - 1) / 2, -1.0, 1.0)))


def test_the_lift_does_not_turn_the_hand(dual_hands) -> None:  # type: ignore[no-untyped-def]
    """The 5-joint arm reaches a lift by turning the hand about the closing axis, which
    twists the object out of the grip: the lift the plan takes turns it by at most
    ``max_lift_turn``, and with none allowed the planner says so."""
    from robotsim.grasp.planner import PlanOptions
    from robotsim.grasp.setup import place_table

    h = dual_hands["L_hand"]
    table = place_table(h, np.eye(4)).table
    obj = load_object("box:0.04,0.04,0.05")
    To = make_T(None, [*table.center[:2], table.top + 0.025])
    p = Planner(h, np.eye(4), (table,)).plan(obj, To, h.home, np.random.default_rng(0))
    assert p.ok, p.reason
    assert _turn(h, p.q_grasp, p.q_lift) <= PlanOptions().max_lift_turn + 1e-9
    lift = h.model.fk(p.q_lift, h.tool)[2, 3] - h.model.fk(p.q_grasp, h.tool)[2, 3]
    assert lift >= 0.1
    stiff = Planner(h, np.eye(4), (table,), options=PlanOptions(max_lift_turn=1e-9))
    q = stiff.plan(obj, To, h.home, np.random.default_rng(0))
    assert not q.ok and "lift turns the hand" in q.reason


def test_fingertips_kept_off_the_table(dual_hands) -> None:  # type: ignore[no-untyped-def]
    """A closed three-finger grasp low on a cube: how far the hand must rise for every
    tip's path to keep off the table (tip centres at least a radius above, less the
    fingers' 2 mm brush), measured from the tip paths; 0 once raised that far."""
    from robotsim.grasp.candidates import close_fingers

    h = dual_hands["L_hand"]
    table = BoxObstacle("table", (0.3, 0.3, 0.15), (0.3, 0.3, 0.3))
    obj = load_object("box:0.04,0.04,0.04")
    To = make_T(None, [0.3, 0.3, table.top + 0.02])
    planner = Planner(h, np.eye(4), (table,))
    # the hand from above, closing axis level along x, its contact frame on the cube's
    # centre, then lowered 15 mm: the tips close 5 mm above the table top
    si = len(h.closures) // 2
    T_cf = np.eye(4)
    T_cf[:3, :3] = np.diag([1.0, -1.0, -1.0])
    T = T_cf @ np.linalg.inv(h.contact_frames[si])
    T[2, 3] -= 0.015
    con = close_fingers(h, obj, T[None])
    assert con.complete[0]
    low = planner._tips_low(To, T[None], np.zeros(1, int), con.s)[0]
    assert low > 0.002  # the tips would go through the table: NO
    T2 = T.copy()
    T2[2, 3] += low + 1e-4
    con2 = close_fingers(h, obj, T2[None])
    assert con2.complete[0]
    assert planner._tips_low(To, T2[None], np.zeros(1, int), con2.s)[0] <= 1e-3


def _mug(path):  # type: ignore[no-untyped-def]
    """A mug of convex parts (as a V-HACD file holds them): 16 wall segments 6 mm thick
    around a cavity 68 mm across (80 mm outside: the Panda opens 80 mm), a base and a
    handle of three bars."""
    import trimesh

    parts = []
    for k in range(16):
        a = 2 * np.pi * k / 16
        seg = trimesh.creation.box(extents=(0.006, 2 * 0.037 * np.tan(np.pi / 16) + 0.001, 0.09))
        c, s = np.cos(a), np.sin(a)
        R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        seg.apply_transform(make_T(R, [0.037 * c, 0.037 * s, 0.049]))
        parts.append(seg)
    base = trimesh.creation.cylinder(radius=0.04, height=0.004, sections=16)
    base.apply_translation([0, 0, 0.002])
    parts.append(base)
    for ext, at in (
        ((0.008, 0.03, 0.008), (0, 0.055, 0.08)),
        ((0.008, 0.03, 0.008), (0, 0.055, 0.02)),
        ((0.008, 0.008, 0.068), (0, 0.066, 0.05)),
    ):
        bar = trimesh.creation.box(extents=ext)
        bar.apply_translation(at)
        parts.append(bar)
    trimesh.util.concatenate(parts).export(path)
    return path


def test_a_mug_with_a_cavity_is_grasped_by_its_wall(panda_hand, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Upright, the mug is as wide as the hand opens: the plan puts one finger inside
    the cavity and one outside the wall (a rim grasp, here with the handle's bar)."""
    mug = load_object(str(_mug(tmp_path / "mug.obj")))
    assert mug.collision == "pieces" and len(mug.pieces) == 20
    To = _on_table(mug)
    p = Planner(panda_hand, np.eye(4), (TABLE,)).plan(mug, To, panda_hand.home,
                                                      np.random.default_rng(0))  # fmt: skip
    assert p.ok, p.reason
    local = (p.contacts - To[:3, 3]) @ To[:3, :3]
    r = np.sort(np.linalg.norm(local[:, :2], axis=1))
    assert r[0] < 0.034 + 0.002 and r[1] > 0.04 - 0.002, r  # one finger in the cavity
    d, _ = signed_distance(mug.piece_set, np.array([[0.0, 0.0, 0.06]]))
    assert d[0] > 0.03  # the cavity is empty: its pieces keep the wall apart
