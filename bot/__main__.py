"""`python -m bot` is `gpu-advisor`."""

import sys

from bot.cli import main

sys.exit(main())
