"""The studio side of robot profiles: :mod:`.summary` says what the inferred profile of
an opened robot holds (text and 3D markers: sole, tool and fingertip frames, wheel
contacts); :mod:`.panel` is the Profile tab, which lists it, shows the markers on the
robot and drives a wheeled base from a file through the mobile driver."""

from robotsim.studio.profile.panel import ProfilePanel as ProfilePanel
from robotsim.studio.profile.summary import Marker as Marker
from robotsim.studio.profile.summary import drive_scenario as drive_scenario
from robotsim.studio.profile.summary import profile_markdown as profile_markdown
from robotsim.studio.profile.summary import profile_markers as profile_markers

__all__ = ["Marker", "ProfilePanel", "drive_scenario", "profile_markdown", "profile_markers"]
