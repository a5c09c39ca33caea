"""Lemma checks: every lemma and closed form the proofs rest on, checked numerically.

One lemma per module, each a declarative :class:`~checks.lemmas.base.LemmaCheck` (its result
ids, cases, point function and ``finalize``).  Each check computes *both sides* of a statement
from matrices, on many seeded cases (:mod:`checks.lemmas.cases`: raw Gaussian blocks with mixed
scales, rank deficiency, zero nodes and ``μ̃ = 0``; the random families of :mod:`instances.random`;
small worst-case constructions), and reports

* ``pass``    the printed statement holds on every case (within the named tolerance);
* ``finding`` the printed statement fails somewhere, and a corrected statement,
  derived here and checked on the same cases, holds everywhere (both recorded,
  with the worst numbers, in :class:`checks.result.Finding`);
* ``fail``    neither holds (a bug in the suite, or a false claim we cannot name);
* ``error``   a point could not be computed.

``measured`` is the *worst observed ratio of the two sides* over all cases (oriented so that
``>= 1`` means "holds"), ``points`` keeps the per-case numbers.  Every check ships a negative
control (``….control``, ``control=True``, ``expected="fail"``): the same comparison with a
constant or exponent made wrong; it must come out ``fail``.

Adding a lemma check: a module here defining ``LEMMA = LemmaCheck(...)``, and its name in
``LEMMAS`` below.  Its expected findings (``Result(..., finding=reason)``) reach
:mod:`checks.expected` and the tests from that declaration.
"""

from __future__ import annotations

from ..framework import Check
from .base import (  # noqa: F401  (the tolerances are part of the public surface)
    CHEB_ALG_RTOL,
    CHEB_EIG_TOL,
    EQ_RTOL,
    EXACT_RTOL,
    FAMILY,
    INEQ_RTOL,
    SALIM_HI,
    SALIM_LO,
    LemmaCheck,
    Result,
)
from .chebyshev_interval import LEMMA as _cheb
from .chebyshev_interval import inv_T  # noqa: F401
from .closed_form_graph import LEMMA as _graph
from .closed_form_worst import LEMMA as _worst
from .conv_smooth_c_and_l import LEMMA as _conv
from .conv_smooth_c_and_l import point_conv_smooth  # noqa: F401
from .coupled_spectrum import LEMMA as _coupled
from .coupled_spectrum import point_coupled_spectrum  # noqa: F401
from .identical_mixed_spectrum import LEMMA as _identical
from .identical_mixed_spectrum import point_identical_mixed  # noqa: F401
from .local_spectrum import LEMMA as _local
from .local_spectrum import point_local_spectrum  # noqa: F401
from .mixed_coupled_with_local_spectrum import LEMMA as _mixed_cl
from .mixed_coupled_with_local_spectrum import point_mixed_cl_spectrum  # noqa: F401
from .projected_condition_number import LEMMA as _remark
from .projected_condition_number import point_projected_remark  # noqa: F401
from .regularized_convergence import LEMMA as _reg
from .regularized_convergence import _trust_region_max, point_regularized  # noqa: F401
from .strong_conv_G_penal import LEMMA as _penal
from .strong_conv_G_penal import point_strong_conv_penal  # noqa: F401

#: every lemma check, in report order
LEMMAS: tuple[LemmaCheck, ...] = (_coupled, _local, _mixed_cl, _identical, _conv, _penal, _remark, _reg, _cheb, _graph,
                                  _worst)


def checks() -> list[Check]:
    """The lemma family (``checks.framework.all_checks`` imports this)."""
    return [lem.check() for lem in LEMMAS]


def declared_results() -> list[tuple[LemmaCheck, Result]]:
    """Every declared result with its check: what the tests and :mod:`checks.expected` derive from."""
    return [(lem, r) for lem in LEMMAS for r in lem.results]
