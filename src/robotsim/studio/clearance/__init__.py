"""The studio side of clearance studies (``kind: clearance``): :mod:`.driver` moves
the robots along their trajectories and colours their volumes by distance, and opens
the file; :mod:`.panel` is the Clearance tab (distance curves with a time cursor),
with :mod:`.plan_section`, the plan around collisions (before/after)."""
