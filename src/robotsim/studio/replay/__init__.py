"""A stored run replayed in the studio: :func:`open_run` (``robotsim studio
runs.sqlite#7``, the Open tab's "Run store" field) and its :class:`ReplayDriver`."""

from robotsim.studio.replay.driver import ReplayDriver, open_run, parse_run_target

__all__ = ["ReplayDriver", "open_run", "parse_run_target"]
