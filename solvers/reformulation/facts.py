"""The spectral facts a reformulation is built from: the constants the paper assumes known.

``λ_max(W)``, ``λ_min+(W)``, ``L_A``, ``λ_min+(S_A)``, ``L_S``, ``μ_C``, ``L_C``, ``μ̃_AC``, ``L_C̃``,
``λ_min+(S_C̃ᵀ)``, ``μ_C̃`` as :func:`mixbounds.instances.spectra.solver_facts` computes them from the matrices, or
given (e.g. the spectra an instance directory stores, checked by :func:`mixbounds.instances.spectra.trusted_facts`).
A fact that makes a constraint void (a zero ``S_A``, all ``C_i`` zero, …) is refused: no scaling could precondition
it.
"""

from __future__ import annotations

from mixbounds.bounds.concepts import BlockKind
from mixbounds.instances.spectra import fact_keys, solver_facts


def reformulation_facts(problem, facts: dict | None, t_kind: str | None) -> tuple[dict, str]:
    """The facts of ``problem`` and where they come from.

    Parameters
    ----------
    problem : MixedProblem
        The problem.
    facts : dict, optional
        Facts already known (their keys must be those of :func:`mixbounds.instances.spectra.fact_keys`);
        computed when ``None``.
    t_kind : str or None
        The kind of the block on ``X̃`` (:func:`mixbounds.instances.spectra.shared_kind`).

    Returns
    -------
    (dict, str)
        The facts as floats, and ``"computed from the matrices"`` or ``"given"``.

    Raises
    ------
    ValueError
        Facts with other keys, or a fact that makes a constraint void.
    """
    if facts is None:
        f, _ = solver_facts(problem)
        source = "computed from the matrices"
    else:
        f = {k: float(v) for k, v in facts.items()}
        if set(f) != fact_keys(problem):
            raise ValueError(f"Reformulation: facts= has keys {sorted(f)}, expected {sorted(fact_keys(problem))}")
        source = "given"
    if problem.A is not None and f["lambda_min_S_A"] <= 0:
        raise ValueError("Reformulation: S_A = (1/n)Σ A_i A_iᵀ is zero; the coupled constraint is void")
    if problem.C is not None and f["mu_C"] <= 0:
        raise ValueError("Reformulation: all C_i are zero (no local constraint to precondition)")
    if t_kind == BlockKind.SHARED and f["lambda_min_S_Ct"] <= 0:
        raise ValueError("Reformulation: S_{C̃ᵀ} = (1/n)Σ C̃_iᵀC̃_i is zero")
    if t_kind == BlockKind.SHARED_IDENTICAL and f["mu_Ct"] <= 0:
        raise ValueError("Reformulation: identical C̃_i are zero")
    return f, source
