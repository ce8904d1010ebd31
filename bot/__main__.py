"""`python -m bot` is `gpu-advisor`."""

from bot.cli import run

run()
