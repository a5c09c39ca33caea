"""Projected subgradient method on the penalised problem (negative control for Tables 3-4).

Same problem as :mod:`mixbounds.solvers.sliding` (``H_r(w) = G(w) + (r/2)‖Kw − b'‖²`` on the
Chebyshev-preconditioned reformulation, ``r = 2R_dual²/ε``, box ``U``), solved by the
plain projected subgradient method with a fixed step::

    w_{k+1} = Π_U(w_k − h (G'(w_k) + r(KᵀK w_k − Kᵀb'))),    h = ε / (4 M²),

one ``grad`` round and one application of ``KᵀK`` per iteration (no sliding: the
constraint operator is applied as often as the subgradient).  With ``L = r λ_max(KᵀK)
= 2M²κ_K/ε`` the step satisfies ``hL = κ_K/2 < 2`` (stable on the smooth part), and the
suffix average ``w̄_k`` (mean of ``w_j``, ``j ∈ [k/2, k]``) has ``H_r(w̄_k) − H_r* =
O(R²/(hk) + hM²)``, so ``O(M²R²/ε²)`` iterations: every oracle count grows like
``(M R/ε)²`` (and like ``M²/(μ_f ε)`` for strongly convex ``F``), against ``M R/ε`` for the
matrix cells of GS — the worse ε-slope the control must show.

Accuracy is measured as in :mod:`mixbounds.solvers.sliding` at checkpoints ``k`` growing by
:data:`CHECK_GROWTH` (every iteration below 50); ``history_error`` has one row per checkpoint.
"""

from __future__ import annotations

import numpy as np
from mixbounds.solvers.oracles import ORACLES, CountedOracles
from mixbounds.solvers.result import SolveResult
from mixbounds.solvers.sliding import SlidingRecorder, sliding_setup

#: relative growth of the iteration count between two accuracy checkpoints
CHECK_GROWTH = 1.01
MAX_ITER = 5_000_000


def projected_subgradient(problem, *, eps: float, x_star, M: float | None = None, method: str = "apapc",
                          spectra: str = "lemma", step: float | None = None, delta: float | None = None,
                          max_iter: int = MAX_ITER, x0=None, oracles: CountedOracles | None = None) -> SolveResult:
    """Fixed-step projected subgradient method on ``H_r`` (module docstring)."""
    orc, pen, acc, w0 = sliding_setup(problem, eps, x_star, M, delta, method, spectra, oracles, x0)
    h = eps / (4.0 * pen.M ** 2) if step is None else float(step)
    rec = SlidingRecorder(orc, acc, pen)
    w, hit, k, cps = run_subgradient(pen, rec, w0, h, max_iter=max_iter)
    hc = np.asarray(rec.counts, dtype=np.int64).reshape(-1, len(ORACLES))
    info = pen.describe()
    info.update(step=h, checkpoints=cps, history_gap=rec.gap, history_dist=rec.dist, delta=acc.delta, F_star=acc.F_star,
                first_hit_row=(len(rec.ratio) - 1) if hit else None, iterations_total=k)
    return SolveResult(x=pen.u_of(w).copy(), iterations=k, counts={kk: int(v) for kk, v in zip(ORACLES, hc[-1])},
                       history_counts=hc, history_error=np.asarray(rec.ratio, dtype=float), converged=bool(hit),
                       reason="tolerance" if hit else "budget", method=f"projected-subgradient[{method}]", eps=float(eps),
                       error_kind="max(gap/eps, dist/delta) of the suffix average at checkpoints (rows), gap = F(u) - F(u*), "
                                  "dist = distance to the feasible set of (P)",
                       params=info)


def run_subgradient(pen, rec: SlidingRecorder, w0: np.ndarray, h: float, *, max_iter: int = MAX_ITER):
    """The iteration of the module docstring on the penalised problem ``pen`` (any object with the interface of
    :class:`mixbounds.solvers.sliding.PenalizedProblem` that it uses: ``subgrad``, ``grad_penalty``, ``project``),
    step ``h``, from ``w0``; the suffix average is recorded by ``rec`` at the checkpoints.  Returns
    ``(last iterate, hit, iterations, checkpoints)``."""
    hit = rec.record(w0, 0)
    w = w0.copy()
    # prefix sums at checkpoints: S[k] = Σ_{j<=k} w_j, for suffix averages
    sums = {0: w0.copy()}
    total = w0.copy()
    cps = [0]
    next_cp = 1
    k = 0
    while not hit and k < max_iter:
        k += 1
        g = pen.subgrad(w)
        g += pen.grad_penalty(w)
        w = pen.project(w - h * g)
        total += w
        if k >= next_cp:
            half = k // 2
            j = max(c for c in cps if c <= half)
            avg = (total - sums[j]) / (k - j) if k > j else w
            hit = rec.record(avg, 1)
            sums[k] = total.copy()
            cps.append(k)
            next_cp = k + 1 if k < 50 else int(np.ceil(k * CHECK_GROWTH))
    return w, hit, k, cps


__all__ = ["projected_subgradient", "run_subgradient"]
