"""Whether the optional ``[pep]`` extra (PEPit, cvxpy, an SDP solver) is installed.

The performance-estimation checks need Clarabel (the suite's PEP engine, :mod:`mixbounds.checks.pep.engine.conic`,
calls it directly), ``pepit`` and ``cvxpy`` (the engine's reference, :mod:`mixbounds.checks.pep.pepit_reference`, which
may also run on SCS) (``pip install -e ".[pep]"``; the ``[test]`` extra includes them).  Without them every PEP
result is ``skipped`` with :func:`missing_reason`, never a pass.  The probe uses
``importlib.util.find_spec`` (no import): importing cvxpy costs about a second, which the
quick tier pays only when a PEP actually runs.
"""

from __future__ import annotations

import importlib.util

#: packages of the extra, by import name (clarabel: the engine's solver; an install with SCS alone has no engine)
REQUIRED = ("PEPit", "cvxpy", "clarabel")
#: SDP solvers in order of preference (cvxpy solver names and their import names)
SOLVERS = (("CLARABEL", "clarabel"), ("SCS", "scs"))


def missing() -> list[str]:
    """Import names of the extra that are not installed."""
    return [m for m in REQUIRED if importlib.util.find_spec(m) is None]


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
