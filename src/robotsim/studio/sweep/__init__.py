"""Sweeps and motion checks in the studio (openers of ``kind: sweep`` and
``kind: motion_check``)."""
