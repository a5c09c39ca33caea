r"""The Lyapunov function of APAPC (Algorithm ``alg:apapc``), with the dual variable.

Source.  ``thm:apapc`` cites Salim, Condat, Kovalev, Richtárik (2022), Proposition 1, whose
proof is that of Kovalev, Salim, Richtárik (2020, OPAPC, Theorem 1).  The function below is derived
here from the structure of that proof and the algorithm as printed (``docs/records/sources.md``: why it is
derived, not copied); the derivation is complete and gives its own per-step factor (:func:`mixbounds.checks.pep.factor.rho_derived`).

Notation: ``P`` is the normal operator APAPC applies (``BᵀB``, or ``P(BᵀB)`` after
Chebyshev), ``λ_max`` the upper end of its interval, ``α = μ``, ``η = 1/(4τL)``,
``θ = 1/(ηλ_max)``, ``c = 1/(1 + ηα)``; ``u*`` a solution in the iterates' subspace, ``z* = −∇G(u*)``
(it lies in ``range P``), ``D(a) = G(a) − G(u*) − ⟨∇G(u*), a − u*⟩`` (Bregman distance) and
``D(a, b)`` the same with ``b`` for ``u*``.

.. math::

   V(u, u_f, z) = \frac1η‖u − u^*‖² + \frac{2(1−τ)}{τ} D(u_f)
                 + \frac1θ‖z − z^*‖²_{P^+} − cη‖z − z^*‖² .

Derivation (one step ``k → k+1``; ``Δu = u^{k+1} − u^k``, ``Δz = z^{k+1} − z^k``, ``u_g = u_g^k``):

1. Line ``x:3`` reads ``Δu/η = −(∇G(u_g) + z^{k+1}) + α(u_g − u^{k+1})``; expanding
   ``‖u^{k+1} − u*‖²`` and ``2α⟨u_g − u^{k+1}, u^{k+1} − u*⟩ = α(‖u_g − u*‖² − ‖u^{k+1} − u*‖² − ‖u_g − u^{k+1}‖²)``:
   ``((1+ηα)/η)‖u^{k+1} − u*‖² = ‖u^k − u*‖²/η − ‖Δu‖²/η − 2⟨∇G(u_g) − ∇G(u*) + z^{k+1} − z*, u^{k+1} − u*⟩
   + α‖u_g − u*‖² − α‖u_g − u^{k+1}‖²``.
2. Line ``z``: ``Δz = θP(u^{k+1/2} − u*)`` (``Pu* = Bᵀb``), and ``z − z* ∈ range P``, so
   ``(1/θ)‖z^{k+1} − z*‖²_{P⁺} = (1/θ)‖z^k − z*‖²_{P⁺} + 2⟨u^{k+1/2} − u*, z^{k+1} − z*⟩ − (1/θ)‖Δz‖²_{P⁺}``.
   Lines ``x:2``/``x:3`` give ``u^{k+1/2} − u^{k+1} = cηΔz``, so the two cross terms sum to
   ``2cη⟨Δz, z^{k+1} − z*⟩ = cη(‖z^{k+1} − z*‖² − ‖z^k − z*‖² + ‖Δz‖²)``: this is the ``−cη‖z − z*‖²``
   of ``V``, and ``cη‖Δz‖² − (1/θ)‖Δz‖²_{P⁺} <= (cη − η)‖Δz‖² <= 0`` because ``1/θ = ηλ_max``.
3. Line ``x:1``: ``u^k − u* = (u_g − u*) + ((1−τ)/τ)(u_g − u_f^k)``; line ``x:4``:
   ``Δu = ((2−τ)/(2τ))(u_f^{k+1} − u_g)``.  With ``⟨∇G(a) − ∇G(u*), b − a⟩ = D(b) − D(a) − D(b, a)``:
   ``−2⟨∇G(u_g) − ∇G(u*), u^{k+1} − u*⟩ = (2(1−τ)/τ)D(u_f^k) − ((2−τ)/τ)D(u_f^{k+1}) − D(u_g) − 2D(u*, u_g)
   − (2(1−τ)/τ)D(u_f^k, u_g) + ((2−τ)/τ)D(u_f^{k+1}, u_g)``.
4. Smoothness: ``((2−τ)/τ)D(u_f^{k+1}, u_g) <= (2τL/(2−τ))‖Δu‖² <= ‖Δu‖²/(2η)``.  Strong convexity
   (``α = μ``): ``α‖u_g − u*‖² − D(u_g) − 2D(u*, u_g) <= −D(u*, u_g) <= −‖∇G(u_g) − ∇G(u*)‖²/(2L)``.
5. Summing, with ``(2−τ)/τ = 2(1−τ)/τ + 1``:
   ``V^{k+1} + α‖u^{k+1} − u*‖² + D(u_f^{k+1}) <= V^k − ‖∇G(u_g) − ∇G(u*)‖²/(2L) − ‖Δu‖²/(2η) − α‖u_g − u^{k+1}‖²``.
   By step 1, ``z^{k+1} − z* = −(∇G(u_g) − ∇G(u*)) − Δu/η + α(u_g − u^{k+1})``, so the right-hand
   negative terms are ``<= −δ'‖z^{k+1} − z*‖²`` with ``δ' = min{1/(6L), η/6, 1/(3α)}``, and the
   dual part of ``V^{k+1}`` is ``<= (1/θ)‖z^{k+1} − z*‖²_{P⁺} <= ηχ‖z^{k+1} − z*‖²`` (``χ = λ_max/λ_min+``).
   Hence ``V^{k+1} <= V^k / (1 + δ)`` with
   ``δ = min{ηα, τ/(2(1−τ)), min{2τ/3, 1/6}/χ}`` (the middle term absent when ``τ = 1``).

``V >= 0``: each term is, the dual one because ``(1/θ)P⁺ >= ηI >= cηI`` on ``range P``.

Omitting the dual terms (:data:`WITHOUT_DUAL`) leaves ``u``, ``u_f`` bounded but not ``z``: the
next iterate depends on ``z − z*`` through ``u^{k+1/2}``, so ``max V¹ s.t. V⁰ <= 1`` is
unbounded (the negative control ``control.pep.no_dual``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mixbounds.solvers.apapc import APAPCParameters

#: the full function (``with_dual=True``) and the control without the dual terms
WITH_DUAL, WITHOUT_DUAL = True, False


@dataclass(frozen=True)
class LyapunovWeights:
    """Weights of ``V``: ``a_u ‖u − u*‖² + a_f D(u_f) + (z − z*)ᵀ M_z (z − z*)`` (``M_z`` a slot matrix)."""

    a_u: float
    a_f: float
    M_z: np.ndarray

    @classmethod
    def of(cls, params: APAPCParameters, P_pinv: np.ndarray, with_dual: bool = WITH_DUAL) -> "LyapunovWeights":
        """The weights of the module docstring for ``params`` and the dual metric ``P⁺``."""
        eta, tau, theta, alpha = params.eta, params.tau, params.theta, params.alpha
        a_f = 2.0 * (1.0 - tau) / tau
        if with_dual:
            c = 1.0 / (1.0 + eta * alpha)
            M_z = P_pinv / theta - c * eta * np.eye(P_pinv.shape[0])
        else:
            M_z = np.zeros_like(P_pinv)
        return cls(1.0 / eta, a_f, M_z)


def inner(x, y):
    """``⟨x, y⟩`` of two slot values: numpy rows (a float) or PEPit points (an Expression)."""
    if isinstance(x, np.ndarray):
        return float(np.dot(x, y))
    return x * y


def quad(M: np.ndarray, a, b, tol: float = 0.0):
    """``Σ_ij M_ij ⟨a_i, b_j⟩ = Σ_i ⟨a_i, Σ_j M_ij b_j⟩`` over the slots (entries with ``|M_ij| <= tol`` skipped)."""
    total = 0.0
    for i in range(M.shape[0]):
        c = None
        for j in np.nonzero(np.abs(M[i]) > tol)[0]:
            t = float(M[i, j]) * b[j]
            c = t if c is None else c + t
        if c is not None:
            total = total + inner(a[i], c)
    return total


def lyapunov(w: LyapunovWeights, du, duf, dz, bregman_F, H: np.ndarray):
    """``V`` from the differences ``u − u*``, ``u_f − u*``, ``z − z*`` (slot sequences) and ``Σ_i D_{f_i}``.

    ``D(u_f) = Σ_i D_{f_i}(x_{f,i}) + ½ (u_f − u*)ᵀ H (u_f − u*)`` (``H``: Hessian of ``G − F``).
    Works on numpy rows (a float) and on PEPit points (an Expression).
    """
    n_u = len(du)
    V = w.a_u * quad(np.eye(n_u), du, du)
    if w.a_f != 0.0:
        V = V + w.a_f * (bregman_F + 0.5 * quad(H, duf, duf))
    if np.any(w.M_z):
        V = V + quad(w.M_z, dz, dz)
    return V
