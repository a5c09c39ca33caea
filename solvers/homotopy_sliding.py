"""Restarted Gradient Sliding with a penalty homotopy (Table 4 without the log(1/ε) factor?).

Why (issue 36, item 4)
----------------------
The proof of ``thm:upper_bound_nonsmooth_affine_constraints`` part 2 (``app:affine_constraint_nonsmooth``)
fixes the penalty for the target accuracy, ``r = 2R_dual²/ε`` (``lem:penalization``), so the smooth part
has ``L = r λ_max(KᵀK) = 2M²κ_K/ε`` from the first iteration on, and substitutes it into the restarted
sliding bound ``N_s = O(√(L/μ) log(1/ε))``: the matrix and communication counts of Table 4
(``table:nonsmooth_strconv_optimization_constraints``) carry a ``log(1/ε)`` that the table does not print
(:mod:`mixbounds.checks.tables234.rules`, ``finding.T4.*.log_factor``).  The homotopy below raises the penalty
with the accuracy of the phase instead, so that the cost of the phases is a geometric series dominated by
the last one, ``O(√(L(ε)/μ))`` without the log: the question this module lets the suite measure.

Method (:func:`homotopy_gradient_sliding`)
------------------------------------------
The restarted GS of :func:`mixbounds.solvers.sliding.restarted_gradient_sliding` (same penalised problem
``H_r`` on the Chebyshev-preconditioned reformulation, same GS phase, ``"book"`` rule, Lan's reading), with
phase ``s = 0, 1, …`` run at

* radius ``R_s² = R_0²/2ˢ`` (``D̃_s = R_s²``), as the restarts, from ``R_0 = R/(1 − √(c/2))`` (step (o));
* accuracy ``ε_s = max(ε, c μ_H R_s²)`` and penalty ``r_s = 2R_dual²/ε_s`` (doubled from one phase to the
  next while ``ε_s > ε``, then fixed at the paper's ``2R_dual²/ε``), ``c`` = :data:`SHIFT_C`;
* ``N_s = ⌈√(C_H L_s/μ_H)⌉`` outer iterations, ``L_s = r_s λ_max(KᵀK)``, ``C_H`` = :data:`HOMOTOPY_C`;

``μ_H = μ_f/2`` (``lem:strong_conv_G_penal``, as for the restarts).

Derivation (why the phases chain, and what they cost)
-----------------------------------------------------
(o) The first phase.  ``R`` bounds the distance to ``w*``, phase 0 needs one to the minimiser ``w_0*`` of
``H_{r_0}``: by (ii) below ``‖w⁰ − w_0*‖ <= R + √(ε_0/(2μ_H)) = R + √(c/2) R_0 = R_0``.

(i) One phase.  Lan's bound for the ``"book"`` rule (:mod:`mixbounds.solvers.sliding`) gives
``H_s(ū) − H_s* <= L_s/((N+1)(N+2)) · (27/2 ‖w_s − w_s*‖² + 8R_s²/3) <= (97/6) L_s R_s²/N_s²`` when
``‖w_s − w_s*‖ <= R_s``; with ``N_s² >= 8·(97/6) L_s/μ_H`` this is ``<= μ_H R_s²/8``, so
``‖ū − w_s*‖² <= R_s²/4 = R_{s+1}²/2`` (``w_s*`` = minimiser of ``H_{r_s}``).  The restarts of the paper
need only ``R_s²/2`` (``RESTART_C = 65 ≈ 4·97/6``); the homotopy contracts further to pay for (ii).

(ii) The minimiser moves with the penalty.  With ``v*`` the multiplier of ``lem:boundness_of_penal_prob_dual``
(``‖v*‖ <= R_dual``), ``H_r(w) >= G* − ‖v*‖‖Kw − b'‖ + (r/2)‖Kw − b'‖² >= G* − R_dual²/(2r)`` and
``H_r(w*) = G*``, so ``H_{r_s}(w*) − H_{r_s}* <= R_dual²/(2r_s) = ε_s/4`` and, by ``μ_H``-strong convexity,
``‖w* − w_s*‖² <= ε_s/(2μ_H) <= c R_s²/2 = c R_{s+1}²`` while ``ε_s = c μ_H R_s²``.

(iii) Hence ``‖ū − w_{s+1}*‖ <= ‖ū − w_s*‖ + ‖w_s* − w*‖ + ‖w* − w_{s+1}*‖ <= R_{s+1}(1/√2 + √c + √(c/2))``,
which is ``<= R_{s+1}`` for ``c <= 0.0294``; ``c = 1/36`` gives ``0.992 R_{s+1}``: every phase starts within
its radius.  Once ``ε_s = ε`` the penalty stops moving and the phases are the paper's restarts (with the
stronger contraction).  A stronger contraction allows a larger ``c`` (``N_s² >= 16·(97/6) L_s/μ_H`` with
``c = 1/16`` also chains); by (v) the constants are ``√C_H`` for the K-applications and ``C_H² c`` for the
subgradients, both smaller for the pair chosen here (``√129.3 = 11.4``, ``129.3²/36 = 465``, against 16 and 4183).

(iv) Accuracy.  The first phase with ``c μ_H R_s² <= ε`` runs at ``r = 2R_dual²/ε`` and ends with
``H_r(ū) − H_r* <= μ_H R_s²/8 <= ε/(8c)``; the phases go on at this fixed penalty (the paper's restarts)
until ``μ_H R_s²/8 <= ε``, ``log₂(1/(8c)) ≈ 2.2`` phases more (an additive constant), and then ``ū`` is an
ε-solution of ``H_r``, hence of the problem (``lem:penalization``).  Let ``S`` be the index of that phase.

(v) Cost.  ``L_s ∝ 1/ε_s ∝ 2ˢ`` until the penalty reaches ``L(ε) = 2R_dual²λ_max/ε``, then ``L(ε)`` for the
last ≈ 3 phases, so ``Σ_{s<=S} N_s <= (1/(1 − 2^{−1/2}) + 3) √(C_H L(ε)/μ_H) + S + 1 = O(√(L(ε)/μ)) =
O(M √κ_K/√(μ ε))`` K-applications (one per outer iteration; ``S + 1`` is the rounding of the ceilings,
additive): **no** ``log(1/ε)`` factor, against ``S · √(65 L(ε)/μ_H)`` for the fixed penalty.
Subgradients: ``Σ_{k<=N_s} T_k <= C_H² M²/(4μ_H² R_s²) + N_s`` per phase (``T_k = ⌈M²(k+1)³/(R_s² L_s²)⌉``),
geometric in ``2ˢ``: ``O(M²/(μ ε) + N_K)`` as in the paper.  The strong convexity ``μ_H`` of every
``H_{r_s}`` needs the lemma's hypothesis (penalty large enough in the Y directions) at the smallest penalty
``r_0``; ``tests/test_homotopy_sliding.py`` checks the modulus of ``H_{r_0}`` on the Table 4 families.

The derivation is this suite's (a standard continuation argument), not the paper's.  Whether the measured
counts follow it is what :mod:`mixbounds.checks.statements.homotopy` reports (``finding.T4.homotopy``,
``finding.S.sliding.strong.homotopy``, full tier): measured, the homotopy needs a constant fraction (0.16–0.75) of
the fixed penalty's K-applications, but its ε-slope does not come down to 1 on the grids reachable (its geometric
series over phases starts late); docs/records/statements.md has the numbers.

Stopping and records: as :func:`mixbounds.solvers.sliding.restarted_gradient_sliding` (the first outer
iterate that is an ``(ε, δ)``-solution of the original problem ends the run; ``history_error`` =
``max(gap/ε, dist/δ)``), so the two methods' counts are comparable row for row; ``params["phases"]`` lists
``(ε_s, r_s, R_s², N_s, outer iterations done, last row)`` per phase.
"""

from __future__ import annotations

import math

from mixbounds.solvers.oracles import CountedOracles
from mixbounds.solvers.result import SolveResult
from mixbounds.solvers.sliding import (
    MAX_INNER,
    SlidingRecorder,
    run_phases,
    sliding_result,
    sliding_setup,
    strong_convexity,
)

#: ``C_H`` of ``N_s = ⌈√(C_H L_s/μ_H)⌉``: ``8 · 97/6`` contracts a phase to ``‖ū − w_s*‖² <= R_s²/4`` (step (i))
HOMOTOPY_C = 8.0 * 97.0 / 6.0
#: ``c`` of ``ε_s = max(ε, c μ_H R_s²)``: ``1/√2 + √c + √(c/2) <= 1`` needs ``c <= 0.0294`` (step (iii))
SHIFT_C = 1.0 / 36.0


def homotopy_plan(eps: float, R: float, mu_H: float):
    """The phases of the module docstring as a plan for :func:`mixbounds.solvers.sliding.run_phases`: phase ``s``
    re-targets the penalty to ``ε_s = max(ε, c μ_H R_s²)`` and runs ``N_s = ⌈√(C_H L_s/μ_H)⌉`` outer iterations
    with ``D̃_s = R_s² = R_0²/2ˢ``, ``R_0 = R/(1 − √(c/2))``."""
    if not (eps > 0 and R > 0 and mu_H > 0):
        raise ValueError(f"homotopy_plan: eps, R and mu_H must be positive, got {eps}, {R}, {mu_H}")

    def plan(s: int, pen) -> dict:
        R2 = (float(R) / (1.0 - math.sqrt(SHIFT_C / 2.0))) ** 2 / 2.0 ** s
        eps_s = max(float(eps), SHIFT_C * mu_H * R2)
        pen.set_accuracy(eps_s)
        return {"R2": R2, "eps_s": eps_s, "r": pen.r, "N_phase": int(math.ceil(math.sqrt(HOMOTOPY_C * pen.L / mu_H)))}

    return plan


def homotopy_gradient_sliding(problem, *, eps: float, x_star, R: float, mu: float | None = None,
                              M: float | None = None, method: str = "apapc", spectra: str = "lemma",
                              delta: float | None = None, max_phases: int = 60, max_inner: int = MAX_INNER, x0=None,
                              oracles: CountedOracles | None = None) -> SolveResult:
    """Restarted GS with the penalty doubled and the accuracy halved per phase (module docstring).

    Parameters
    ----------
    problem : :class:`~mixbounds.instances.problem.MixedProblem` with a nonsmooth ``μ_f``-strongly convex objective
        on a box (the Table 4 families ``nonsmooth-<class>``, variant ``strongly-convex``).
    eps : target function gap ε of the original problem (units of F).
    x_star : its solution in the u-layout (the accuracy is measured against it, uncounted).
    R : bound on ``‖w⁰ − w*‖`` in the reformulated variables (the R of
        ``thm:upper_bound_nonsmooth_affine_constraints``).
    mu : strong convexity ``μ_f`` (default: the objective's); ``μ_H = μ_f/2``.
    M : bound on ``‖∂F‖`` (default: the objective's ``M_total``).
    method, spectra : reformulation (``"apapc"`` = Chebyshev-preconditioned, ``"apapc-nocheb"`` = raw ``BᵀB``).
    delta : feasibility tolerance of the stop (default ``ε/M``).
    max_phases, max_inner : budgets (phases; subgradient rounds over the whole run).
    x0 : start in the u-layout (default 0); oracles : counters to use (default: fresh ones).

    Returns
    -------
    SolveResult : ``converged`` only if an ``(ε, δ)``-solution was reached within the budgets
        (``reason="budget"`` otherwise); ``params["phases"]`` as in the module docstring.
    """
    mu_f = strong_convexity(problem, mu, R, "homotopy_gradient_sliding", " (Table 4)")
    orc, pen, acc, w0 = sliding_setup(problem, eps, x_star, M, delta, method, spectra, oracles, x0)
    mu_H = mu_f / 2.0
    rec = SlidingRecorder(orc, acc, pen)
    w, hit, phases = run_phases(pen, rec, w0, homotopy_plan(eps, R, mu_H), max_phases=max_phases,
                                max_inner=max_inner)
    pen.set_accuracy(eps)  # describe() reports the final penalty r = 2R_dual²/ε
    reason = "tolerance" if hit else "budget"
    return sliding_result(rec, pen, w, hit, reason, f"homotopy-gradient-sliding[{method}]", eps,
                   {"rule": "book", "mu_f": mu_f, "mu_H": mu_H, "phases": phases, "R": float(R),
                    "homotopy_constant": HOMOTOPY_C, "shift_constant": SHIFT_C})


__all__ = ["HOMOTOPY_C", "SHIFT_C", "homotopy_gradient_sliding", "homotopy_plan"]
