"""`python -m bot.cli` runs the paperbot command line, as `python -m bot` does."""

import sys

from bot.cli import main

sys.exit(main())
