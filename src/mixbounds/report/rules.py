"""The report's "How to read this report" section, generated from the constants the checks use.

Every number here (tolerances per tier, accuracy windows, settle fraction, allowances) is read
from the module that decides the verdicts (:mod:`mixbounds.checks.rates`, :mod:`mixbounds.checks.lower.slopes`,
:mod:`mixbounds.checks.tables234`, :mod:`mixbounds.checks.sweeps`, :mod:`mixbounds.checks.lemmas.base`; the judgements themselves
are :mod:`mixbounds.checks.verdict`), never copied, so the text
cannot drift from the rules.  Certificates (docs/design.md, "Certificates") are rendered when the
results document carries them (``summary.lower_bound_certificates`` and per-result
``certificate``), whatever their fields.
"""

from __future__ import annotations

from mixbounds.checks import rate_measure, rates, sweeps, table2_factors
from mixbounds.checks.expected import EXPECTED
from mixbounds.checks.lemmas import base as lemmas
from mixbounds.checks.lower import exact
from mixbounds.checks.lower import exact_verdict as ev
from mixbounds.checks.lower import slopes as lower
from mixbounds.checks.statements import apapc_kappa_B, homotopy
from mixbounds.checks.statements import sweep as statements
from mixbounds.checks.tables234 import points as t234_points
from mixbounds.checks.tables234 import rules as t234_rules
from mixbounds.checks.tiers import TIERS
from mixbounds.checks.verdict import DOMINATED, FACTORED, NOT_EXERCISED, PER_EFOLD_NEEDED
from mixbounds.report.blocks import DETAILS, LIST, H, P, T, V, anchor_id, link

#: the meaning of each certificate kind (docs/design.md, "Certificates"); unknown kinds are shown as they come
CERTIFICATE_KINDS = {
    "printed": "the construction as printed carries the bound: the engine's counts equal the closed-form counts at "
               "every point over the tier's decades and the closed form has the claimed exponent (without a closed "
               "form: the slope rule)",
    "cited": "the same, on the construction the paper cites (cited:<what>)",
    "variant": "the same, on a documented corrected or natural construction (variant:<name>)",
    "none": "no construction tried carries the bound; the reason is given",
    "refuted (per construction)": "measured: the construction does not carry the bound and a method of the class "
                                  "beats the claimed growth on it",
}


def _tiers(value, tier: str, fmt=str) -> list:
    """``value(t)`` of every tier, the run's (named ``tier`` in the document) in bold."""
    return [f"**{fmt(value(t))}**" if t.name == tier else fmt(value(t)) for t in TIERS]


def _statuses() -> list:
    return [
        f"{V('pass').md()}: the numbers agree with the claim under the rule of its family (below).",
        f"{V('finding').md()}: the paper's statement and the numbers disagree in a way the suite can name (a constant, "
        f"a construction, a formula); both numbers and the paper label are recorded. A finding is a verdict about the "
        f"paper, not a failure of the run, but only when it is *expected*: `checks/expected.py` lists "
        f"{len(EXPECTED)} patterns, each with its reason; an unlisted finding fails the run.",
        f"{V('fail').md()}: the numbers contradict the claim and the suite cannot name a reason "
        "(a bug, or a false claim).",
        f"{V('error').md()}: the check could not be run (an exception, a solver that did not converge).",
        f"{V('skipped').md()}: not run in this tier (benchmarks: a method that did not reach two measured points).",
        "A **negative control** is a check built to fail (a solver without acceleration, a wrong exponent, a truncated "
        "chain, a wrong constant); it is *caught* when its status is `fail`. A control that passes means its family "
        "cannot fail, and fails the run.",
    ]


def _per_accuracy() -> list:
    frac = rate_measure.SETTLE
    return [
        f"**Solver, Table 1** (`checks/rates.py`): the cost between the relative squared errors "
        f"ε₁ = {sweeps.UB_EPS1:g} "
        f"and ε₂ = {sweeps.UB_EPS2:g}. APAPC's error oscillates, so the count is rate-based: the envelope "
        f"E_k = max_(j≥k) e_j is fitted log-linearly over the iterations with ε₂ ≤ E_k ≤ ε₁, which gives iterations "
        f"per window, times the exact per-iteration count of each oracle. A run stops only once its error has stayed "
        f"≤ ε₂ for the last {frac:.3g} of its iterations (*settle*), so the recorded envelope is the whole run's.",
        f"**Lower-bound engine** (`checks/lower/`, no solver): e₀ is the error reachable with zero rounds of the "
        f"oracle (everything else free). The certificates (`checks/lower/exact.py`) compare the engine's count with "
        f"the count derived from the construction's closed form at the levels "
        f"{', '.join(f'{r:g}' for r in exact.LEVELS)}·e₀ and at the ends of the window: c₁, the first round with "
        f"error ≤ {exact.HEAD_CUT:g}·e₀, and c₂, the first round with error ≤ {exact.WINDOW:g}·e(c₁), so that "
        f"c₂ − c₁ spans {exact.WINDOW_DECADES:g} decades of the geometric tail (the head that one or two rounds "
        f"remove is not counted). At the solvers' sweep points (consistency, tightness of the rate checks) the engine "
        f"uses c₁ at {lower.EPS1_REL:g}·e₀ and c₂ at {lower.LB_WINDOW:g}·e(c₁), {lower.LB_DECADES:g} decades.",
        f"**Tables 2–4** (`checks/tables234/`): the rates are sublinear, so the count until the output is an "
        f"(ε, δ)-solution is itself the per-accuracy cost; accuracy-sweep points whose hit came within fewer rows "
        f"than {', '.join(f'{k} (T{t})' for t, k in t234_points.MIN_ROWS.items())} are pre-asymptotic and left out "
        f"of the fit (listed in the result's `extra`).",
        f"**Statements outside the tables** (`checks/statements/`): APAPC on the generic problem, iterations for the "
        f"envelope of the relative squared error to fall from {apapc_kappa_B.EPS_1:g} to {apapc_kappa_B.EPS_2:g}; "
        f"the sliding methods, counts to the first (ε, δ)-solution as in Tables 2–4.",
        "Slopes are ordinary least-squares fits of log(count) against log(realized parameter), the parameter "
        "computed from the instance's own matrices; ± is the half-width of the 95% confidence interval.",
        "**Set-up**: a per-accuracy count is a difference between two error levels, so the rounds spent before the "
        "first iteration are not in it. Counts *to* an error level (first-hit counts, the consistency comparison with "
        "the engine's bound) run from the start and include the set-up the method does through its oracles: for "
        "APAPC the right-hand side Bᵀb′ (row 0 of its history). The checks run APAPC with the lemma's constants, "
        "which cost no oracle round (`setup_counts` 0); `mixbounds solve` reports any rounds spent estimating "
        "constants as `setup_counts`, apart from its `counts`.",
    ]


def _t2_example(doc: dict) -> str:
    """θ_log of one Table 2 accuracy-sweep result of this run (its ``theory``), e.g. 0.75 for θ = ½."""
    for c in doc.get("claims", []):
        if (c.get("cell") or "").startswith("T2.") and c.get("param") == "LR2_eps" and not c.get("control"):
            th, e = c.get("theory"), (c.get("extra") or {}).get("exponent")
            if isinstance(th, (int, float)) and isinstance(e, (int, float)):
                return f"; in this run `{c['id']}` has θ = {e:g}, θ_log = {th:.3f}"
    return ""


def _rule_rows(tier: str, doc: dict) -> list:
    rt = lambda t: t.table1.slope_tol  # noqa: E731
    nt = lambda t: t.tables24.slope_tol  # noqa: E731
    t2k = lambda t: round(t.tables24.slope_tol + t234_rules.T2_LOG_ALLOWANCE, 6)  # noqa: E731
    return [
        ["Table 1, solver on the worst-case construction (`…tight`)", "|slope − θ_f| ≤ tol",
         *_tiers(rt, tier)],
        ["Table 1, solver, parameter absent from the formula (`…absent`)", "|slope| ≤ tol", *_tiers(rt, tier)],
        ["Table 1, solver on a random family or the PEP worst cases (`…upper@family`, `…upper@pep-worst`)",
         f"slope ≤ θ_f + tol (an upper bound only); a pass whose 95% CI lies wholly below θ_f − tol reads "
         f"`{NOT_EXERCISED}`; a random family above θ_f + tol passes as `{DOMINATED}` only when the worst-case "
         "construction's sweep of the same parameter passes against the same exponent and the family's count per unit "
         "of the formula stays at or below the construction's at every point", *_tiers(rt, tier)],
        ["Table 1, lower-bound engine (`…lower`, `…lower@variant`)",
         "engine count = closed-form count at every level of every point (±1 only within "
         f"{exact.BOUNDARY_RTOL:g} of a tail value), ≥ the tier's decades "
         f"({', '.join(f'{t.name} {t.lower.min_decades:g}' for t in TIERS)}), closed-form asymptotic exponent within "
         f"{ev.ASYMPTOTIC_TOL:g} of θ (below: finding, weaker bound; above: fail); every instance the asymptotic "
         "model's (path n = 3m, chain ρ and length, count within one chain index) and the fit within the closed form's "
         "band on the grid (exponent + the grid's pre-asymptotic offset ± one index per point); without a closed form "
         "the fit decides within ±tol (full tier: its whole 95% CI)",
         *_tiers(lambda t: t.lower.slope_band, tier)],
        ["Table 1, tightness on the certifying construction (`…tightness@variant`)",
         "APAPC / engine per decade on the same instances: |slope| ≤ tol", *_tiers(lambda t: t.table1.ratio_tol, tier)],
        ["Tables 2–4, κ sweeps at fixed accuracy parameter", f"slope ≤ θ_f + tol (CI wholly below θ_f − tol: "
         f"`{NOT_EXERCISED}`); absent: |slope| ≤ tol", *_tiers(nt, tier)],
        ["Table 2, κ sweeps (log of the initial primal-dual distance allowed)",
         f"slope ≤ θ_f + tol + {t234_rules.T2_LOG_ALLOWANCE:g}", *_tiers(t2k, tier)],
        ["Table 2, accuracy sweep (L_fR²/ε)",
         "slope ≤ θ_log + tol, θ_log = log-log slope of x^θ·ln x along the points (the table omits log(1/ε); "
         f"the result's `theory` is θ_log{_t2_example(doc)}); above it, `{FACTORED}` only when, on at least "
         f"{table2_factors.MIN_POINTS} points whose runs end in linear convergence, the cost per e-fold grows at most "
         "like x^(θ + tol) and the e-folds at most 1 + tol per e-fold needed; with fewer linear points, "
         f"`{PER_EFOLD_NEEDED}` only when the count per e-fold its start needs (count / ln q₀, on the points needing "
         f">= {table2_factors.MIN_NEED:g}) grows at most like x^(θ + tol)", *_tiers(nt, tier)],
        ["Tables 3–4, accuracy sweep", "slope ≤ θ + tol; Table 4: above θ + tol but ≤ θ_log + tol is a finding "
         "(the proof's log(1/ε) factor)", *_tiers(nt, tier)],
        ["Statements outside the tables (`S.*`: thm:apapc in κ_B, the generic-B sliding theorem, nonsmooth consensus)",
         "θ = the largest exponent of the swept parameter over the statement's monomials (a positive sum never has a "
         "steeper local slope); `upper`: slope ≤ θ + tol; `tight`: |slope − θ| ≤ tol; `absent`: |slope| ≤ tol; with a "
         "prediction (the APAPC rule's regime) also |slope − predicted| ≤ tol; printed bound failed but the source's "
         "terms (consensus) or the proof's log-including rate (part 2) hold: finding; realized vs target "
         f"|realized/target − 1| ≤ {statements.TARGET_RTOL:g}", *_tiers(lambda t: t.statements.slope_tol, tier)],
        ["The penalty homotopy (`finding.T4.homotopy`, `finding.S.sliding.strong.homotopy`; full tier)",
         f"on the points where the homotopy ran ≥ {homotopy.REGIME_PHASES} phases (≥ {homotopy.MIN_POINTS} per cell): "
         "finding (improvement) if its slope ≤ 1 + tol while the fixed penalty's is above, with non-overlapping 95% "
         "intervals, on every measured cell; pass otherwise (no improvement measured)",
         *_tiers(nt, tier)],
        ["Table 1 realized vs target κ", f"|realized/target − 1| ≤ {rates.TARGET_RTOL:g}", "", "", ""],
        ["Chain truncation (`T1.<class>.truncation.<param>`)",
         f"doubling the chain changes no per-accuracy count by more than {rates.TRUNC_RTOL:.0%}", "", "", ""],
        ["Consistency (`T1.<class>.consistency.<param>`)",
         "no solver count to ε is below the engine's bound to the same ε", "", "", ""],
        ["Lemma checks (`lemma.*`)",
         f"`measured` is the worst ratio of the two sides over all cases (≥ 1 holds; a control: the cases violating), "
         f"every number of the check is in `readings`; inequalities to a relative "
         f"{lemmas.INEQ_RTOL:g}, equalities {lemmas.EQ_RTOL:g}, exact closed forms {lemmas.EXACT_RTOL:g}, "
         f"order statements: slope ≤ 1 + {lemmas.ORDER_SLOPE_TOL:g}", "", "", ""],
        ["Benchmarks (`bench.*`)", "slopes reported, not judged; `consistency`: no method below the engine",
         "", "", ""],
    ]


def how_to_read(doc: dict) -> list:
    """The section's blocks: statuses, what "per accuracy" means, every verdict rule with its tolerance per tier."""
    tier = doc.get("tier") or "quick"
    blocks = [H(2, "How to read this report", "how-to-read"),
              P(f"Every claim of the paper is a result with an id (e.g. `T1.coupled.comm.kappa_W.tight`): table, "
                f"problem class, oracle, swept parameter, kind. The index by paper label "
                f"({link('jump', 'labels')}) lists every label the suite checks; each result's row shows its verdict, "
                f"numbers, instance, figure and the command reproducing it alone."),
              H(3, "Verdicts", "how-verdicts"), LIST(_statuses()),
              H(3, "Per accuracy", "how-per-accuracy"), LIST(_per_accuracy()),
              H(3, "Rules and tolerances", "how-rules"),
              P(f"θ is the exponent of the swept parameter in the printed formula (0: absent); θ_f is the log-log "
                f"slope "
                f"of the printed formula (unit constants) along the realized points, equal to θ for a single monomial "
                f"and lower for a sum (the mixed communication cell). This run is tier **{tier}** (bold column)."),
              T(["Family", "Rule", "tol tiny", "tol quick", "tol full"], _rule_rows(tier, doc))]
    blocks += _tolerance_list()
    blocks += certificates_section(doc)
    return blocks


def _tolerance_list() -> list:
    """A pointer to the suite-wide table of named tolerances (``checks/tolerances.py``, its own section)."""
    return [P(f"Every named tolerance that decides a verdict, with its boundary controls: "
              f"{link('Tolerances', 'tolerances')}.")]


def _fmt(v) -> str:
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_fmt(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(_fmt(x) for x in v)
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def certificates_section(doc: dict) -> list:
    """Certificates of the Table 1 optimality statements, rendered generically when the document has them."""
    summ = (doc.get("summary") or {}).get("lower_bound_certificates")
    per = [c for c in doc.get("claims", []) if c.get("certificate")]
    blocks = [H(3, "Certificates", "how-certificates"),
              P("A Table 1 optimality statement is *tight* only with a solver-free certificate: "
                + "; ".join(f"`{k}`: {v}" for k, v in CERTIFICATE_KINDS.items())
                + ". A matching solver slope alone shows the method is fast there, not that the instance is hard.")]
    if not summ and not per:
        blocks.append(P("This results document carries no certificates."))
        return blocks
    if isinstance(summ, dict) and "statements" in summ:
        blocks.append(P(f"This run's certificates, one row per optimality statement: "
                        f"{link('Lower-bound certificates', 'certificates')}."))
    elif isinstance(summ, dict) and summ:
        rows = []
        for k, v in summ.items():
            if isinstance(v, dict):
                rows.append([f"`{k}`"] + [_fmt(v.get(f)) for f in ("kind", "certificate", "status", "reason")
                                          if f in v] or [_fmt(v)])
            else:
                rows.append([f"`{k}`", _fmt(v)])
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        blocks.append(T(["Statement"] + [""] * (width - 1), rows))
    elif summ:
        blocks.append(P(_fmt(summ)))
    if per:
        blocks.append(DETAILS(f"Certificates of individual results ({len(per)})",
                              [T(["Result", "Certificate"], [[link(c["id"], anchor_id("c", c["id"])),
                                                             _fmt(c["certificate"])] for c in per])]))
    return blocks
