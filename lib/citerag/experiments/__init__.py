"""Experiments: eval sets, metrics, ragas, ablations, benchmarks, reports, runs and notebook helpers."""
