"""The lower-bound engine, its sweeps over the worst-case constructions, and the certificates."""
