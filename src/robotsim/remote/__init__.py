"""Remote control over UDP: one JSON object per datagram (see ``docs/protocol.md``).

:class:`RemoteServer` steps a :class:`SimulationTarget` in real time and answers
requests; :class:`Client` is the Python side. ``robotsim serve`` runs a server.
"""

from typing import TYPE_CHECKING

from robotsim.lazy import lazy_exports

if TYPE_CHECKING:
    from robotsim.remote.client import Client as Client
    from robotsim.remote.client import RemoteError as RemoteError
    from robotsim.remote.protocol import MAX_DATAGRAM as MAX_DATAGRAM
    from robotsim.remote.protocol import OPS as OPS
    from robotsim.remote.protocol import PROTOCOL as PROTOCOL
    from robotsim.remote.server import RemoteServer as RemoteServer
    from robotsim.remote.server import ServerLimits as ServerLimits
    from robotsim.remote.target import KinematicTarget as KinematicTarget
    from robotsim.remote.target import RobotInfo as RobotInfo
    from robotsim.remote.target import SimulationTarget as SimulationTarget

_LAZY = {
    "Client": "robotsim.remote.client",
    "RemoteError": "robotsim.remote.client",
    "MAX_DATAGRAM": "robotsim.remote.protocol",
    "OPS": "robotsim.remote.protocol",
    "PROTOCOL": "robotsim.remote.protocol",
    "RemoteServer": "robotsim.remote.server",
    "ServerLimits": "robotsim.remote.server",
    "KinematicTarget": "robotsim.remote.target",
    "RobotInfo": "robotsim.remote.target",
    "SimulationTarget": "robotsim.remote.target",
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "MAX_DATAGRAM",
    "OPS",
    "PROTOCOL",
    "Client",
    "KinematicTarget",
    "RemoteError",
    "RemoteServer",
    "RobotInfo",
    "ServerLimits",
    "SimulationTarget",
]
