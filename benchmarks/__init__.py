"""Benchmarks and robustness figures: `python -m benchmarks.run` (see docs/benchmarks.md)."""
