"""A humanoid walking in the studio (``kind: walk``): driver and panel."""
