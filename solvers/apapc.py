"""APAPC (Algorithm ``alg:apapc``, ``sec:smooth_objectives_apapc``).

Solves ``min G(u) s.t. B u = b`` for an ``L``-smooth, ``μ``-strongly convex ``G``,
knowing only ``∇G``, the normal operator ``u ↦ BᵀB u`` and the vector ``Bᵀb``
(lines ``alg:apapc:line:z``: ``z^{k+1} = z^k + θ Bᵀ(B u^{k+1/2} − b) = z^k + θ(BᵀB u^{k+1/2} − Bᵀb)``)::

    u_g^k     = τ u^k + (1 − τ) u_f^k
    u^{k+1/2} = (1 + ηα)⁻¹ (u^k − η(∇G(u_g^k) − α u_g^k + z^k))
    z^{k+1}   = z^k + θ (BᵀB u^{k+1/2} − Bᵀb)
    u^{k+1}   = (1 + ηα)⁻¹ (u^k − η(∇G(u_g^k) − α u_g^k + z^{k+1}))
    u_f^{k+1} = u_g^k + 2τ/(2 − τ) (u^{k+1} − u^k)

with ``u_f^0 = u^0``, ``z^0 = 0``.  One iteration = one ``∇G`` and one normal-operator
application.  After Chebyshev acceleration the caller passes ``BᵀB ← P(BᵀB)`` and
``Bᵀb ← P(BᵀB)(BᵀB)⁺Bᵀb``: that is APAPC for the constraint ``K u = b'`` with
``K = P(BᵀB)^{1/2}`` (same feasible set, ``KᵀK = P(BᵀB)``, ``Kᵀb' = P(BᵀB)(BᵀB)⁺Bᵀb``),
one polynomial per iteration instead of the two that ``KᵀK`` with ``K = P(BᵀB)`` costs.

Parameters (:meth:`APAPCParameters.rule`)
-----------------------------------------
``η = 1/(4τL)``, ``θ = 1/(η λ_max(BᵀB))``, ``α = μ``, ``τ = min{1, ½√(χ/κ)}``
with ``χ = λ_max(BᵀB)/λ_min+(BᵀB)`` and ``κ = L/μ``.

Sources: the paper prints no rule (``thm:apapc`` says "there exists a set of parameters", citing Salim et al. 2022,
Proposition 1); the rule above is the one of the public implementations of Salim et al. 2022 and Kovalev et al. 2020,
and its rate ``(1 + ¼ min{1/√(κχ), 1/χ})^{−k}`` is checked numerically (``tests/test_apapc.py``).  Where the rule
was read and what the rate check measured: ``docs/records/sources.md``.

Stopping: the caller's ``error(u)`` (relative squared distance of the ORIGINAL
primal variables to ``x*``) is evaluated after every iteration; the run stops with
``reason="tolerance"`` when it is ``<= eps``, ``"budget"`` after ``max_iter``
iterations (or once some oracle has been called ``max_calls`` times), ``"non-finite"`` when the error is NaN/inf, ``"diverged"`` when it
exceeds :data:`DIVERGENCE_RATIO`.  Only ``"tolerance"`` sets ``converged=True``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np
from mixbounds.solvers.chebyshev import axpy
from mixbounds.solvers.oracles import ORACLES
from mixbounds.solvers.result import SolveResult
from mixbounds.solvers.stop_rule import DIVERGENCE_RATIO, StopRule
from mixbounds.solvers.underflow import flush_subnormals

__all__ = ["APAPCParameters", "DIVERGENCE_RATIO", "Iterates", "apapc", "apapc_steps"]


def _fresh(a) -> np.ndarray:
    """The callable's result as a writable float64 array (copied only if it is not one)."""
    if isinstance(a, np.ndarray) and a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable:
        return a
    return np.array(a, dtype=np.float64)


def _axpy(a: float, x: np.ndarray, y: np.ndarray) -> None:
    """``y += a x`` in place (chunked single-threaded BLAS on contiguous float64 data)."""
    if x.flags.c_contiguous and y.flags.c_contiguous and x.dtype == y.dtype == np.float64 and x.size == y.size:
        axpy(a, x.reshape(-1), y.reshape(-1))
    else:
        y += a * x


@dataclass(frozen=True)
class APAPCParameters:
    """Constants known to the method and the parameters of ``alg:apapc`` derived from them."""

    L: float
    mu: float
    lam_max: float
    lam_min: float
    tau: float
    eta: float
    theta: float
    alpha: float

    @property
    def kappa(self) -> float:
        return self.L / self.mu

    @property
    def chi(self) -> float:
        return self.lam_max / self.lam_min

    @classmethod
    def rule(cls, L: float, mu: float, lam_max: float, lam_min: float) -> "APAPCParameters":
        """``η = 1/(4τL)``, ``θ = 1/(ηλ_max)``, ``α = μ``, ``τ = min{1, ½√(χ/κ)}`` (module docstring)."""
        for nm, v in (("L", L), ("mu", mu), ("lam_max", lam_max), ("lam_min", lam_min)):
            if not (np.isfinite(v) and v > 0):
                raise ValueError(f"APAPC: constant {nm} must be positive and finite, got {v}")
        if mu > L * (1 + 1e-12):
            raise ValueError(f"APAPC: need μ <= L (strong convexity <= smoothness), got μ={mu}, L={L}")
        if lam_min > lam_max * (1 + 1e-12):
            raise ValueError(f"APAPC: need λ_min+ <= λ_max of BᵀB, got {lam_min} > {lam_max}")
        chi = lam_max / lam_min
        kappa = L / mu
        tau = min(1.0, 0.5 * math.sqrt(chi / kappa))
        eta = 1.0 / (4.0 * tau * L)
        theta = 1.0 / (eta * lam_max)
        return cls(float(L), float(mu), float(lam_max), float(lam_min), tau, eta, theta, float(mu))

    def as_dict(self) -> dict:
        d = asdict(self)
        d.update(kappa=self.kappa, chi=self.chi)
        return d


class Iterates:
    """The iterates of ``alg:apapc`` (``u``, ``u_f``, ``z``) in three rotating buffers plus one for ``u_g``;
    :meth:`step` is one iteration, written with in-place BLAS updates (no temporaries of the problem's size).

    After every step the subnormal entries of ``u``, ``u_f`` and ``z`` are set to zero
    (:func:`mixbounds.solvers.underflow.flush_subnormals`): on a chain they fill the part of the iterate ahead of its
    front, and every product by them takes the processor's slow path (a full-tier point 4.4× slower on an Intel core).
    The counts are the same and the values equal to rounding (``tests/test_underflow.py``)."""

    def __init__(self, w0: np.ndarray, params: APAPCParameters, Btb: np.ndarray):
        self.p = params
        self.c = 1.0 / (1.0 + params.eta * params.alpha)
        self.mom = 2.0 * params.tau / (2.0 - params.tau)
        self.u = np.array(w0, dtype=float, copy=True)
        self.u_f = self.u.copy()
        self.spare = np.empty_like(self.u)  # rotates: u, u_f, spare (→ u^{k+1/2} → u^{k+1})
        self.u_g_buf = np.empty_like(self.u) if params.tau != 1.0 else None
        self.z = np.zeros_like(self.u)
        self.Btb = np.asarray(Btb, dtype=float).reshape(self.u.shape)
        self.has_rhs = bool(np.any(self.Btb))

    def step(self, grad_G: Callable[[np.ndarray], np.ndarray], apply_BtB: Callable[[np.ndarray], np.ndarray]) -> None:
        tau, eta, theta, alpha = self.p.tau, self.p.eta, self.p.theta, self.p.alpha
        c, mom, u, u_f = self.c, self.mom, self.u, self.u_f
        # u_g = τ u + (1 − τ) u_f
        if self.u_g_buf is None:
            u_g = u
        else:
            u_g = np.multiply(u, tau, out=self.u_g_buf)
            _axpy(1.0 - tau, u_f, u_g)
        # d = ∇G(u_g) − α u_g
        d = _fresh(grad_G(u_g))
        if alpha != 0.0:
            _axpy(-alpha, u_g, d)
        # u^{k+1/2} = c (u − η(d + z))
        u_half = np.multiply(u, c, out=self.spare)
        _axpy(-c * eta, d, u_half)
        _axpy(-c * eta, self.z, u_half)
        # z^{k+1} = z + θ (BᵀB u^{k+1/2} − Bᵀb)
        s = _fresh(apply_BtB(u_half))
        if self.has_rhs:
            _axpy(-1.0, self.Btb, s)
        _axpy(theta, s, self.z)
        # u^{k+1} = c (u − η(d + z^{k+1})) = u^{k+1/2} − cηθ (BᵀB u^{k+1/2} − Bᵀb)
        u_new = u_half
        _axpy(-c * eta * theta, s, u_new)
        # u_f^{k+1} = u_g + 2τ/(2 − τ)(u^{k+1} − u^k), computed in the buffer of u^k
        if u_g is u:
            u *= 1.0 - mom
        else:
            u *= -mom
            _axpy(1.0, u_g, u)
        _axpy(mom, u_new, u)
        self.spare = u_f
        self.u_f, self.u = u, u_new
        for a in (u, u_new, self.z):
            flush_subnormals(a)


def apapc(
    *,
    grad_G: Callable[[np.ndarray], np.ndarray],
    apply_BtB: Callable[[np.ndarray], np.ndarray],
    Btb: np.ndarray,
    w0: np.ndarray,
    params: APAPCParameters,
    error: Callable[[np.ndarray], float],
    snapshot: Callable[[], dict],
    output: Callable[[np.ndarray], np.ndarray] | None = None,
    eps: float = 1e-8,
    max_iter: int = 10_000,
    method: str = "apapc",
    extra_params: dict | None = None,
    settle: float = 0.0,
    settle_eps: float | None = None,
    max_calls: int | None = None,
) -> SolveResult:
    """Run Algorithm ``alg:apapc`` and return a :class:`SolveResult`.

    ``grad_G`` and ``apply_BtB`` must return new arrays (they are updated in place).
    ``w0``: start (any shape; copied); ``error(w)``: relative squared error of the
    original variables at ``w``; ``snapshot()``: cumulative oracle counts (dict keyed by
    :data:`ORACLES`); ``output(w)``: the u-layout point reported as ``x`` (default ``w``).
    History rows are recorded before the first iteration (row 0, after set-up) and
    after every iteration, from ``u^k`` (the algorithm's output iterate).

    ``settle`` (in ``[0, 1)``): with ``0`` the run stops the first time the error is
    ``<= eps``.  The error is not monotone (it oscillates by several decades, and a
    zero crossing of an oscillating mode can dip far below the envelope), so a rate
    measurement passes ``settle > 0``: the run stops at the first ``k`` whose last
    ``settle·k`` errors are all ``<= eps``, i.e. the error has stayed below ``eps`` for
    that fraction of the run (a full oscillation period when the period is shorter).
    ``settle_eps`` (default ``eps``) is the level that must be settled; the run then ends
    at the first ``k`` at which the error has also reached ``eps`` at least once.
    ``max_calls`` (default ``None``): call budget; the run stops with ``reason="budget"``
    after the first iteration at which some oracle has been called ``max_calls`` times.
    """
    rule = StopRule(eps, max_iter, "APAPC", settle=settle, settle_eps=settle_eps, max_calls=max_calls)
    it = Iterates(w0, params, Btb)
    counts_hist = [[snapshot()[k] for k in ORACLES]]
    err = float(error(it.u))
    err_hist = [err]
    reason = rule.start(err)
    k = 0
    while reason is None:
        k += 1
        it.step(grad_G, apply_BtB)
        err = float(error(it.u))
        counts_hist.append([snapshot()[kk] for kk in ORACLES])
        err_hist.append(err)
        reason = rule.after(k, err, counts_hist[-1])
    converged = reason == "tolerance"
    iterations = len(err_hist) - 1
    hc = np.asarray(counts_hist, dtype=np.int64).reshape(-1, len(ORACLES))
    x = output(it.u) if output is not None else it.u.copy()
    info = {"apapc": params.as_dict(), "tau": params.tau, "eta": params.eta, "theta": params.theta}
    if extra_params:
        info.update(extra_params)
    return SolveResult(
        x=np.asarray(x, dtype=float),
        iterations=iterations,
        counts={kk: int(v) for kk, v in zip(ORACLES, hc[-1])},
        history_counts=hc,
        history_error=np.asarray(err_hist, dtype=float),
        converged=converged,
        reason=reason,
        method=method,
        eps=float(eps),
        params=info,
    )


def apapc_steps(*, grad_G: Callable[[np.ndarray], np.ndarray], apply_BtB: Callable[[np.ndarray], np.ndarray],
                Btb: np.ndarray, params: APAPCParameters, u: np.ndarray, u_f: np.ndarray, z: np.ndarray,
                steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``steps`` iterations of ``alg:apapc`` from an arbitrary state ``(u, u_f, z)``; returns the new state.

    The same :class:`Iterates` step as :func:`apapc`, started where a caller puts it (the worst-case
    state of a performance-estimation problem, :mod:`mixbounds.checks.pep.extract`) instead of ``u_f⁰ = u⁰``, ``z⁰ = 0``.
    """
    it = Iterates(u, params, Btb)
    it.u_f[...] = np.asarray(u_f, dtype=float).reshape(it.u.shape)
    it.z[...] = np.asarray(z, dtype=float).reshape(it.u.shape)
    for _ in range(int(steps)):
        it.step(grad_G, apply_BtB)
    return it.u.copy(), it.u_f.copy(), it.z.copy()
