"""The ``pep.*`` checks and ``control.pep.*`` controls of ``mixbounds verify`` (issue 35, items 1–2).

Results (``thm:apapc`` through the reformulations of ``sec:optimal_alg_Smooth_Str_Convex``):

* ``pep.<class>.contraction.<param>`` — per sweep point, the exact worst case ``ρ_PEP`` of one APAPC
  step of the Lyapunov function over ``f_i ∈ F(μ_f, L_f)`` on a fixed network against the theorem's
  factor ``ρ_thm`` (:mod:`mixbounds.checks.pep.factor`).  ``pass`` labelled ``certified (PEP)`` when every point
  has ``ρ_PEP <= ρ_thm + PEP_ACCURACY``; a ``finding`` with both numbers otherwise; ``error`` when an
  SDP did not solve to :data:`~mixbounds.checks.pep.performance.PEP_ACCURACY`; ``skipped`` without the extra.
  ``pep.<class>.contraction.networks`` (full tier): path, ring, star, and K = 2.
* ``pep.lyapunov.derived`` — every certificate point also has ``ρ_PEP <= ρ_derived`` (the factor the
  derivation in :mod:`mixbounds.checks.pep.lyapunov` proves): ``fail`` otherwise (the PEP model or the
  derivation is wrong).
* ``pep.<class>.iterations.<param>`` / ``pep.<class>.comm.<param>`` — slopes of ``−1/log ρ_PEP`` and of
  ``(−1/log ρ_PEP) × communications per iteration`` against κ_f and κ_W, fitted and judged with the
  suite's slope code (:func:`mixbounds.checks.verdict.fit_counts`, :func:`mixbounds.checks.sweeps.fit_integrity`,
  :func:`mixbounds.checks.verdict.band_ok` with the tier's Table 1 slope tolerance ``Tier.table1.slope_tol``) against Table 1's exponents of the
  class's ``grad`` and ``comm`` cells: the PEP gives the exact worst case of the Lyapunov
  contraction, so the exponent is judged two-sided.
* the sweep points' worst cases are also measured as the third series of the Table 1 sweeps (``T1.…@pep-worst``,
  :mod:`mixbounds.checks.rates`, :mod:`mixbounds.checks.pep.series`): :func:`certificate_task` is the one task
  of a sweep point for both.
* ``pep.<class>.worst_case`` — the worst case of the PEP built as a suite instance and run by the
  suite's APAPC from the worst-case state (:mod:`mixbounds.checks.pep.extract`): ``pass`` when its ``V^K``
  equals the PEP's to ``AGREE_ATOL``; ``skipped`` with the reason when the worst case is not quadratic.
* ``control.pep.theta_doubled.<class>``, ``control.pep.wide_chebyshev.consensus`` — mis-set methods
  measured with the theorem's Lyapunov function: caught (``fail``) only when the SDP is solved, bounded, and
  ``ρ_PEP > ρ_thm``; an unbounded or unsolved SDP is an ``error`` (it catches nothing).  The Lyapunov function
  without its dual terms is :mod:`mixbounds.checks.pep.kinds.results`' bounded ``control.pep.no_dual.<scope>``.
"""

from __future__ import annotations

import math

from mixbounds.bounds.claims import get
from mixbounds.bounds.concepts import Oracle, ProblemClass
from mixbounds.checks.pep.availability import missing_reason
from mixbounds.checks.pep.kinds import results as kinds_results
from mixbounds.checks.pep.model import PEP_CLASSES
from mixbounds.checks.pep.points import certificate_point, control_point, extraction_point
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.sweeps import fit_integrity, geomspace
from mixbounds.checks.tiers import Tier
from mixbounds.checks.verdict import band_ok, fit_counts

LABEL = "thm:apapc"
CERTIFIED = "certified (network)"
#: same value as mixbounds.checks.pep.performance.PEP_ACCURACY (not imported: that module needs the optional extra)
PEP_ACCURACY = 1e-6
CLASSES = PEP_CLASSES
# classes, swept ranges and points per tier: Tier.pep (mixbounds.checks.tiers)
#: κ_W of the κ_f sweep and κ_f of the κ_W sweep
FIXED_F, FIXED_W = 10.0, 100.0
NETWORK = ("path", 3)
#: full tier: the certificate on other networks and with K = 2 (kind, n, κ_f, κ_W, K)
NETWORK_POINTS = tuple((kind, n, kf, kw, 1) for kind, n in (("path", 4), ("ring", 4), ("star", 4), ("star", 5))
                       for kf, kw in ((10.0, 10.0), (1e3, 10.0), (10.0, 1e3), (1e3, 1e3))) + \
    (("path", 3, 10.0, 100.0, 2), ("ring", 4, 100.0, 100.0, 2))
EXTRACTION = ("path", 3, 10.0, 100.0, 1)


def grid(tier: Tier, param: str) -> list[float]:
    """The κ_f or κ_W grid of the tier's PEP sweeps (``Tier.pep``)."""
    lo, hi = tier.pep.kappa_f_range if param == "kappa_f" else tier.pep.kappa_W_range
    return geomspace(lo, hi, tier.pep.points)


#: the methods measured on the worst case of every sweep point (:mod:`mixbounds.checks.pep.series`): the paper's.
#: APAPC without Chebyshev acceleration is no control there: on the consensus worst cases (path of 3, κ_f = 10) its
#: gradient count did not move with κ_W (186.5 per accuracy window at κ_W = 100, 178, 316, tiny tier) — the
#: one-step worst case does not excite the slowest consensus mode
RATE_METHODS = ("apapc",)


def certificate_task(cls: str, param: str, v: float) -> Task:
    """The task of one sweep point: its certificate and its worst case measured as a ``pep-worst`` instance (one
    SDP for both: the PEP checks here and the third series of :mod:`mixbounds.checks.rates` request this task)."""
    kf, kw = (v, FIXED_W) if param == "kappa_f" else (FIXED_F, v)
    kind, n = NETWORK
    return Task(certificate_point, {"cls": cls, "kind": kind, "n": n, "kappa_f": kf, "kappa_W": kw, "K": 1,
                                    "rate_methods": RATE_METHODS},
                label=f"PEP {cls} κ_f={kf:g} κ_W={kw:g}")


def _certificate_record(p: dict) -> dict:
    """A certificate point without the worst-case series points it also carries (:func:`certificate_task`)."""
    return {k: v for k, v in p.items() if not k.startswith("rate")}


def _net_task(cls: str, pt: tuple) -> Task:
    kind, n, kf, kw, K = pt
    return Task(certificate_point, {"cls": cls, "kind": kind, "n": n, "kappa_f": kf, "kappa_W": kw, "K": K},
                label=f"PEP {cls} {kind}{n} κ_f={kf:g} κ_W={kw:g} K={K}")


def _skipped(rid: str, detail: str, control: bool = False) -> CheckResult:
    return CheckResult(id=rid, kind="pep", status="skipped", detail=detail, label=LABEL, control=control)


def _first_skip(pts: list[dict]) -> str | None:
    return next((p["skipped"] for p in pts if "skipped" in p), None)


def certificate_verdict(rid: str, pts: list[dict]) -> CheckResult:
    """``pass`` (certified) / ``finding`` / ``error`` / ``skipped`` over a list of certificate points."""
    skip = _first_skip(pts)
    if skip:
        return _skipped(rid, skip)
    bad = [p for p in pts if "error" in p or not p.get("solved")]
    if bad:
        p = bad[0]
        why = p.get("error") or f"SDP not solved to accuracy {PEP_ACCURACY:g}: status {p.get('solver_status')}, " \
                                 f"accuracy {p.get('accuracy')}"
        return CheckResult(id=rid, kind="pep", status="error", detail=f"{len(bad)} of {len(pts)} points: {why}",
                           label=LABEL, points=pts)
    margin = [p["rho_pep"] - p["rho_theorem"] for p in pts]
    worst = max(range(len(pts)), key=lambda i: margin[i])
    w = pts[worst]
    readings = {"rho_pep": w["rho_pep"], "rho_theorem": w["rho_theorem"], "rho_derived": w["rho_derived"],
                "N": w["N"], "K": w["K"], "solver": w["solver"], "solver_status": w["solver_status"],
                "accuracy": max(p["accuracy"] for p in pts), "sdp_seconds": sum(p["sdp_seconds"] for p in pts),
                "points": len(pts)}
    readings = {k: v for k, v in readings.items() if not isinstance(v, str)}
    where = f"{w['class']} on the {w['network']} of {w['N']} nodes, κ_f={w['kappa_f']:g}, κ_W={w['kappa_W']:.4g}, K={w['K']}"
    extra = {"solver": w["solver"], "solver_status": w["solver_status"], "W": w["W"]}
    if margin[worst] <= PEP_ACCURACY:
        return CheckResult(id=rid, kind="pep", status="pass", theory=w["rho_theorem"], tolerance=PEP_ACCURACY,
                           label=LABEL, points=pts, extra=extra, verdict_label=CERTIFIED,
                           detail=f"{CERTIFIED}: ρ_PEP <= ρ_thm at all {len(pts)} points over F(μ_f, L_f) "
                                  f"(closest: ρ_PEP={w['rho_pep']:.6f} vs ρ_thm={w['rho_theorem']:.6f}, {where})",
                           **reading("rho_pep", readings))
    return CheckResult(id=rid, kind="pep", status="finding", theory=w["rho_theorem"], tolerance=PEP_ACCURACY,
                       label=LABEL, points=pts, extra=extra,
                       detail=f"ρ_PEP={w['rho_pep']:.6f} > ρ_thm={w['rho_theorem']:.6f} ({where}): the Lyapunov "
                              "function does not contract at the theorem's factor over the class",
                       **reading("rho_pep", readings))


def derived_verdict(rid: str, pts: list[dict]) -> CheckResult:
    """Every solved point has ``ρ_PEP <= ρ_derived + PEP_ACCURACY``, or ``fail``."""
    skip = _first_skip(pts)
    if skip:
        return _skipped(rid, skip)
    ok = [p for p in pts if p.get("solved")]
    if not ok:
        return CheckResult(id=rid, kind="pep", status="error", detail="no solved PEP", label=LABEL)
    margin = max(p["rho_pep"] - p["rho_derived"] for p in ok)
    status = "pass" if margin <= PEP_ACCURACY else "fail"
    return CheckResult(id=rid, kind="pep", status=status, theory=0.0, tolerance=PEP_ACCURACY, label=LABEL,
                       detail=f"max ρ_PEP − ρ_derived over {len(ok)} solved points = {margin:.3g} "
                              "(the derivation in mixbounds.checks.pep.lyapunov proves <= 0)",
                       **reading("max_rho_pep_minus_rho_derived", {"max_rho_pep_minus_rho_derived": margin,
                                                                   "points": len(ok)}))


def slope_verdict(tier: Tier, rid: str, cls: str, oracle: str, param: str, pts: list[tuple[float, dict]],
                  theory_shift: float = 0.0, control: bool = False) -> CheckResult:
    """Slope of the PEP iterations (``oracle="grad"``) or communications (``"comm"``) in ``param``."""
    rows = [p for _, p in pts]
    skip = _first_skip(rows)
    if skip:
        return _skipped(rid, skip, control)
    cell = get(f"T1.{cls}.{oracle}")
    target = cell.exponent(param) + theory_shift
    bad = [p for p in rows if "error" in p or not p.get("solved")]
    if bad:
        return CheckResult(id=rid, kind="pep", status="error", label=LABEL, cell=cell.id, param=param, control=control,
                           detail=f"{len(bad)} PEP(s) not solved to accuracy", points=rows)
    xs = [p[param] for p in rows]
    ys = [p["iterations"] * (p["comm_per_iteration"] if oracle == Oracle.COMM else 1) for p in rows]
    fit = fit_counts(xs, ys)
    why = fit_integrity(fit, len(rows))
    tol = tier.table1.slope_tol
    if why:
        return CheckResult(id=rid, kind="pep", status="error", label=LABEL, cell=cell.id, param=param, control=control,
                           detail=why, points=rows)
    ok = band_ok(fit["slope"], target, tol)
    what = "PEP iterations −1/log ρ_PEP" + (" × communications per iteration" if oracle == Oracle.COMM else "")
    return CheckResult(id=rid, kind="pep", status="pass" if ok else "fail", theory=target, measured=fit["slope"],
                       ci=tuple(fit["ci"]), tolerance=tol, r2=fit["r2"], label=LABEL, cell=cell.id, param=param,
                       control=control, points=[{"x": x, "y": y, **p} for x, y, p in zip(xs, ys, rows)],
                       detail=f"{what} on the {NETWORK[0]} of {NETWORK[1]} nodes: slope {fit['slope']:.3f} "
                              f"(95% CI {fit['ci'][0]:.3f}..{fit['ci'][1]:.3f}) vs {cell.id}'s exponent {target:g} ± {tol}")


def _control_result(rid: str, p: dict) -> CheckResult:
    """A mis-set method is caught (``fail``) only by the certified property: a solved, bounded SDP with
    ``ρ_PEP > ρ_thm + PEP_ACCURACY``.  An unbounded or unsolved SDP catches nothing: ``error``."""
    if "skipped" in p:
        return _skipped(rid, p["skipped"], control=True)
    if "error" in p:
        return CheckResult(id=rid, kind="pep", status="error", detail=p["error"], control=True, label=LABEL)
    ro = {"rho_pep": p["rho_pep"], "rho_theorem": p["rho_theorem"], "N": p["N"], "K": p["K"]}
    extra = {"solver": p["solver"], "solver_status": p["solver_status"], "W": p["W"], "accuracy": p["accuracy"]}
    caught = bool(p.get("solved") and p["rho_pep"] > p["rho_theorem"] + PEP_ACCURACY)
    detail = (f"ρ_PEP={p['rho_pep']} vs ρ_thm={p['rho_theorem']:.6f}, margin "
              f"{p['rho_pep'] - p['rho_theorem']:+.3g} (status {p['solver_status']})"
              + ("" if caught else ": the mis-set method was certified" if p.get("solved") else
                 ": not caught by the certified property (an unbounded or unsolved SDP catches nothing)"))
    if not caught and not p.get("solved"):
        return CheckResult(id=rid, kind="pep", status="error", detail=detail, control=True, label=LABEL, extra=extra)
    ro = {k: v for k, v in ro.items() if isinstance(v, (int, float)) and math.isfinite(v)} or {"K": p["K"]}
    key = "rho_pep" if "rho_pep" in ro else "K"
    return CheckResult(id=rid, kind="pep", status="fail" if caught else "pass", control=True, label=LABEL,
                       theory=p["rho_theorem"], detail=detail, extra=extra, points=[p], **reading(key, ro))


CONTROLS = {  # id: (control, class, network kind, n, κ_f, κ_W); the controls at the boundary (interval 2×, θ just
    # above its threshold, V without its dual terms, a wrong identical-C̃ fact) are mixbounds.checks.pep.kinds.results'
    "control.pep.theta_doubled.consensus": ("theta_doubled", ProblemClass.CONSENSUS, "path", 3, 10.0, 100.0),
    "control.pep.theta_doubled.coupled": ("theta_doubled", ProblemClass.COUPLED, "path", 3, 10.0, 100.0),
    "control.pep.wide_chebyshev.consensus": ("wide_chebyshev", ProblemClass.CONSENSUS, "path", 3, 10.0, 1000.0),
}


def _ctrl_task(rid: str) -> Task:
    c, cls, kind, n, kf, kw = CONTROLS[rid]
    return Task(control_point, {"control": c, "cls": cls, "kind": kind, "n": n, "kappa_f": kf, "kappa_W": kw},
                label=f"PEP control {c} {cls}")


def _extract_task(cls: str) -> Task:
    kind, n, kf, kw, K = EXTRACTION
    return Task(extraction_point, {"cls": cls, "kind": kind, "n": n, "kappa_f": kf, "kappa_W": kw, "K": K},
                label=f"PEP worst case {cls}")


def extraction_verdict(rid: str, p: dict) -> CheckResult:
    """The suite's APAPC on the extracted instance reproduces the PEP's ``V^K`` (or why it was not built)."""
    if "skipped" in p:
        return _skipped(rid, p["skipped"])
    if "error" in p or not p.get("solved"):
        return CheckResult(id=rid, kind="pep", status="error", label=LABEL, points=[p],
                           detail=p.get("error") or f"PEP not solved (status {p.get('solver_status')})")
    if "VK_run" not in p:
        return _skipped(rid, f"no quadratic worst case: class violation {p.get('class_violation'):.3g} of a fitted "
                             "½xᵀHx; the non-quadratic interpolant is not implemented")
    src = ("the worst case over F(μ_f, L_f) (quadratic up to accuracy)" if p["extracted_from"] == "F(mu_f, L_f)" else
           f"the worst case over quadratic f_i (over F(μ_f, L_f) it is not quadratic: class violation "
           f"{p['class_violation']:.3g}, ρ {p['rho_pep']:.6f} vs {p['rho_pep_quadratic']:.6f} over quadratics)")
    ro = {"difference": p["difference"], "VK_run": p["VK_run"], "VK_pep": p["VK_pep"], "V0_run": p["V0_run"],
          "rho_pep": p["rho_pep"], "rho_pep_quadratic": p["rho_pep_quadratic"], "N": p["N"], "K": p["K"], "D": p["D"],
          "class_violation": p["class_violation"]}
    ok = p["agree"] and p["params_match"]
    return CheckResult(id=rid, kind="pep", status="pass" if ok else "fail", theory=p["VK_pep"], tolerance=1e-5,
                       label=LABEL, points=[p], extra={"instance": p["instance"], "solver": p["solver"]},
                       detail=f"suite's APAPC on {src}, built as a {p['class']} instance (D={p['D']}), from the "
                              f"worst-case state: V^K = {p['VK_run']:.8f} vs PEP {p['VK_pep']:.8f}"
                              + ("" if p["params_match"] else "; the instance's APAPC parameters differ from the PEP's"),
                       **reading("difference", ro))


def checks() -> list[Check]:
    out = []
    def sweeps(tier):
        return [(cls, param) for cls in tier.pep.classes for param in ("kappa_f", "kappa_W")]

    def cert_tasks(tier):
        ts = [certificate_task(cls, param, v) for cls, param in sweeps(tier) for v in grid(tier, param)]
        if tier.pep.networks:
            ts += [_net_task(cls, pt) for cls in CLASSES for pt in NETWORK_POINTS]
        return ts

    def cert_ids(tier):
        ids = [f"pep.{cls}.contraction.{param}" for cls, param in sweeps(tier)]
        ids += [f"pep.{cls}.{o}.{param}" for cls, param in sweeps(tier) for o in ("iterations", Oracle.COMM)]
        if tier.pep.networks:
            ids += [f"pep.{cls}.contraction.networks" for cls in CLASSES]
        return ids + ["pep.lyapunov.derived"]

    def cert_final(tier, points):
        res, every = [], []
        for cls, param in sweeps(tier):
            # the certificate's own record: the worst-case series points (rate*) are the Table 1 results' own
            pts = [(v, _certificate_record(points[certificate_task(cls, param, v).key])) for v in grid(tier, param)]
            rows = [p for _, p in pts]
            every += rows
            res.append(certificate_verdict(f"pep.{cls}.contraction.{param}", rows))
            res.append(slope_verdict(tier, f"pep.{cls}.iterations.{param}", cls, Oracle.GRAD, param, pts))
            res.append(slope_verdict(tier, f"pep.{cls}.comm.{param}", cls, Oracle.COMM, param, pts))
        if tier.pep.networks:
            for cls in CLASSES:
                rows = [points[_net_task(cls, pt).key] for pt in NETWORK_POINTS]
                every += rows
                res.append(certificate_verdict(f"pep.{cls}.contraction.networks", rows))
        res.append(derived_verdict("pep.lyapunov.derived", every))
        return res

    out.append(Check(id="pep.certificates", family="pep", result_ids=cert_ids, tasks=cert_tasks, finalize=cert_final,
                     description="exact worst case of APAPC's Lyapunov contraction over F(μ_f, L_f) (PEPit)"))

    out.append(Check(id="pep.worst_case", family="pep",
                     result_ids=lambda t: [f"pep.{cls}.worst_case" for cls in t.pep.classes],
                     tasks=lambda t: [_extract_task(cls) for cls in t.pep.classes],
                     finalize=lambda t, pts: [extraction_verdict(f"pep.{cls}.worst_case", pts[_extract_task(cls).key])
                                              for cls in t.pep.classes],
                     description="the PEP's worst case as a suite instance, run by the suite's APAPC"))

    out += kinds_results.checks(cert_tasks)

    ctrl_ids = list(CONTROLS)
    out.append(Check(id="control.pep", family="controls", result_ids=lambda t: ctrl_ids,
                     tasks=lambda t: [_ctrl_task(r) for r in ctrl_ids],
                     finalize=lambda t, pts: [_control_result(r, pts[_ctrl_task(r).key])
                                              for r in ctrl_ids],
                     description="mis-set APAPC and the Lyapunov function without its dual term must not be certified"))
    return out


__all__ = ["checks", "missing_reason"]
