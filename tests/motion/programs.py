"""Motion programs written out for the tests (not shipped)."""

from __future__ import annotations

# the humanoid lifts its left foot from the crouch without first moving its weight
# over the right foot: kinematically the CoM leaves the support polygon, so it falls
LIFT_WITHOUT_SHIFT = {
    "name": "lift_left_without_shifting_weight",
    "units": "deg",
    "start": "crouch",
    "keyframes": [
        {
            "name": "lift",
            "speed": 6,
            "hold": 1.0,
            "targets": {"left_hip_pitch": 70, "left_knee": 110, "left_ankle_pitch": -40},
        }
    ],
}
