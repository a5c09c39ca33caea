"""A user's method: the contract, and how the suite drives it (docs/design.md, "A user's method (contract)").

A **method** is a generator function ``method(problem, oracles)`` that yields its current primal
estimate after every iteration::

    def my_method(problem, oracles):
        X = np.zeros((problem.n, problem.dt))            # consensus class: one copy of x̃ per node
        while True:
            X = X - oracles.grad(X.ravel()).reshape(X.shape) / problem.L_f - ...
            yield X.ravel()                                # u-layout: (x_1, …, x_n, x̃_1, …, x̃_n)

* ``problem`` is a :class:`ProblemView`: sizes, layout, the right-hand sides ``b``, ``c``, ``c̃`` and
  the constants the paper's methods use (``L_f``, ``μ_f``, extreme eigenvalues of ``W``, extreme
  singular values of the ``A``, ``C``, ``C̃`` blocks, Definitions ``def:mixed_condition_number`` and
  ``def:projected_condition_number``) — never a matrix, so every product goes through a counter.
* ``oracles`` is a :class:`MethodOracles`: the counted operators of the suite's own solvers
  (:class:`mixbounds.solvers.oracles.OracleSurface`, Definition ``def:foda``: one call = one round at
  every node): ``grad``, ``A``/``AT``, ``C``/``CT``, ``Ct``/``CtT``, ``comm``.
* A method may declare the problem classes it supports with an attribute ``classes`` (a tuple of
  class names: ``consensus``, ``coupled``, ``shared``, ``coupled_local``, ``mixed``); without it, it is
  run on every class asked for.
* The suite (:func:`run_method`) computes the relative squared error ``‖u_k − u*‖²/‖u*‖²`` of every
  yielded estimate, reads the counters after each ``yield``, and stops the generator once the error
  has settled below the accuracy (the stop rule of the suite's solvers, :class:`mixbounds.solvers.baselines._common.Run`)
  or at the budget.  A method that raises, yields a wrong shape or a non-finite value, diverges,
  returns, or exceeds the budget gets a run with ``converged=False`` and a ``reason`` saying which.
* Keyword arguments (``mixbounds bench --method-arg KEY=VALUE``) are passed as ``method(problem, oracles, **kw)``.
* A method written as a loop, ``def run(problem, oracles, callback)`` calling ``callback(x)`` once per iteration,
  becomes a method with :func:`from_loop` (:mod:`mixbounds.loop_method`).

Threading: the oracles are plain counters (no locks).  Call them from one thread at a time, and only between two
yields of the iteration they belong to: the suite reads the counters right after each ``yield`` (or ``callback``),
while the method is suspended.  A method that starts threads of its own must have them finish their oracle calls
before it yields; :func:`from_loop` runs the loop in one worker thread and the suite's thread waits while it runs,
so its counts are exact.

The fields and operators, with their shapes and the paper's notation, are tabulated by :func:`contract_table`
(the table of the method designer's guide, tested against this module).
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import sys
import traceback
import weakref
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Callable, Iterable, cast

import numpy as np

from mixbounds.bounds.concepts import METHOD_CLASSES, Matrix, Oracle
from mixbounds.bounds.condition import gossip_spectrum, group_spectrum, interaction_extremes, projected_kappa
from mixbounds.instances.json_file import JSONFileError, loads
from mixbounds.instances.problem import MixedProblem
from mixbounds.isolation import (  # noqa: F401  (the method limits, re-exported: the contract's page names them here)
    METHOD_MAX_ITER,
    METHOD_TIMEOUT_MAX_S,
    METHOD_TIMEOUT_S,
    YIELD_TIMEOUT_MAX_S,
    YIELD_TIMEOUT_S,
    call_isolated,
)
from mixbounds.loop_method import StopLoop, from_loop
from mixbounds.solvers.baselines._common import Run
from mixbounds.solvers.oracles import CountedOracles, OracleSurface
from mixbounds.solvers.result import SolveResult

#: the problem classes a user's method can be measured on (those with a worst-case construction, Table 1)
#: entry-point group under which installed packages register methods by name
ENTRY_POINT_GROUP = "mixbounds.methods"


@dataclass(frozen=True)
class ProblemView:
    """What a method may know about problem (P) (``prob:opt_mixed_constraints_intro``): no matrices.

    Sizes: ``n`` nodes, local dimensions ``d`` (``d_i``), shared dimension ``dt`` (``d̃``), ``dx = Σ d_i``,
    ``size = dx + n·dt`` (length of a u-layout vector), ``m`` rows of every ``A_i`` (0 without ``A``).
    Vectors: ``b`` (``(n, m)``: ``b_i``), ``c`` (stacked ``c_i``), ``ct`` (stacked ``c̃_i``); ``None`` when absent.
    Constants (set-up knowledge, as for the suite's solvers; ``None`` when the block is absent):
    ``L_f``, ``mu_f``, ``kappa_f``; ``lambda_max_W``, ``lambda_min_W`` (λ_min+), ``kappa_W``;
    ``L_A = max_i σ_max²(A_i)``, ``lambda_max_S_A``, ``lambda_min_S_A`` (of ``S_A = (1/n)Σ A_iA_iᵀ``,
    ``lem:coupled_spectrum``); ``L_C = max_i σ_max²(C_i)``, ``mu_C = min_i σ_min+²(C_i)``;
    ``L_Ct = max_i σ_max²(C̃_i)``, ``lambda_max_S_Ct``, ``lambda_min_S_Ct`` (of ``(1/n)Σ C̃_iᵀC̃_i``);
    ``mu_tilde_AC`` (``def:projected_condition_number``).
    """

    problem_class: str
    n: int
    d: tuple[Any, ...]
    dt: int
    dx: int
    size: int
    m: int
    L_f: float
    mu_f: float
    kappa_f: float
    lambda_max_W: float
    lambda_min_W: float
    kappa_W: float
    b: np.ndarray | None = None
    c: np.ndarray | None = None
    ct: np.ndarray | None = None
    L_A: float | None = None
    lambda_max_S_A: float | None = None
    lambda_min_S_A: float | None = None
    L_C: float | None = None
    mu_C: float | None = None
    L_Ct: float | None = None
    lambda_max_S_Ct: float | None = None
    lambda_min_S_Ct: float | None = None
    mu_tilde_AC: float | None = None

    def split(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """u-layout vector → (flat ``x`` of length ``dx``, ``X̃`` of shape ``(n, dt)``).

        Parameters
        ----------
        u : numpy.ndarray
            A vector in the u-layout, of length ``size``.

        Returns
        -------
        tuple of numpy.ndarray
            ``(x, X̃)``: the flat ``x`` of length ``dx`` and ``X̃`` of shape ``(n, dt)`` (views of ``u``).
        """
        u = np.asarray(u, dtype=float).ravel()
        return u[: self.dx], u[self.dx:].reshape(self.n, self.dt)

    def join(self, x: np.ndarray, Xt: np.ndarray) -> np.ndarray:
        """(flat ``x``, ``X̃``) → u-layout vector of length ``size``.

        Parameters
        ----------
        x : numpy.ndarray
            The flat ``x`` (length ``dx``).
        Xt : numpy.ndarray
            ``X̃``, any shape holding ``n·dt`` entries.

        Returns
        -------
        numpy.ndarray
            The u-layout vector of length ``size``.
        """
        return np.concatenate([np.asarray(x, float).ravel(), np.asarray(Xt, float).ravel()])

    @classmethod
    def of(cls, problem: MixedProblem) -> "ProblemView":
        """The view of a :class:`~mixbounds.instances.problem.MixedProblem` (constants computed, not counted).

        Parameters
        ----------
        problem : mixbounds.instances.problem.MixedProblem
            The instance.

        Returns
        -------
        ProblemView
            Its sizes, constants (``L_f``, ``μ_f``, the spectra of ``W``, ``A``, ``C``, ``C̃``) and right-hand sides,
            read-only.
        """
        lay, obj = problem.layout, problem.objective
        L_f, mu_f = float(cast(float, obj.L)), float(cast(float, obj.mu))
        g = gossip_spectrum(problem.W)
        kw: dict[str, Any] = dict(problem_class=problem.problem_class, n=problem.n, d=tuple(lay.d), dt=lay.dt, dx=lay.dx,
                  size=lay.size, m=problem.m if problem.A is not None else 0, L_f=L_f, mu_f=mu_f,
                  kappa_f=float(L_f / mu_f) if mu_f > 0 else math.inf, lambda_max_W=float(g.lmax),
                  lambda_min_W=float(g.lmin_pos), kappa_W=float(g.kappa))
        if problem.A is not None:
            S = interaction_extremes(problem.A)
            kw.update(b=problem.b_stacked.reshape(problem.n, problem.m).copy(),
                      L_A=float(group_spectrum(problem.A, name=Matrix.A).L), lambda_max_S_A=float(S.lmax),
                      lambda_min_S_A=float(S.lmin_pos))
        if problem.C is not None:
            gc = group_spectrum(problem.C, kernels=problem.C_kernels, name=Matrix.C)
            kw.update(c=problem.c_stacked.copy(), L_C=float(gc.L), mu_C=float(gc.mu))
        if problem.Ct is not None:
            St = interaction_extremes(problem.Ct, transpose=True)
            kw.update(ct=problem.ct_stacked.copy(), L_Ct=float(group_spectrum(problem.Ct, name="C̃").L),
                      lambda_max_S_Ct=float(St.lmax), lambda_min_S_Ct=float(St.lmin_pos))
        if problem.A is not None and problem.C is not None:
            kw["mu_tilde_AC"] = float(projected_kappa(problem.A, problem.C, D_kernels=problem.C_kernels).mu)
        for k in ("b", "c", "ct"):
            if kw.get(k) is not None:
                kw[k].setflags(write=False)
        return cls(**kw)


#: the contract's fields, one row each of :func:`contract_table`: field → (type and shape, what it is, the paper's
#: notation).  ``tests/test_byom.py`` checks that every field of :class:`ProblemView` has a row and no row is stale.
VIEW_FIELDS = {
    "problem_class": ("str", "the class: consensus, coupled, shared, coupled_local, mixed", "Table 1 rows"),
    "n": ("int", "number of nodes", "n"),
    "d": ("tuple of n ints", "local dimensions", "d_i"),
    "dt": ("int", "dimension of the shared variable (0 without one)", "d̃"),
    "dx": ("int", "length of the flat local part x", "Σ d_i"),
    "size": ("int", "length of a u-layout vector (x_1, …, x_n, x̃_1, …, x̃_n): what a method yields",
             "Σ d_i + n·d̃"),
    "m": ("int", "rows of every A_i (0 without coupled constraints)", "m"),
    "L_f": ("float", "smoothness of every f_i", "L_f"),
    "mu_f": ("float", "strong convexity of every f_i", "μ_f"),
    "kappa_f": ("float", "condition number of f", "κ_f = L_f/μ_f"),
    "lambda_max_W": ("float", "largest eigenvalue of the gossip matrix W", "λ_max(W)"),
    "lambda_min_W": ("float", "smallest *positive* eigenvalue of W", "λ_min⁺(W)"),
    "kappa_W": ("float", "condition number of W", "κ_W = λ_max(W)/λ_min⁺(W)"),
    "b": ("(n, m) array or None", "right-hand sides of the coupled constraint, row i is b_i (read-only)",
          "Σ A_i x_i = Σ b_i"),
    "c": ("(Σ p_i,) array or None", "stacked right-hand sides of the local constraints (read-only)", "C_i x_i = c_i"),
    "ct": ("(Σ p̃_i,) array or None", "stacked right-hand sides of the shared constraints (read-only)",
           "C̃_i x̃ = c̃_i"),
    "L_A": ("float or None", "largest squared singular value of the A_i", "max_i σ_max²(A_i)"),
    "lambda_max_S_A": ("float or None", "largest eigenvalue of S_A (carries the factor 1/n)",
                       "λ_max(S_A), S_A = (1/n)Σ A_iA_iᵀ (lem:coupled_spectrum)"),
    "lambda_min_S_A": ("float or None", "smallest positive eigenvalue of S_A", "λ_min⁺(S_A)"),
    "L_C": ("float or None", "largest squared singular value of the C_i", "max_i σ_max²(C_i)"),
    "mu_C": ("float or None", "smallest positive squared singular value of the C_i", "min_i σ_min⁺²(C_i)"),
    "L_Ct": ("float or None", "largest squared singular value of the C̃_i", "max_i σ_max²(C̃_i)"),
    "lambda_max_S_Ct": ("float or None", "largest eigenvalue of (1/n)Σ C̃_iᵀC̃_i", "λ_max((1/n)Σ C̃_iᵀC̃_i)"),
    "lambda_min_S_Ct": ("float or None", "smallest positive eigenvalue of (1/n)Σ C̃_iᵀC̃_i",
                        "λ_min⁺((1/n)Σ C̃_iᵀC̃_i)"),
    "mu_tilde_AC": ("float or None", "the projected constant of A on the kernel of C (coupled + local classes)",
                    "μ̃_AC (def:projected_condition_number)"),
}
#: the operators, one row each of :func:`contract_table`: name → (input, output, counted as, the paper's notation)
ORACLE_ROWS = {
    Oracle.GRAD: ("u (size,)", "(size,) u-layout", "1 grad", "(∇f_i(x_i, x̃_i))_i"),
    Oracle.A: ("x (dx,)", "(n, m)", "1 A", "(A_i x_i)_i"),
    "AT": ("Y (n, m)", "(dx,)", "1 A (a product by Aᵀ is one A)", "(A_iᵀ y_i)_i"),
    Oracle.C: ("x (dx,)", "(Σ p_i,) stacked", "1 C", "(C_i x_i)_i"),
    "CT": ("v (Σ p_i,)", "(dx,)", "1 C", "(C_iᵀ v_i)_i"),
    Oracle.CT: ("X̃ (n, dt)", "(Σ p̃_i,) stacked", "1 Ct", "(C̃_i x̃_i)_i"),
    "CtT": ("v (Σ p̃_i,)", "(n, dt)", "1 Ct", "(C̃_iᵀ v_i)_i"),
    Oracle.COMM: ("Y (n,) or (n, k)", "same shape", "1 comm (any k: one round carries k columns)",
             "W Y along the node axis"),
}


def contract_table() -> str:
    """The method contract on one page: Markdown tables of every :class:`ProblemView` field and every
    :class:`MethodOracles` operator (the method designer's guide shows exactly this text; ``tests/test_byom.py``).

    Returns
    -------
    str
        Markdown: one table of the fields, one of the operators.
    """
    out = ["| `ProblemView` field | type, shape | meaning | paper |", "|---|---|---|---|"]
    out += [f"| `{k}` | {t} | {what} | {paper} |" for k, (t, what, paper) in VIEW_FIELDS.items()]
    out += ["", "| `MethodOracles` operator | input | output | counted as | paper |", "|---|---|---|---|---|"]
    out += [f"| `{k}` | {i} | {o} | {c} | {paper} |" for k, (i, o, c, paper) in ORACLE_ROWS.items()]
    return "\n".join(out) + "\n"


#: the counted oracles behind each MethodOracles (not an attribute of it: a method sees only the operators)
_COUNTED: "weakref.WeakKeyDictionary[MethodOracles, OracleSurface]" = weakref.WeakKeyDictionary()


class MethodOracles:
    """The counted oracles a method may call (each call is one round at every node, ``def:foda``).

    Shapes: ``u`` a u-layout vector (length ``problem.size``); ``x`` flat of length ``problem.dx``;
    ``Y`` of shape ``(n, m)``; ``X̃`` of shape ``(n, dt)``; ``v`` the stacked ``C_i x_i`` (or ``C̃_i x̃_i``).
    The operators are all it has: the counted oracles (and through them the instance) are held outside the
    object, and the suite runs a method in a process of its own (:func:`mixbounds.bench_method.method_point`),
    so whatever a method reaches there is a copy.
    """

    __slots__ = ("__weakref__",)

    def __init__(self, counted: OracleSurface):
        _COUNTED[self] = counted

    def grad(self, u: np.ndarray) -> np.ndarray:
        """``u`` (size,) → ``(∇f_i(x_i, x̃_i))_i`` in the u-layout (size,); one ``grad``.

        Parameters
        ----------
        u : numpy.ndarray
            The point, in the u-layout (size,).

        Returns
        -------
        numpy.ndarray
            The gradients of the local objectives, in the u-layout (size,).
        """
        return _COUNTED[self].grad(np.asarray(u, dtype=float).ravel())

    def A(self, x: np.ndarray) -> np.ndarray:
        """``x`` (dx,) → ``(A_i x_i)_i`` of shape (n, m); one ``A``.

        Parameters
        ----------
        x : numpy.ndarray
            The flat ``x`` (dx,).

        Returns
        -------
        numpy.ndarray
            ``(A_i x_i)_i``, shape (n, m).
        """
        return _COUNTED[self].A(x)

    def AT(self, Y: np.ndarray) -> np.ndarray:
        """``Y`` (n, m) → ``(A_iᵀ y_i)_i`` flat (dx,); one ``A``.

        Parameters
        ----------
        Y : numpy.ndarray
            One row per node, shape (n, m).

        Returns
        -------
        numpy.ndarray
            ``(A_iᵀ y_i)_i``, flat (dx,).
        """
        return _COUNTED[self].AT(Y)

    def C(self, x: np.ndarray) -> np.ndarray:
        """``x`` (dx,) → stacked ``(C_i x_i)_i``; one ``C``.

        Parameters
        ----------
        x : numpy.ndarray
            The flat ``x`` (dx,).

        Returns
        -------
        numpy.ndarray
            The stacked ``(C_i x_i)_i``.
        """
        return _COUNTED[self].C(x)

    def CT(self, v: np.ndarray) -> np.ndarray:
        """stacked ``v`` → ``(C_iᵀ v_i)_i`` flat (dx,); one ``C``.

        Parameters
        ----------
        v : numpy.ndarray
            Stacked per node, as :meth:`C` returns it.

        Returns
        -------
        numpy.ndarray
            ``(C_iᵀ v_i)_i``, flat (dx,).
        """
        return _COUNTED[self].CT(v)

    def Ct(self, Xt: np.ndarray) -> np.ndarray:
        """``X̃`` (n, dt) → stacked ``(C̃_i x̃_i)_i``; one ``Ct``.

        Parameters
        ----------
        Xt : numpy.ndarray
            ``X̃``, shape (n, dt).

        Returns
        -------
        numpy.ndarray
            The stacked ``(C̃_i x̃_i)_i``.
        """
        return _COUNTED[self].Ct(Xt)

    def CtT(self, v: np.ndarray) -> np.ndarray:
        """stacked ``v`` → ``(C̃_iᵀ v_i)_i`` of shape (n, dt); one ``Ct``.

        Parameters
        ----------
        v : numpy.ndarray
            Stacked per node, as :meth:`Ct` returns it.

        Returns
        -------
        numpy.ndarray
            ``(C̃_iᵀ v_i)_i``, shape (n, dt).
        """
        return _COUNTED[self].CtT(v)

    def comm(self, Y: np.ndarray) -> np.ndarray:
        """``Y`` (n,) or (n, k) → ``W Y`` along the node axis, same shape; one ``comm``.

        Parameters
        ----------
        Y : numpy.ndarray
            One row per node, shape (n,) or (n, k).

        Returns
        -------
        numpy.ndarray
            ``W Y``, the same shape.
        """
        return _COUNTED[self].comm(Y)


# ----------------------------------------------------------------------------- resolving a method
class MethodError(ValueError):
    """A method specification that cannot be used (one line, naming the specification)."""


def _is_generator_function(fn: object) -> bool:
    if inspect.isgeneratorfunction(fn):
        return True
    call = getattr(fn, "__call__", None)  # noqa: B004 - a callable object whose __call__ is a generator function
    return call is not None and inspect.isgeneratorfunction(call)


def resolve(spec: str, *, add_cwd: bool = True) -> Callable[..., Any]:
    """The method a specification names, checked against the contract.

    Parameters
    ----------
    spec : str
        ``"MODULE:FUNCTION"`` (``FUNCTION`` may be dotted: ``Class.method``), imported with the current directory
        first on ``sys.path`` as ``python -m`` does; or the name of an entry point of group
        :data:`ENTRY_POINT_GROUP` (``mixbounds bench --method NAME``).
    add_cwd : bool
        Put the current directory first on ``sys.path`` while ``MODULE`` is imported.

    Returns
    -------
    Callable
        The generator function (:func:`check_method` passed).

    Raises
    ------
    MethodError
        When the module does not import, has no such attribute, the entry point does not load, or the object is
        not callable or not a generator function (one line, naming ``spec``).

    Notes
    -----
    The current directory is put first only while ``MODULE`` is imported: worker processes inherit ``sys.path``,
    and a directory the user left on it would outlive the import in every worker (a worker finds ``MODULE`` through
    the directory its task carries, :mod:`mixbounds.bench_method`).
    """
    if ":" not in spec:
        eps = [e for e in entry_points(group=ENTRY_POINT_GROUP) if e.name == spec]
        if not eps:
            raise MethodError(f"method {spec!r}: not MODULE:FUNCTION and no entry point of that name in group "
                              f"{ENTRY_POINT_GROUP!r}")
        try:
            fn = eps[0].load()
        except Exception as exc:  # noqa: BLE001 - reported as one line
            raise MethodError(f"method {spec!r}: entry point {eps[0].value!r} does not load: "
                              f"{type(exc).__name__}: {exc}") from None
        return check_method(fn, spec)
    mod_name, _, attr = spec.partition(":")
    if not mod_name or not attr:
        raise MethodError(f"method {spec!r}: expected MODULE:FUNCTION")
    try:
        cwd = os.getcwd()
    except FileNotFoundError:
        raise MethodError(f"method {spec!r}: the current directory no longer exists") from None
    added = add_cwd and cwd not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        obj = importlib.import_module(mod_name)
    except Exception as exc:  # noqa: BLE001
        raise MethodError(f"method {spec!r}: module {mod_name!r} does not import: "
                          f"{type(exc).__name__}: {exc}") from None
    finally:
        if added:
            sys.path.remove(cwd)
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise MethodError(f"method {spec!r}: module {mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return check_method(obj, spec)


def probe(spec: str, *, timeout: float | None = None, kwargs: dict[str, Any] | None = None) -> tuple[str, ...] | None:
    """Resolve ``spec`` in a process of its own (:func:`mixbounds.isolation.call_isolated`) and return the classes
    the method declares (``None``: every class); :class:`MethodError` with one line when it does not resolve —
    including a module that calls ``sys.exit`` at import, crashes, or does not import within ``timeout``
    seconds — or does not accept the keyword arguments ``kwargs`` (:func:`check_kwargs`).  The caller's process
    never runs the user's code.

    Parameters
    ----------
    spec : str
        The method specification (``module:function``, ``path.py:function`` or an entry point name).
    timeout : float, optional
        Seconds the resolution may take (default :data:`METHOD_TIMEOUT_S`).
    kwargs : dict, optional
        The method arguments the method must accept.

    Returns
    -------
    tuple of str or None
        The classes the method declares; ``None`` when it declares none (every class).

    Raises
    ------
    MethodError
        When the method does not resolve or does not accept ``kwargs``.
    """
    def resolve_classes() -> tuple[str, Any]:
        try:
            fn = resolve(spec)
            check_kwargs(fn, kwargs or {}, spec)
            return "ok", declared_classes(fn)
        except MethodError as exc:
            return "bad", str(exc)

    out = call_isolated(resolve_classes, METHOD_TIMEOUT_S if timeout is None else timeout,
                        limit_name="--method-timeout")
    if not out.ok:
        raise MethodError(f"method {spec!r}: resolving it failed: {out.reason}")
    kind, value = cast("tuple[str, Any]", out.value)
    if kind == "bad":
        raise MethodError(str(value))
    return cast("tuple[str, ...] | None", value)


def check_method(fn: Any, name: str) -> Callable[..., Any]:
    """``fn`` itself if it follows the contract: a generator function (or a callable object with one as ``__call__``).

    Parameters
    ----------
    fn : object
        The candidate method.
    name : str
        How the user named it (for the error message).

    Returns
    -------
    Callable
        ``fn``, unchanged.

    Raises
    ------
    MethodError
        When ``fn`` is not callable, not a generator function, or declares a class outside
        :data:`METHOD_CLASSES`.
    """
    if not callable(fn):
        raise MethodError(f"method {name!r}: not callable ({type(fn).__name__})")
    if not _is_generator_function(fn):
        raise MethodError(f"method {name!r}: not a generator function (it must `yield` its estimate after "
                          f"every iteration)")
    classes = declared_classes(fn)
    if classes is not None:
        bad = [c for c in classes if c not in METHOD_CLASSES]
        if bad:
            raise MethodError(f"method {name!r}: declares unknown classes {bad} (known: {', '.join(METHOD_CLASSES)})")
    return cast("Callable[..., Any]", fn)


def parse_method_args(items: Iterable[object] | None) -> dict[str, Any]:
    """``--method-arg KEY=VALUE`` items → ``{KEY: VALUE}``, VALUE read as JSON when it is JSON (``3``, ``0.5``,
    ``true``, ``"text"``), else kept as the string; :class:`MethodError` (one line) for a malformed or repeated
    item.

    Parameters
    ----------
    items : iterable of str, optional
        The ``KEY=VALUE`` items, as given on the command line.

    Returns
    -------
    dict
        ``{KEY: VALUE}``.

    Raises
    ------
    MethodError
        For a malformed or repeated item.
    """
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, val = str(item).partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise MethodError(f"--method-arg {item!r}: expected KEY=VALUE with KEY a Python identifier, e.g. "
                              f"--method-arg step=0.5")
        if key in out:
            raise MethodError(f"--method-arg {key}: given twice")
        try:
            out[key] = loads(val, f"--method-arg {key}")
        except JSONFileError:
            out[key] = val
    return out


def check_kwargs(fn: Any, kwargs: dict[str, Any], name: str) -> None:
    """:class:`MethodError` (one line) unless ``fn(problem, oracles, **kwargs)`` binds — for a :func:`from_loop`
    method, ``fn.loop(problem, oracles, callback, **kwargs)``.

    Parameters
    ----------
    fn : callable
        The method (or a :func:`from_loop` wrapper).
    kwargs : dict
        The method arguments.
    name : str
        How the user named the method (for the error message).

    Raises
    ------
    MethodError
        When the call would not bind.
    """
    target, lead = (fn.loop, 3) if callable(getattr(fn, "loop", None)) else (fn, 2)
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):  # no signature to check (a builtin): the call itself will say
        return
    try:
        sig.bind(*([None] * lead), **kwargs)
    except TypeError as exc:
        given = ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "none"
        raise MethodError(f"method {name!r}: does not accept the method arguments ({given}): {exc}") from None


def declared_classes(fn: object) -> tuple[str, ...] | None:
    """The method's ``classes`` attribute as a tuple of names, or ``None`` (no declaration: every class);
    :class:`MethodError` when it is neither a name nor a list or tuple of names (``classes = 5``).

    Parameters
    ----------
    fn : object
        The method.

    Returns
    -------
    tuple of str or None
        The declared class names, duplicates dropped, in order; ``None`` when it declares none.

    Raises
    ------
    MethodError
        When ``classes`` is neither a name nor a list or tuple of names.
    """
    c = getattr(fn, "classes", None)
    if c is None:
        return None
    if isinstance(c, str):
        return (c,)
    if not isinstance(c, (list, tuple)) or not all(isinstance(x, str) for x in c):
        raise MethodError(f"method {getattr(fn, '__name__', fn)!r}: classes = {repr(c)[:60]} is not a class name "
                          f"or a tuple of class names")
    return tuple(dict.fromkeys(c))


# ----------------------------------------------------------------------------- driving a method
def run_method(method: Callable[..., Any], problem: MixedProblem, x_star: np.ndarray, *, eps: float, settle_eps: float | None = None, settle: float = 0.0,
               max_iter: int = 100_000, max_calls: int | None = None, name: str = "method",
               method_kwargs: dict[str, Any] | None = None, on_yield: Callable[[], None] | None = None) -> SolveResult:
    """Drive ``method(ProblemView.of(problem), MethodOracles(...))`` and record it as the suite's solvers are.

    Parameters
    ----------
    method : Callable
        A generator function following the contract (module docstring).
    problem : mixbounds.instances.problem.MixedProblem
        The instance; the method sees only its :class:`ProblemView`.
    x_star : array_like
        The exact solution in the u-layout; the error of every yield is measured against it.
    eps : float
        Accuracy: the run stops once the relative squared error has settled below it.
    settle_eps, settle : float, optional
        The settle rule of the suite's solvers (:class:`mixbounds.solvers.baselines._common.Run`).
    max_iter : int
        Budget of yields.
    max_calls : int, optional
        Budget of calls of any one oracle.
    name : str
        The method's name in the result.
    method_kwargs : dict, optional
        Keyword arguments of the method (``method(problem, oracles, **method_kwargs)``).
    on_yield : Callable, optional
        Called after every yield (``mixbounds bench``: the heartbeat of its ``--yield-timeout`` watchdog,
        :func:`mixbounds.isolation.beat`).

    Returns
    -------
    mixbounds.solvers.result.SolveResult
        The count history (a row at the start, ``u_0 = 0``, then one after every ``yield``; counts made before
        the first ``yield`` are in row 1), ``converged`` and the stop ``reason``: ``tolerance``, ``budget``,
        ``non-finite``, ``diverged``, and here ``exception: …`` (the method raised), ``shape: …`` (a yield that is
        not a finite vector of length ``problem.size``) or ``returned`` (the generator ended before
        convergence). A failing method is a result with ``converged=False``, never an exception.
    """
    orc = CountedOracles(problem)
    u_star = np.asarray(x_star, dtype=float).ravel()
    run = Run(problem, orc, u_star, eps, max_iter, name, settle=settle, settle_eps=settle_eps, max_calls=max_calls)
    size = problem.layout.size
    view = ProblemView.of(problem)
    run.record(np.zeros(size))
    reason = None
    try:
        gen = method(view, MethodOracles(orc), **(method_kwargs or {}))
        if not inspect.isgenerator(gen):
            raise TypeError(f"calling it returned {type(gen).__name__}, not a generator")
        for k, u in enumerate(gen):
            if on_yield is not None:
                on_yield()
            arr = np.asarray(u, dtype=float) if _numeric(u) else None
            if arr is None or arr.size != size:
                got = "a non-numeric value" if arr is None else f"shape {arr.shape}"
                reason = f"shape: yield {k + 1} is {got}, expected a u-layout vector of length {size}"
                break
            if run.record(arr):
                break
        else:
            reason = "returned: the generator ended before the error settled below the accuracy"
        gen.close()
    except Exception as exc:  # noqa: BLE001 - a failing method is a per-point error, not a crash
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" ({tb[-1].filename}:{tb[-1].lineno})" if tb else ""
        reason = f"exception: {type(exc).__name__}: {exc}{where}"
    if reason is not None:
        run.reason, run.converged = reason, False
    return run.result({"method": name})


def _numeric(u: object) -> bool:
    try:
        a = np.asarray(u)
    except Exception:  # noqa: BLE001
        return False
    return a.dtype.kind in "biuf"


__all__ = ["ENTRY_POINT_GROUP", "METHOD_CLASSES", "METHOD_MAX_ITER", "METHOD_TIMEOUT_S", "YIELD_TIMEOUT_S", "MethodError", "MethodOracles", "ProblemView",
           "StopLoop", "check_kwargs", "parse_method_args", "check_method", "contract_table", "declared_classes", "from_loop", "probe",
           "resolve", "run_method"]
