"""The suite's own performance-estimation engine: exact forms, the conic program, exact dual certificates.

:mod:`~mixbounds.checks.pep.engine.forms` (exact linear and quadratic forms in the PEP's points),
:mod:`~mixbounds.checks.pep.engine.problem` (leaves, block partition, function classes, symmetric operators),
:mod:`~mixbounds.checks.pep.engine.conic` (the float conic program, solved by Clarabel, with its accuracy),
:mod:`~mixbounds.checks.pep.engine.exact` (rational rounding of the dual and its exact verification),
:mod:`~mixbounds.checks.pep.engine.worst` (the worst case: coordinates, rank, what carries the Lyapunov value).
PEPit is the reference the engine is tested against (``tests/test_pep_engine.py``), not a dependency of it.
"""
