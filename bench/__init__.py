"""Benchmarks: ``python -m bench`` from the repository root prints medians of repeated runs."""
