"""Audits and calibrations of the suite itself: oracle counters, guards, references, the engine and the tolerances."""
