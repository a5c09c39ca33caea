"""The asymptotic exponent of each construction's lower bound, from its closed form.

Where the engine's counts equal the closed-form counts at every point (:mod:`mixbounds.checks.lower.exact`), the
verdict on the exponent is the closed form's, not a fit over a finite grid: the count per decade of accuracy is
asymptotically ``R / (2 log₁₀(1/ρ))`` — ``R`` rounds of the counted oracle per chain index (:mod:`.arrival`),
``1/(2 log₁₀(1/ρ))`` indices per decade of the relative squared error (``x*_k ∝ ρ^k``,
:mod:`mixbounds.instances.worst_case.closed_solution`) — and its exponent in a parameter ``κ`` is the limit of
``d log(count) / d log κ`` as ``κ → ∞`` with the others fixed, evaluated here at ``κ = 10¹²…10¹³`` from the
continuous forms of both factors (:data:`ASYMPTOTE`).

Every ``R`` and ``ρ`` is the construction's parameter map as built (the builders' docstrings):

=========================  ==========  ===============================  ===================================
construction (part)        counted     ``R``                            shift ``s`` (``ρ + 1/ρ = 2 + s``)
=========================  ==========  ===============================  ===================================
consensus                  grad        1                                ``6/(κ_f − 1)``
consensus                  comm        ``h(κ_W)``                       ``6/(κ_f − 1)``
coupled                    A           2                                ``6/((κ̂_A − 3/2) κ_f)``
coupled                    comm        ``h(κ_W)``                       ``6/((κ̂_A − 3/2) κ_f)``
shared                     Ct          1                                ``6/((κ̂_C̃ − 3) κ_f)``
shared                     comm        ``h(κ_W)``                       ``6/((κ̂_C̃ − 3) κ_f)``
C&L shared rows            A           2                                ``18/((κ̃_AC − 9/2) κ_f)``
C&L shared rows            comm        ``h(κ_W)``                       ``18/((κ̃_AC − 9/2) κ_f)``
C&L split rows             C           ``h(κ_C)``                       ``18/((3κ̃_AC − 9) κ_f)``
identical-C̃ chain          Ct          1                                ``4/((κ_C̃ − 1) κ_f)``
sum-trick chain            grad        1                                ``4/(κ_f − 1)``
split gradient chain       grad        1                                ``6/(κ_f − 1)``
=========================  ==========  ===============================  ===================================

``h(κ) = n(κ)/3 + 1``, the hop distance between the first and the last third of the tuned path of
``app:example_graph``, whose ``n(κ) = π / arccos((κ − 1)/(κ + 1))`` solves ``β_n = κ``; the paper's path has
``n = 3m`` nodes with ``β_n <= κ < β_{n+3}`` (:data:`PATH_RULES` ``"paper"``, what the built instances must have:
:mod:`.as_built`), the asymptote is read on the continuous ``n(κ)`` (``"tuned"``).
"""

from __future__ import annotations

import math
from typing import Callable

from mixbounds.bounds.concepts import Oracle, WorstFamily

#: where the asymptotic exponent is read: the log-slope between these two values of the swept parameter
ASYMPTOTE = (1e12, 1e13)


def tuned_path_nodes(kappa: float) -> float:
    """``n(κ)`` of the tuned path, continuous: ``β_n = (1 + cos(π/n))/(1 − cos(π/n)) = κ``."""
    return math.pi / math.acos((kappa - 1.0) / (kappa + 1.0))


def paper_path_nodes(kappa: float) -> int:
    """``n = 3m`` with ``β_n <= κ < β_{n+3}`` (``app:example_graph``): ``β_n`` increases with ``n``, so ``n`` is the
    largest multiple of 3 not above the continuous :func:`tuned_path_nodes` (``1e-9``: a ``κ`` equal to ``β_{3m}`` in
    rounding)."""
    return 3 * max(1, math.floor(tuned_path_nodes(kappa) / 3.0 + 1e-9))


#: node-count rules of the tuned path: continuous (the asymptote) and the paper's multiples of 3 (the built instances)
PATH_RULES: dict[str, Callable[[float], float]] = {"tuned": tuned_path_nodes, "paper": paper_path_nodes}


def hop(kappa: float, rule: str = "tuned") -> float:
    """``h(κ) = n(κ)/3 + 1``: hops between the first and the last third of the path."""
    return PATH_RULES[rule](kappa) / 3.0 + 1.0


def _shift(kind: str, t: dict) -> float:
    f = t["kappa_f"]
    return {WorstFamily.CONSENSUS: lambda: 6.0 / (f - 1.0),
            WorstFamily.COUPLED: lambda: 6.0 / ((t["kappa_A"] - 1.5) * f),
            WorstFamily.SHARED: lambda: 6.0 / ((t["kappa_Ct"] - 3.0) * f),
            "cl-shared-rows": lambda: 18.0 / ((t["kappa_AC"] - 4.5) * f),
            "cl-split-rows": lambda: 18.0 / ((3.0 * t["kappa_AC"] - 9.0) * f),
            "ident": lambda: 4.0 / ((t["kappa_Ct_id"] - 1.0) * f),
            "sum-trick": lambda: 4.0 / (f - 1.0),
            "split": lambda: 6.0 / (f - 1.0)}[kind]()


#: (construction key, oracle, part) → (chain kind of the shift, rounds per index R as a function of the targets)
MODELS: dict[tuple[str, str, str], tuple[str, Callable[[dict], float]]] = {}


def _model(keys, oracle, part, kind, R):
    for key in keys:
        MODELS[(key, oracle, part)] = (kind, R)


_H = lambda t: hop(t["kappa_W"], t.get("path_rule", "tuned"))  # noqa: E731
_model((WorstFamily.CONSENSUS, WorstFamily.SHARED_IDENT), Oracle.GRAD, "all", WorstFamily.CONSENSUS, lambda t: 1.0)
_model((WorstFamily.CONSENSUS, WorstFamily.SHARED_IDENT), Oracle.COMM, "all", WorstFamily.CONSENSUS, _H)
_model((WorstFamily.COUPLED,), Oracle.A, "all", WorstFamily.COUPLED, lambda t: 2.0)
_model((WorstFamily.COUPLED, WorstFamily.MIXED_IDENT), Oracle.COMM, "all", WorstFamily.COUPLED, _H)
_model(("mixed@cited",), Oracle.A, "all", WorstFamily.COUPLED, lambda t: 2.0)
_model(("mixed@cited",), Oracle.COMM, "x", WorstFamily.COUPLED, _H)
_model((WorstFamily.SHARED,), Oracle.CT, "all", WorstFamily.SHARED, lambda t: 1.0)
_model((WorstFamily.SHARED,), Oracle.COMM, "all", WorstFamily.SHARED, _H)
_model(("mixed@cited",), Oracle.CT, "all", WorstFamily.SHARED, lambda t: 1.0)
_model(("mixed@cited",), Oracle.COMM, "xt", WorstFamily.SHARED, _H)
_model(("coupled-local@shared-rows", "coupled-local@shared-rows-incidence"), Oracle.A, "all", "cl-shared-rows", lambda t: 2.0)
_model(("coupled-local@shared-rows", "coupled-local@shared-rows-incidence"), Oracle.COMM, "all", "cl-shared-rows", _H)
_model(("coupled-local@split-rows", "mixed@split-rows"), Oracle.C, "all", "cl-split-rows",
       lambda t: hop(t["kappa_C"], t.get("path_rule", "tuned")))
_model((WorstFamily.SHARED_IDENT, WorstFamily.MIXED_IDENT), Oracle.CT, "all", "ident", lambda t: 1.0)
_model(("sum-trick",), Oracle.GRAD, "all", "sum-trick", lambda t: 1.0)
_model(("split",), Oracle.GRAD, "all", "split", lambda t: 1.0)


def model_key(family: str, variant: str | None, gradient: str | None = None) -> str:
    """The :data:`MODELS` key of a construction: ``family``, ``family@variant``, or the gradient chain's kind."""
    if family.endswith("-grad"):
        return "split" if gradient == "split" else "sum-trick"
    if family in (WorstFamily.COUPLED_LOCAL, WorstFamily.MIXED):
        return f"{family}@{variant}"
    return family


def model_targets(targets: dict) -> dict:
    """Builder targets → model names: the identical chain's κ_C̃ is the builder's ``kappa_Ct``; a part without
    ``C`` (cited, mixed-ident) is built with ``κ̂_A = κ̃_AC`` (Remark rem:projected_condition_number)."""
    t = dict(targets)
    if "kappa_Ct" in t:
        t.setdefault("kappa_Ct_id", t["kappa_Ct"])
    if "kappa_AC" in t:
        t.setdefault("kappa_A", t["kappa_AC"])
    return t


def _log_inv_rho(key: str, oracle: str, part: str, t: dict) -> float:
    """``ln(1/ρ) = arccosh(1 + s/2)`` of the chain a model reads (``t``: :func:`model_targets`)."""
    kind = MODELS[(key, oracle, part)][0]
    if key in ("mixed@cited", WorstFamily.MIXED_IDENT):  # the coupled part is built with κ̂_A = κ̃_AC
        t = dict(t, kappa_A=t["kappa_AC"])
    s = _shift(kind, t)
    c = 1.0 + s / 2.0
    return math.acosh(c) if c > 1.0 + 1e-8 else math.sqrt(s) * (1.0 - s / 24.0)


def chain_rho(key: str, oracle: str, part: str, targets: dict) -> float:
    """The ratio ``ρ`` of the chain the model ``(key, oracle, part)`` reads, at ``targets``."""
    return math.exp(-_log_inv_rho(key, oracle, part, model_targets(targets)))


def rounds_per_index(key: str, oracle: str, part: str, targets: dict) -> float:
    """``R`` of the model at ``targets`` (``targets["path_rule"]``: a :data:`PATH_RULES` key, default ``"tuned"``)."""
    return MODELS[(key, oracle, part)][1](model_targets(targets))


def per_decade(key: str, oracle: str, part: str, targets: dict) -> float:
    """The closed form's count per decade of accuracy, ``R / (2 log₁₀(1/ρ))``, at ``targets`` (continuous path
    unless ``targets["path_rule"] == "paper"``)."""
    t = model_targets(targets)
    return MODELS[(key, oracle, part)][1](t) / (2.0 * _log_inv_rho(key, oracle, part, t) / math.log(10.0))


def asymptotic_exponent(key: str, oracle: str, part: str, param: str, base: dict) -> float:
    """``lim d log(count) / d log κ_param`` of :func:`per_decade`, read at :data:`ASYMPTOTE`; ``KeyError`` for a
    construction without a model (no closed form)."""
    lo, hi = ASYMPTOTE

    def at(v: float) -> float:  # base: builder targets (κ_C̃ of the identical chain is the builder's kappa_Ct)
        t = dict(base, **{"kappa_Ct" if param == "kappa_Ct_id" else param: v})
        return per_decade(key, oracle, part, t)

    return math.log(at(hi) / at(lo)) / math.log(hi / lo)


def has_model(key: str, oracle: str, part: str) -> bool:
    return (key, oracle, part) in MODELS
