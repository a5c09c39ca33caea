"""The choices a reformulation takes and the problems it accepts.

APAPC (``alg:apapc``, ``thm:apapc``) needs a smooth, strongly convex objective and a network with a positive
eigenvalue of ``W``; the paper gives it a reformulation for the classes of :data:`SUPPORTED_CLASSES`.  The other
tables' objectives have their own methods (Table 2: regularised APAPC, :mod:`mixbounds.solvers.regularized`;
Tables 3-4: Gradient Sliding, :mod:`mixbounds.solvers.sliding`), which build their reformulation through a view of
the problem with a placeholder objective.
"""

from __future__ import annotations

from mixbounds.bounds.concepts import ProblemClass

#: ``"apapc"``: the paper's method (Chebyshev-accelerated); ``"apapc-nocheb"``: the negative control without
#: polynomials (``W' = W``, ``C' = C``, ``C̃' = C̃``, no outer polynomial)
METHODS = ("apapc", "apapc-nocheb")
#: where the spectral intervals come from: the lemmas' bounds, or the operators themselves (dense, small problems)
SPECTRA = ("lemma", "exact")
#: where ``μ_G``, ``L_G`` come from (:mod:`mixbounds.solvers.reformulation.constants_modes`)
CONSTANTS = ("lemma", "exact", "spectral", "bounds", "auto")
#: problem classes with a method (``local`` and ``separable`` have none in the paper)
SUPPORTED_CLASSES = (ProblemClass.CONSENSUS, ProblemClass.SHARED, ProblemClass.COUPLED, ProblemClass.COUPLED_LOCAL,
                     ProblemClass.MIXED)


def check(problem, method: str, spectra: str, constants: str) -> None:
    """Refuse an unknown option or a problem APAPC does not apply to, naming what is wrong.

    Parameters
    ----------
    problem : MixedProblem
        The problem.
    method, spectra, constants : str
        The options (one of :data:`METHODS`, :data:`SPECTRA`, :data:`CONSTANTS`).

    Raises
    ------
    ValueError
        An unknown option, a class without a method, a nonsmooth or not strongly convex objective, fewer than
        2 nodes.
    """
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
