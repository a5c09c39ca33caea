"""The kinds of PEP certificate beyond the fixed-network ones (:mod:`mixbounds.checks.pep.performance`).

:mod:`~mixbounds.checks.pep.kinds.classlevel` (every ``G`` and every ``P`` with the lemmas' constants),
:mod:`~mixbounds.checks.pep.kinds.blocks` (non-scalar blocks and the mixed classes: several slots per node),
:mod:`~mixbounds.checks.pep.kinds.binding` (APAPC without Chebyshev, and K steps from the algorithm's start),
:mod:`~mixbounds.checks.pep.kinds.boundary` (the controls at the boundary of each certified property).
"""
