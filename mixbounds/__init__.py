"""mixed-affine-bounds: numerical checks of the complexity theorems of *Complexity of Decentralized
Optimization with Mixed Affine Constraints* (Yarmoshik, Nguyen, Rogozin, Gasnikov).

Installed, the suite is one namespace: ``mixbounds.bounds`` (condition numbers, the claims
registry), ``mixbounds.instances`` (graphs, worst-case constructions, random families, I/O),
``mixbounds.solvers`` (counted oracles, APAPC, baselines), ``mixbounds.checks`` (sweeps, fits,
the lower-bound engine, lemma checks) and ``mixbounds.plots`` (figures), with the command line
(:mod:`mixbounds.cli.command`), the run orchestration (:mod:`mixbounds.verify`) and the report
(:mod:`mixbounds.report.verify`) on top of them.

The suite is always used through an install: ``pip install .``, or ``pip install -e .`` for a checkout
(setuptools maps the top-level folders ``bounds/``, ``instances/``, ``solvers/``, ``checks/`` and ``plots/``
to ``mixbounds.<folder>``; the checkout's ``mixbounds/`` folder alone is not the whole package).
"""

from __future__ import annotations

try:
    from importlib.metadata import PackageNotFoundError as _NotFound
    from importlib.metadata import version as _version

    __version__ = _version("mixed-affine-bounds")
except _NotFound:  # pragma: no cover - a source checkout that was never installed
    __version__ = "0+source"

#: the public API of a user's method (:mod:`mixbounds.methods`, :mod:`mixbounds.testing`), imported lazily
_LAZY = {"ProblemView": "mixbounds.methods", "MethodOracles": "mixbounds.methods", "MethodError": "mixbounds.methods",
         "run_method": "mixbounds.methods", "measure": "mixbounds.testing", "assert_optimal": "mixbounds.testing",
         "Measurement": "mixbounds.testing"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'mixbounds' has no attribute {name!r}")
