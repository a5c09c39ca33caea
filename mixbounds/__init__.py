"""mixed-affine-bounds: numerical checks of the complexity theorems of *Complexity of Decentralized
Optimization with Mixed Affine Constraints* (Yarmoshik, Nguyen, Rogozin, Gasnikov).

Installed, the suite is one namespace: ``mixbounds.bounds`` (condition numbers, the claims
registry), ``mixbounds.instances`` (graphs, worst-case constructions, random families, I/O),
``mixbounds.solvers`` (counted oracles, APAPC, baselines), ``mixbounds.checks`` (sweeps, fits,
the lower-bound engine, lemma checks) and ``mixbounds.plots`` (figures), with the command line
(:mod:`mixbounds.cli.command`), the run orchestration (:mod:`mixbounds.verify`) and the report
(:mod:`mixbounds.report.verify`) on top of them.
"""

from __future__ import annotations

import os as _os

# In a source checkout the subpackages are the top-level folders beside this one (setuptools maps
# them under ``mixbounds`` when it installs); make them importable as ``mixbounds.<name>`` there too.
_here = _os.path.dirname(_os.path.abspath(__file__))
_root = _os.path.dirname(_here)
if not _os.path.isdir(_os.path.join(_here, "bounds")) and _os.path.isfile(_os.path.join(_root, "bounds", "__init__.py")):
    __path__.append(_root)  # noqa: F821  (the package's own __path__)

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
