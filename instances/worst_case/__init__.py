"""Worst-case (lower-bound) constructions of the paper, built as printed."""
