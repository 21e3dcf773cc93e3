"""The studio side of the hands (``kind: hand_ball_transfer`` and ``robotsim teleop``):
:mod:`.driver` (teleop and script drivers, the scenario opener) and :mod:`.panel`
(the Teleop tab)."""
