"""Multi-robot clearance: bounding volumes on links, trajectories, distance curves and
collision intervals (seed ``004``). See ``docs/clearance.md``."""

from robotsim.clearance.contact import ContactCurve as ContactCurve
from robotsim.clearance.contact import contact_curves as contact_curves
from robotsim.clearance.instant import InstantDistances as InstantDistances
from robotsim.clearance.instant import instant_distances as instant_distances
from robotsim.clearance.monitor import ClearanceResult as ClearanceResult
from robotsim.clearance.monitor import PairClearance as PairClearance
from robotsim.clearance.monitor import run as run
from robotsim.clearance.scene import PlacedRobot as PlacedRobot
from robotsim.clearance.scene import Scene as Scene
from robotsim.clearance.stream import ClearanceStream as ClearanceStream
from robotsim.clearance.trajectory import CartesianLine as CartesianLine
from robotsim.clearance.trajectory import JointQuintic as JointQuintic
from robotsim.clearance.trajectory import JointTrapezoid as JointTrapezoid
from robotsim.clearance.trajectory import Trajectory as Trajectory
from robotsim.clearance.volumes import LinkVolume as LinkVolume
from robotsim.clearance.volumes import fit_link_volume as fit_link_volume
from robotsim.clearance.volumes import fit_link_volumes as fit_link_volumes
from robotsim.clearance.volumes import model_link_volumes as model_link_volumes
from robotsim.clearance.volumes import paper_puma_end_link as paper_puma_end_link

__all__ = [
    "CartesianLine",
    "ClearanceResult",
    "ClearanceStream",
    "ContactCurve",
    "InstantDistances",
    "JointQuintic",
    "JointTrapezoid",
    "LinkVolume",
    "PairClearance",
    "PlacedRobot",
    "Scene",
    "Trajectory",
    "contact_curves",
    "fit_link_volume",
    "fit_link_volumes",
    "instant_distances",
    "model_link_volumes",
    "paper_puma_end_link",
    "run",
]
