"""Flush-to-zero of the iterates' subnormal entries: the same counts, without the hardware's slow path.

On the chain constructions (Nesterov's chain inside ``A``, ``C``, ``C̃`` or the path graph; ``sec:lower_bounds``)
an iterate is non-zero only up to a front that advances one link per product, and ahead of the front its entries
fall below the smallest normal double ``2.2·10⁻³⁰⁸`` before they reach exact zero: on a 3836-link chain,
40 % of the entries of ``Y`` were subnormal after 5000 products.  Arithmetic on a subnormal operand takes a
microcode assist on Intel cores (~100 cycles instead of ~1): a ``6×6`` by ``6×3836`` product took 245 µs on
such data instead of 12 µs, and the sparse products slowed the same way.

:func:`flush_subnormals` sets those entries to ``+0.0`` in place, what the processors' flush-to-zero mode does,
but only on the arrays the method carries and without changing the process's floating-point environment (LAPACK's
safe-minimum arithmetic elsewhere keeps gradual underflow).  The change to an iterate is below ``2.2·10⁻³⁰⁸`` per
entry; its squared norm, and so every error and every stopping decision, is the same.  Which methods flush, and
where, is said in their docstrings (:class:`mixbounds.solvers.chebyshev.Chebyshev`, ``alg:apapc``'s iterates).
"""

from __future__ import annotations

import numpy as np

#: the smallest positive normal double; entries of smaller magnitude are subnormal (or zero)
TINY = float(np.finfo(np.float64).tiny)


def flush_subnormals(a: np.ndarray) -> None:
    """Set the subnormal entries of a writable float64 array to ``+0.0``, in place (one pass, no arithmetic on them).

    ``−0.0`` becomes ``+0.0`` as well (equal as numbers; one comparison instead of two); infinities and NaN are kept.
    """
    np.copyto(a, 0.0, where=np.abs(a) < TINY)
