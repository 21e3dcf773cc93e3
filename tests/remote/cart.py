"""A small wheeled cart for the UDP tests (a helper module, not a test module)."""

from __future__ import annotations

from robotsim.model.builder import RobotBuilder, xyz_rpy


def cart():  # type: ignore[no-untyped-def]
    b = RobotBuilder("cart", kind="mobile", floating=True)
    b.link("base").link("wheel_l").link("wheel_r")
    b.joint(
        "wheel_l_joint",
        "continuous",
        "base",
        "wheel_l",
        origin=xyz_rpy((0, 0.2, 0)),
        axis=(0, 1, 0),
    )
    b.joint(
        "wheel_r_joint",
        "continuous",
        "base",
        "wheel_r",
        origin=xyz_rpy((0, -0.2, 0)),
        axis=(0, 1, 0),
    )
    return b.build()
