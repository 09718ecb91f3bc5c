"""Benchmarks: each module has main(); they print medians, p95 and ratios to a floor measured in the same run."""
