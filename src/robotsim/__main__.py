import sys

from robotsim.cli import main

sys.exit(main())
