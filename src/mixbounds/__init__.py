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

#: the public API of a user's method (:mod:`mixbounds.methods`, :mod:`mixbounds.testing`), imported on first use
_METHODS = ("ProblemView", "MethodOracles", "MethodError", "run_method")
_TESTING = ("measure", "assert_optimal", "Measurement")


def _installed_version() -> str:
    from importlib import metadata  # lazy: with its email parser 0.13 s CPU (load 10) of every start-up

    try:
        return metadata.version("mixed-affine-bounds")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source checkout that was never installed
        return "0+source"


def __getattr__(name):
    # Every ``import mixbounds.<layer>`` runs this file first: importing the method API here would cost each of them
    # the solvers and the check machinery (measured under load: ``import mixbounds.bounds.claims`` 0.39 s, with
    # ``mixbounds.testing`` 1.26 s).
    if name == "__version__":
        globals()["__version__"] = version = _installed_version()
        return version
    if name in _METHODS:
        import mixbounds.methods as methods  # lazy: +0.9 s for every import of the package (measured)

        return getattr(methods, name)
    if name in _TESTING:
        import mixbounds.testing as testing  # lazy: +0.9 s for every import of the package (measured)

        return getattr(testing, name)
    raise AttributeError(f"module 'mixbounds' has no attribute {name!r}")
