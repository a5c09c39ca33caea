"""Per-step factors of APAPC's Lyapunov function (``thm:apapc``).

* :func:`rho_theorem` — ``(1 + ¼ min{1/√(κχ), 1/χ})^{−1}``, the factor of Salim et al. (2022),
  Proposition 1 (proof: Kovalev et al. 2020, Theorem 1), as recorded in :mod:`mixbounds.solvers.apapc`
  (recalled: ``docs/records/sources.md``).  This is the ``rho_theorem`` of every PEP
  result.
* :func:`rho_derived` — ``1/(1 + δ)`` with the ``δ`` the derivation in
  :mod:`mixbounds.checks.pep.lyapunov` proves for the same Lyapunov function.  It is a second,
  self-contained bound: a PEP value above it means the PEP model (or the derivation) is wrong.

``κ = L_G/μ_G`` and ``χ = λ_max/λ_min`` are those of the parameters the method runs with
(:class:`~mixbounds.solvers.apapc.APAPCParameters`): the reformulation's lemma constants and the
Chebyshev interval of its normal operator.
"""

from __future__ import annotations

import math

from mixbounds.solvers.apapc import APAPCParameters


def rho_theorem(params: APAPCParameters) -> float:
    """``(1 + ¼ min{1/√(κχ), 1/χ})^{−1}`` for the parameters' ``κ`` and ``χ``."""
    kappa, chi = params.kappa, params.chi
    return 1.0 / (1.0 + 0.25 * min(1.0 / math.sqrt(kappa * chi), 1.0 / chi))


def delta_derived(params: APAPCParameters) -> float:
    """``δ = min{ηα, τ/(2(1−τ)), min{2τ/3, 1/6}/χ}`` of :mod:`mixbounds.checks.pep.lyapunov` (step 5)."""
    p = params
    terms = [p.eta * p.alpha, min(2.0 * p.tau / 3.0, 1.0 / 6.0) / p.chi]
    if p.tau < 1.0:
        terms.append(p.tau / (2.0 * (1.0 - p.tau)))
    return min(terms)


def rho_derived(params: APAPCParameters) -> float:
    """``1/(1 + δ)`` with :func:`delta_derived`."""
    return 1.0 / (1.0 + delta_derived(params))


def iterations(rho: float) -> float:
    """``−1/log ρ``: iterations per factor ``e`` of decrease of ``V`` (``inf`` when ``ρ >= 1``)."""
    if not (0.0 < rho < 1.0):
        return math.inf
    return -1.0 / math.log(rho)
