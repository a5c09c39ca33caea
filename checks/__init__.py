"""Measurement: sweeps, slope fits, the lower-bound engine, lemma checks and the CLI."""
