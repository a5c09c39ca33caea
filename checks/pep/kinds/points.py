"""The tasks of the class-level, block, binding and boundary PEP results: one SDP (or a few) per task, JSON-able.

Every point records its *scope* (``class``: every ``G``, every ``P`` with the constants; ``network``: one fixed
network and fixed blocks), the constants (``κ_G = L_G/μ_G`` and ``χ = hi/lo`` of the operator's interval, the
rule's ``τ`` and the theorem's regime), ``rho_pep``, ``rho_theorem``, the margin ``ρ_thm − ρ_PEP``, the exact
check of the dual certificate (``exact``, ``exact_rho``: the proved factor) and the worst case's ``rank`` and dual
share (:mod:`mixbounds.checks.pep.engine.worst`).  Without the ``[pep]`` extra a point is ``{"skipped": reason}``.
The engine's modules are imported inside the task functions (the optional extra; its import costs ~0.3 s).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from mixbounds.bounds.concepts import ProblemClass
from mixbounds.checks.pep.availability import available, missing_reason
from mixbounds.checks.pep.factor import iterations, rho_theorem
from mixbounds.checks.pep.kinds.identical import DT_NETWORK, IDENT_CLASSES, ident_model
from mixbounds.checks.pep.kinds.modes import mode_bound
from mixbounds.checks.pep.model import RANK_RTOL, ClassData, default_blocks, linear_model
from mixbounds.checks.pep.networks import network

#: classes whose constants come from the several-slot instances (:mod:`mixbounds.checks.pep.kinds.blocks`): with
#: one scalar slot a local constraint fixes the variable
FROM_BLOCKS = (ProblemClass.COUPLED_LOCAL, ProblemClass.MIXED)
#: the network of the class points' constants and of the binding case
NETWORK = ("path", 3)
#: κ_C̃ of an identical-C̃ class point that does not name one
IDENT_KAPPA_CT = 10.0


def regime(kappa: float, chi: float) -> str:
    """Which branch of ``thm:apapc``'s factor and of the rule the point is in (``τ = min{1, ½√(χ/κ)}``)."""
    if chi >= 4.0 * kappa:
        return "chi>=4kappa (tau=1, term 1/chi)"
    if chi > kappa:
        return "kappa<chi<4kappa (term 1/chi)"
    return "chi<=kappa (term 1/sqrt(kappa chi))"


def scalar_or_block_model(cls: str, kappa_f: float, kappa_W: float, method: str = "apapc",
                          kappa_Ct: float | None = None, kappa_A: float | None = None):
    """The fixed-network model of a class point: scalar blocks, several slots for :data:`FROM_BLOCKS` (and for the
    coupled blocks ``A_i ∈ R^{2×2}`` of condition ``kappa_A``), the identical-``C̃`` instances of
    :mod:`mixbounds.checks.pep.kinds.identical` (``kappa_Ct``: their ``κ_C̃``)."""
    from mixbounds.checks.pep.kinds.blocks import block_model  # lazy: the optional [pep] extra's package

    kind, n = NETWORK
    if cls in IDENT_CLASSES:
        return ident_model(cls, kind, n, kappa_f, kappa_W, method, kappa_Ct=IDENT_KAPPA_CT if kappa_Ct is None
                           else kappa_Ct)
    if kappa_Ct is not None:
        raise ValueError(f"PEP class point: κ_C̃ is a parameter of the identical-C̃ classes only, not of {cls!r}")
    if kappa_A is not None or cls in FROM_BLOCKS:
        return block_model(cls, kind, n, kappa_f, kappa_W, method, kappa_A=kappa_A)
    return linear_model(ClassData(cls, network(kind, n, kappa_W), float(kappa_f), 1.0, default_blocks(cls, n), method))


def _spec_record(spec, p) -> dict:
    return {"mu_G": spec.mu, "L_G": spec.L, "lo": spec.lo, "hi": spec.hi, "kappa_G": spec.kappa, "chi": spec.chi,
            "tau": p.tau, "regime": regime(spec.kappa, spec.chi), "rho_theorem": rho_theorem(p)}


def class_value(spec, K: int = 1, start: str = "any", exact_target: float | None = None, params=None,
                step_params=None, excess: float | None = None) -> dict:
    """The class-level PEP of ``spec`` solved, as a record (``rho_pep``, accuracy, exactness, rank, dual share)."""
    from mixbounds.checks.pep.engine.worst import WorstCase  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.kinds.classlevel import build  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.performance import outcome_of  # lazy: the optional [pep] extra

    tr = build(spec, K=K, start=start, params=params, step_params=step_params, excess=excess)
    out, sol = outcome_of(tr.pep, K, exact_target, exact=exact_target is not None)
    rec = {**out.record(), "solved": out.solved, "unbounded": out.unbounded, "K": K, "start": start}
    if excess is not None:
        rec["excess"] = out.value
        return rec
    rec["rho_pep"] = out.rho
    if out.solved:
        rec.update(WorstCase(tr.pep, sol).analysis(tr.V, tr.dual))
    return rec


def class_point(cls: str, kappa_f: float, kappa_W: float, method: str = "apapc", K: int = 1,
                start: str = "any", kappa_Ct: float | None = None, kappa_A: float | None = None) -> dict:
    """``ρ_class`` at the constants of ``cls`` on the tuned network with ``κ_f``, ``κ_W`` and ``method`` (the
    lemmas' ``μ_G, L_G`` and interval, read off the suite's reformulation): the certificate of every network and
    matrix of the class with those constants.  ``kappa_Ct``: ``κ_C̃`` of the identical-``C̃`` classes; ``kappa_A``:
    ``κ̂_A`` of coupled blocks ``A_i ∈ R^{2×2}`` (:func:`mixbounds.checks.pep.kinds.blocks.block_problem`)."""
    if not available():
        return {"skipped": missing_reason()}
    from mixbounds.checks.pep.kinds.classlevel import ClassSpec  # lazy: the optional [pep] extra

    model = scalar_or_block_model(cls, kappa_f, kappa_W, method, kappa_Ct, kappa_A)
    p = model.params
    spec = ClassSpec(p.mu, p.L, p.lam_min, p.lam_max)
    rt = rho_theorem(p)
    rec = class_value(spec, K, start, exact_target=rt ** K)
    rho = rec.get("rho_pep", math.nan)
    extra = {k: float(v) for k, v in (("kappa_Ct", kappa_Ct), ("kappa_A", kappa_A)) if v is not None}
    several = cls in FROM_BLOCKS + IDENT_CLASSES or kappa_A is not None
    return {"scope": "class", "class": cls, "method": method, "kappa_f": float(kappa_f), "kappa_W": float(kappa_W),
            **extra, "blocks": "several slots" if several else "scalar",
            **_spec_record(spec, p), **rec,
            "margin": rt - rho if math.isfinite(rho) else math.nan,
            "iterations": iterations(rho) if math.isfinite(rho) else math.inf}


def network_point(model, K: int = 1, start: str = "any", blocks: str = "scalar") -> dict:
    """A fixed-network PEP with its exact certificate and the class value at the same constants (``rho_class``)."""
    from mixbounds.checks.pep.kinds.classlevel import ClassSpec  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.performance import solve_pep  # lazy: the optional [pep] extra

    p = model.params
    rt = rho_theorem(p)
    out = solve_pep(model, K=K, start=start, exact_target=rt ** K)
    spec = ClassSpec(p.mu, p.L, p.lam_min, p.lam_max)
    cv = class_value(spec, K, start)
    net = model.data.network
    rho = out.rho
    return {"scope": "network", "class": model.data.cls, "method": model.data.method, "blocks": blocks,
            "network": net.kind, "N": net.n, "W": net.W.tolist(), "kappa_W": net.kappa_W,
            "kappa_f": model.data.L_f / model.data.mu_f, **_spec_record(spec, p), **out.record(),
            "solved": out.solved, "unbounded": out.unbounded, "start": start, "rho_pep": rho,
            "margin": rt - rho if math.isfinite(rho) else math.nan,
            "rho_class": cv.get("rho_pep", math.nan), "class_accuracy": cv.get("accuracy"),
            "class_solved": cv.get("solved", False),
            "iterations": iterations(rho) if math.isfinite(rho) else math.inf}


def block_point(cls: str, kappa_f: float, kappa_W: float) -> dict:
    """The several-slot fixed-network certificate of ``cls`` (:mod:`mixbounds.checks.pep.kinds.blocks`; the
    identical-``C̃`` classes: the network instances of :mod:`mixbounds.checks.pep.kinds.identical`)."""
    if not available():
        return {"skipped": missing_reason()}
    from mixbounds.checks.pep.kinds.blocks import block_model  # lazy: the optional [pep] extra

    kind, n = NETWORK
    if cls in IDENT_CLASSES:
        return network_point(ident_model(cls, kind, n, kappa_f, kappa_W, dt=DT_NETWORK), blocks="several slots")
    return network_point(block_model(cls, kind, n, kappa_f, kappa_W), blocks="several slots")


def ident_fact_point(cls: str, kappa_f: float, kappa_W: float, fact: str, factor: float) -> dict:
    """The identical-``C̃`` network instance built from a wrong ``fact`` (× ``factor``): the suite's operator leaves
    the interval ``lem:local_spectrum`` then gives, against ``ρ_class`` of that interval (the control)."""
    if not available():
        return {"skipped": missing_reason()}
    kind, n = NETWORK
    model = ident_model(cls, kind, n, kappa_f, kappa_W, dt=DT_NETWORK, misstate=(fact, factor))
    ev = np.linalg.eigvalsh(model.P)
    pos = ev[ev > RANK_RTOL * ev[-1]]
    return {**network_point(model, blocks="several slots"), "control": f"{fact} x{factor:g}",
            "operator_spectrum": [float(pos.min()), float(pos.max())]}


#: the binding case: APAPC without Chebyshev on the path of 3, κ_f = 10, κ_W = 1000 (χ = 1000 >= 4κ: τ = 1)
BINDING = (ProblemClass.CONSENSUS, 10.0, 1000.0, "apapc-nocheb")


def binding_point(scope: str, K: int, start: str, kappa_W: float | None = None, kappa_f: float | None = None) -> dict:
    """The binding case (:data:`BINDING`, ``κ_W`` and ``κ_f`` overridden by ``kappa_W``, ``kappa_f``) at ``scope``
    ``"network"`` or ``"class"``, ``K`` steps from ``start``, with the worst single mode ``ρ_mode``
    (:mod:`mixbounds.checks.pep.kinds.modes`: over ``{0} ∪ [lo, hi]``, or the network's spectrum)."""
    if not available():
        return {"skipped": missing_reason()}
    cls, kf, kw, method = BINDING
    kw = kw if kappa_W is None else float(kappa_W)
    kf = kf if kappa_f is None else float(kappa_f)
    model = scalar_or_block_model(cls, kf, kw, method)
    if scope == "class":
        rec, lams = class_point(cls, kf, kw, method, K=K, start=start), None
    else:
        rec, lams = network_point(model, K=K, start=start), np.linalg.eigvalsh(model.P)
    return {**rec, **mode_bound(model.params, K, start, lams).record()}


def interval_point(widen: float, kappa_f: float, kappa_W: float) -> dict:
    """The consensus network with the Chebyshev interval widened ``widen``× (degree and parameters of the correct
    one) against ``ρ_class`` of the correct interval (:mod:`mixbounds.checks.pep.kinds.boundary`)."""
    if not available():
        return {"skipped": missing_reason()}
    from mixbounds.checks.pep import controls  # lazy: the optional [pep] extra

    model = scalar_or_block_model(ProblemClass.CONSENSUS, kappa_f, kappa_W)
    wide = controls.wide_chebyshev(model, widen)
    return {**network_point(wide), "control": f"interval widened {widen:g}x"}


def theta_point(factor: float | None = None, bisect: bool = False) -> dict:
    """The class PEP of the consensus point (κ_f = 10, κ_W = 100) with ``θ × factor``; with ``bisect``, the
    threshold found by bisection (:func:`mixbounds.checks.pep.kinds.boundary.theta_threshold`)."""
    if not available():
        return {"skipped": missing_reason()}
    from mixbounds.checks.pep.kinds import boundary  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.kinds.classlevel import ClassSpec  # lazy: the optional [pep] extra

    model = scalar_or_block_model(ProblemClass.CONSENSUS, 10.0, 100.0)
    p = model.params
    spec = ClassSpec(p.mu, p.L, p.lam_min, p.lam_max)
    rt = rho_theorem(p)
    base = {"scope": "class", "class": ProblemClass.CONSENSUS, "kappa_f": 10.0, "kappa_W": 100.0, **_spec_record(spec, p),
            "recorded_threshold": boundary.THETA_THRESHOLD}
    if bisect:
        f, evals = boundary.theta_threshold(spec, rt)
        return {**base, "threshold": f, "evaluations": [[a, b] for a, b in evals], "bracket_rtol": boundary.THETA_RTOL}
    rec = class_value(spec, 1, "any", step_params=dataclasses.replace(p, theta=factor * p.theta))
    return {**base, **rec, "theta_factor": factor, "margin": rt - rec.get("rho_pep", math.nan)}


def no_dual_point(scope: str) -> dict:
    """``max V'^K − ρ_thm^K V'⁰ s.t. V⁰ <= 1`` (``V'`` without the dual terms) on the binding case, at ``scope``."""
    if not available():
        return {"skipped": missing_reason()}
    from mixbounds.checks.pep.kinds.classlevel import ClassSpec  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.performance import solve_pep  # lazy: the optional [pep] extra

    cls, kf, kw, method = BINDING
    model = scalar_or_block_model(cls, kf, kw, method)
    p = model.params
    rt = rho_theorem(p)
    spec = ClassSpec(p.mu, p.L, p.lam_min, p.lam_max)
    if scope == "class":
        rec = class_value(spec, 1, "any", excess=rt)
    else:
        out = solve_pep(model, excess=rt, exact=False)
        rec = {**out.record(), "solved": out.solved, "unbounded": out.unbounded, "excess": out.value}
    return {"scope": scope, "class": cls, "method": method, "kappa_f": kf, "kappa_W": kw, **_spec_record(spec, p),
            **rec, "control": "Lyapunov function without its dual terms"}
