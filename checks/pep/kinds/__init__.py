"""The kinds of PEP certificate beyond the fixed-network ones (:mod:`mixbounds.checks.pep.performance`).

:mod:`~mixbounds.checks.pep.kinds.classlevel` (every ``G`` and every ``P`` with the lemmas' constants),
:mod:`~mixbounds.checks.pep.kinds.blocks` (non-scalar blocks and the mixed classes: several slots per node),
:mod:`~mixbounds.checks.pep.kinds.identical` (the identical-``C̃`` classes' instances),
:mod:`~mixbounds.checks.pep.kinds.modes` (the worst single one-dimensional mode, a lower bound of every PEP),
:mod:`~mixbounds.checks.pep.kinds.boundary` (the controls at the boundary of each certified property),
:mod:`~mixbounds.checks.pep.kinds.points` (the tasks, among them the binding certificates: APAPC without Chebyshev,
K steps from the algorithm's start) and :mod:`~mixbounds.checks.pep.kinds.results` (the results).
"""
