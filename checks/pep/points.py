"""The PEP tasks of ``mixbounds verify``: one SDP (or one small group) per task, JSON-able results.

Every point records what a PEP result must carry (docs/design.md, "Record fields"): ``N``,
``K``, ``W``, ``solver``, ``solver_status``, ``accuracy`` (and its parts), ``rho_pep``,
``rho_theorem``, plus ``rho_derived``, the APAPC parameters, the iterations ``−1/log ρ_PEP`` and the
communications per iteration.  Without the ``[pep]`` extra a point is ``{"skipped": reason}``.

The PEP modules are imported inside the task functions: PEPit and cvxpy belong to the optional
extra (absent, the import fails), and importing them costs 0.88 s (``python -X importtime``),
which only runs that execute a PEP should pay.
"""

from __future__ import annotations

import math

from mixbounds.checks.pep.availability import available, missing_reason
from mixbounds.checks.pep.factor import iterations, rho_derived, rho_theorem
from mixbounds.checks.pep.model import ClassData, default_blocks, linear_model
from mixbounds.checks.pep.networks import network


def _data(cls: str, kind: str, n: int, kappa_f: float, kappa_W: float) -> ClassData:
    # L_f = κ_f, μ_f = 1: ρ is invariant under f → c f (mixbounds.checks.pep.model); this scaling solved most accurately
    return ClassData(cls, network(kind, n, kappa_W), float(kappa_f), 1.0, default_blocks(cls, n))


def _base(model, outcome) -> dict:
    net = model.data.network
    p = model.params
    rho = outcome.rho
    return {"N": net.n, "network": net.kind, "W": net.W.tolist(), "kappa_W": net.kappa_W,
            "kappa_f": model.data.L_f / model.data.mu_f, "class": model.data.cls,
            **outcome.record(), "solved": outcome.solved, "unbounded": outcome.unbounded,
            "rho_pep": rho, "rho_theorem": rho_theorem(p), "rho_derived": rho_derived(p),
            "iterations": iterations(rho) if math.isfinite(rho) else math.inf,
            "comm_per_iteration": model.degree, "apapc": p.as_dict(), "reformulation": model.reform}


def certificate_point(cls: str, kind: str, n: int, kappa_f: float, kappa_W: float, K: int = 1,
                      rate_methods: tuple = ()) -> dict:
    """``ρ_PEP`` of K steps of APAPC on ``cls`` over ``F(μ_f, L_f)`` against the theorem's factor.

    ``rate_methods``: also build the worst case as a ``pep-worst`` instance and measure each of these methods on
    it (:func:`mixbounds.checks.pep.series.worst_case_rates`), recorded under ``rate`` (``apapc``) and
    ``rate_<method>``: the third series of the Table 1 sweeps shares the SDP with the certificate.  A failure
    there is recorded as that series' error and leaves the certificate as it is.
    """
    if not available():
        return {"skipped": missing_reason()}
    from mixbounds.checks.pep.kinds.classlevel import ClassSpec  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.kinds.points import class_value  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.performance import solve_pep  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.series import worst_case_rates  # lazy: the optional [pep] extra

    model = linear_model(_data(cls, kind, n, kappa_f, kappa_W))
    p = model.params
    out = solve_pep(model, K=K, exact_target=rho_theorem(p) ** K)
    rec = _base(model, out)
    cv = class_value(ClassSpec(p.mu, p.L, p.lam_min, p.lam_max), K)
    rec.update(scope="network", blocks="scalar", method=model.data.method, rho_class=cv.get("rho_pep", math.nan),
               class_accuracy=cv.get("accuracy"), class_solved=cv.get("solved", False), kappa_G=p.kappa, chi=p.chi)
    if rate_methods:
        try:
            rates = worst_case_rates(model, out, tuple(rate_methods))
        except Exception as exc:  # noqa: BLE001 - the series' error, not the certificate's
            rates = {m: {"error": f"{type(exc).__name__}: {exc}"} for m in rate_methods}
        rec.update({rate_key(m): p for m, p in rates.items()})
    return rec


def rate_key(method: str) -> str:
    """Where :func:`certificate_point` records the worst-case series point of ``method``."""
    return "rate" if method == "apapc" else f"rate_{method}"


def control_point(control: str, cls: str, kind: str, n: int, kappa_f: float, kappa_W: float) -> dict:
    """A mis-set method (:mod:`mixbounds.checks.pep.controls`) measured with the theorem's Lyapunov function."""
    if not available():
        return {"skipped": missing_reason()}
    from mixbounds.checks.pep import controls  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.performance import solve_pep  # lazy: the optional [pep] extra

    model = linear_model(_data(cls, kind, n, kappa_f, kappa_W))
    if control == "theta_doubled":
        out = solve_pep(model, step_params=controls.theta_doubled(model), exact=False)
    elif control == "wide_chebyshev":
        out = solve_pep(controls.wide_chebyshev(model), exact=False)
    else:
        raise ValueError(f"PEP control: unknown control {control!r}")
    return {**_base(model, out), "control": control}


def extraction_point(cls: str, kind: str, n: int, kappa_f: float, kappa_W: float, K: int = 1) -> dict:
    """Worst case → quadratic instance → the suite's APAPC from the worst-case state: ``V^K`` must agree."""
    if not available():
        return {"skipped": missing_reason()}
    from mixbounds.checks.pep.extract import cross_check, quadratic_fit  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.performance import solve_pep  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.series import quadratic_worst_case  # lazy: the optional [pep] extra

    model = linear_model(_data(cls, kind, n, kappa_f, kappa_W))
    out = solve_pep(model, K=K)
    rec = _base(model, out)
    # the PEP over quadratics, in a second scaling when the first does not solve (the series' fallback)
    qmodel, quad, attempts = quadratic_worst_case(model, K)
    rec.update(rho_pep_quadratic=quad.rho, quadratic_status=quad.status, quadratic_duality_gap=quad.duality_gap)
    if len(attempts) > 1:
        rec.update(quadratic_attempts=attempts)
    if not out.solved:
        return rec
    fit = quadratic_fit(out, model.data.mu_f, model.data.L_f)
    rec.update(class_violation=fit.violation, value_residual=fit.value_residual, quadratic=fit.quadratic,
               extracted_from="F(mu_f, L_f)")
    if not fit.quadratic and quad.solved:  # the class's worst case is not quadratic: extract the quadratics' one
        model, out = qmodel, quad
        fit = quadratic_fit(out, model.data.mu_f, model.data.L_f)
        rec.update(quadratic_class_violation=fit.violation, extracted_from="quadratics")
    if fit.quadratic:
        cc = cross_check(model, out, fit)
        inst = cc.pop("instance")
        rec.update({k: v for k, v in cc.items() if k != "counts"}, oracle_counts=cc["counts"],
                   instance={"family": inst.family, "variant": inst.variant, "D": cc["D"], "name": inst.problem.name})
    return rec
