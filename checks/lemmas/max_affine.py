"""Small exact problems for the penalization lemmas of ``app:gradient_sliding_discuss``.

``G(u) = max_k (g_kᵀu + h_k)`` (nonsmooth, convex, subgradients in ``conv{g_k}``, so ``M = max_k ‖g_k‖`` exactly),
constraint ``Bu = b`` with ``b ∈ range B``, domain ``U = R^d`` or a box.  Two exact solvers, no iteration counts:

* :func:`constrained` — ``min_{u∈U} G(u)`` s.t. ``Bu = b`` as an LP (HiGHS), with its multipliers: ``v*`` of
  ``Bu = b`` (Lagrangian ``G(u) + ⟨v, Bu − b⟩``, eq:saddle_point_problem) and ``λ`` of the pieces, certified by the
  stationarity residual ``‖Σλ_k g_k + Bᵀv* + (box multipliers)‖``;
* :func:`penalized` — ``min_{u∈U} H(u) = G(u) + (r/2)‖Bu − β‖²`` (eq:affine_constraints_penal_prob) by enumerating
  active sets of the equivalent QP ``min t + (r/2)‖Bu − β‖²`` s.t. ``g_kᵀu + h_k <= t``, box: each candidate solves
  the KKT linear system and is accepted only if it is primal and dual feasible (a KKT point of a convex QP is
  optimal), so the returned value is exact to rounding.  Small sizes only (``K`` pieces, ``d <= 5``).

Random instances keep ``0`` in the interior of ``conv{g_k}`` (``G`` coercive), so both minima are attained.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from scipy.optimize import linprog

#: a KKT candidate is accepted when its primal and dual infeasibilities are below KKT_TOL·(scale of the data)
KKT_TOL = 1e-9


@dataclass(frozen=True)
class BoxCases:
    """The per-tier cases of a penalization lemma (:func:`mixbounds.checks.tiers.per_tier`): ``cases`` seeded cases
    on U = R^d, ``seeds`` per box instance and the box half-widths ``box_t`` of the instances with a bound active at
    the optimum."""

    cases: int
    seeds: int
    box_t: tuple


@dataclass
class MaxAffine:
    """``G(u) = max_k g_kᵀu + h_k`` on ``U`` (``lo <= u <= hi`` where finite), constraint ``Bu = b``."""

    g: np.ndarray
    h: np.ndarray
    B: np.ndarray
    b: np.ndarray
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    @property
    def d(self) -> int:
        return self.g.shape[1]

    @property
    def M(self) -> float:
        """``sup ‖∂G‖ = max_k ‖g_k‖`` (every subgradient is a convex combination of active ``g_k``)."""
        return float(np.max(np.linalg.norm(self.g, axis=1)))

    def G(self, u: np.ndarray) -> float:
        return float(np.max(self.g @ u + self.h))

    def H(self, u: np.ndarray, r: float, beta: np.ndarray | None = None) -> float:
        beta = self.b if beta is None else beta
        return self.G(u) + 0.5 * r * float(np.sum((self.B @ u - beta) ** 2))

    def sigma_min_pos(self) -> float:
        s = np.linalg.svd(self.B, compute_uv=False)
        return float(s[s > 1e-10 * s[0]].min())

    def box_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """The box as rows ``a_jᵀu <= c_j``."""
        rows, rhs = [], []
        I = np.eye(self.d)
        for i in range(self.d):
            if self.hi is not None and np.isfinite(self.hi[i]):
                rows.append(I[i]), rhs.append(self.hi[i])
            if self.lo is not None and np.isfinite(self.lo[i]):
                rows.append(-I[i]), rhs.append(-self.lo[i])
        return (np.array(rows).reshape(-1, self.d), np.array(rhs, dtype=float))


def random_instance(rng, d: int, s: int, K: int, *, rank: int | None = None, spread: float = 1.0) -> MaxAffine:
    """Random ``G`` with ``K >= d + 1`` pieces around the origin (``0 ∈ int conv{g_k}``), ``B`` of rank ``rank``
    (singular values in ``[1, 10]·spread``), ``b = B u_0`` for a random ``u_0``."""
    g = rng.standard_normal((K, d))
    g[-1] = -np.sum(g[:-1] * rng.uniform(0.5, 1.5, (K - 1, 1)), axis=0) / (K - 1)  # a positive combination is 0
    h = rng.uniform(-1.0, 1.0, K)
    rk = s if rank is None else min(rank, s, d)
    Uo = np.linalg.qr(rng.standard_normal((s, s)))[0][:, :rk]
    Vo = np.linalg.qr(rng.standard_normal((d, d)))[0][:, :rk]
    sv = spread * np.exp(rng.uniform(0.0, np.log(10.0), rk))
    B = (Uo * sv) @ Vo.T
    return MaxAffine(g=g, h=h, B=B, b=B @ rng.standard_normal(d), info={"d": d, "s": s, "K": K, "rank": rk})


def tight_instance(rng, d: int, s: int, M: float = 1.0) -> MaxAffine:
    """An instance on which ``‖v*‖ = M/σ_min+(B)`` exactly: the active piece at ``u* = 0`` is ``−M v_min`` (the
    right singular vector of ``σ_min+(B)``), the other pieces are inactive near 0 and make ``G`` coercive."""
    B = random_instance(rng, d, s, d + 1).B
    _, sv, Vt = np.linalg.svd(B)
    v_min = Vt[int(np.sum(sv > 1e-10 * sv[0])) - 1]
    others = rng.standard_normal((d + 1, d))
    others /= np.linalg.norm(others, axis=1, keepdims=True) / (0.9 * M)
    others[-1] = -np.sum(others[:-1], axis=0)
    others[-1] *= 0.9 * M / np.linalg.norm(others[-1])
    g = np.vstack([-M * v_min, others])
    h = np.concatenate([[0.0], -np.full(d + 1, 10.0)])
    return MaxAffine(g=g, h=h, B=B, b=np.zeros(s), info={"d": d, "s": s, "K": d + 2, "tight": True})


def box_instance(t: float, m: float = 1.0) -> MaxAffine:
    """The 2-variable instance on a box where the dual bound fails: ``G(u) = max(m u_1, −m u_1 − 10, m(u_2 − 10))``
    on ``U = [−1, 1] × [0, 1]``, ``u_1 − t u_2 = 0``.  The optimum is ``u* = 0`` with the box ``u_2 >= 0`` active and
    the unique multiplier ``v* = −m`` (``|v*| = m``), while ``M/σ_min+(B) = m/√(1 + t²)``."""
    g = np.array([[m, 0.0], [-m, 0.0], [0.0, m]])
    h = np.array([0.0, -10.0, -10.0 * m])
    return MaxAffine(g=g, h=h, B=np.array([[1.0, -t]]), b=np.zeros(1), lo=np.array([-1.0, 0.0]), hi=np.array([1.0, 1.0]),
                     info={"t": t, "box": True})


def constrained(P: MaxAffine) -> dict:
    """``min_{u∈U} G(u)`` s.t. ``Bu = b`` by HiGHS; ``v`` (multiplier of ``Bu = b``), its component in
    ``range B`` (also optimal: ``Bᵀv`` is unchanged) and the stationarity residual."""
    d, K = P.d, P.g.shape[0]
    c = np.zeros(d + 1)
    c[-1] = 1.0
    A_ub = np.hstack([P.g, -np.ones((K, 1))])
    A_eq = np.hstack([P.B, np.zeros((P.B.shape[0], 1))])
    bounds = [(None if P.lo is None else P.lo[i], None if P.hi is None else P.hi[i]) for i in range(d)] + [(None, None)]
    res = linprog(c, A_ub=A_ub, b_ub=-P.h, A_eq=A_eq, b_eq=P.b, bounds=bounds, method="highs")
    if res.status != 0:
        raise ValueError(f"max_affine.constrained: HiGHS status {res.status} ({res.message})")
    u = res.x[:d]
    v = -np.asarray(res.eqlin.marginals)          # d(opt)/d(b) = −v* for the Lagrangian G + ⟨v, Bu − b⟩
    lam = -np.asarray(res.ineqlin.marginals)
    box = np.asarray(res.upper.marginals)[:d] + np.asarray(res.lower.marginals)[:d]
    stat = P.g.T @ lam + P.B.T @ v - box
    U, sv, _ = np.linalg.svd(P.B, full_matrices=False)
    Ur = U[:, sv > 1e-10 * sv[0]]
    vR = Ur @ (Ur.T @ v)
    return {"u": u, "G": float(res.fun), "v": v, "v_range": vR, "lambda": lam, "lambda_sum": float(lam.sum()),
            "stationarity": float(np.linalg.norm(stat)), "box_multiplier": float(np.linalg.norm(box))}


def dual_range_1d(P: MaxAffine, G_star: float) -> tuple[float, float]:
    """For one constraint row (``s = 1``): the smallest and largest optimal multiplier ``v`` of ``Bu = b`` over the
    whole optimal face of the LP dual (two LPs), so ``min |v*|`` over every optimal dual is known exactly."""
    if P.B.shape[0] != 1:
        raise ValueError("dual_range_1d: one constraint row only")
    d, K = P.d, P.g.shape[0]
    A, c = P.box_rows()
    J = A.shape[0]
    # variables (λ ∈ R^K_+, v ∈ R, μ ∈ R^J_+): Gᵀλ + Bᵀv + Aᵀμ = 0, Σλ = 1, hᵀλ − b v − cᵀμ = G*
    Aeq = np.zeros((d + 2, K + 1 + J))
    Aeq[:d, :K] = P.g.T
    Aeq[:d, K] = P.B[0]
    Aeq[:d, K + 1:] = A.T
    Aeq[d, :K] = 1.0
    Aeq[d + 1, :K] = P.h
    Aeq[d + 1, K] = -P.b[0]
    Aeq[d + 1, K + 1:] = -c
    beq = np.concatenate([np.zeros(d), [1.0, G_star]])
    bounds = [(0, None)] * K + [(None, None)] + [(0, None)] * J
    out = []
    for sign in (1.0, -1.0):
        obj = np.zeros(K + 1 + J)
        obj[K] = sign
        res = linprog(obj, A_eq=Aeq, b_eq=beq, bounds=bounds, method="highs")
        if res.status != 0:
            raise ValueError(f"max_affine.dual_range_1d: HiGHS status {res.status} ({res.message})")
        out.append(float(res.x[K]))
    return out[0], out[1]


def penalized(P: MaxAffine, r: float, beta: np.ndarray | None = None, *, start: tuple | None = None) -> dict:
    """Exact ``min_{u∈U} G(u) + (r/2)‖Bu − β‖²`` (module docstring); ``start`` = an active set to try first
    (``(pieces, box rows)``, as returned in ``"active"``).  Raises if no active set gives a KKT point."""
    beta = P.b if beta is None else beta
    d, K = P.d, P.g.shape[0]
    A, c = P.box_rows()
    J = A.shape[0]
    Q = r * P.B.T @ P.B
    q = r * P.B.T @ beta
    scale = max(1.0, np.abs(P.g).max(), np.abs(Q).max(), np.abs(q).max())

    def try_set(S: tuple, T: tuple):
        nS, nT = len(S), len(T)
        n = d + nS + nT + 1
        Kk = np.zeros((n, n))
        rhs = np.zeros(n)
        Kk[:d, :d] = Q
        Kk[:d, d:d + nS] = P.g[list(S)].T
        Kk[:d, d + nS:d + nS + nT] = A[list(T)].T if nT else 0.0
        rhs[:d] = q
        Kk[d:d + nS, :d] = P.g[list(S)]
        Kk[d:d + nS, -1] = -1.0
        rhs[d:d + nS] = -P.h[list(S)]
        if nT:
            Kk[d + nS:d + nS + nT, :d] = A[list(T)]
            rhs[d + nS:d + nS + nT] = c[list(T)]
        Kk[-1, d:d + nS] = 1.0
        rhs[-1] = 1.0
        sol = np.linalg.lstsq(Kk, rhs, rcond=None)[0]
        if np.linalg.norm(Kk @ sol - rhs) > KKT_TOL * scale * max(1.0, np.linalg.norm(sol)):
            return None
        u, lam, mu, t = sol[:d], sol[d:d + nS], sol[d + nS:d + nS + nT], sol[-1]
        tol = KKT_TOL * scale * max(1.0, np.abs(sol).max())
        if np.any(lam < -tol) or np.any(mu < -tol):
            return None
        if np.any(P.g @ u + P.h > t + tol) or (J and np.any(A @ u > c + tol)):
            return None
        return u

    if start is not None:
        u = try_set(*start)
        if u is not None:
            return {"u": u, "H": P.H(u, r, beta), "active": start}
    for nT in range(0, min(J, d) + 1):
        for T in combinations(range(J), nT):
            for nS in range(1, min(K, d + 1 - nT) + 1):
                for S in combinations(range(K), nS):
                    u = try_set(S, T)
                    if u is not None:
                        return {"u": u, "H": P.H(u, r, beta), "active": (S, T)}
    raise ValueError("max_affine.penalized: no active set gives a KKT point (degenerate instance)")


def sublevel_extreme(P: MaxAffine, r: float, H_star: float, eps: float, c: np.ndarray, *, bisect: int = 60) -> dict:
    """The point of ``{u ∈ U : H(u) <= H* + ε}`` that maximises ``⟨c, Bu − b⟩``: ``u(τ) = argmin G + (r/2)‖Bu −
    (b + τc)‖²`` (the Lagrangian of that maximisation) with ``τ`` found by bisection so that ``H(u(τ)) = H* + ε``."""
    act = None

    def at(tau: float):
        nonlocal act
        sol = penalized(P, r, P.b + tau * c, start=act)
        act = sol["active"]
        return sol["u"], P.H(sol["u"], r)

    lo, hi = 0.0, 1.0
    u_hi, H_hi = at(hi)
    while H_hi < H_star + eps:
        lo, hi = hi, 2.0 * hi
        u_hi, H_hi = at(hi)
        if hi > 1e12:
            raise ValueError("max_affine.sublevel_extreme: the sublevel set is unbounded in this direction")
    u_lo, _ = at(lo)
    for _ in range(bisect):
        mid = 0.5 * (lo + hi)
        u_mid, H_mid = at(mid)
        if H_mid <= H_star + eps:
            lo, u_lo = mid, u_mid
        else:
            hi = mid
    return {"u": u_lo, "H_gap": P.H(u_lo, r) - H_star, "tau": lo}
