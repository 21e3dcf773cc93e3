"""The robotsim studio: a web 3D workbench (viser) to view, pose and drive robots.

Start it with ``robotsim studio [ROBOT|FILE|SCENARIO]`` or from Python::

    from robotsim.studio import Studio
    studio = Studio(port=8080)
    studio.load_default()
    studio.serve_forever()

``Studio(kinds=..., tabs=..., drivers=...)`` chooses what it shows (see
:class:`robotsim.studio.interface.StudioAPI` for the panel interface).
"""

from robotsim.studio.app import SceneRobot as SceneRobot
from robotsim.studio.app import Studio as Studio
from robotsim.studio.app import default_robots as default_robots
from robotsim.studio.robot_view import RobotView as RobotView

__all__ = ["RobotView", "SceneRobot", "Studio", "default_robots"]
