"""Benchmarks: scripts run from the project root (each module says how)."""
