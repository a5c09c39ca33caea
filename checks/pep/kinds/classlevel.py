"""The class-level PEP of APAPC: every ``G ∈ F(μ, L)`` and every symmetric ``P`` with spectrum in ``{0} ∪ [lo, hi]``.

``thm:apapc`` (Salim et al. 2022, Proposition 1) is a statement about APAPC on ``min G(u) s.t. Bu = b`` knowing
only ``μ, L`` of ``G`` and an interval ``[lo, hi]`` holding the positive spectrum of the operator it applies
(``BᵀB``, or ``P(BᵀB)`` after Chebyshev).  Each class of the paper reaches that statement through its
reformulation: the lemmas give ``μ_G, L_G`` (``lem:conv_smooth_c_and_l``) and the interval (``lem:coupled_spectrum``,
``lem:local_spectrum``, ``lem:mixed_coupled_with_local_spectrum``, the Chebyshev range of ``app:Chebyshev_iteration``).
The PEP here quantifies over *every* pair ``(G, P)`` with those constants, in every dimension — every network,
every constraint matrix and every ``f_i`` of the class for which the lemmas' constants hold — so its value
``ρ_class`` bounds every fixed-network PEP with the same constants (:mod:`mixbounds.checks.pep.registry`
checks ``ρ_network <= ρ_class``).

Formulation (``u* = 0``, ``z* = 0``, ``∇G(0) = 0``, ``G(0) = 0`` without loss of generality, as in
:mod:`mixbounds.checks.pep.model`):

* a two-block partition of the space, ``ker P`` (block 0) and ``range P`` (block 1): ``P = 0 ⊕ P₁`` with ``P₁``
  symmetric, spectrum in ``[lo, hi]`` (every symmetric ``P`` with spectrum in ``{0} ∪ [lo, hi]`` is of this form);
* the dual state is written ``z − z* = P w`` with ``w`` in block 1 (its kernel part never acts: pinned to 0,
  else the solver wanders along a free direction); line ``alg:apapc:line:z`` becomes ``w⁺ = w + θ·(u^{k+1/2})₁``,
  which removes the pseudo-inverse of the dual metric: ``‖z − z*‖²_{P⁺} = ⟨w, Pw⟩``;
* the Lyapunov function of :mod:`mixbounds.checks.pep.lyapunov` with the rule's weights:
  ``V = ‖u‖²/η + (2(1−τ)/τ) G(u_f) + ⟨w, Pw⟩/θ − cη‖Pw‖²``.

``start="any"``: the state ``(u⁰, u_f⁰, w⁰)`` is free (the one-step contraction of ``V``); ``"algorithm"``: the
algorithm's start ``u_f⁰ = u⁰`` (``z⁰ = 0``, i.e. ``z⁰ − z* = −z*`` free in ``range P``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.checks.pep.engine.forms import Form, Vec, dot, sq
from mixbounds.checks.pep.engine.problem import PEP
from mixbounds.solvers.apapc import APAPCParameters

STARTS = ("any", "algorithm")


@dataclass(frozen=True)
class ClassSpec:
    """The constants of one class point: ``G ∈ F(mu, L)``, positive spectrum of ``P`` in ``[lo, hi]``."""

    mu: float
    L: float
    lo: float
    hi: float

    @property
    def kappa(self) -> float:
        return self.L / self.mu

    @property
    def chi(self) -> float:
        return self.hi / self.lo

    def rule(self) -> APAPCParameters:
        return APAPCParameters.rule(self.L, self.mu, self.hi, self.lo)


def _range_part(pep: PEP, v: Vec) -> Vec:
    return Vec({k: c for k, c in v.c.items() if pep.block_of[k] == 1})


class ClassTrajectory:
    """K APAPC steps on the class-level PEP (module docstring); ``V[k]`` the Lyapunov forms, ``dual[k]`` their dual
    parts, ``states[k] = (u, u_f, w, Pw)``."""

    def __init__(self, spec: ClassSpec, K: int = 1, params: APAPCParameters | None = None,
                 step_params: APAPCParameters | None = None, with_dual: bool = True, start: str = "any"):
        if start not in STARTS:
            raise ValueError(f"class PEP: start must be one of {STARTS}, got {start!r}")
        if K < 1:
            raise ValueError(f"class PEP: need K >= 1 steps, got {K}")
        self.spec, self.K = spec, K
        p = params or spec.rule()
        sp = step_params or p
        self.params, self.step_params = p, sp
        pep = PEP(blocks=2)
        self.pep = pep
        G = pep.function(spec.mu, spec.L)
        G.add_point(Vec(), Vec(), Form())
        self.G = G
        P = pep.operator(spec.lo, spec.hi, block=1)
        self.P = P
        self.a_u = 1.0 / p.eta
        self.a_f = 2.0 * (1.0 - p.tau) / p.tau
        c_rule = 1.0 / (1.0 + p.eta * p.alpha)
        self.dual_w = (1.0 / p.theta, c_rule * p.eta) if with_dual else (0.0, 0.0)
        # whitening (a change of variables): each term of V⁰ of order one
        u = pep.point().scale(1.0 / math.sqrt(self.a_u))
        if start == "algorithm" or self.a_f == 0.0:
            u_f = u
        else:
            # the scale is floored: at τ = 1 − 1e-16 (χ = 4κ in floats) a_f ≈ 2e-16 and the unfloored scale left the
            # solver at accuracy 1.4e-2 (a change of variables: the PEP is the same)
            u_f = pep.point().scale(1.0 / math.sqrt(max(self.a_f * 0.5 * math.sqrt(spec.mu * spec.L), 1e-6 * self.a_u)))
        w = pep.leaf(1).scale(1.0 / math.sqrt(max(p.eta * spec.lo * spec.hi, SCALE_FLOOR)))
        Pw = P.apply(w)
        self.states = [(u, u_f, w, Pw)]
        self.V, self.dual = [], []
        self._record(u, u_f, w, Pw)
        for _ in range(K):
            u, u_f, w, Pw = self._step(sp, u, u_f, w, Pw)
            self.states.append((u, u_f, w, Pw))
            self._record(u, u_f, w, Pw)

    def _step(self, sp: APAPCParameters, u, u_f, w, Pw):
        tau, eta, theta, alpha = sp.tau, sp.eta, sp.theta, sp.alpha
        c = 1.0 / (1.0 + eta * alpha)
        u_g = u.scale(tau) + u_f.scale(1.0 - tau) if tau != 1.0 else u
        d = self.G.gradient(u_g) - u_g.scale(alpha)
        base = u.scale(c) - d.scale(c * eta)
        u_half = base - Pw.scale(c * eta)
        h1 = _range_part(self.pep, u_half)
        w_new = w + h1.scale(theta)
        Pw_new = Pw + self.P.apply(h1).scale(theta)
        u_new = base - Pw_new.scale(c * eta)
        mom = 2.0 * tau / (2.0 - tau)
        u_f_new = u_g + (u_new - u).scale(mom)
        return u_new, u_f_new, w_new, Pw_new

    def _record(self, u, u_f, w, Pw) -> None:
        a_th, a_c = self.dual_w
        dual = dot(w, Pw).scale(a_th) - sq(Pw).scale(a_c) if a_th else Form()
        V = sq(u).scale(self.a_u) + dual
        if self.a_f != 0.0:
            V = V + self.G.value(u_f).scale(self.a_f)
        self.V.append(V)
        self.dual.append(dual)


def build(spec: ClassSpec, K: int = 1, excess: float | None = None, **kw) -> ClassTrajectory:
    """The trajectory with the problem set: ``max V^K s.t. V⁰ <= 1``; with ``excess = r``: ``max V'^K − r^K V'⁰
    s.t. V⁰ <= 1``, ``V'`` without the dual terms (:func:`mixbounds.checks.pep.performance.excess_form`)."""
    tr = ClassTrajectory(spec, K, **kw)
    tr.pep.initial = tr.V[0]
    if excess is None:
        tr.pep.objective = tr.V[-1]
    else:
        V = [v - d for v, d in zip(tr.V, tr.dual)]
        tr.pep.objective = V[-1] - V[0].scale(float(excess) ** K)
    return tr
