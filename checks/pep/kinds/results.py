"""The ``pep.class.*``, ``pep.blocks.*``, ``pep.binding.*``, ``pep.exact`` results and the boundary controls.

* ``pep.class.<class>.grid`` — the class-level certificate (:mod:`mixbounds.checks.pep.kinds.classlevel`) at every
  point of :data:`CLASS_GRID` (the tier runs the first ``Tier.pep.class_points`` of each class; the identical-``C̃``
  classes ``shared_ident`` and ``mixed_ident`` at the constants of :mod:`mixbounds.checks.pep.kinds.identical`):
  ``pass`` labelled ``certified (class)`` when every point has ``ρ_PEP <= ρ_thm + PEP_ACCURACY``; ``finding``
  otherwise.
* ``pep.class.containment`` — every fixed-network point (the sweeps, the blocks, the binding cases) has
  ``ρ_network <= ρ_class + PEP_ACCURACY`` at its own constants, else ``fail``: a network outside the class its
  parameters assume (the interval control) is seen here.
* ``pep.blocks.<class>`` (full tier) — several slots per node (:mod:`mixbounds.checks.pep.kinds.blocks`; the
  identical-``C̃`` classes on the network instances of :mod:`mixbounds.checks.pep.kinds.identical`).
* ``pep.binding.<name>`` — APAPC without Chebyshev where the dual state carries the worst case, each with its rank,
  dual share and worst single mode ``ρ_mode`` (:mod:`mixbounds.checks.pep.kinds.modes`).  Must bind (``fail``
  unless ``rank > 1``, dual share ``> BINDING_SHARE`` and ``ρ_PEP^K > ρ_mode^K + PEP_ACCURACY``):
  ``network`` (one step at ``χ = 1.05κ``: rank 2, dual share 0.87) and ``kstep_two_modes`` (``K = 5`` from the
  algorithm's start at ``χ = κ = 100``, class scope; full tier also ``kstep_two_modes_network`` on the path of 3).
  Reported: ``kstep`` (``K = 5`` from the algorithm's start at ``κ_W = 1000``: one mode, rank 1; full tier also
  ``kstep_network``).
* ``pep.exact`` — the share of certified points whose dual certificate was verified exactly: ``pass`` at
  ``>= EXACT_SHARE``.
* ``control.pep.interval_2x``, ``control.pep.theta_threshold``, ``control.pep.no_dual.<scope>`` — the controls of
  :mod:`mixbounds.checks.pep.kinds.boundary`, each with its margin; ``pep.boundary.theta`` checks the recorded
  threshold from below (certified at ``f*(1 − s)``) and, in the full tier, re-bisects it;
  ``control.pep.ident_fact.shared_ident`` — the identical-``C̃`` network instance built from ``λ_min+(W)`` overstated
  2× (:data:`IDENT_FACT`): its operator leaves the interval ``lem:local_spectrum`` gives, caught by
  ``ρ_network > ρ_class``.
"""

from __future__ import annotations

import math

from mixbounds.bounds.concepts import ProblemClass
from mixbounds.checks.pep.kinds import points as kp
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.tiers import Tier

LABEL = "thm:apapc"
#: same value as mixbounds.checks.pep.performance.PEP_ACCURACY (not imported: that module needs the optional extra)
PEP_ACCURACY = 1e-6
#: share of the certified points that must carry an exactly verified certificate
EXACT_SHARE = 0.9
#: the binding certificate's dual share of V⁰ must exceed this
BINDING_SHARE = 0.01
CERT_CLASS, CERT_NETWORK = "certified (class)", "certified (network)"
C, N = "apapc", "apapc-nocheb"
#: per class: (κ_f, κ_W, method[, extra class_point arguments]) on the path of 3; the first two run in the quick tier
#: (a Chebyshev point and one without Chebyshev: the regimes χ > κ and τ = 1 need χ far above the Chebyshev range
#: [1, 1.73]).  The coupled classes' κ_G = L_G/μ_G of lem:conv_smooth_c_and_l does not grow with A's spread and χ does
#: (lem:coupled_spectrum), so their points in χ > κ and τ = 1 use blocks A_i ∈ R^{2×2} of κ̂_A = 30 or 100
_COMMON = ((10.0, 100.0, C), (10.0, 3.0, N), (1000.0, 100.0, C), (10.0, 1000.0, C), (100.0, 10.0, C), (1.5, 100.0, C),
           (100.0, 3.0, N))
_SPREAD = ((3.0, 3.0, N, {"kappa_A": 30.0}), (1.1, 3.0, N, {"kappa_A": 100.0}))
CLASS_GRID = {
    ProblemClass.CONSENSUS: ((10.0, 100.0, C), (10.0, 1000.0, N), (1000.0, 100.0, C), (10.0, 1e4, C), (1.5, 100.0, C),
                  (100.0, 10.0, N), (10.0, 10.5, N), (10.0, 22.5, N), (10.0, 60.0, N),
                  # χ = 4κ: τ = 1 − 1e-16 in floats, the D(u_f) weight 2e-16; solved, but its rounded certificate
                  # fails to verify (certified (float), said so)
                  (10.0, 40.0, N)),
    ProblemClass.COUPLED: _COMMON + _SPREAD, ProblemClass.MIXED: _COMMON + _SPREAD,
    ProblemClass.SHARED: _COMMON + ((1.5, 3.0, N), (1.1, 3.0, N)),
    ProblemClass.COUPLED_LOCAL: _COMMON + ((1.5, 3.0, N), (1.1, 3.0, N, {"kappa_A": 30.0})),
    # identical C̃ (kinds.identical), κ_C̃ given: the Chebyshev points have χ ≈ 5 (lem:local_spectrum without an
    # outer polynomial), κ_f = 1.5 and 1.1 put them in κ < χ < 4κ and τ = 1; without Chebyshev χ = 100
    # (shared_ident) or 368 (mixed_ident) at κ_W = 3
    ProblemClass.SHARED_IDENT: tuple(p[:3] + ({"kappa_Ct": p[3]},) for p in (
        (10.0, 100.0, C, 10.0), (10.0, 3.0, N, 10.0), (1000.0, 100.0, C, 10.0), (10.0, 1e4, C, 100.0),
        (1.5, 100.0, C, 10.0), (1.1, 100.0, C, 10.0), (100.0, 10.0, C, 1000.0), (30.0, 3.0, N, 10.0),
        (100.0, 3.0, N, 10.0), (10.0, 10.0, N, 10.0))),
    ProblemClass.MIXED_IDENT: tuple(p[:3] + ({"kappa_Ct": p[3]},) for p in (
        (10.0, 100.0, C, 10.0), (1.1, 3.0, N, 10.0), (1000.0, 100.0, C, 10.0), (10.0, 1e4, C, 100.0),
        (1.5, 100.0, C, 10.0), (100.0, 10.0, C, 1000.0), (10.0, 3.0, N, 10.0), (10.0, 10.0, N, 10.0),
        (1.5, 3.0, N, 1.5), (3.0, 3.0, N, 10.0))),
}
#: several-slot fixed-network points (full tier): κ_f, κ_W
BLOCK_POINT = (10.0, 100.0)
#: the classes with a several-slot fixed-network result ``pep.blocks.<class>`` (the identical-C̃ ones with the
#: network instances of kinds.identical)
BLOCK_RESULTS = (ProblemClass.COUPLED, ProblemClass.COUPLED_LOCAL, ProblemClass.MIXED, ProblemClass.SHARED_IDENT, ProblemClass.MIXED_IDENT)
#: the identical-C̃ control: class, κ_f, κ_W (the dual state binds at κ_f = 1.5), the fact and its factor
IDENT_FACT = (ProblemClass.SHARED_IDENT, 1.5, 100.0, "lambda_min_W", 2.0)
#: the binding certificates: id suffix → (scope, κ_W, K, start, κ_f); the two-mode ones sit at χ = κ = 100, where the
#: consensus direction and the network's λ_min+ contract at nearly one rate and the worst case couples them
BINDING_POINTS = {"network": ("network", 10.5, 1, "any", 10.0), "kstep": ("class", 1000.0, 5, "algorithm", 10.0),
                  "kstep_network": ("network", 1000.0, 5, "algorithm", 10.0),
                  "kstep_two_modes": ("class", 100.0, 5, "algorithm", 100.0),
                  "kstep_two_modes_network": ("network", 100.0, 5, "algorithm", 100.0)}
#: the binding certificates that must bind (rank > 1, dual share > BINDING_SHARE, no single mode as bad)
BINDING_REQUIRED = ("network", "kstep_two_modes", "kstep_two_modes_network")
#: the interval control's point: widen, κ_f, κ_W (the dual state binds at κ_f = 1.5)
INTERVAL = (2.0, 1.5, 100.0)


#: how the extra class_point arguments read in labels
_EXTRA_NAMES = {"kappa_Ct": "κ_C̃", "kappa_A": "κ_A"}


def _class_task(cls: str, pt: tuple) -> Task:
    kf, kw, m, *extra = pt
    extra = extra[0] if extra else {}
    return Task(kp.class_point, {"cls": cls, "kappa_f": kf, "kappa_W": kw, "method": m, **extra},
                label=f"PEP class {cls} κ_f={kf:g} κ_W={kw:g} {m}"
                      + "".join(f" {_EXTRA_NAMES[k]}={v:g}" for k, v in extra.items()))


def _block_task(cls: str) -> Task:
    kf, kw = BLOCK_POINT
    return Task(kp.block_point, {"cls": cls, "kappa_f": kf, "kappa_W": kw}, label=f"PEP blocks {cls}")


def _binding_task(name: str) -> Task:
    scope, kw, K, start, kf = BINDING_POINTS[name]
    return Task(kp.binding_point, {"scope": scope, "K": K, "start": start, "kappa_W": kw, "kappa_f": kf},
                label=f"PEP binding {name}")


def _skip(rid: str, pts: list, control: bool = False) -> CheckResult | None:
    why = next((p["skipped"] for p in pts if "skipped" in p), None)
    if why:
        return CheckResult(id=rid, kind="pep", status="skipped", detail=why, label=LABEL, control=control)
    return None


def _where(p: dict) -> str:
    net = f"{p.get('network')} of {p.get('N')}" if p.get("scope") == "network" else "every network and matrix"
    kc = "".join(f", {name}={p[k]:g}" for k, name in _EXTRA_NAMES.items() if k in p)
    return (f"{p.get('class')} ({p.get('method', C)}, {p.get('blocks', 'scalar')}), {net}, κ_f={p.get('kappa_f'):g}, "
            f"κ_W={p.get('kappa_W'):.4g}{kc}, κ_G={p.get('kappa_G'):.4g}, χ={p.get('chi'):.4g}, K={p.get('K')}")


def scoped_verdict(rid: str, pts: list[dict], label: str) -> CheckResult:
    """``pass`` (``label``) when every point is solved and ``ρ_PEP <= ρ_thm + PEP_ACCURACY``; ``finding`` with both
    numbers otherwise; ``error`` when an SDP did not solve to accuracy."""
    skip = _skip(rid, pts)
    if skip:
        return skip
    bad = [p for p in pts if not p.get("solved")]
    if bad:
        return CheckResult(id=rid, kind="pep", status="error", label=LABEL, points=pts,
                           detail=f"{len(bad)} of {len(pts)} SDPs not solved to accuracy {PEP_ACCURACY:g} (first: "
                                  f"{_where(bad[0])}: status {bad[0].get('solver_status')}, accuracy "
                                  f"{bad[0].get('accuracy')})")
    w = max(pts, key=lambda p: p["rho_pep"] - p["rho_theorem"])
    n_exact = sum(bool(p.get("exact")) for p in pts)
    ro = {"rho_pep": w["rho_pep"], "rho_theorem": w["rho_theorem"], "margin": w["rho_theorem"] - w["rho_pep"],
          "points": len(pts), "exact_points": n_exact, "accuracy": max(p["accuracy"] for p in pts)}
    ok = w["rho_pep"] - w["rho_theorem"] <= PEP_ACCURACY
    detail = (f"{label if ok else 'ρ_PEP > ρ_thm'}: closest ρ_PEP={w['rho_pep']:.7f} vs ρ_thm={w['rho_theorem']:.7f} "
              f"({_where(w)}); {n_exact} of {len(pts)} certificates verified exactly")
    return CheckResult(id=rid, kind="pep", status="pass" if ok else "finding", theory=w["rho_theorem"],
                       tolerance=PEP_ACCURACY, label=LABEL, points=pts, verdict_label=label if ok else None,
                       detail=detail, **reading("rho_pep", ro))


def containment_verdict(rid: str, pts: list[dict]) -> CheckResult:
    """Every solved fixed-network point has ``ρ_network <= ρ_class + PEP_ACCURACY`` (module docstring)."""
    skip = _skip(rid, pts)
    if skip:
        return skip
    ok = [p for p in pts if p.get("solved") and p.get("class_solved")]
    if not ok:
        return CheckResult(id=rid, kind="pep", status="error", label=LABEL, detail="no solved network/class pair")
    w = max(ok, key=lambda p: p["rho_pep"] - p["rho_class"])
    excess = w["rho_pep"] - w["rho_class"]
    status = "pass" if excess <= PEP_ACCURACY else "fail"
    return CheckResult(id=rid, kind="pep", status=status, theory=0.0, tolerance=PEP_ACCURACY, label=LABEL,
                       points=[{k: p.get(k) for k in ("class", "network", "kappa_f", "kappa_W", "K", "rho_pep",
                                                      "rho_class", "method", "blocks")} for p in ok],
                       detail=f"max ρ_network − ρ_class over {len(ok)} fixed-network points = {excess:.3g} "
                              f"({_where(w)}: {w['rho_pep']:.7f} vs {w['rho_class']:.7f})",
                       **reading("max_rho_network_minus_rho_class",
                                 {"max_rho_network_minus_rho_class": excess, "points": len(ok)}))


def binding_verdict(rid: str, p: dict, required: bool) -> CheckResult:
    """A certificate with its worst case's rank, dual share and worst single mode ``ρ_mode``
    (:mod:`mixbounds.checks.pep.kinds.modes`); ``required``: ``fail`` unless ``rank > 1``, the dual share of ``V⁰``
    exceeds :data:`BINDING_SHARE` and ``ρ_PEP^K > ρ_mode^K + PEP_ACCURACY`` (no single one-dimensional mode is a worst
    case, so the rank is not that of two modes tied at the optimum)."""
    base = scoped_verdict(rid, [p], CERT_CLASS if p.get("scope") == "class" else CERT_NETWORK)
    if base.status != "pass":
        return base
    rank, share, K = p.get("rank", 0), p.get("dual_share_V0", 0.0), p.get("K", 1)
    rho_mode = p.get("rho_mode", math.nan)
    beyond = p["rho_pep"] ** K - rho_mode ** K
    binds = rank > 1 and share > BINDING_SHARE and beyond > PEP_ACCURACY
    ok = binds or not required
    detail = (base.detail + f"; worst case rank {rank} (Gram eigenvalues above {p.get('rank_rtol')} of the largest), "
              f"dual share of V⁰ {share:.3f}; worst single mode ρ_mode = {rho_mode:.7f} (h = {p.get('mode_h', math.nan):.4g}"
              f", λ = {p.get('mode_lambda', math.nan):.4g}), ρ_PEP^K − ρ_mode^K = {beyond:.3g}")
    if required and not binds:
        detail += (f": not binding (needs rank > 1, dual share > {BINDING_SHARE} and ρ_PEP^K − ρ_mode^K > "
                   f"{PEP_ACCURACY:g})")
    return CheckResult(id=rid, kind="pep", status="pass" if ok else "fail", theory=base.theory,
                       tolerance=PEP_ACCURACY, label=LABEL, points=[p], verdict_label=base.verdict_label if ok else None,
                       detail=detail, **reading("rho_pep", {**base.readings, "rank": rank, "dual_share_V0": share,
                                                            "rho_mode": rho_mode, "beyond_modes": beyond}))


def exact_verdict(rid: str, pts: list[dict]) -> CheckResult:
    """At least :data:`EXACT_SHARE` of the certified points carry an exactly verified certificate."""
    skip = _skip(rid, pts)
    if skip:
        return skip
    cert = [p for p in pts if p.get("solved") and p.get("rho_pep", math.inf) <= p.get("rho_theorem", 0) + PEP_ACCURACY]
    if not cert:
        return CheckResult(id=rid, kind="pep", status="skipped", label=LABEL, detail="no certified point")
    ex = [p for p in cert if p.get("exact") and p.get("exact_t") is not None
          and p["exact_t"] <= p["rho_theorem"] ** p.get("K", 1)]
    share = len(ex) / len(cert)
    failed = [f"{_where(p)}: {p.get('exact_reason')}" for p in cert if p not in ex][:3]
    return CheckResult(id=rid, kind="pep", status="pass" if share >= EXACT_SHARE else "fail", theory=EXACT_SHARE,
                       label=LABEL, detail=f"{len(ex)} of {len(cert)} certified points certified (exact), the rest "
                                           f"certified (float)" + (f"; e.g. {'; '.join(failed)}" if failed else ""),
                       **reading("exact_share", {"exact_share": share, "exact": len(ex), "certified": len(cert)}))


def _control(rid: str, p: dict, key: str, ref: str, what: str) -> CheckResult:
    """A control caught (``fail``) when the bounded, solved SDP gives ``p[key] > p[ref] + PEP_ACCURACY`` (``ref``
    ``None``: ``p[key] > PEP_ACCURACY``); the margin is ``p[key] − p[ref]``.  Unbounded or unsolved: ``error``."""
    skip = _skip(rid, [p], control=True)
    if skip:
        return skip
    if p.get("unbounded") or not p.get("solved") or (ref == "rho_class" and not p.get("class_solved")):
        return CheckResult(id=rid, kind="pep", status="error", control=True, label=LABEL, points=[p],
                           detail=f"{what}: the SDP is {'unbounded' if p.get('unbounded') else 'not solved'} (status "
                                  f"{p.get('solver_status')}, accuracy {p.get('accuracy')}): a control must be caught "
                                  "by the certified property, not by an unbounded problem")
    value = p[key]
    base = p[ref] if ref else 0.0
    margin = value - base
    caught = margin > PEP_ACCURACY
    detail = (f"{what}: {key} = {value:.7f} vs {ref or '0'} = {base:.7f}, margin {margin:+.3g} ("
              + ("caught" if caught else "NOT caught: the mis-set method was certified") + f"; {_where(p)})")
    return CheckResult(id=rid, kind="pep", status="fail" if caught else "pass", control=True, label=LABEL,
                       theory=base, tolerance=PEP_ACCURACY, points=[p], detail=detail,
                       **reading("margin", {"margin": margin, key: value, (ref or "zero"): base}))


def theta_boundary_verdict(rid: str, below: dict, bisect: dict | None) -> CheckResult:
    """The recorded θ threshold: certified at ``f*(1 − s)``; in the full tier the bisection finds it again."""
    from mixbounds.checks.pep.kinds.boundary import THETA_RTOL, THETA_STEP, THETA_THRESHOLD  # lazy: [pep] extra

    skip = _skip(rid, [below] + ([bisect] if bisect else []))
    if skip:
        return skip
    ok_below = below.get("solved") and below["rho_pep"] <= below["rho_theorem"] + PEP_ACCURACY
    ro = {"rho_below": below.get("rho_pep", math.nan), "rho_theorem": below["rho_theorem"],
          "recorded_threshold": THETA_THRESHOLD}
    detail = (f"θ × {below['theta_factor']:.5g} (recorded threshold {THETA_THRESHOLD} × (1 − {THETA_STEP})): ρ_PEP = "
              f"{below.get('rho_pep', math.nan):.7f} vs ρ_thm = {below['rho_theorem']:.7f}")
    ok = bool(ok_below)
    if bisect is not None:
        f = bisect["threshold"]
        ro["bisected_threshold"] = f
        near = abs(f - THETA_THRESHOLD) <= 2 * THETA_RTOL * THETA_THRESHOLD
        ok = ok and near
        detail += f"; bisection now finds {f:.5g} (recorded {THETA_THRESHOLD}, {'agrees' if near else 'STALE'})"
    return CheckResult(id=rid, kind="pep", status="pass" if ok else "fail", theory=THETA_THRESHOLD, label=LABEL,
                       points=[below] + ([bisect] if bisect else []), detail=detail,
                       **reading("recorded_threshold", ro))


def _grid(tier: Tier, cls: str) -> list:
    """The points of ``CLASS_GRID[cls]`` the tier certifies (its first ``class_points``)."""
    return list(CLASS_GRID[cls][:tier.pep.class_points])


def _class_tasks(tier: Tier) -> list[Task]:
    """The class-level certificate tasks of the tier, class by class."""
    return [_class_task(c, pt) for c in CLASS_GRID for pt in _grid(tier, c)]


def _class_check() -> Check:
    """``pep.class``: the class-level certificates of every grid point."""
    def class_final(tier, pts):
        out = [scoped_verdict(f"pep.class.{c}.grid", [pts[_class_task(c, pt).key] for pt in _grid(tier, c)], CERT_CLASS)
               for c in CLASS_GRID]
        return out

    return Check(id="pep.class", family="pep", result_ids=lambda t: [f"pep.class.{c}.grid" for c in CLASS_GRID],
                 tasks=_class_tasks, finalize=class_final,
                 description="class-level certificates: every G ∈ F(μ_G, L_G) and every P with the lemmas' spectrum")


def _kinds_check(sweep_tasks) -> Check:
    """``pep.kinds``: binding certificates, several-slot blocks, containment and exact certificates."""
    def binding_names(tier):
        return [n for n in BINDING_POINTS if tier.pep.full_extras or BINDING_POINTS[n][0] == "class" or n == "network"]

    def kind_tasks(tier):
        ts = [_binding_task(n) for n in binding_names(tier)]
        if tier.pep.full_extras:
            ts += [_block_task(c) for c in BLOCK_RESULTS]
        return ts

    def kind_ids(tier):
        ids = [f"pep.binding.{n}" for n in binding_names(tier)]
        if tier.pep.full_extras:
            ids += [f"pep.blocks.{c}" for c in BLOCK_RESULTS]
        return ids + ["pep.class.containment", "pep.exact"]

    def kind_final(tier, pts):
        out, nets, bound = [], [], []
        for n in binding_names(tier):
            bp = pts[_binding_task(n).key]
            out.append(binding_verdict(f"pep.binding.{n}", bp, required=n in BINDING_REQUIRED))
            (nets if BINDING_POINTS[n][0] == "network" else bound).append(bp)
        if tier.pep.full_extras:
            for c in BLOCK_RESULTS:
                bp = pts[_block_task(c).key]
                out.append(scoped_verdict(f"pep.blocks.{c}", [bp], CERT_NETWORK))
                nets.append(bp)
        sweep = [pts[t.key] for t in sweep_tasks(tier)]
        sweep = [{k: v for k, v in p.items() if not k.startswith("rate")} for p in sweep]
        out.append(containment_verdict("pep.class.containment", nets + sweep))
        cls = [pts[t.key] for t in _class_tasks(tier)]
        out.append(exact_verdict("pep.exact", nets + sweep + cls + bound))
        return out

    return Check(id="pep.kinds", family="pep", result_ids=kind_ids, tasks=lambda t: kind_tasks(t) + _class_tasks(t)
                 + list(sweep_tasks(t)), finalize=kind_final,
                 description="binding certificates, several-slot blocks, ρ_network <= ρ_class, exact certificates")


def _boundary_controls() -> Check:
    """``control.pep.boundary``: the controls at the boundary and the θ-threshold verdict."""
    from mixbounds.checks.pep.kinds.boundary import THETA_STEP, THETA_THRESHOLD  # lazy: the constants only

    below = Task(kp.theta_point, {"factor": THETA_THRESHOLD * (1 - THETA_STEP)}, label="PEP θ below the threshold")
    above = Task(kp.theta_point, {"factor": THETA_THRESHOLD * (1 + THETA_STEP)}, label="PEP θ above the threshold")
    bis = Task(kp.theta_point, {"bisect": True}, label="PEP θ threshold bisection")
    wide, kf, kw = INTERVAL
    interval = Task(kp.interval_point, {"widen": wide, "kappa_f": kf, "kappa_W": kw}, label="PEP control interval 2x")
    nd = {s: Task(kp.no_dual_point, {"scope": s}, label=f"PEP control no dual ({s})") for s in ("class", "network")}
    icls, ikf, ikw, ifact, ifac = IDENT_FACT
    ident = Task(kp.ident_fact_point, {"cls": icls, "kappa_f": ikf, "kappa_W": ikw, "fact": ifact, "factor": ifac},
                 label=f"PEP control {icls} {ifact} x{ifac:g}")

    def ctrl_tasks(tier):
        return [above, interval, nd["class"], nd["network"], below, ident] + ([bis] if tier.pep.full_extras else [])

    def ctrl_final(tier, pts):
        return [_control("control.pep.interval_2x", pts[interval.key], "rho_pep", "rho_class",
                         f"Chebyshev interval widened {wide:g}×: ρ_network against ρ_class of the assumed interval"),
                _control("control.pep.theta_threshold", pts[above.key], "rho_pep", "rho_theorem",
                         f"θ × {THETA_THRESHOLD * (1 + THETA_STEP):.5g} (just above the threshold {THETA_THRESHOLD})"),
                _control("control.pep.no_dual.class", pts[nd["class"].key], "excess", None,
                         "V without its dual terms: max V'¹ − ρ_thm V'⁰ s.t. V⁰ <= 1 (class level)"),
                _control("control.pep.no_dual.network", pts[nd["network"].key], "excess", None,
                         "V without its dual terms: max V'¹ − ρ_thm V'⁰ s.t. V⁰ <= 1 (path of 3)"),
                _control(f"control.pep.ident_fact.{icls}", pts[ident.key], "rho_pep", "rho_class",
                         f"identical C̃, {ifact} × {ifac:g} handed to lem:local_spectrum: ρ_network against ρ_class of "
                         "the interval the parameters assume"),
                theta_boundary_verdict("pep.boundary.theta", pts[below.key],
                                       pts[bis.key] if tier.pep.full_extras else None)]

    return Check(id="control.pep.boundary", family="controls",
                 result_ids=lambda t: ["control.pep.interval_2x", "control.pep.theta_threshold",
                                       "control.pep.no_dual.class", "control.pep.no_dual.network",
                                       f"control.pep.ident_fact.{icls}", "pep.boundary.theta"],
                 tasks=ctrl_tasks, finalize=ctrl_final,
                 description="controls at the boundary: interval 2×, θ just above its threshold, V without dual terms, a "
                             "wrong fact handed to the identical-C̃ lemma")


def checks(sweep_tasks) -> list[Check]:
    """The checks of the module docstring; ``sweep_tasks(tier)``: the fixed-network certificate tasks of the tier
    (:mod:`mixbounds.checks.pep.registry`), for ``pep.class.containment``."""
    return [_class_check(), _kinds_check(sweep_tasks), _boundary_controls()]
