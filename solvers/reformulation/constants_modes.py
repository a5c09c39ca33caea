"""The constants ``μ_G``, ``L_G`` APAPC is given for the objective ``G`` of a reformulation, by mode.

``G(w) = F(x, X̃) + (r/2)‖A x + αW'Y − b‖²`` with ``r = μ_f/(2 L_A)`` (``eq:coupled_constraints_reg_form``; the
penalty only when ``A`` is present: it is zero on the feasible set, so the minimiser is unchanged).

* ``constants="lemma"`` (default): Lemma ``lem:conv_smooth_c_and_l`` **as stated**, ``μ_G = μ_f/4``,
  ``L_G = 2 L_f κ_{W'}²`` (``κ_{W'} = σ_max(W')/σ_min+(W')``) when A is present, ``(μ_f, L_f)`` otherwise.  The lemma
  claims strong convexity on ``R^d × 𝒴`` with ``𝒴 = {⟨y, 1⟩ = 0}``; the iterates live in ``L_m^⊥ = {Σ_i y_i = 0}``
  (a subspace of 𝒴, equal only for m = 1).  Nothing is corrected silently.
* ``constants="spectral"``: the same extreme eigenvalues as ``"exact"``, by Lanczos on operators at any size, every
  product counted as set-up (:func:`mixbounds.solvers.spectral_estimates.spectral_constants`).
* ``constants="bounds"``: closed-form bounds from the lemma's facts (Young's inequality for ``L_G``, a Schur
  complement for ``μ_G``; :func:`mixbounds.solvers.spectral_estimates.bound_constants`): never looser than the lemma, no
  oracle call.
* ``constants="auto"``: ``"bounds"`` or ``"spectral"`` by the cost model of
  :func:`mixbounds.solvers.spectral_estimates.choose_constants` (needs the target ``eps``); the default of ``mixbounds solve``.
* ``constants="exact"``: extreme eigenvalues of the Hessian of ``G`` restricted to ``R^d × L_m^⊥ × R^{n d̃}``
  (dense; quadratic objectives only).  The value on the printed subspace 𝒴 is recorded as ``mu_G_printed_subspace``
  for comparison: it is 0 to rounding whenever m >= 2 (``y_i = v`` with ``Σ_j v_j = 0`` is in 𝒴 and in ker W'),
  harmless only because the iterates stay in ``L_m^⊥``.  How far the lemma's constants are from these:
  ``docs/records/lemma-constants.md``.

Products made to estimate constants (the Lanczos of ``"spectral"``, the dense operators of ``"exact"``) go through
the reformulation's set-up oracles, never the solve's.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.solvers.reformulation.exact import EXACT_LIMIT, dense_operator
from mixbounds.solvers.spectral_estimates import bound_constants, choose_constants, spectral_constants


def objective_constants(R) -> tuple[float, float, dict]:
    """``(L_G, μ_G, record)`` of the reformulation ``R`` in its mode ``R.constants`` (module docstring).

    Parameters
    ----------
    R : Reformulation
        The reformulation, its blocks set up (the modes ``"spectral"`` and ``"auto"`` read its operators and
        intervals).

    Returns
    -------
    (float, float, dict)
        ``L_G``, ``μ_G`` and the record of a report: the lemma's values, each computed mode's, the choice of
        ``"auto"`` with its reason and cost model.
    """
    obj = R.problem.objective
    L_f, mu_f = obj.L, obj.mu
    if R.has_A:
        kw = R.scalings.kappa_W_prime
        mu_l, L_l = mu_f / 4, 2 * L_f * kw ** 2  # lem:conv_smooth_c_and_l as stated
    else:
        mu_l, L_l = mu_f, L_f
    c = {"L_f": L_f, "mu_f": mu_f, "L_G_lemma": L_l, "mu_G_lemma": mu_l}
    mode = R.constants
    if mode in ("bounds", "auto"):
        bc = bound_constants(R)
        c.update(L_G_bounds=bc["L"], mu_G_bounds=bc["mu"])
    if mode == "auto":
        mode, why, model = choose_constants(R, R.eps)
        c.update(choice=mode, reason=why, cost_model=model)
    if mode == "bounds":
        L_G, mu_G = c["L_G_bounds"], c["mu_G_bounds"]
    elif mode == "spectral":
        mu_G, L_G = spectral_constants(R)
        c.update(L_G_spectral=L_G, mu_G_spectral=mu_G)
    elif mode == "exact":
        mu_G, L_G, mu_p = exact_constants(R)
        c.update(L_G_exact=L_G, mu_G_exact=mu_G)
        if mu_p is not None:
            c["mu_G_printed_subspace"] = mu_p
    else:
        L_G, mu_G = L_l, mu_l
    c["L_G"], c["mu_G"] = L_G, mu_G
    return L_G, mu_G, c


def exact_constants(R) -> tuple[float, float, float | None]:
    """Extreme eigenvalues of ``∇²G`` on ``R^d × L_m^⊥ × R^{n d̃}``, and ``μ`` on the printed 𝒴 (``None`` without A).

    Parameters
    ----------
    R : Reformulation
        A reformulation of a problem with a quadratic objective and at most ``EXACT_LIMIT`` unknowns.

    Returns
    -------
    (float, float, float or None)
        ``μ_G``, ``L_G`` and ``μ_G`` on the printed subspace.

    Raises
    ------
    ValueError
        For a non-quadratic objective or too many unknowns.
    """
    P = R.problem
    obj = P.objective
    if not isinstance(obj, QuadraticObjective):
        raise ValueError("constants='exact' needs a quadratic objective (constant Hessian)")
    if R.size > EXACT_LIMIT:
        raise ValueError(f"constants='exact': {R.size} unknowns exceed EXACT_LIMIT={EXACT_LIMIT}")
    n, m, dx, dt, size = R.n, R.m, R.dx, R.dt, R.size
    sx, sy, st = R.sx, R.sy, R.st
    H = np.zeros((size, size))
    iu = np.concatenate([np.arange(sx.start, sx.stop), np.arange(st.start, st.stop)])
    H[np.ix_(iu, iu)] = obj.Q.toarray()
    if not R.has_A:
        ev = np.linalg.eigvalsh(H)
        return float(ev[0]), float(ev[-1]), None
    ops = R.operators(R.setup_orc)
    Wd = dense_operator(ops.Wp, (n,), n)
    J = np.zeros((n * m, size))
    J[:, sx] = P.bA.toarray()
    J[:, sy] = R.scalings.alpha * np.kron(Wd, np.eye(m))
    H += R.scalings.r * (J.T @ J)

    def restricted(basis_y):
        k = basis_y.shape[1]
        Bm = np.zeros((size, dx + k + n * dt))
        Bm[sx, :dx] = np.eye(dx)
        Bm[sy, dx:dx + k] = basis_y
        Bm[st, dx + k:] = np.eye(n * dt)
        return np.linalg.eigvalsh(Bm.T @ H @ Bm)

    U = sla.null_space(np.ones((1, n)))  # orthonormal basis of 1^⊥
    ev = restricted(np.kron(U, np.eye(m)))  # L_m^⊥ = {Σ_i y_i = 0}
    ev_p = restricted(sla.null_space(np.ones((1, n * m))))  # printed 𝒴 = {⟨y, 1⟩ = 0}
    return float(ev[0]), float(ev[-1]), float(ev_p[0])
