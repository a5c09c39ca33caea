"""Whether the optional ``[pep]`` extra (PEPit, cvxpy, an SDP solver) is installed.

The performance-estimation checks need ``pepit``, ``cvxpy`` and Clarabel (preferred) or SCS
(``pip install -e ".[pep]"``; the ``[test]`` extra includes them).  Without them every PEP
result is ``skipped`` with :func:`missing_reason`, never a pass.  The probe uses
``importlib.util.find_spec`` (no import): importing cvxpy costs about a second, which the
quick tier pays only when a PEP actually runs.
"""

from __future__ import annotations

import importlib.util

#: packages of the extra, by import name
REQUIRED = ("PEPit", "cvxpy")
#: SDP solvers in order of preference (cvxpy solver names and their import names)
SOLVERS = (("CLARABEL", "clarabel"), ("SCS", "scs"))


def missing() -> list[str]:
    """Import names of the extra that are not installed (an SDP solver counts as one)."""
    out = [m for m in REQUIRED if importlib.util.find_spec(m) is None]
    if not any(importlib.util.find_spec(mod) is not None for _, mod in SOLVERS):
        out.append("clarabel|scs")
    return out


def available() -> bool:
    return not missing()


def missing_reason() -> str:
    """One line: what is missing and how to install it."""
    gone = missing()
    if not gone:
        return ""
    return (f"the [pep] extra is not installed (missing: {', '.join(gone)}); "
            "install it with pip install -e \".[pep]\"")


def solver_name() -> str:
    """The preferred installed SDP solver (cvxpy name); ``ValueError`` if none is."""
    for name, mod in SOLVERS:
        if importlib.util.find_spec(mod) is not None:
            return name
    raise ValueError(missing_reason() or "no SDP solver installed")
