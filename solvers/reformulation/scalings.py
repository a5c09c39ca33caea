"""The scalings ``α``, ``β``, ``γ`` of the constraint blocks and the penalty weight ``r``.

* ``α`` of ``B = (A  αW')`` (``app:coupled_cons``): ``α² = (λ_min+(S_A) + L_A)/σ_min+²(W')``, the ``β`` of
  ``lem:coupled_spectrum`` (the paper calls the scaling of ``W`` β there and α in ``eq:coupled_constraints_reg_form``).
* ``α``, ``β`` of ``B = [[A, αW'], [βC', 0]]`` (``sec:mixed_upper``): ``eq:block_scaling`` with ``μ_W = σ_min+²(W')``,
  ``μ_C = σ_min+²(C')``, ``L_S = λ_max(S_A)`` and ``μ̃ = μ̃_AC`` (``def:projected_condition_number``), in its two cases
  ``μ̃ > 0`` and ``μ̃ = 0``.
* ``γ`` of ``B̃ = (C̃; γW')`` (``app:nonind_upper``): ``lem:coupled_spectrum`` applied to ``C̃ᵀ``,
  ``γ² = (λ_min+(S_C̃ᵀ) + L_C̃)/σ_min+²(W')``; ``γ = 1`` for identical ``C̃_i`` (``lem:local_spectrum``).
* ``r = μ_f/(2 L_A)`` of ``G`` (``eq:coupled_constraints_reg_form``), when ``A`` is present.

With them the squared singular values of the inner polynomials they read: ``μ_W``, ``L_W`` of ``W'``
(``κ_{W'} = σ_max(W')/σ_min+(W')``), ``μ_{C'}``, ``L_{C'}`` and ``μ_{C̃'}``, ``L_{C̃'}``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
from mixbounds.bounds.concepts import BlockKind, Oracle
from mixbounds.solvers.reformulation.inner import InnerPolynomial


@dataclass(frozen=True)
class Scalings:
    """The scalings of one reformulation (``None``: the blocks do not use it); field order is the report's."""

    mu_W: float | None = None
    L_W: float | None = None
    kappa_W_prime: float | None = None
    mu_C_prime: float | None = None
    L_C_prime: float | None = None
    #: which case of ``eq:block_scaling``: ``"mu_tilde>0"`` or ``"mu_tilde=0"``
    case: str | None = None
    alpha: float | None = None
    beta: float | None = None
    r: float | None = None
    gamma: float | None = None
    mu_Ct_prime: float | None = None
    L_Ct_prime: float | None = None

    def as_dict(self) -> dict:
        """The scalings in use by name (the mapping a report and :mod:`mixbounds.solvers.spectral_estimates` read)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


def _squares(p: InnerPolynomial) -> tuple[float, float]:
    """``(σ_min+², σ_max²)`` of an inner polynomial."""
    lo, hi = p.sigma
    return lo ** 2, hi ** 2


def block_scaling(facts: dict, mu_W: float, mu_C_prime: float) -> dict:
    """``α``, ``β`` of ``eq:block_scaling`` (coupled + local constraints) and which case applied."""
    mu_tilde, L_A, L_S = facts["mu_tilde_AC"], facts["L_A"], facts["L_S"]
    if mu_tilde > 0:
        alpha2 = (L_A + mu_tilde / 4) / mu_W
        beta2 = (L_S + mu_tilde / 2) / mu_C_prime
        case = "mu_tilde>0"
    else:
        alpha2 = 2 * L_A / mu_W
        beta2 = (L_S + 2 * L_A) / mu_C_prime
        case = "mu_tilde=0"
    return {"case": case, "alpha": float(np.sqrt(alpha2)), "beta": float(np.sqrt(beta2))}


def scalings(problem, facts: dict, inner: dict[str, InnerPolynomial], x_kind: str | None,
             t_kind: str | None) -> Scalings:
    """The scalings of the blocks ``x_kind`` and ``t_kind`` (module docstring).

    Parameters
    ----------
    problem : MixedProblem
        The problem (its objective's ``μ_f`` gives ``r``).
    facts : dict
        The spectral facts of :func:`mixbounds.instances.spectra.solver_facts`.
    inner : dict of str to InnerPolynomial
        The inner polynomials (their ranges ``σ``).
    x_kind, t_kind : str or None
        The kinds of the x-block and of the X̃-block.

    Returns
    -------
    Scalings
    """
    f, s = facts, {}
    if "W" in inner:
        mu_W, L_W = _squares(inner["W"])  # σ_min+²(W'), σ_max²(W')
        s.update(mu_W=mu_W, L_W=L_W, kappa_W_prime=inner["W"].sigma[1] / inner["W"].sigma[0])
    if x_kind == BlockKind.COUPLED:
        s["alpha"] = float(np.sqrt((f["lambda_min_S_A"] + f["L_A"]) / s["mu_W"]))
    elif x_kind == BlockKind.COUPLED_LOCAL:
        s["mu_C_prime"], s["L_C_prime"] = _squares(inner[Oracle.C])
        s.update(block_scaling(f, s["mu_W"], s["mu_C_prime"]))
    if problem.A is not None:
        s["r"] = problem.objective.mu / (2 * f["L_A"])
    if t_kind == BlockKind.SHARED:
        s["gamma"] = float(np.sqrt((f["lambda_min_S_Ct"] + f["L_Ct"]) / s["mu_W"]))
    elif t_kind == BlockKind.SHARED_IDENTICAL:
        s["gamma"] = 1.0
        s["mu_Ct_prime"], s["L_Ct_prime"] = _squares(inner[Oracle.CT])
    return Scalings(**s)
