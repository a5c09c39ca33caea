"""The inner polynomials ``W' = P_W(W)``, ``C' = P_C(CᵀC)`` and ``C̃' = P(C̃ᵀC̃)`` of the reformulations.

Chebyshev preconditioning (``subsec:chebyshev_acc``) replaces the gossip matrix ``W`` by ``W' = P_W(W)`` of degree
``⌈√κ_W⌉`` on ``[λ_min+(W), λ_max(W)]`` (``app:nonind_upper``, ``sec:mixed_upper``), the local constraints ``C`` by
``C' = P_C(CᵀC)`` of degree ``⌈√κ_C⌉`` (``sec:mixed_upper``), and identical shared constraints ``C̃_i = C̃`` by
``C̃' = P(C̃ᵀC̃)`` (the identical case of ``app:upper_bound_coupled_plus_non_ident_local_constraints_prob``,
``thm:LI_upper_bound``), so that ``κ_{W'}``, ``κ_{C'}``, ``κ_{C̃'}`` are ``O(1)``.  ``W'`` is used by every block that
communicates through a scaled copy of ``W`` (coupled, shared); ``C'`` by the coupled + local block; ``C̃'`` by the
identical shared block.

Each polynomial has the range ``σ`` of the singular values of the operator it replaces: ``[1 − 1/T_n, 1 + 1/T_n]``,
the exact range of the polynomial on its interval (``"lemma"``), or its values at the operator's eigenvalues
(``spectra="exact"``).  Without Chebyshev (``apapc-nocheb``) the raw operator stays, with degree 1: ``W`` with
``σ = [λ_min+(W), λ_max(W)]`` (``W`` is positive semidefinite), ``C`` and ``C̃`` with the square roots of the
extreme eigenvalues of ``CᵀC``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from mixbounds.bounds.concepts import Oracle
from mixbounds.solvers.chebyshev import Chebyshev, chebyshev_degree, chebyshev_interval
from mixbounds.solvers.oracles import OracleSurface
from mixbounds.solvers.reformulation.exact import gossip_eigenvalues, normal_eigenvalues


def pair(lo: float, hi: float) -> tuple[float, float]:
    """An interval as two Python floats."""
    return float(lo), float(hi)


@dataclass(frozen=True)
class InnerPolynomial:
    """One inner preconditioner: its degree (1: no polynomial) and the singular-value range ``σ`` it gives.

    ``L`` and ``μ`` bound the spectrum of the operator the polynomial is taken of (``W``, ``CᵀC`` or ``C̃ᵀC̃``);
    ``None`` without Chebyshev.  ``sigma`` is ``sigma_exact`` when that was computed, else ``sigma_lemma``.
    """

    degree: int
    sigma_lemma: tuple[float, float]
    sigma: tuple[float, float]
    L: float | None = None
    mu: float | None = None
    sigma_exact: tuple[float, float] | None = None

    def chebyshev(self, apply_M: Callable, name: str) -> Chebyshev:
        """The polynomial as a :class:`~mixbounds.solvers.chebyshev.Chebyshev` recurrence on ``apply_M``."""
        return Chebyshev(apply_M, self.L, self.mu, self.degree, name=name)

    def as_dict(self) -> dict:
        """The record of a report: degree, ``L``, ``μ`` (with Chebyshev) and the ranges ``σ``."""
        out: dict = {"degree": self.degree}
        if self.L is not None:
            out.update(L=self.L, mu=self.mu)
        out["sigma_lemma"] = list(self.sigma_lemma)
        if self.sigma_exact is not None:
            out["sigma_exact"] = list(self.sigma_exact)
        out["sigma"] = list(self.sigma)
        return out


def polynomial(L: float, mu: float, *, cheb: bool, raw_sigma: tuple[float, float],
               eigenvalues: Callable[[], np.ndarray] | None) -> InnerPolynomial:
    """The inner polynomial of an operator whose spectrum lies in ``[μ, L]``.

    Parameters
    ----------
    L, mu : float
        Bounds on the largest and the smallest positive eigenvalue of the operator (the paper's facts).
    cheb : bool
        Chebyshev-accelerated; ``False`` keeps the raw operator (degree 1, ``σ = raw_sigma``).
    raw_sigma : tuple of float
        The singular-value range of the raw operator.
    eigenvalues : callable, optional
        Returns the operator's positive eigenvalues (``spectra="exact"``); ``None`` keeps the lemma's range.

    Returns
    -------
    InnerPolynomial
    """
    if not cheb:
        return InnerPolynomial(1, pair(*raw_sigma), pair(*raw_sigma))
    degree = chebyshev_degree(L, mu)
    lemma = pair(*chebyshev_interval(L, mu, degree))
    exact = None
    if eigenvalues is not None:
        vals = np.abs(Chebyshev(lambda v: v, L, mu, degree).polynomial(eigenvalues()))
        exact = pair(vals.min(), vals.max())
    return InnerPolynomial(degree, lemma, lemma if exact is None else exact, L=L, mu=mu, sigma_exact=exact)


def inner_polynomials(problem, facts: dict, *, uses_W_prime: bool, uses_C_prime: bool, uses_Ct_prime: bool,
                      cheb: bool, exact: bool) -> dict[str, InnerPolynomial]:
    """The inner polynomials a reformulation uses, by name ``"W"``, ``"C"``, ``"Ct"`` (module docstring).

    Parameters
    ----------
    problem : MixedProblem
        The problem (its matrices give the exact eigenvalues).
    facts : dict
        The spectral facts of :func:`mixbounds.instances.spectra.solver_facts`.
    uses_W_prime, uses_C_prime, uses_Ct_prime : bool
        Which polynomials the blocks read.
    cheb : bool
        Chebyshev-accelerated (``method="apapc"``).
    exact : bool
        Ranges from the operators' eigenvalues (``spectra="exact"``).

    Returns
    -------
    dict of str to InnerPolynomial
    """
    f = facts
    out: dict[str, InnerPolynomial] = {}
    if uses_W_prime:
        out["W"] = polynomial(f["lambda_max_W"], f["lambda_min_W"], cheb=cheb,
                              raw_sigma=(f["lambda_min_W"], f["lambda_max_W"]),
                              eigenvalues=(lambda: gossip_eigenvalues(problem.W)) if exact else None)
    if uses_C_prime:
        out[Oracle.C] = polynomial(f["L_C"], f["mu_C"], cheb=cheb, raw_sigma=(np.sqrt(f["mu_C"]), np.sqrt(f["L_C"])),
                              eigenvalues=(lambda: normal_eigenvalues(problem.C, f["L_C"])) if exact else None)
    if uses_Ct_prime:
        out[Oracle.CT] = polynomial(f["L_Ct"], f["mu_Ct"], cheb=cheb, raw_sigma=(np.sqrt(f["mu_Ct"]), np.sqrt(f["L_Ct"])),
                               eigenvalues=(lambda: normal_eigenvalues(problem.Ct[:1], f["L_Ct"])) if exact else None)
    return out


@dataclass(frozen=True)
class InnerOperators:
    """``W'``, ``C'``, ``C̃'`` bound to one counted oracle object ``orc`` (``p`` for the prime).

    ``Wp`` acts on node arrays ``(n, k)``; ``Cp`` and ``CpT`` (the same symmetric ``C' = P_C(CᵀC)``) on flat ``x``;
    ``Ctp`` on ``(n, d̃)`` (``None`` without Chebyshev: the identical block then uses ``C̃`` itself).  ``chC`` and
    ``chT`` are the recurrences of ``C'`` and ``C̃'`` (for the sparse materialisation); ``c_prime()`` gives
    ``c' = P_C(CᵀC)(CᵀC)⁺Cᵀc`` (``sec:mixed_upper``, without β), ``Ct_rhs()`` the identical block's ``B̃ᵀ(1⊗c̃'; 0)``.
    Every product is counted on ``orc``.
    """

    orc: OracleSurface
    Wp: Callable | None = None
    Cp: Callable | None = None
    CpT: Callable | None = None
    chC: Chebyshev | None = None
    c_prime: Callable | None = None
    Ctp: Callable | None = None
    chT: Chebyshev | None = None
    Ct_rhs: Callable | None = None


def bind(inner: dict[str, InnerPolynomial], orc: OracleSurface, problem, cheb: bool) -> InnerOperators:
    """The inner operators of ``inner`` as recurrences counted on ``orc`` (or the raw operators without Chebyshev).

    Parameters
    ----------
    inner : dict of str to InnerPolynomial
        The polynomials of :func:`inner_polynomials`.
    orc : OracleSurface
        The oracle object every product is counted on (the solve's, the set-up's or a scratch one).
    problem : MixedProblem
        The problem (its right-hand sides ``c``, ``c̃``).
    cheb : bool
        Chebyshev-accelerated.

    Returns
    -------
    InnerOperators
    """
    ops: dict = {"orc": orc}
    if "W" in inner:
        ops["Wp"] = inner["W"].chebyshev(orc.comm, "W").apply_P if cheb else orc.comm
    if Oracle.C in inner:
        if cheb:
            chC = inner[Oracle.C].chebyshev(lambda x: orc.CT(orc.C(x)), "CᵀC")
            ops.update(Cp=chC.apply_P, CpT=chC.apply_P, chC=chC,
                       c_prime=lambda: chC.rhs(orc.CT(problem.c_stacked)))  # c' = P(CᵀC)(CᵀC)⁺Cᵀc
        else:
            ops.update(Cp=orc.C, CpT=orc.CT, c_prime=lambda: problem.c_stacked)
    if Oracle.CT in inner:
        if cheb:
            chT = inner[Oracle.CT].chebyshev(lambda X: orc.CtT(orc.Ct(X)), "C̃ᵀC̃")
            # B̃ᵀ(1⊗c̃'; 0) = 1⊗C̃'c̃',  c̃' = P(C̃ᵀC̃)(C̃ᵀC̃)⁺C̃ᵀc̃ (at every node)
            ops.update(Ctp=chT.apply_P, chT=chT, Ct_rhs=lambda: chT.apply_P(chT.rhs(orc.CtT(problem.ct_stacked))))
        else:
            ops.update(Ctp=None, Ct_rhs=lambda: orc.CtT(problem.ct_stacked))
    return InnerOperators(**ops)
