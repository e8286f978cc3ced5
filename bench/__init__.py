"""Benchmarks of toolmatrix against the tools a user would otherwise pick (issue 5)."""
