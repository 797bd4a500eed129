"""`python -m bot` runs the paperbot command line."""

import sys

from bot.cli import main

sys.exit(main())
