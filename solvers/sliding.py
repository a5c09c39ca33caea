"""Gradient Sliding on the penalised reformulation (Algorithm ``alg:sliding``; Tables 3 and 4).

Problem (``subsec:sliding``, ``eq:affine_constraints_penal_prob``)
------------------------------------------------------------------
``min_{w ∈ U} H_r(w) = G(w) + (r/2)‖K w − b'‖²`` where ``w = (x, Y, X̃)`` are the
variables of the paper's reformulation of the problem's class and ``K`` its
**Chebyshev-preconditioned** constraint operator (:class:`mixbounds.solvers.reformulations.Reformulation`:
``KᵀK = P(BᵀB)`` = ``apply_normal``, ``Kᵀb'`` = ``normal_rhs``; ``method="apapc-nocheb"``
gives the raw ``BᵀB``, the negative control).  ``G(w) = F(x, X̃)`` (the nonsmooth objective;
``Y`` enters only the penalty); ``U`` = the objective's box on ``x`` and ``X̃`` (``Y`` free).

* ``r = 2R_dual²/ε`` with ``R_dual = M/σ_min+(K)`` (Lemmas ``lem:boundness_of_penal_prob_dual``
  and ``lem:penalization``); ``σ_min+(K)² = λ_min+(KᵀK)`` is the lower end of the
  reformulation's interval, ``M`` bounds ``‖∂G‖`` (default: the objective's ``M_total`` =
  ``√Σ_i M_i²``, the bound for the stacked ``F``).
* The smooth part ``(r/2)‖Kw − b'‖²`` has ``L = r λ_max(KᵀK)``; one gradient = one
  application of ``KᵀK`` (all its A/C/C̃/W rounds are counted by the oracles).
* The subproblem ``eq:sliding_subproblem`` is solved in closed form:
  ``argmin_{w∈U} ⟨g, w⟩ + (β/2)‖u₃ − w‖² + (βη/2)‖u₁ − w‖² = Π_U((βu₃ + βη u₁ − g)/(β(1+η)))``
  (``Π_U`` = clipping to the box; exact because the quadratic is isotropic).

Reading of Algorithm ``alg:sliding`` implemented here (``reading="lan"``)
-------------------------------------------------------------------------
Lan's deterministic GS (Lan 2016, "Gradient sliding for composite optimization", Math.
Program. 159, Algorithm 1 with the PS procedure; Lan 2020, "First-order and Stochastic
Optimization Methods for Machine Learning", Algorithm 8.1), written for ``Ψ = f + h``
(``f`` smooth = the penalty, ``h`` nonsmooth = ``G``)::

    u̲ᵏ = (1 − γ_k) ūᵏ⁻¹ + γ_k uᵏ⁻¹                          (line 5: same as printed)
    g  = ∇f(u̲ᵏ)
    u₀ = ũ₀ = uᵏ⁻¹                                        (line 6, see below)
    u_t = argmin ⟨g + h'(u_{t−1}), w⟩ + β_k/2‖uᵏ⁻¹ − w‖² + β_k p_t/2‖u_{t−1} − w‖²,   t = 1..T_k
    ũ_t = (1 − θ_t) ũ_{t−1} + θ_t u_t
    uᵏ = u_{T_k},  ũᵏ = ũ_{T_k}
    ūᵏ = (1 − γ_k) ūᵏ⁻¹ + γ_k ũᵏ                            (line 12, see below)

The printed Algorithm 2 differs in two lines, recorded as a finding by
:mod:`mixbounds.checks.tables234.tables34_findings` (``finding.alg_sliding.line12``: line 12 is the one that breaks convergence): line 6 reads
"u^k_0 := ũ^k_0, ũ^k_0 := u^{k−1}" (circular: ``u^k_0`` is set from ``ũ^k_0`` before
``ũ^k_0`` is defined), and line 12 reads "ū^k := γ_k ũ^k + (1 − γ_k) ũ^{k−1}" (averages
two inner outputs instead of updating the running average ``ū``).  ``reading="printed"``
implements the literal text with the sequential interpretation ``u₀ = ũᵏ⁻¹``,
``ũ₀ = uᵏ⁻¹`` and line 12 as printed, so the two can be compared numerically; ``"line6"`` and
``"line12"`` take only that line as printed and the other as Lan writes it.

Parameters (``rule``):

* ``"book"`` (default; needs no horizon): ``γ_k = 3/(k+2)``, ``T_k = ⌈M²(k+1)³/(D̃L²)⌉``,
  ``P_k = 2/((T_k+1)(T_k+2))``, ``β_k = 9L(1 − P_k)/(2(k+1))``, ``p_t = t/2``,
  ``θ_t = 2(t+1)/(t(t+3))`` (Lan 2020 Corollary 8.2 / Lan 2016 Corollary 2);
* ``"horizon"`` (needs the number ``N`` of outer iterations): ``γ_k = 2/(k+1)``,
  ``β_k = 2L/k``, ``T_k = ⌈N M² k²/(D̃ L²)⌉``, same ``p_t, θ_t`` (Lan 2016 Corollary 1).

with ``D̃ = R²``, ``R`` a bound on ``‖w⁰ − w*‖`` supplied by the caller (the checks compute
it from the reference solution with :func:`reformulated_solution`).  Sources: Lan 2016 and Lan 2020 (book), as
implemented publicly (``docs/records/sources.md`` records which implementations the formulas were read from).  The
guarantee used by the restarts (``"book"`` rule, recalled from Lan 2016 Corollary 2):
``Ψ(ū_N) − Ψ* <= L/((N+1)(N+2)) · (27/2 ‖u⁰ − u*‖² + 8D̃/3)``; the tests check its
consequence (halving of the distance per restart phase) numerically.

Strongly convex case (``sec:nonsmooth_strongly_convex_case``, Table 4)
----------------------------------------------------------------------
:func:`restarted_gradient_sliding`: phases ``s = 0, 1, …`` of GS (``"book"`` rule) from
the previous phase's output with ``D̃_s = R_s² = R²/2ˢ`` and ``N_s = ⌈√(65 L/μ_H)⌉`` outer
iterations, which by the bound above gives ``H_r − H_r* <= μ_H R_s²/4`` and hence
``‖w − w*‖² <= R_s²/2`` at the end of the phase.  ``μ_H = μ_f/2`` is the modulus of
Lemma ``lem:strong_conv_G_penal`` (penalised G on ``X × L_m^⊥ × X̃``; the iterates' Y
stays in ``L_m^⊥`` because every update of Y is in the range of W').  The penalty is the
lemma's, fixed for the target ε (``r = 2R_dual²/ε``), as in the proof of
``thm:upper_bound_nonsmooth_affine_constraints`` part 2.

Stopping and records: after every outer iteration the output ``ū`` (u-part) is measured
by :class:`mixbounds.solvers.regularized.Accuracy` (``F(u) − F* <= ε`` and distance to the feasible
set of (P) ``<= δ``, default ``δ = ε/M``: then the projection onto the feasible set is
``2ε``-optimal); the run stops at the first such iterate (``reason="tolerance"``).
``history_error`` = ``max(gap/ε, dist/δ)`` per outer iteration.
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.solvers.chebyshev import Chebyshev
from mixbounds.solvers.oracles import ORACLES, CountedOracles
from mixbounds.solvers.regularized import Accuracy, PlaceholderObjective, reformulate
from mixbounds.solvers.result import SolveResult

RULES = ("book", "horizon")
#: "lan": Lan's GS; "printed": lines 6 and 12 as printed; "line6" / "line12": only that line as printed, the
#: other as Lan writes it (which of the two printed lines breaks convergence)
READINGS = ("lan", "printed", "line6", "line12")
#: restart constant: N_s = ⌈√(RESTART_C · L/μ_H)⌉ (module docstring)
RESTART_C = 65.0
#: default budgets
MAX_OUTER = 100_000
MAX_INNER = 20_000_000


class PenalizedProblem:
    """``H_r`` of the module docstring on the reformulation of ``problem`` (counted in ``oracles``)."""

    def __init__(self, problem, oracles: CountedOracles, *, eps: float, M: float | None = None,
                 method: str = "apapc", spectra: str = "lemma"):
        obj = problem.objective
        if not (eps > 0):
            raise ValueError(f"PenalizedProblem: eps must be positive, got {eps}")
        M = getattr(obj, "M_total", None) if M is None else M
        if M is None:
            M = obj.M * math.sqrt(problem.n) if obj.M is not None else None
        if M is None or not (M > 0):
            raise ValueError("PenalizedProblem: need a bound M on the subgradients of F (objective.M_total or M=)")
        self.problem, self.orc = problem, oracles
        self.ref = reformulate(problem, oracles, PlaceholderObjective(problem.layout), method=method, spectra=spectra,
                               allow_grad=False)
        ref = self.ref
        lo, hi = ref.interval
        self.M = float(M)
        self.sigma_min = math.sqrt(lo)
        self.lam_max = float(hi)
        self.R_dual = self.M / self.sigma_min
        self.set_accuracy(eps)
        lay = problem.layout
        self.u_idx = np.concatenate([np.arange(ref.sx.start, ref.sx.stop), np.arange(ref.st.start, ref.st.stop)]).astype(np.int64)
        self.size = ref.size
        self.w_is_u = self.u_idx.size == ref.size
        box = getattr(obj, "box", None)
        if box is not None:
            lo_w = np.full(ref.size, -np.inf)
            hi_w = np.full(ref.size, np.inf)
            lo_w[self.u_idx], hi_w[self.u_idx] = box[0], box[1]
            self.box = (lo_w, hi_w)
        else:
            self.box = None
        self._rhs = ref.normal_rhs
        self.layout = lay

    def set_accuracy(self, eps: float) -> None:
        """Penalty for the accuracy ``eps``: ``r = 2R_dual²/ε`` (``lem:penalization``) and ``L = r λ_max(KᵀK)``.

        Called once by the constructor; the penalty homotopy (:mod:`mixbounds.solvers.homotopy_sliding`) calls it
        again at every phase with that phase's accuracy.
        """
        if not (eps > 0):
            raise ValueError(f"PenalizedProblem: eps must be positive, got {eps}")
        self.eps = float(eps)
        self.r = 2.0 * self.R_dual ** 2 / self.eps
        self.L = self.r * self.lam_max

    def u_of(self, w: np.ndarray) -> np.ndarray:
        return w if self.w_is_u else w[self.u_idx]

    def subgrad(self, w: np.ndarray) -> np.ndarray:
        """``G'(w)``: one ``grad`` round (a subgradient of F at the u-part; 0 on Y)."""
        g = self.orc.grad(self.u_of(w))
        if self.w_is_u:
            return g
        out = np.zeros(self.size)
        out[self.u_idx] = g
        return out

    def grad_penalty(self, w: np.ndarray) -> np.ndarray:
        """``r (KᵀK w − Kᵀb')``: one application of the (preconditioned) normal operator."""
        v = self.ref.apply_normal(w)
        v -= self._rhs
        v *= self.r
        return v

    def project(self, w: np.ndarray) -> np.ndarray:
        if self.box is not None:
            np.clip(w, self.box[0], self.box[1], out=w)
        return w

    def describe(self) -> dict:
        d = {"r": self.r, "L_penalty": self.L, "M": self.M, "R_dual": self.R_dual, "sigma_min_K": self.sigma_min,
             "lambda_max_KtK": self.lam_max, "box": None if self.box is None else float(np.max(self.box[1][self.u_idx]))}
        d.update(reformulation=self.ref.describe())
        return d


# ----------------------------------------------------------------------------- reference in w-space
def reformulated_solution(problem, u_star: np.ndarray, method: str = "apapc") -> dict:
    """``w* = (x*, Y*, X̃*)``: ``Y*`` the least-norm solution of ``A x* + αW'Y = b`` (measurement, uncounted).

    Returns ``{"w", "R_w" (‖w*‖ from w⁰ = (0, 0, 0)... as a function of u⁰ = 0), "Y_norm"}``; used to
    give Gradient Sliding the bound ``R`` on ``‖w⁰ − w*‖`` (``D̃ = R²``) and to report it.
    """
    pen = PenalizedProblem(problem, CountedOracles(problem), eps=1.0, M=1.0, method=method)
    ref = pen.ref
    w = np.zeros(ref.size)
    u = np.asarray(u_star, dtype=float)
    w[pen.u_idx] = u
    ynorm = 0.0
    if ref.has_A:
        n, m = ref.n, ref.m
        lay = problem.layout
        E = problem.b_stacked.reshape(n, m) - (problem.bA @ u[: lay.dx]).reshape(n, m)
        ev, V = np.linalg.eigh(problem.W.toarray())
        e = ref.inner["W"]
        if ref.cheb:
            p = Chebyshev(lambda v: v, e.L, e.mu, e.degree).polynomial(ev)
        else:
            p = ev.copy()
        keep = np.abs(p) > 1e-10 * np.abs(p).max()
        Y = V[:, keep] @ ((V[:, keep].T @ E) / p[keep][:, None]) / ref.scal["alpha"]
        w[ref.sy] = Y.ravel()
        ynorm = float(np.linalg.norm(Y))
    return {"w": w, "Y_norm": ynorm, "R_w_from_zero": float(np.linalg.norm(w))}


# ----------------------------------------------------------------------------- the method
def _gs_params(rule: str, k: int, L: float, M: float, D2: float, N: int | None):
    if rule == "book":
        gamma = 3.0 / (k + 2)
        T = int(math.ceil(M * M * (k + 1) ** 3 / (D2 * L * L)))
        T = max(T, 1)
        P = 2.0 / ((T + 1) * (T + 2))
        beta = 9.0 * L * (1.0 - P) / (2.0 * (k + 1))
    else:
        gamma = 2.0 / (k + 1)
        beta = 2.0 * L / k
        T = max(1, int(math.ceil(N * M * M * k * k / (D2 * L * L))))
    return gamma, beta, T


class SlidingRecorder:
    """History rows (counts, ratio, gap, dist) after set-up and after every outer iteration."""

    def __init__(self, orc, acc: Accuracy, pen: PenalizedProblem):
        self.orc, self.acc, self.pen = orc, acc, pen
        self.counts, self.ratio, self.gap, self.dist, self.inner = [], [], [], [], []

    def record(self, wbar: np.ndarray, inner: int) -> bool:
        r, g, d = self.acc.measure(self.pen.u_of(wbar))
        snap = self.orc.snapshot()
        self.counts.append([snap[k] for k in ORACLES])
        self.ratio.append(r)
        self.gap.append(g)
        self.dist.append(d)
        self.inner.append(inner)
        return bool(r <= 1.0)


def _gs_phase(pen: PenalizedProblem, w_init: np.ndarray, D2: float, rec: SlidingRecorder, *, rule: str, reading: str,
              N: int | None, outer_limit: int, inner_budget: list) -> tuple[np.ndarray, bool, int]:
    """One run of GS from ``w_init``; returns (ū, hit, outer iterations done)."""
    L, M = pen.L, pen.M
    w = w_init.copy()
    wbar = w_init.copy()
    wtil_prev = w_init.copy()  # ũ^{k−1} (used by the printed reading)
    k = 0
    while k < outer_limit:
        k += 1
        gamma, beta, T = _gs_params(rule, k, L, M, D2, N)
        if inner_budget[0] < T:
            return wbar, False, k - 1
        wl = (1.0 - gamma) * wbar + gamma * w
        g = pen.grad_penalty(wl)
        a = w - g / beta  # (β u^{k−1} − g)/β
        if reading not in ("printed", "line6"):
            u = w.copy()
            ut = w.copy()
        else:  # printed line 6, read sequentially: u_0 := ũ_0 (= ũ^{k−1}), then ũ_0 := u^{k−1}
            u = wtil_prev.copy()
            ut = w.copy()
        for t in range(1, T + 1):
            h = pen.subgrad(u)
            p = 0.5 * t
            u = (a + p * u - h / beta) / (1.0 + p)
            pen.project(u)
            th = 2.0 * (t + 1) / (t * (t + 3))
            ut *= 1.0 - th
            ut += th * u
        inner_budget[0] -= T
        w = u
        if reading not in ("printed", "line12"):
            wbar = (1.0 - gamma) * wbar + gamma * ut
        else:  # printed line 12
            wbar = gamma * ut + (1.0 - gamma) * wtil_prev
        wtil_prev = ut
        if rec.record(wbar, T):
            return wbar, True, k
    return wbar, False, k


def sliding_result(rec: SlidingRecorder, pen: PenalizedProblem, wbar, hit: bool, reason: str, method: str, eps: float, extra: dict) -> SolveResult:
    """The :class:`SolveResult` of a sliding run from its recorder ``rec`` and last averaged point ``wbar``."""
    hc = np.asarray(rec.counts, dtype=np.int64).reshape(-1, len(ORACLES))
    info = pen.describe()
    info.update(extra)
    info.update(history_gap=rec.gap, history_dist=rec.dist, history_inner=rec.inner, delta=rec.acc.delta,
                F_star=rec.acc.F_star, first_hit_row=(len(rec.ratio) - 1) if hit else None)
    return SolveResult(x=pen.u_of(wbar).copy(), iterations=len(rec.ratio) - 1,
                       counts={k: int(v) for k, v in zip(ORACLES, hc[-1])}, history_counts=hc,
                       history_error=np.asarray(rec.ratio, dtype=float), converged=hit, reason=reason, method=method,
                       eps=float(eps), error_kind="max(gap/eps, dist/delta) of the output u-bar after each outer "
                                                  "iteration (gap = F(u) - F(u*), dist = distance to the feasible set of (P))",
                       params=info)


# ----------------------------------------------------------------------------- runs on any penalised problem
def run_sliding(pen, rec: SlidingRecorder, w0: np.ndarray, *, R: float, rule: str = "book", reading: str = "lan",
                N: int | None = None, max_outer: int = MAX_OUTER, max_inner: int = MAX_INNER) -> tuple[np.ndarray, bool]:
    """One GS run from ``w0`` on the penalised problem ``pen`` (``D̃ = R²``), recorded by ``rec``: ``(ū, hit)``.

    ``pen`` is any object with the interface of :class:`PenalizedProblem` that GS uses (``L``, ``M``, ``subgrad``,
    ``grad_penalty``, ``project``, ``u_of``): the paper's reformulations here, the generic problem
    ``prob:affine_constraints`` in :mod:`mixbounds.solvers.affine`.
    """
    if rec.record(w0, 0):
        return w0, True
    wbar, hit, _ = _gs_phase(pen, w0, float(R) ** 2, rec, rule=rule, reading=reading, N=N,
                             outer_limit=min(max_outer, N or max_outer), inner_budget=[int(max_inner)])
    return wbar, hit


def restart_plan(R: float, N_phase: int):
    """The restarts of the module docstring: phase ``s`` has ``D̃_s = R²/2ˢ`` and ``N_phase`` outer iterations."""

    def plan(s: int, pen) -> dict:
        return {"R2": float(R) ** 2 / 2.0 ** s, "N_phase": int(N_phase)}

    return plan


def run_phases(pen, rec: SlidingRecorder, w0: np.ndarray, plan, *, max_phases: int,
               max_inner: int = MAX_INNER) -> tuple[np.ndarray, bool, list]:
    """Restarted GS from ``w0``: phase ``s = 0, 1, …`` (``"book"`` rule, Lan's reading) starts at the previous
    phase's output with the ``D̃_s = plan(s, pen)["R2"]`` and the ``plan(s, pen)["N_phase"]`` outer iterations that
    ``plan`` returns (it may re-target the penalty, :meth:`PenalizedProblem.set_accuracy`).  Stops at the first
    ``(ε, δ)``-hit, after ``max_phases`` phases, or once ``max_inner`` subgradient rounds are spent.  Returns
    ``(output, hit, phase records)``, each record ``plan``'s entries plus ``phase``, ``outer`` (iterations done)
    and ``end_row``."""
    hit = rec.record(w0, 0)
    budget = [int(max_inner)]
    w = w0
    phases = []
    s = 0
    while not hit and s < max_phases:
        ph = plan(s, pen)
        w, hit, done = _gs_phase(pen, w, ph["R2"], rec, rule="book", reading="lan", N=None,
                                 outer_limit=ph["N_phase"], inner_budget=budget)
        phases.append({"phase": s, **ph, "outer": done, "end_row": len(rec.ratio) - 1})
        if done < ph["N_phase"] and not hit:
            break  # inner budget exhausted
        s += 1
    return w, hit, phases


def strong_convexity(problem, mu, R, name: str, why: str = "") -> float:
    """``μ_f`` of a restarted method (``mu`` or the objective's), after checking ``μ_f > 0`` and ``R > 0``.

    ``name``: the method in the error message; ``why``: appended to the ``μ_f`` message (e.g. ``" (Table 4)"``)."""
    mu_f = problem.objective.mu if mu is None else float(mu)
    if not (mu_f > 0):
        raise ValueError(f"{name}: needs μ_f > 0{why}")
    if not (R > 0):
        raise ValueError(f"{name}: R must be positive, got {R}")
    return mu_f


def sliding_setup(problem, eps, x_star, M, delta, method, spectra, oracles, x0):
    """The shared set-up of the sliding methods: oracles, the penalized problem, ``δ`` and the accuracy measure."""
    orc = oracles if oracles is not None else CountedOracles(problem)
    pen = PenalizedProblem(problem, orc, eps=eps, M=M, method=method, spectra=spectra)
    if delta is None:
        delta = eps / pen.M
    acc = Accuracy(problem, np.asarray(x_star, dtype=float).ravel(), eps, delta)
    lay = problem.layout
    u0 = np.zeros(lay.size) if x0 is None else np.asarray(x0, dtype=float).ravel()
    w0 = np.zeros(pen.size)
    w0[pen.u_idx] = u0
    pen.project(w0)
    return orc, pen, acc, w0


def gradient_sliding(problem, *, eps: float, x_star, R: float, M: float | None = None, method: str = "apapc",
                     spectra: str = "lemma", rule: str = "book", reading: str = "lan", N: int | None = None,
                     delta: float | None = None, max_outer: int = MAX_OUTER, max_inner: int = MAX_INNER, x0=None,
                     oracles: CountedOracles | None = None) -> SolveResult:
    """Gradient Sliding (module docstring) to an ``(ε, δ)``-solution of a nonsmooth convex problem.

    ``R``: bound on ``‖w⁰ − w*‖`` in the reformulated variables (``D̃ = R²``); ``M``: bound on
    ``‖∂F‖`` (default ``objective.M_total``); ``rule``/``reading``: see the module docstring
    (``N`` is required with ``rule="horizon"``); ``max_outer``/``max_inner``: budgets of outer
    iterations and subgradient rounds.
    """
    if rule not in RULES or reading not in READINGS:
        raise ValueError(f"gradient_sliding: rule must be one of {RULES} and reading one of {READINGS}")
    if rule == "horizon" and not N:
        raise ValueError("gradient_sliding: rule='horizon' needs the number N of outer iterations")
    if not (R > 0):
        raise ValueError(f"gradient_sliding: R must be positive, got {R}")
    orc, pen, acc, w0 = sliding_setup(problem, eps, x_star, M, delta, method, spectra, oracles, x0)
    rec = SlidingRecorder(orc, acc, pen)
    wbar, hit = run_sliding(pen, rec, w0, R=R, rule=rule, reading=reading, N=N, max_outer=max_outer,
                            max_inner=max_inner)
    reason = "tolerance" if hit else "budget"
    return sliding_result(rec, pen, wbar, hit, reason, f"gradient-sliding[{method},{rule},{reading}]", eps,
                   {"rule": rule, "reading": reading, "R": float(R), "D_tilde": float(R) ** 2, "N": N})


def restarted_gradient_sliding(problem, *, eps: float, x_star, R: float, mu: float | None = None, M: float | None = None,
                               method: str = "apapc", spectra: str = "lemma", delta: float | None = None,
                               max_phases: int = 60, max_inner: int = MAX_INNER, x0=None,
                               oracles: CountedOracles | None = None) -> SolveResult:
    """Restarted GS for ``μ_f > 0`` (module docstring); ``mu`` defaults to the objective's ``μ_f``."""
    mu_f = strong_convexity(problem, mu, R, "restarted_gradient_sliding")
    orc, pen, acc, w0 = sliding_setup(problem, eps, x_star, M, delta, method, spectra, oracles, x0)
    mu_H = mu_f / 2.0
    N_s = int(math.ceil(math.sqrt(RESTART_C * pen.L / mu_H)))
    rec = SlidingRecorder(orc, acc, pen)
    w, hit, phases = run_phases(pen, rec, w0, restart_plan(R, N_s), max_phases=max_phases, max_inner=max_inner)
    reason = "tolerance" if hit else "budget"
    return sliding_result(rec, pen, w, hit, reason, f"restarted-gradient-sliding[{method}]", eps,
                   {"rule": "book", "mu_f": mu_f, "mu_H": mu_H, "N_phase": N_s, "phases": phases, "R": float(R),
                    "restart_constant": RESTART_C})


__all__ = ["PenalizedProblem", "gradient_sliding", "reformulated_solution", "restart_plan", "restarted_gradient_sliding",
           "run_phases", "run_sliding"]
