"""The studio side of mobile runs (``kind: mobile``): :mod:`.driver` steps the physics
run on the studio clock and opens the scenario (field, obstacles, starts, goals);
:mod:`.panel` is the Mobile tab (map, live plots, click-to-set goals)."""
