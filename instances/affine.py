"""Generic affine-constrained problems ``min G(u) s.t. Bu = b`` (``prob:affine_constraints``), with an exact κ_B.

The decentralized classes are built from this problem (``sec:affine_constraints_methods``); its two theorems
state rates in ``κ_B = σ_max²(B)/σ_min+²(B)`` directly (``thm:smooth_objectives_apapc_convergence``,
``thm:upper_bound_nonsmooth_affine_constraints``).  The families below make κ_B a free parameter.

:func:`apapc_hard` (smooth, strongly convex; ``thm:apapc``)
    ``G(u) = ½uᵀHu − qᵀu`` with ``H = diag(h)``, ``B = [diag(σ) 0]`` (``s`` constraints on ``d`` variables).
    On the ``s`` constrained coordinates ``σ_j²`` runs log-spaced from 1 to κ_B while ``h_j`` runs from
    ``L = κ_G`` down to ``μ = 1`` (anti-aligned); on the ``d − s`` free coordinates ``h`` runs from 1 to κ_G.
    The dual Hessian ``BH⁻¹Bᵀ = diag(σ_j²/h_j)`` then spans ``[1/κ_G, κ_B]``: condition ``κ_B κ_G``, the worst
    case of the dual for given κ_B and κ_G.  (APAPC is invariant under orthogonal changes of variables
    ``u ↦ Qu``, so the diagonal form loses no generality; random ``Q`` gave the same counts where tried.)
    ``u*`` in closed form: ``u_j = b_j/σ_j`` on the constrained coordinates, ``q_j/h_j`` on the free ones.

:func:`sliding_hard` (nonsmooth; ``thm:upper_bound_nonsmooth_affine_constraints``)
    ``G(u) = (1/N)Σ_j |a_jᵀu − y_j| + (μ/2)‖u‖²`` on the box ``[−ρ, ρ]^d``, ``B = diag(σ) Vᵀ`` with ``V`` random
    orthonormal (``d × s``) and ``σ²`` log-spaced in ``[1, κ_B]``.  ``u*`` by HiGHS (μ = 0) or the dense
    interior point of :mod:`mixbounds.instances.nonsmooth` (μ > 0) on the lifted problem; ρ is chosen after the
    solve, ``ρ = max(2 max|u*|, 2 max|u_feas|, 1)``, so the box is inactive at ``u*`` and the multiplier bound
    ``‖v*‖ <= M/σ_min+(B)`` of ``lem:boundness_of_penal_prob_dual`` holds (``v*`` is the least-norm solution of
    ``Bᵀv = −G'(u*)``).  ``M = (1/N)Σ_j ‖a_j‖ + μρ√d`` bounds ``‖∂G‖`` on the box.

Both report ``realized`` condition numbers computed from the matrices (never copied from the targets).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from mixbounds.instances.nonsmooth import QP_TOL, REF_RTOL, qp_interior_point
from scipy.optimize import linprog

#: realized κ_B must equal its target to this relative accuracy (singular values of a diagonal scaling)
KAPPA_RTOL = 1e-9


@dataclass(frozen=True, eq=False)
class QuadraticG:
    """``G(u) = ½ uᵀ diag(h) u − qᵀu``: ``L = max h``, ``μ = min h``."""

    h: np.ndarray
    q: np.ndarray

    @property
    def L(self) -> float:
        return float(self.h.max())

    @property
    def mu(self) -> float:
        return float(self.h.min())

    def value(self, u: np.ndarray) -> float:
        return float(0.5 * u @ (self.h * u) - self.q @ u)

    def grad(self, u: np.ndarray) -> np.ndarray:
        return self.h * u - self.q


@dataclass(frozen=True, eq=False)
class AbsDeviationG:
    """``G(u) = (1/N)Σ_j |a_jᵀu − y_j| + (μ/2)‖u‖²`` on the box ``[−ρ, ρ]^d``; ``grad`` is a subgradient (sign(0) = 0)."""

    features: np.ndarray
    targets: np.ndarray
    mu: float
    rho: float

    @property
    def M(self) -> float:
        """Bound on ``‖∂G‖`` on the box: ``(1/N)Σ_j ‖a_j‖ + μρ√d``."""
        F = self.features
        return float(np.linalg.norm(F, axis=1).mean() + self.mu * self.rho * math.sqrt(F.shape[1]))

    @property
    def box(self) -> tuple[np.ndarray, np.ndarray]:
        d = self.features.shape[1]
        return np.full(d, -self.rho), np.full(d, self.rho)

    def value(self, u: np.ndarray) -> float:
        v = float(np.abs(self.features @ u - self.targets).mean())
        return v + 0.5 * self.mu * float(u @ u) if self.mu else v

    def grad(self, u: np.ndarray) -> np.ndarray:
        N = self.features.shape[0]
        g = self.features.T @ np.sign(self.features @ u - self.targets) / N
        return g + self.mu * u if self.mu else g


@dataclass(frozen=True, eq=False)
class AffineProblem:
    """``min G(u) s.t. Bu = b`` with its solution ``u_star`` and the realized constants (``realized``: ``kappa_B``,
    and ``kappa_G`` for a smooth G; ``targets``: what was asked; ``params``: sizes, seed, reference method)."""

    objective: object
    B: np.ndarray
    b: np.ndarray
    u_star: np.ndarray
    family: str
    targets: dict = field(default_factory=dict)
    realized: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)

    @property
    def sigma2(self) -> np.ndarray:
        """Nonzero squared singular values of B, ascending."""
        s = np.linalg.svd(self.B, compute_uv=False)
        return np.sort(s[s > 1e-12 * s.max()] ** 2)


def condition_of_B(B: np.ndarray) -> float:
    """``σ_max²(B)/σ_min+²(B)`` (eq:kappa_A for the matrix B), from the singular values of B."""
    s = np.linalg.svd(np.asarray(B, dtype=float), compute_uv=False)
    s = s[s > 1e-12 * s.max()]
    return float((s.max() / s.min()) ** 2)


def _check(name: str, v, lo: float = 1.0) -> float:
    v = float(v)
    if not (math.isfinite(v) and v >= lo):
        raise ValueError(f"{name} must be a finite number >= {lo:g}, got {v}")
    return v


def _sizes(d, s) -> tuple[int, int]:
    d, s = int(d), int(s)
    if not (1 <= s < d):
        raise ValueError(f"sizes: need 1 <= s < d (constraints, variables), got s={s}, d={d}")
    return d, s


def apapc_hard(*, kappa_B: float, kappa_G: float, d: int = 20, s: int = 10, seed: int = 0) -> AffineProblem:
    """The anti-aligned quadratic of the module docstring (``thm:apapc``): exact κ_B and κ_G = L/μ (μ = 1)."""
    kB, kG = _check("kappa_B", kappa_B), _check("kappa_G", kappa_G)
    d, s = _sizes(d, s)
    rng = np.random.default_rng(int(seed))
    sig2 = np.geomspace(1.0, kB, s)
    h = np.concatenate([np.geomspace(kG, 1.0, s), np.geomspace(1.0, kG, d - s)])
    B = np.zeros((s, d))
    B[np.arange(s), np.arange(s)] = np.sqrt(sig2)
    q = rng.standard_normal(d) * kG
    b = B @ rng.standard_normal(d)
    u_star = q / h
    u_star[:s] = b / np.sqrt(sig2)
    real = {"kappa_B": condition_of_B(B), "kappa_G": float(h.max() / h.min())}
    return AffineProblem(QuadraticG(h, q), B, b, u_star, "apapc-hard", {"kappa_B": kB, "kappa_G": kG}, real,
                         {"d": d, "s": s, "seed": int(seed), "L": float(h.max()), "mu": float(h.min()),
                          "dual_condition": float((sig2 / h[:s]).max() / (sig2 / h[:s]).min())})



def _lifted_reference(F: np.ndarray, y: np.ndarray, B: np.ndarray, b: np.ndarray, mu: float) -> tuple[np.ndarray, dict]:
    """``min (1/N)Σ(p + q) + (μ/2)‖u‖²`` s.t. ``Fu − p + q = y``, ``Bu = b``, ``p, q >= 0`` (the LP/QP of the module
    docstring); returns ``(u*, info)``."""
    N, d = F.shape
    s = B.shape[0]
    A = np.block([[F, -np.eye(N), np.eye(N)], [B, np.zeros((s, 2 * N))]])
    rhs = np.concatenate([y, b])
    c = np.concatenate([np.zeros(d), np.full(2 * N, 1.0 / N)])
    if mu == 0:
        res = linprog(c, A_eq=A, b_eq=rhs, bounds=[(None, None)] * d + [(0, None)] * (2 * N), method="highs",
                      options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
        if res.status != 0:
            raise ValueError(f"sliding_hard: reference LP (HiGHS) failed: {res.message}")
        z, info = res.x, {"method": "HiGHS LP (scipy.optimize.linprog)"}
    else:
        H = np.zeros((d + 2 * N, d + 2 * N))
        H[:d, :d] = mu * np.eye(d)
        out = qp_interior_point(H, c, A, rhs, np.arange(d, d + 2 * N), tol=QP_TOL)
        if not out["converged"]:
            raise ValueError(f"sliding_hard: reference QP did not converge in {out['iterations']} iterations")
        z, info = out["x"], {"method": "dense interior point (mixbounds.instances.nonsmooth.qp_interior_point)",
                             "iterations": out["iterations"]}
    info["primal_residual"] = float(np.linalg.norm(A @ z - rhs) / (1 + np.linalg.norm(rhs)))
    if info["primal_residual"] > REF_RTOL:
        raise ValueError(f"sliding_hard: reference residual {info['primal_residual']:.1e} exceeds {REF_RTOL:g}")
    return z[:d], info


def sliding_hard(*, kappa_B: float, mu: float = 0.0, d: int = 12, s: int = 6, samples: int | None = None,
                 seed: int = 0) -> AffineProblem:
    """The absolute-deviation problem of the module docstring (``thm:upper_bound_nonsmooth_affine_constraints``)."""
    kB = _check("kappa_B", kappa_B)
    mu = _check("mu", mu, lo=0.0)
    d, s = _sizes(d, s)
    N = int(samples) if samples is not None else 2 * d
    if N < 1:
        raise ValueError(f"sliding_hard: samples must be >= 1, got {samples}")
    rng = np.random.default_rng(int(seed))
    V, _ = np.linalg.qr(rng.standard_normal((d, s)))
    B = np.sqrt(np.geomspace(1.0, kB, s))[:, None] * V.T
    u_feas = 0.5 * rng.standard_normal(d)
    b = B @ u_feas
    F = rng.standard_normal((N, d)) / math.sqrt(d)
    y = F @ (u_feas + rng.standard_normal(d)) + 0.1 * rng.laplace(size=N)
    u_star, info = _lifted_reference(F, y, B, b, mu)
    rho = max(2.0 * float(np.abs(u_star).max()), 2.0 * float(np.abs(u_feas).max()), 1.0)
    G = AbsDeviationG(F, y, mu, rho)
    real = {"kappa_B": condition_of_B(B)}
    return AffineProblem(G, B, b, u_star, "sliding-hard", {"kappa_B": kB}, real,
                         {"d": d, "s": s, "samples": N, "seed": int(seed), "mu": mu, "box_half_width": rho,
                          "M": G.M, "reference": info})


__all__ = ["AbsDeviationG", "AffineProblem", "KAPPA_RTOL", "QuadraticG", "apapc_hard", "condition_of_B", "sliding_hard"]
