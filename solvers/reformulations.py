"""The paper's reformulations of every problem class as ``min G(w) s.t. K w = b'``.

Variables ``w = (x, Y, X̃)``: ``x`` flat (``Σ d_i``), ``Y`` of shape ``(n, m)`` (the
auxiliary variable of the coupled constraint, started at 0), ``X̃`` of shape
``(n, d̃)`` (node copies of the shared variable).  Absent parts have length 0.
The original primal variables are ``(x, X̃)`` (:meth:`Reformulation.to_u`, the
u-layout of :mod:`mixbounds.instances.layout`).

Constraint blocks (``K = diag(x-block, X̃-block)``,
``app:upper_bound_coupled_plus_non_ident_local_constraints_prob``), with
``W' = P_W(W)`` (Chebyshev on ``W``, degree ``⌈√κ_W⌉`` on ``[λ_min+(W), λ_max(W)]``)
and ``C' = P_C(CᵀC)`` (Chebyshev on ``CᵀC``, degree ``⌈√κ_C⌉``):

Per block: the raw ``B`` (normal operator ``N = BᵀB``), and the paper's source.

* consensus (X̃): ``√W``, ``N = W``; ``P_W(W)`` is its Chebyshev (``prob:consensus_cons``);
* shared (X̃): ``B̃ = (C̃; γW')``, ``N = C̃ᵀC̃ + γ²W'²`` (``app:nonind_upper``, ``lem:coupled_spectrum`` on ``C̃ᵀ``);
* shared, identical: ``B̃ = (I⊗C̃'; W')`` (γ = 1), ``C̃' = P(C̃ᵀC̃)``, no outer Chebyshev (``thm:LI_upper_bound``,
  ``lem:local_spectrum``);
* coupled (x, Y): ``B = (A  αW')`` (``app:coupled_cons``, ``lem:coupled_spectrum``);
* coupled_local: ``B = [[A, αW'], [βC', 0]]`` (``sec:mixed_upper``, ``eq:block_scaling``);
* local (x): ``C``, ``N = CᵀC`` (the x-part of a mixed problem without A).

Every block except the identical-C̃ one is then Chebyshev-accelerated
(``B → P_B(BᵀB)``) with the spectral interval its lemma gives.  APAPC's z-update
needs only ``KᵀK`` and ``Kᵀb'``, so the reformulation exposes
``apply_normal = P(BᵀB)`` and ``normal_rhs = P(BᵀB)(BᵀB)⁺Bᵀb`` — APAPC for the
constraint ``P(BᵀB)^{1/2} w = b''`` (same feasible set), one polynomial per
iteration instead of two (see :mod:`mixbounds.solvers.apapc`).

Objective: ``G(w) = F(x, X̃) + (r/2)‖A x + αW'Y − b‖²`` with ``r = μ_f/(2 L_A)``
(``eq:coupled_constraints_reg_form``; the penalty only when ``A`` is present: it
is zero on the feasible set, so the minimiser is unchanged).  Constants:

* ``constants="lemma"`` (default): Lemma ``lem:conv_smooth_c_and_l`` **as stated**,
  ``μ_G = μ_f/4``, ``L_G = 2 L_f κ_{W'}²`` (``κ_{W'} = σ_max(W')/σ_min+(W')``) when A
  is present, ``(μ_f, L_f)`` otherwise.  The lemma claims strong convexity on
  ``R^d × 𝒴`` with ``𝒴 = {⟨y, 1⟩ = 0}``; the iterates live in ``L_m^⊥ = {Σ_i y_i = 0}``
  (a subspace of 𝒴, equal only for m = 1).  Nothing is corrected silently.
* ``constants="spectral"``: the same extreme eigenvalues as ``"exact"``, by Lanczos on operators
  at any size, every product counted as set-up (:mod:`mixbounds.solvers.constants`).
* ``constants="bounds"``: closed-form bounds from the lemma's facts (Young's inequality for ``L_G``, a Schur
  complement for ``μ_G``; :func:`mixbounds.solvers.constants.bound_constants`): never looser than the lemma, no oracle call.
* ``constants="auto"``: ``"bounds"`` or ``"spectral"`` by the cost model of :func:`mixbounds.solvers.constants.choose_constants`
  (needs the target ``eps``); the default of ``mixbounds solve``.
* ``constants="exact"``: extreme eigenvalues of the Hessian of ``G`` restricted to
  ``R^d × L_m^⊥ × R^{n d̃}`` (dense; quadratic objectives only).  The value on the
  printed subspace 𝒴 is recorded as ``mu_G_printed_subspace`` for comparison.

  What the numbers say (instances ``tuned(cls, path_W(9, 100))`` of
  ``tests/test_reformulations.py``: n = 9, κ_W = 100, κ_f = 10, m = 2; the test
  ``test_penalty_constants_lemma_vs_exact`` checks the inequalities on random
  problems): on ``L_m^⊥`` the stated constants are
  valid but loose — coupled: ``μ_G`` 0.25 (lemma) vs 0.50 (exact), ``L_G`` 59.0 vs 10.5
  with Chebyshev (``κ_{W'} = 1.72``), 2.0e5 vs 6.8e3 without (``κ_W = 100``): the penalty's
  curvature grows like ``μ_f κ_W²``, not ``L_f κ_W²``.  APAPC converges with the
  lemma's constants, in 3.4–4× more iterations than with the exact ones (coupled
  256 vs 75, coupled_local 213 vs 58, mixed 183 vs 46).  On the printed 𝒴, ``μ_G = 0``
  to rounding whenever m >= 2 (``y_i = v`` with ``Σ_j v_j = 0`` is in 𝒴 and in ker W');
  harmless only because the iterates stay in ``L_m^⊥`` (checked by a test).

Spectra: ``spectra="lemma"`` (default) uses the lemma bounds and the exact range
``[1 − 1/T_n, 1 + 1/T_n]`` of every Chebyshev polynomial (what a decentralized
method knows); ``spectra="exact"`` computes every interval fed to a Chebyshev
polynomial or to APAPC from the operators themselves (dense, small problems).
If a lemma's bound is wrong the solver shows it (slow or divergent runs); it is
never replaced by a measured value in ``"lemma"`` mode.

``method="apapc-nocheb"`` is the negative control: the same reformulation with
``W' = W``, ``C' = C``, ``C̃' = C̃`` and no outer polynomial, APAPC directly on
``BᵀB`` with the same lemmas' bounds.

All products go through :class:`mixbounds.solvers.oracles.CountedOracles`; set-up work that
a decentralized method would do (the right-hand side ``Bᵀb'``) is counted too and
shows in row 0 of the history.  Products made to *estimate* constants (the Lanczos of
``"spectral"``, the dense operators of ``"exact"``) go through a second counted oracle object,
:attr:`Reformulation.setup_orc`, whose counts are :attr:`Reformulation.setup_counts` (the solve
summary's ``setup_counts``), never mixed into the solve's.  The facts (``λ_max(W)``,
``λ_min+(W)``, ``L_A``, ``λ_min+(S_A)``, …) are the constants the paper assumes known: computed
from the matrices (:func:`mixbounds.instances.spectra.solver_facts`), or passed in (``facts=``, e.g. the
spectra an instance directory stores).  Materialised polynomials are measured on a scratch
oracle whose counts are discarded (each application is counted as its recurrence).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Callable

import numpy as np
import scipy.linalg as sla
from mixbounds.bounds.spectral import DENSE_LIMIT, sym_extremes
from mixbounds.instances.kron_identity import normal_matrix
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.spectra import fact_keys, shared_kind, solver_facts
from mixbounds.solvers.chebyshev import Chebyshev, chebyshev_degree, chebyshev_interval, dot
from mixbounds.solvers.constants import bound_constants, choose_constants, spectral_constants
from mixbounds.solvers.materialize import (
    MATERIALIZE_LIMIT,
    MATERIALIZE_NODES,
    nodes_dense_is_cheaper,
)
from mixbounds.solvers.materialize import (
    MaterializedDense as _Materialized,
)
from mixbounds.solvers.materialize import (
    MaterializedNodes as _MaterializedNodes,
)
from mixbounds.solvers.materialize import (
    MaterializedSparse as _MaterializedSparse,
)
from mixbounds.solvers.oracles import ORACLES, CountedOracles

METHODS = ("apapc", "apapc-nocheb")
SPECTRA = ("lemma", "exact")
CONSTANTS = ("lemma", "exact", "spectral", "bounds", "auto")
#: problem classes with a method (``local`` and ``separable`` have none in the paper)
SUPPORTED_CLASSES = ("consensus", "shared", "coupled", "coupled_local", "mixed")
#: largest number of unknowns for the dense ``"exact"`` spectra and constants
EXACT_LIMIT = 3000


def _interval(lo: float, hi: float) -> list[float]:
    return [float(lo), float(hi)]


def _as_key(x):
    """``x`` with dicts as sorted item tuples and slices as ``(start, stop, step)``: a memo key's part."""
    if isinstance(x, dict):
        return tuple((str(k), _as_key(v)) for k, v in sorted(x.items(), key=lambda kv: str(kv[0])))
    if isinstance(x, (list, tuple)):
        return tuple(_as_key(v) for v in x)
    if isinstance(x, slice):
        return ("slice", x.start, x.stop, x.step)
    return x


def _dense_operator(op: Callable, shape: tuple, size: int) -> np.ndarray:
    """Matrix of a linear operator on arrays of ``shape`` (``size`` entries), column by column."""
    if size > EXACT_LIMIT:
        raise ValueError(f"exact spectra: operator of size {size} exceeds EXACT_LIMIT={EXACT_LIMIT}; use spectra='lemma'")
    M = np.empty((size, size))
    e = np.zeros(size)
    for j in range(size):
        e[j] = 1.0
        M[:, j] = np.asarray(op(e.reshape(shape).copy())).ravel()
        e[j] = 0.0
    return 0.5 * (M + M.T)


def _extremes(M: np.ndarray, name: str) -> tuple[float, float]:
    ex = sym_extremes(M, method="dense", name=name)
    return ex.lmin_pos, ex.lmax


class Reformulation:
    """Reformulation of a :class:`~mixbounds.instances.problem.MixedProblem` for APAPC.

    Parameters
    ----------
    problem : MixedProblem
        The problem; its :attr:`problem_class` picks the blocks.
    oracles : CountedOracles, optional
        Counted oracles of ``problem`` (default: a new :class:`CountedOracles`).
    method : {"apapc", "apapc-nocheb"}
        Chebyshev-accelerated, or without acceleration (the negative control).
    spectra : {"lemma", "exact"}
        Where the spectral intervals come from (module docstring).
    constants : {"lemma", "exact", "spectral", "bounds", "auto"}
        Where the constants μ_G, L_G come from (module docstring).
    materialize : bool
        Apply fixed polynomial operators (``P_W(W)``; small inner and outer polynomials) as matrices built from
        their counted recurrence, adding the recurrence's exact counts per application (:class:`_Materialized`);
        ``False`` evaluates every recurrence step through the oracles.
    eps : float
        The run's target accuracy, for the cost model of ``constants="auto"`` (default 1e-8).
    facts : dict, optional
        The facts of :func:`mixbounds.instances.spectra.solver_facts` when already known (an instance directory's
        stored spectra, checked by :func:`mixbounds.instances.spectra.trusted_facts`); computed when ``None``.

    Notes
    -----
    Attributes used by APAPC: :meth:`grad_G`, :meth:`apply_normal`, :attr:`normal_rhs`,
    :attr:`L_G`, :attr:`mu_G`, :attr:`interval` (bounds on the positive spectrum of
    the normal operator), :meth:`to_u`, :meth:`from_u`; :meth:`describe` gives every
    degree, scaling and interval.
    """

    def __init__(self, problem, oracles: CountedOracles | None = None, *, method: str = "apapc",
                 spectra: str = "lemma", constants: str = "lemma", materialize: bool = True,
                 eps: float = 1e-8, facts: dict | None = None):
        if method not in METHODS:
            raise ValueError(f"Reformulation: unknown method {method!r}; expected one of {METHODS}")
        if spectra not in SPECTRA:
            raise ValueError(f"Reformulation: spectra must be one of {SPECTRA}, got {spectra!r}")
        if constants not in CONSTANTS:
            raise ValueError(f"Reformulation: constants must be one of {CONSTANTS}, got {constants!r}")
        cls = problem.problem_class
        if cls not in SUPPORTED_CLASSES:
            raise ValueError(f"Reformulation: no method for problem class {cls!r} (supported: {SUPPORTED_CLASSES})")
        obj = problem.objective
        if not obj.smooth:
            raise ValueError(f"Reformulation: APAPC needs a smooth, strongly convex objective; {type(obj).__name__} is "
                             "nonsmooth (Tables 3-4: Gradient Sliding, mixbounds verify --claims 'T3.*' / 'T4.*')")
        if not (obj.mu > 0):
            raise ValueError(f"Reformulation: APAPC needs a smooth, strongly convex objective (μ_f > 0), got μ_f={obj.mu}"
                             " (Table 2: the regularised method, mixbounds verify --claims 'T2.*')")
        if problem.n < 2:
            raise ValueError("Reformulation: need n >= 2 nodes (W must have a positive eigenvalue)")
        self.problem = problem
        self.orc = oracles if oracles is not None else CountedOracles(problem)
        if self.orc.problem is not problem:
            raise ValueError("Reformulation: the oracles belong to another problem")
        self.method, self.spectra, self.constants = method, spectra, constants
        self.materialize = bool(materialize)
        self.cheb = method == "apapc"
        self.problem_class = cls
        lay = problem.layout
        n, m, dx, dt = problem.n, problem.m, lay.dx, lay.dt
        self.n, self.m, self.dx, self.dt = n, m, dx, dt
        self.sx = slice(0, dx)
        self.sy = slice(dx, dx + n * m)
        self.st = slice(dx + n * m, dx + n * m + n * dt)
        self.size = dx + n * m + n * dt
        self.has_A = problem.A is not None
        self.has_C = problem.C is not None
        if dx == 0:
            self.x_kind = None
        elif self.has_A:
            self.x_kind = "coupled_local" if self.has_C else "coupled"
        else:
            self.x_kind = "local" if self.has_C else "free"
        self.t_kind = shared_kind(problem)
        self._scratch: CountedOracles | None = None
        self._setup_orc: CountedOracles | None = None
        self.eps = float(eps)
        self._diff: np.ndarray | None = None  # work buffer of sq_distance
        self.info: dict = {"class": cls, "method": method, "spectra": spectra, "constants": constants,
                           "x_block": self.x_kind, "t_block": self.t_kind}
        self._set_up_facts(facts)
        self._set_up_inner()
        self._set_up_scalings()
        self._set_up_blocks()
        self._set_up_constants()
        self._bind_main()

    # ------------------------------------------------------------------ set-up: constants from the matrices
    @property
    def scratch(self) -> CountedOracles:
        if self._scratch is None:
            self._scratch = CountedOracles(self.problem)
        return self._scratch

    @property
    def setup_orc(self) -> CountedOracles:
        """The counted oracles of constants estimation (:attr:`setup_counts`), apart from the solve's :attr:`orc`."""
        if self._setup_orc is None:
            self._setup_orc = CountedOracles(self.problem)
        return self._setup_orc

    @property
    def setup_counts(self) -> dict:
        """Oracle rounds spent estimating constants (all zero for ``"lemma"`` and ``"bounds"``)."""
        return self._setup_orc.snapshot() if self._setup_orc is not None else {k: 0 for k in ORACLES}

    def _set_up_facts(self, facts: dict | None) -> None:
        if facts is None:
            f, _ = solver_facts(self.problem)
            self.facts_source = "computed from the matrices"
        else:
            f = {k: float(v) for k, v in facts.items()}
            if set(f) != fact_keys(self.problem):
                raise ValueError(f"Reformulation: facts= has keys {sorted(f)}, expected {sorted(fact_keys(self.problem))}")
            self.facts_source = "given"
        if self.has_A and f["lambda_min_S_A"] <= 0:
            raise ValueError("Reformulation: S_A = (1/n)Σ A_i A_iᵀ is zero; the coupled constraint is void")
        if self.has_C and f["mu_C"] <= 0:
            raise ValueError("Reformulation: all C_i are zero (no local constraint to precondition)")
        if self.t_kind == "shared" and f["lambda_min_S_Ct"] <= 0:
            raise ValueError("Reformulation: S_{C̃ᵀ} = (1/n)Σ C̃_iᵀC̃_i is zero")
        if self.t_kind == "shared_identical" and f["mu_Ct"] <= 0:
            raise ValueError("Reformulation: identical C̃_i are zero")
        self.facts = f
        self.info["facts"] = dict(f)

    def _W_eigs(self) -> np.ndarray:
        n = self.n
        if n > DENSE_LIMIT:
            raise ValueError(f"exact spectra: W has {n} > {DENSE_LIMIT} rows")
        ev = np.linalg.eigvalsh(self.problem.W.toarray())
        return ev[ev > 1e-9 * ev[-1]]

    def _set_up_inner(self) -> None:
        """Inner preconditioners ``W'``, ``C'``, ``C̃'``: degree and singular-value range."""
        f = self.facts
        exact = self.spectra == "exact"
        inner: dict = {}
        uses_W_prime = self.has_A or self.t_kind in ("shared", "shared_identical")
        if uses_W_prime:
            if self.cheb:
                deg = chebyshev_degree(f["lambda_max_W"], f["lambda_min_W"])
                lo, hi = chebyshev_interval(f["lambda_max_W"], f["lambda_min_W"], deg)
                ent = {"degree": deg, "L": f["lambda_max_W"], "mu": f["lambda_min_W"], "sigma_lemma": _interval(lo, hi)}
                if exact:
                    ch = Chebyshev(lambda v: v, f["lambda_max_W"], f["lambda_min_W"], deg)
                    vals = np.abs(ch.polynomial(self._W_eigs()))
                    lo, hi = float(vals.min()), float(vals.max())
                    ent["sigma_exact"] = _interval(lo, hi)
            else:
                ent = {"degree": 1, "sigma_lemma": _interval(f["lambda_min_W"], f["lambda_max_W"])}
                lo, hi = f["lambda_min_W"], f["lambda_max_W"]
            ent["sigma"] = _interval(lo, hi)
            inner["W"] = ent
        if self.x_kind == "coupled_local":
            # C' = P_C(CᵀC) on [μ_C, L_C] (squared singular values of C), or C itself
            if self.cheb:
                deg = chebyshev_degree(f["L_C"], f["mu_C"])
                lo, hi = chebyshev_interval(f["L_C"], f["mu_C"], deg)
                ent = {"degree": deg, "L": f["L_C"], "mu": f["mu_C"], "sigma_lemma": _interval(lo, hi)}
                if exact:
                    ch = Chebyshev(lambda v: v, f["L_C"], f["mu_C"], deg)
                    ev = np.concatenate([np.linalg.eigvalsh((Ci.T @ Ci).toarray()) for Ci in self.problem.C])
                    ev = ev[ev > 1e-9 * f["L_C"]]
                    vals = np.abs(ch.polynomial(ev))
                    lo, hi = float(vals.min()), float(vals.max())
                    ent["sigma_exact"] = _interval(lo, hi)
            else:
                lo, hi = np.sqrt(f["mu_C"]), np.sqrt(f["L_C"])
                ent = {"degree": 1, "sigma_lemma": _interval(lo, hi)}
            ent["sigma"] = _interval(lo, hi)
            inner["C"] = ent
        if self.t_kind == "shared_identical":
            if self.cheb:
                deg = chebyshev_degree(f["L_Ct"], f["mu_Ct"])
                lo, hi = chebyshev_interval(f["L_Ct"], f["mu_Ct"], deg)
                ent = {"degree": deg, "L": f["L_Ct"], "mu": f["mu_Ct"], "sigma_lemma": _interval(lo, hi)}
                if exact:
                    ch = Chebyshev(lambda v: v, f["L_Ct"], f["mu_Ct"], deg)
                    C0 = self.problem.Ct[0]
                    ev = np.linalg.eigvalsh((C0.T @ C0).toarray())
                    vals = np.abs(ch.polynomial(ev[ev > 1e-9 * f["L_Ct"]]))
                    lo, hi = float(vals.min()), float(vals.max())
                    ent["sigma_exact"] = _interval(lo, hi)
            else:
                lo, hi = np.sqrt(f["mu_Ct"]), np.sqrt(f["L_Ct"])
                ent = {"degree": 1, "sigma_lemma": _interval(lo, hi)}
            ent["sigma"] = _interval(lo, hi)
            inner["Ct"] = ent
        self.inner = inner
        self.info["inner"] = inner

    def _set_up_scalings(self) -> None:
        """α, β (``lem:coupled_spectrum`` / ``eq:block_scaling``), γ (``lem:coupled_spectrum`` on C̃ᵀ), r."""
        f, s = self.facts, {}
        if "W" in self.inner:
            sw_lo, sw_hi = self.inner["W"]["sigma"]
            mu_W, L_W = sw_lo ** 2, sw_hi ** 2  # σ_min+²(W'), σ_max²(W')
            s["mu_W"], s["L_W"], s["kappa_W_prime"] = mu_W, L_W, sw_hi / sw_lo
        if self.x_kind == "coupled":
            s["alpha"] = float(np.sqrt((f["lambda_min_S_A"] + f["L_A"]) / s["mu_W"]))
        elif self.x_kind == "coupled_local":
            sc_lo, sc_hi = self.inner["C"]["sigma"]
            mu_Cp, L_Cp = sc_lo ** 2, sc_hi ** 2
            s["mu_C_prime"], s["L_C_prime"] = mu_Cp, L_Cp
            mt, LA, LSv = f["mu_tilde_AC"], f["L_A"], f["L_S"]
            if mt > 0:
                a2 = (LA + mt / 4) / s["mu_W"]
                b2 = (LSv + mt / 2) / mu_Cp
                s["case"] = "mu_tilde>0"
            else:
                a2 = 2 * LA / s["mu_W"]
                b2 = (LSv + 2 * LA) / mu_Cp
                s["case"] = "mu_tilde=0"
            s["alpha"], s["beta"] = float(np.sqrt(a2)), float(np.sqrt(b2))
        if self.has_A:
            s["r"] = self.problem.objective.mu / (2 * f["L_A"])
        if self.t_kind == "shared":
            s["gamma"] = float(np.sqrt((f["lambda_min_S_Ct"] + f["L_Ct"]) / s["mu_W"]))
        elif self.t_kind == "shared_identical":
            s["gamma"] = 1.0
            sc_lo, sc_hi = self.inner["Ct"]["sigma"]
            s["mu_Ct_prime"], s["L_Ct_prime"] = sc_lo ** 2, sc_hi ** 2
        self.scal = s
        self.info["scalings"] = dict(s)

    def _raw_interval_lemma(self, kind: str) -> tuple[float, float]:
        """Bounds on the positive spectrum of ``N = BᵀB`` of a block (its lemma)."""
        f, s = self.facts, self.scal
        if kind == "coupled":  # lem:coupled_spectrum
            LA, lS = f["L_A"], f["lambda_min_S_A"]
            return lS / 2, LA + (LA + lS) * s["kappa_W_prime"] ** 2
        if kind == "coupled_local":  # lem:mixed_coupled_with_local_spectrum
            LA, mt = f["L_A"], f["mu_tilde_AC"]
            hi = LA + s["alpha"] ** 2 * s["L_W"] + s["beta"] ** 2 * s["L_C_prime"]
            lo = mt / 4 if mt > 0 else LA
            return lo, hi
        if kind == "local":
            return f["mu_C"], f["L_C"]
        if kind == "consensus":
            return f["lambda_min_W"], f["lambda_max_W"]
        if kind == "shared":  # lem:coupled_spectrum applied to C̃ᵀ
            L, lS = f["L_Ct"], f["lambda_min_S_Ct"]
            return lS / 2, L + (L + lS) * s["kappa_W_prime"] ** 2
        if kind == "shared_identical":  # lem:local_spectrum, γ = 1
            return min(s["mu_Ct_prime"], s["mu_W"]), s["L_Ct_prime"] + s["L_W"]
        raise AssertionError(kind)

    def _block_entries(self) -> list[tuple[str, str, slice, tuple]]:
        out = []
        if self.x_kind in ("coupled", "coupled_local"):
            out.append(("x", self.x_kind, slice(0, self.dx + self.n * self.m), (self.dx + self.n * self.m,)))
        elif self.x_kind == "local":
            out.append(("x", "local", self.sx, (self.dx,)))
        if self.t_kind is not None:
            out.append(("t", self.t_kind, self.st, (self.n, self.dt)))
        return out

    def _set_up_blocks(self) -> None:
        exact = self.spectra == "exact"
        blocks = {}
        for key, kind, sl, shape in self._block_entries():
            lo, hi = self._raw_interval_lemma(kind)
            b = {"kind": kind, "slice": sl, "shape": shape, "raw_interval_lemma": _interval(lo, hi)}
            if exact:
                ops = self._ops(self.setup_orc)
                N = _dense_operator(lambda v, k=kind: self._N(ops, k, v), shape, int(np.prod(shape)))
                lo, hi = _extremes(N, f"BᵀB[{kind}]")
                b["raw_interval_exact"] = _interval(lo, hi)
            b["raw_interval"] = _interval(lo, hi)
            outer = self.cheb and kind != "shared_identical"
            b["outer"] = outer
            if outer:
                deg = chebyshev_degree(hi, lo)
                b["degree"] = deg
                flo, fhi = chebyshev_interval(hi, lo, deg)
                b["interval_lemma"] = _interval(flo, fhi)
                if exact:
                    ops = self._ops(self.setup_orc)
                    ch = Chebyshev(lambda v, k=kind: self._N(ops, k, v), hi, lo, deg)
                    Mp = _dense_operator(ch.apply_P, shape, int(np.prod(shape)))
                    flo, fhi = _extremes(Mp, f"P(BᵀB)[{kind}]")
                    b["interval_exact"] = _interval(flo, fhi)
                b["interval"] = _interval(flo, fhi)
            else:
                b["degree"] = 1
                b["interval"] = _interval(lo, hi)
            blocks[key] = b
        self.blocks = blocks
        lo = min(b["interval"][0] for b in blocks.values())
        hi = max(b["interval"][1] for b in blocks.values())
        self.interval = (lo, hi)
        self.info["blocks"] = {k: {kk: vv for kk, vv in b.items() if kk not in ("slice", "shape")} for k, b in blocks.items()}
        self.info["interval"] = _interval(lo, hi)
        self.info["degrees"] = self.degrees()

    def degrees(self) -> dict:
        """Degree of every Chebyshev polynomial (1 = no polynomial)."""
        d = {}
        for k in ("W", "C", "Ct"):
            if k in self.inner:
                d[k] = self.inner[k]["degree"]
        for key, b in self.blocks.items():
            d[f"K_{key}"] = b["degree"]
        return d

    def _set_up_constants(self) -> None:
        obj = self.problem.objective
        L_f, mu_f = obj.L, obj.mu
        if self.has_A:
            kw = self.scal["kappa_W_prime"]
            mu_l, L_l = mu_f / 4, 2 * L_f * kw ** 2  # lem:conv_smooth_c_and_l as stated
        else:
            mu_l, L_l = mu_f, L_f
        c = {"L_f": L_f, "mu_f": mu_f, "L_G_lemma": L_l, "mu_G_lemma": mu_l}
        mode = self.constants
        if mode in ("bounds", "auto"):
            bc = bound_constants(self)
            c.update(L_G_bounds=bc["L"], mu_G_bounds=bc["mu"])
        if mode == "auto":
            mode, why, model = choose_constants(self, self.eps)
            c.update(choice=mode, reason=why, cost_model=model)
        if mode == "bounds":
            self.L_G, self.mu_G = c["L_G_bounds"], c["mu_G_bounds"]
        elif mode == "spectral":
            mu_s, L_s = spectral_constants(self)
            c.update(L_G_spectral=L_s, mu_G_spectral=mu_s)
            self.L_G, self.mu_G = L_s, mu_s
        elif mode == "exact":
            mu_e, L_e, mu_p = self._exact_constants()
            c.update(L_G_exact=L_e, mu_G_exact=mu_e)
            if mu_p is not None:
                c["mu_G_printed_subspace"] = mu_p
            self.L_G, self.mu_G = L_e, mu_e
        else:
            self.L_G, self.mu_G = L_l, mu_l
        c["L_G"], c["mu_G"] = self.L_G, self.mu_G
        self.info["constants_G"] = c

    def _exact_constants(self) -> tuple[float, float, float | None]:
        """Extreme eigenvalues of ∇²G on R^d × L_m^⊥ × R^{n d̃} (and μ on the printed 𝒴)."""
        P = self.problem
        obj = P.objective
        if not isinstance(obj, QuadraticObjective):
            raise ValueError("constants='exact' needs a quadratic objective (constant Hessian)")
        if self.size > EXACT_LIMIT:
            raise ValueError(f"constants='exact': {self.size} unknowns exceed EXACT_LIMIT={EXACT_LIMIT}")
        n, m, dx = self.n, self.m, self.dx
        H = np.zeros((self.size, self.size))
        iu = np.concatenate([np.arange(self.sx.start, self.sx.stop), np.arange(self.st.start, self.st.stop)])
        H[np.ix_(iu, iu)] = obj.Q.toarray()
        if not self.has_A:
            ev = np.linalg.eigvalsh(H)
            return float(ev[0]), float(ev[-1]), None
        ops = self._ops(self.setup_orc)
        Wd = _dense_operator(ops.Wp, (n,), n)
        J = np.zeros((n * m, self.size))
        J[:, self.sx] = P.bA.toarray()
        J[:, self.sy] = self.scal["alpha"] * np.kron(Wd, np.eye(m))
        H += self.scal["r"] * (J.T @ J)

        def restricted(basis_y):
            k = basis_y.shape[1]
            Bm = np.zeros((self.size, dx + k + n * self.dt))
            Bm[self.sx, :dx] = np.eye(dx)
            Bm[self.sy, dx:dx + k] = basis_y
            Bm[self.st, dx + k:] = np.eye(n * self.dt)
            return np.linalg.eigvalsh(Bm.T @ H @ Bm)

        U = sla.null_space(np.ones((1, n)))  # orthonormal basis of 1^⊥
        ev = restricted(np.kron(U, np.eye(m)))  # L_m^⊥ = {Σ_i y_i = 0}
        ev_p = restricted(sla.null_space(np.ones((1, n * m))))  # printed 𝒴 = {⟨y, 1⟩ = 0}
        return float(ev[0]), float(ev[-1]), float(ev_p[0])

    # ------------------------------------------------------------------ operators bound to an oracle object
    def _ops(self, orc: CountedOracles, *, materialize: bool = False) -> SimpleNamespace:
        """Inner operators ``W'``, ``C'``, ``C̃'`` bound to ``orc`` (main or scratch).

        With ``materialize`` (main operators only) ``W'`` becomes an ``n × n`` matrix and
        ``C'``, ``C̃'`` dense matrices when small, each counted as its recurrence.
        """
        if materialize:
            ops = self._ops(orc)
            sc = self._ops(self.scratch)
            if getattr(ops, "Wp", None) is not None and self.cheb and self._dense_W_prime_is_cheaper():
                ops.Wp = _MaterializedNodes(sc.Wp, self.scratch, orc, self.n)
            if "C" in self.inner and self.cheb:
                if self.dx <= MATERIALIZE_LIMIT:
                    ops.Cp = ops.CpT = _Materialized(sc.Cp, self.scratch, orc, (self.dx,), key=self._operator_key("C'"))
                else:
                    bC = self.problem.bC
                    m = _MaterializedSparse.build(sc.chC, normal_matrix(bC), sc.Cp, self.scratch, orc, (self.dx,), bC.nnz)
                    if m is not None:
                        ops.Cp = ops.CpT = m
            if "Ct" in self.inner and self.cheb and sc.Ctp is not None:
                if self.n * self.dt <= MATERIALIZE_LIMIT:
                    ops.Ctp = _Materialized(sc.Ctp, self.scratch, orc, (self.n, self.dt),
                                           key=self._operator_key("C̃'"))
                else:
                    bCt = self.problem.bCt
                    m = _MaterializedSparse.build(sc.chT, normal_matrix(bCt), sc.Ctp, self.scratch, orc, (self.n, self.dt),
                                                  bCt.nnz)
                    if m is not None:
                        ops.Ctp = m
            return ops
        ops = SimpleNamespace(orc=orc)
        if "W" in self.inner:
            e = self.inner["W"]
            if self.cheb:
                ops.Wp = Chebyshev(orc.comm, e["L"], e["mu"], e["degree"], name="W").apply_P
            else:
                ops.Wp = orc.comm
        if "C" in self.inner:
            e = self.inner["C"]
            if self.cheb:
                chC = Chebyshev(lambda x: orc.CT(orc.C(x)), e["L"], e["mu"], e["degree"], name="CᵀC")
                ops.Cp, ops.CpT, ops.chC = chC.apply_P, chC.apply_P, chC
                ops.c_prime = lambda: chC.rhs(orc.CT(self.problem.c_stacked))  # c' = P(CᵀC)(CᵀC)⁺Cᵀc
            else:
                ops.Cp, ops.CpT = orc.C, orc.CT
                ops.c_prime = lambda: self.problem.c_stacked
        if "Ct" in self.inner:
            e = self.inner["Ct"]
            if self.cheb:
                chT = Chebyshev(lambda X: orc.CtT(orc.Ct(X)), e["L"], e["mu"], e["degree"], name="C̃ᵀC̃")
                ops.Ctp, ops.chT = chT.apply_P, chT
                # B̃ᵀ(1⊗c̃'; 0) = 1⊗C̃'c̃',  c̃' = P(C̃ᵀC̃)(C̃ᵀC̃)⁺C̃ᵀc̃ (at every node)
                ops.Ct_rhs = lambda: chT.apply_P(chT.rhs(orc.CtT(self.problem.ct_stacked)))
            else:
                ops.Ctp = None
                ops.Ct_rhs = lambda: orc.CtT(self.problem.ct_stacked)
        return ops

    def _operator_key(self, role: str, kind: str | None = None, block: dict | None = None) -> tuple:
        """What a materialised operator is a function of: its memo key (:class:`mixbounds.solvers.materialize.
        MaterializedDense`, which also checks two columns bit for bit on a hit).

        ``role`` ``"C'"``: ``P_C(CᵀC)``, a function of ``C`` and its polynomial (interval, degree); ``"C̃'"``: the same
        of ``C̃``; ``"outer"``: the (outer polynomial of the) normal operator ``BᵀB`` of a block of ``kind``
        (:meth:`_N`), a function of the matrices, inner polynomials and scalings that block reads and of the block's
        interval and degree.  Nothing else enters (the objective and ``r`` do not: instances along a κ_f sweep share
        their materialised operators).
        """
        sc, s = self.scratch, self.scal

        def poly(name):
            e = self.inner.get(name)
            return None if e is None else (float(e["L"]), float(e["mu"]), int(e["degree"]))

        W = ("W'", poly("W"), sc._W)
        A = ("A", getattr(sc, "_bA", None), getattr(sc, "_bAT", None))
        C = ("C", poly("C"), getattr(sc, "_bC", None), getattr(sc, "_bCT", None))
        Ct = ("C̃", poly("Ct"), getattr(sc, "_bCt", None), getattr(sc, "_bCtT", None))
        x_dims, t_dims = (self.cheb, self.dx, self.n, self.m), (self.cheb, self.n, self.dt)
        if role == "C'":
            return (role, x_dims, C)
        if role == "C̃'":
            return (role, t_dims, Ct)
        reads = {"coupled": (x_dims, W, A, s.get("alpha")),
                 "coupled_local": (x_dims, W, A, C, s.get("alpha"), s.get("beta")),
                 "local": (x_dims, C), "consensus": (t_dims, ("W", sc._W)), "shared": (t_dims, W, Ct, s.get("gamma")),
                 "shared_identical": (t_dims, W, Ct)}[kind]
        outer = (bool(block["outer"]), _as_key(block["raw_interval"]), int(block["degree"]))
        return (role, kind, _as_key(block["shape"]), outer, reads)

    def _dense_W_prime_is_cheaper(self) -> bool:
        """The cost model of :func:`mixbounds.solvers.materialize.nodes_dense_is_cheaper` for ``W'`` on the
        node states it multiplies (``Y``: m columns; ``X̃``: d̃ columns; the wider one decides)."""
        cols = max(self.m if self.has_A else 0, self.dt if self.t_kind in ("shared", "shared_identical") else 0)
        return self.n <= MATERIALIZE_NODES and nodes_dense_is_cheaper(self.n, self.problem.W.nnz,
                                                                      self.inner["W"]["degree"], cols)

    def _N(self, ops: SimpleNamespace, kind: str, v: np.ndarray) -> np.ndarray:
        """Raw normal operator ``BᵀB v`` of a block (before the outer polynomial)."""
        orc = ops.orc
        if kind in ("coupled", "coupled_local"):
            dx, n, m = self.dx, self.n, self.m
            s = self.scal
            x, Y = v[:dx], v[dx:].reshape(n, m)
            e1 = orc.A(x)
            e1 += s["alpha"] * ops.Wp(Y)  # A x + αW'Y
            out = np.empty_like(v)
            out[:dx] = orc.AT(e1)
            if kind == "coupled_local":
                e2 = ops.Cp(x)
                out[:dx] += s["beta"] ** 2 * ops.CpT(e2)  # (βC')ᵀ(βC' x)
            out[dx:] = (s["alpha"] * ops.Wp(e1)).ravel()
            return out
        if kind == "local":
            return orc.CT(orc.C(v))
        if kind == "consensus":
            return orc.comm(v)
        if kind == "shared":
            out = orc.CtT(orc.Ct(v))
            out += self.scal["gamma"] ** 2 * ops.Wp(ops.Wp(v))
            return out
        if kind == "shared_identical":
            if ops.Ctp is not None:
                out = ops.Ctp(ops.Ctp(v))
            else:
                out = orc.CtT(orc.Ct(v))
            out += ops.Wp(ops.Wp(v))
            return out
        raise AssertionError(kind)

    def _Btb(self, ops: SimpleNamespace, kind: str) -> np.ndarray:
        """Raw ``Bᵀb`` of a block (counted: a decentralized method computes it too)."""
        orc, P = ops.orc, self.problem
        if kind in ("coupled", "coupled_local"):
            dx, n, m = self.dx, self.n, self.m
            s = self.scal
            bY = P.b_stacked.reshape(n, m)
            out = np.empty(dx + n * m)
            out[:dx] = orc.AT(bY)
            if kind == "coupled_local":
                out[:dx] += s["beta"] ** 2 * ops.CpT(ops.c_prime())  # (βC')ᵀ(βc')
            out[dx:] = (s["alpha"] * ops.Wp(bY)).ravel()
            return out
        if kind == "local":
            return orc.CT(P.c_stacked)
        if kind == "consensus":
            return np.zeros((self.n, self.dt))
        if kind == "shared":
            return orc.CtT(P.ct_stacked)
        if kind == "shared_identical":
            return ops.Ct_rhs()
        raise AssertionError(kind)

    def _bind_main(self) -> None:
        ops = self._ops(self.orc, materialize=self.materialize)
        self._main_ops = ops
        entries = []
        rhs = np.zeros(self.size)
        materialized = []
        for key, b in self.blocks.items():
            kind, sl, shape = b["kind"], b["slice"], b["shape"]
            N = (lambda v, k=kind: self._N(ops, k, v))
            Btb = self._Btb(ops, kind)
            if b["outer"]:
                lo, hi = b["raw_interval"]
                ch = Chebyshev(N, hi, lo, b["degree"], name=f"BᵀB[{kind}]")
                M = ch.apply_P
                r = ch.rhs(Btb) if np.any(Btb) else np.zeros_like(Btb)
            else:
                M, r = N, Btb
            if self.materialize and self.cheb and int(np.prod(shape)) <= MATERIALIZE_LIMIT:
                sc = self._ops(self.scratch)
                Ns = (lambda v, k=kind: self._N(sc, k, v))
                Ms = Chebyshev(Ns, hi, lo, b["degree"], name=f"BᵀB[{kind}]").apply_P if b["outer"] else Ns
                M = _Materialized(Ms, self.scratch, self.orc, shape, key=self._operator_key("outer", kind, b))
                materialized.append(kind)
            rhs[sl] = np.asarray(r).ravel()
            entries.append((sl, shape, M))
        self.normal_rhs = rhs
        self._entries = entries
        self.info["materialized"] = {"W'": isinstance(getattr(ops, "Wp", None), _MaterializedNodes),
                                     "C'": isinstance(getattr(ops, "Cp", None), (_Materialized, _MaterializedSparse)),
                                     "C̃'": isinstance(getattr(ops, "Ctp", None), (_Materialized, _MaterializedSparse)),
                                     "outer": materialized}
        covered = sum(sl.stop - sl.start for sl, _, _ in entries)
        self._single = len(entries) == 1 and covered == self.size
        self._zero_slices = [self.sx] if self.x_kind == "free" else []
        self._w_is_u = self.dx == 0 or (self.dt == 0 and not self.has_A)

    # ------------------------------------------------------------------ what APAPC uses
    def apply_normal(self, w: np.ndarray) -> np.ndarray:
        """``P(BᵀB) w`` (or ``BᵀB w`` without Chebyshev), block by block; a new array."""
        if self._single:
            sl, shape, M = self._entries[0]
            return np.asarray(M(w.reshape(shape))).reshape(-1)
        out = np.empty_like(w)
        for sl, shape, M in self._entries:
            out[sl] = np.asarray(M(w[sl].reshape(shape))).ravel()
        for sl in self._zero_slices:
            out[sl] = 0.0
        return out

    def grad_G(self, w: np.ndarray) -> np.ndarray:
        """``∇G(w)``: one ``grad`` round, plus (with A) two ``A`` and two ``W'`` applications."""
        orc = self.orc
        if self._w_is_u:
            return orc.grad(w)
        sx, st = self.sx, self.st
        x = w[sx]
        u = x if self.dt == 0 else np.concatenate([x, w[st]])
        g = orc.grad(u)
        out = np.empty_like(w)
        out[sx] = g[: self.dx]
        out[st] = g[self.dx:]
        if self.has_A:
            s = self.scal
            Wp = self._main_ops.Wp
            e = orc.A(x)
            e += s["alpha"] * Wp(w[self.sy].reshape(self.n, self.m))
            e -= self.problem.b_stacked.reshape(self.n, self.m)
            out[sx] += s["r"] * orc.AT(e)
            out[self.sy] = (s["r"] * s["alpha"] * Wp(e)).ravel()
        else:
            out[self.sy] = 0.0
        return out

    def to_u(self, w: np.ndarray) -> np.ndarray:
        """Original variables ``(x, X̃)`` in the u-layout."""
        return np.concatenate([w[self.sx], w[self.st]])

    def from_u(self, u: np.ndarray) -> np.ndarray:
        """Start ``w⁰ = (x⁰, Y = 0, X̃⁰)`` from a u-layout point."""
        u = np.asarray(u, dtype=float).ravel()
        size_u = self.dx + self.n * self.dt
        if u.shape != (size_u,):
            raise ValueError(f"from_u: expected a u-layout vector of length {size_u}, got shape {u.shape}")
        w = np.zeros(self.size)
        w[self.sx] = u[: self.dx]
        w[self.st] = u[self.dx:]
        return w

    def sq_distance(self, w: np.ndarray, u_star: np.ndarray) -> float:
        """``‖(x, X̃)(w) − u*‖²`` without forming the u-layout vector."""
        dx = self.dx
        if self._diff is None:
            self._diff = np.empty(dx + self.n * self.dt)
        s = 0.0
        if dx:
            d = np.subtract(w[self.sx], u_star[:dx], out=self._diff[:dx])
            s += dot(d, d)
        if self.dt:
            d = np.subtract(w[self.st], u_star[dx:], out=self._diff[dx:])
            s += dot(d, d)
        return s

    def per_iteration_counts(self) -> dict:
        """Oracle rounds of one APAPC iteration implied by the degrees (for reports; tests recompute it)."""
        d = self.degrees()
        dW = d.get("W", 1)
        c = {"grad": 1, "A": 0, "C": 0, "Ct": 0, "comm": 0}
        if self.has_A:
            c["A"] += 2
            c["comm"] += 2 * dW
        for key, b in self.blocks.items():
            K, kind = b["degree"], b["kind"]
            if kind in ("coupled", "coupled_local"):
                c["A"] += 2 * K
                c["comm"] += 2 * dW * K
                if kind == "coupled_local":
                    c["C"] += (4 * d["C"] if self.cheb else 2) * K
            elif kind == "local":
                c["C"] += 2 * K
            elif kind == "consensus":
                c["comm"] += K
            elif kind == "shared":
                c["Ct"] += 2 * K
                c["comm"] += 2 * dW * K
            elif kind == "shared_identical":
                c["Ct"] += 4 * d["Ct"] if self.cheb else 2
                c["comm"] += 2 * dW
        return c

    def describe(self) -> dict:
        """Everything a report needs: degrees, α, β, γ, r, L_G, μ_G, spectral intervals."""
        info = dict(self.info)
        info["per_iteration_counts"] = self.per_iteration_counts()
        info["L_G"], info["mu_G"] = self.L_G, self.mu_G
        for k in ("alpha", "beta", "gamma", "r"):
            if k in self.scal:
                info[k] = self.scal[k]
        return info
