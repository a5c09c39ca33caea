"""Measurement: sweeps, slope fits, verdicts, the lower-bound engine, lemma checks, audits and the run machinery."""
