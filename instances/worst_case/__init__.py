"""Worst-case (lower-bound) constructions of the paper, built as printed.

``FAMILIES`` maps CLI family names to builders returning :class:`instances.instance.Instance`.
"""

FAMILIES: dict = {}
