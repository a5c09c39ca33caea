"""Findings grouped into distinct problems with the paper, ranked by severity.

A run produces one finding *record* per result that disagrees with the paper (49 in the quick tier);
many records are the same problem seen from several sweeps (the printed coupled + local construction
gives no lower bound: 8 engine results, and the mixed construction inherits it).  Records are grouped
by data — the expected-finding entry that explains them (:mod:`mixbounds.checks.expected`: its paper label and
reason), the kind of the result (engine lower bound, solver upper bound, lemma, closed form) and the
instance variant — and :data:`PROBLEMS` names the groups (what the paper prints, the corrected
statement, the severity) where the data alone cannot: it merges groups that are one problem and
splits none.  Statements the suite records without measuring them (``mixbounds.bounds.claims.TEXT_DISCREPANCIES``)
are problems with no records.

Severity (ranked in this order):

* ``changes a rate``: a complexity exponent or factor of a table, theorem or lower bound is not
  supported as printed;
* ``changes the class``: a bound holds, but for a narrower class of methods or problems than printed;
* ``a proof fails, the rate is certified``: the printed argument (a construction, a citation) does not carry a
  bound, but the rate is certified otherwise (a documented variant, another construction);
* ``changes a constant``: a constant, closed form or intermediate quantity is wrong; the rates hold;
* ``changes a constant of a proof, no theorem's rate``: an intermediate bound of a proof is off (even by a
  power of a condition number) but every theorem applies it where that parameter is O(1);
* ``typo``: a printed expression or step is wrong and the argument is unaffected once corrected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from mixbounds.bounds.claims import TEXT_DISCREPANCIES
from mixbounds.checks.expected import expected
from mixbounds.report.index import labels_in

SEVERITIES = ("changes a rate", "changes the class", "a proof fails, the rate is certified", "changes a constant",
              "changes a constant of a proof, no theorem's rate", "typo")


@dataclass(frozen=True)
class Problem:
    """A named problem: the result-id globs whose findings it groups, and its description."""

    key: str
    patterns: tuple
    label: str
    title: str
    printed: str
    corrected: str
    severity: str


_CL = "app:mixed_coupled_with_local_lower"
#: the problems the data cannot name by itself (merges of several expected entries, severities, corrections)
PROBLEMS: tuple[Problem, ...] = (
    Problem("cl-printed", ("T1.coupled_local.A.*.lower", "T1.coupled_local.C.*.lower", "T1.coupled_local.comm.*.lower",
                           "T1.mixed.A.*.lower", "T1.mixed.C.*.lower", "T1.mixed.comm.*.lower",
                           "lemma.closed_form.coupled_local_presolve"), f"{_CL} (eq:Ai_rear)",
            "The printed coupled + local construction does not carry its lower bounds (the rates are certified on "
            "variants)",
            "A_i of V1 write only the row blocks U1 and those of V3 only U3 (eq:Ai_rear); the appendix argues "
            "the lower bounds √κ_f·√κ̃_AC (A), ·√κ_C (C), ·√κ_W (comm) on this construction",
            "on the construction as printed Σ A_i x_i = 0 splits in two, x* has 2 chain components and the engine "
            "needs no A, C or comm rounds per accuracy: the printed argument does not carry the bounds. The rates "
            "themselves are certified: with A_i writing shared rows (variant shared-rows-incidence) the A and comm "
            "bounds, with split rows (variant split-rows) the C bound, each exact over decades",
            "a proof fails, the rate is certified"),
    Problem("cl-variant-C", ("T1.coupled_local.C.*.lower@*", "T1.mixed.C.*.lower@*"), _CL,
            "With shared rows the construction carries no bound on C multiplications (the rate is certified on "
            "split rows)",
            "lower bound √κ_f·√κ̃_AC·√κ_C on multiplications by C",
            "on the shared-rows variant the chain crosses between V1 and V3 through the constraint space, never "
            "through C: C is needed only to spread x* over the l blocks, an additive O(√κ_C) with no per-accuracy "
            "growth, so this argument does not carry the C bound; the rate is certified on the split-rows variant "
            "(variant:split-rows: κ_f, κ̃_AC and κ_C exponents ½ each)", "a proof fails, the rate is certified"),
    Problem("t4-log", ("T4.*.M_mu_eps.*",), "table:nonsmooth_strconv_optimization_constraints",
            "Table 4 omits the log(1/ε) factor of its own proof",
            "matrix and communication counts ∝ (M_f/√(μ_fε))¹, no log factor",
            "the restarted sliding bound (N_s = O(√(L/μ) log(1/ε)) with L ∝ 1/ε) carries log(1/ε): the counts follow "
            "x·log x (measured ε-slopes above 1, within tolerance of the log-including target)", "changes a rate"),
    Problem("generic-log", ("S.sliding.strong.B.M_mu_eps.*",), "thm:upper_bound_nonsmooth_affine_constraints",
            "Part 2 of the sliding theorem omits the log(1/ε) of its proof (generic B)",
            "N_B = O(M/√(με) · √κ_B) multiplications by B, no log factor",
            "the proof (app:affine_constraint_nonsmooth) fixes the penalty at ε: N_s = O(√(L/μ) log(1/ε)); the generic-B "
            "counts exceed the printed exponent and stay within the log-including target, as Table 4's",
            "changes a rate"),
    Problem("consensus-nonsmooth-grad", ("S.consensus.nonsmooth.grad.MR_eps.*",), "sec:affine_constraints_statements",
            "Nonsmooth consensus: the printed subgradient rate is not what the method measures",
            "O(M_f²R²/ε) subgradient evaluations (Section 3.2, citing scaman2018optimal)",
            "Gradient Sliding's subgradient counts exceed ε^-1 and stay within the cited ε^-2 (scaman2018optimal's "
            "lower bound Ω(M²R²/ε²), cited, not measured here, says no method does better)", "changes a rate"),
    Problem("t4-homotopy", ("finding.S.sliding.strong.homotopy", "finding.T4.homotopy"),
            "table:nonsmooth_strconv_optimization_constraints",
            "The log(1/ε) of the fixed-penalty proof is removable: a penalty homotopy meets the printed rate",
            "proof of thm:upper_bound_nonsmooth_affine_constraints part 2: the penalty fixed at the target ε, "
            "N_s = O(√(L/μ) log(1/ε))",
            "restarting with the penalty doubled and ε halved per phase (mixbounds.solvers.homotopy_sliding) costs "
            "O(√(L(ε)/μ)) K-applications without the log; measured matrix ε-slopes within the printed exponent where "
            "the fixed penalty's are above it, on the points where the homotopy has raised its penalty (improvement "
            "over the proof, this suite's, not the paper's; see the result for the classes measured)",
            "changes a rate"),
    Problem("t4-mixed-A", ("T4.mixed.A.kappa_AC.*", "finding.T4.mixed.A.kappa"),
            "table:nonsmooth_strconv_optimization_constraints", "Table 4 mixed Mat. A prints √κ̂_A",
            "√κ̂_A · M_f/√(μ_fε) multiplications by A",
            "√κ̃_AC · M_f/√(μ_fε), as the proof (app:proof_nonsmooth_strongly_convex_upper_bounds) and the other mixed "
            "rows say; the two agree only when C = 0", "changes a rate"),
    Problem("alg-sliding", ("finding.alg_sliding.line12",), "alg:sliding",
            "Algorithm 2 transcribes Lan's Gradient Sliding with a slip at line 12 (as printed it does not converge)",
            "line 12 of Algorithm alg:sliding: ū^k := γ_k ũ^k + (1 − γ_k) ũ^{k−1}",
            "ū^k := γ_k ũ^k + (1 − γ_k) ū^{k−1} (Lan's running average); line 6 (circular as written) only moves the "
            "inner start: with it alone the method converges as Lan's, with line 12 alone it does not. A transcription "
            "slip: the theorem's rate rests on Lan's algorithm, which the correction restores",
            "typo"),
    Problem("mixed-spectrum-order", ("lemma.mixed_coupled_with_local_spectrum.order*",),
            "lem:mixed_coupled_with_local_spectrum", "κ_B grows like κ_W², not κ_W", "κ_B = O(κ̃κ_W + κ̃κ_C)",
            "κ_B = O(κ̃κ_W² + κ̃κ_C) in the tables' κ_W (the proof's κ_W is L_W/μ_W = (λ_max/λ_min+)², "
            "app:mixed_coupled_with_local_spectrum); every theorem that uses the lemma first preconditions W "
            "(W' = P_W(W), κ_W' = O(1): sec:mixed_upper, app:upper_bound_coupled_plus_non_ident_local_constraints_prob), "
            "so no table rate changes",
            "changes a constant of a proof, no theorem's rate"),
    Problem("penalization-box", ("lemma.boundness_of_penal_prob_dual", "lemma.penalization"),
            "lem:boundness_of_penal_prob_dual",
            "The penalization lemmas need U = R^d; Table 4 applies them on a bounded X",
            "‖v*‖ <= R_dual = M/σ_min+(B) (lem:boundness_of_penal_prob_dual) and, with r = 2R²_dual/ε, "
            "‖Bû − b‖ <= 2ε/R_dual (lem:penalization), for min over u ∈ U",
            "both hold for U = R^d (the dual bound is attained); with a bound of U active at u* the multiplier carries the "
            "normal cone of U: on G = max(m u_1, …), u_1 = t u_2, U = [−1, 1] × [0, 1] every optimal v* has |v*| = m = "
            "√(1 + t²)·R_dual, and the feasibility bound fails once √(1 + t²) > 2. R_dual must bound the multipliers of "
            "the problem on X (app:nonsmooth_strongly_convex_results)", "changes a constant"),
    Problem("foda-class", ("T1.*.grad.kappa_f.lower.def_foda",), "def:foda",
            "The gradient lower bounds hold for primal-gradient methods, not for def:foda as written",
            "Ω(√κ_f log 1/ε) gradient calls for every method of Definition def:foda, whose local computation "
            "admits ∇f_i*",
            "the bounds hold for def:foda without ∇f_i* (primal-gradient methods): one call ∇(f_i + h_i)*(0) returns "
            "the whole chain of the sum-trick; the constants and exponents are unchanged, the class is narrower",
            "changes the class"),
    Problem("local-spectrum", ("lemma.local_spectrum*",), "lem:local_spectrum",
            "σ_min+²(B) formula fails when ker C = 0", "σ_min+²(B) = min{σ_min+²(C), γ²σ_min+²(W)}",
            "holds only when ker C ≠ 0; otherwise σ_min+²(B) = σ_min+²(C) + … (≥ the printed minimum)",
            "changes a constant"),
    Problem("conv-smooth-subspace", ("lemma.conv_smooth_c_and_l.printed_subspace*",), "lem:conv_smooth_c_and_l",
            "Strong convexity on the wrong subspace", "G is strongly convex on 𝒴 = {⟨y, 1⟩ = 0}",
            "𝒴 is not ker^⊥ W for m ≥ 2 (G is flat on L_m ∩ 𝒴); the right subspace is L_m^⊥", "changes a constant"),
    Problem("projected-kappa", ("lemma.projected_condition_number.*",), "rem:projected_condition_number",
            "κ̃_BD ≤ κ̂_B is false; the kernel identity is wrong", "κ̃_BD ≤ κ̂_B and ker^⊥(MP_L) = ker^⊥M ∩ L",
            "B = (1, t), D = (0, 1) gives κ̃ = 1 + t², κ̂ = 1; ker^⊥(MP_L) = P_L(ker^⊥ M)", "changes a constant"),
    Problem("nesterov-rho", ("lemma.closed_form.nesterovs_worst_rho*", "lemma.closed_form.x_star_of_z_star*"),
            "lem:nesterovs_worst_rho", "The worst-case ρ and x* closed forms",
            "ρ from ⅔ L_C L_f/(μ_C μ_f); t* as printed in sub:bounding_accuracy",
            "the instance's exact dual has ρ + 1/ρ = 2 + μ'μ_f/(2L'L_f); t* = (μ'/(2L_f))ρ^k − (L'/μ_f)e_1 "
            "(the printed expression misses the first component)", "changes a constant"),
    Problem("conj-fi", ("lemma.closed_form.conj_fi*",), "eq:conj_fi", "The conjugate's quadratic coefficient",
            "‖v‖²/L_f", "‖v‖²/(4L_f)", "changes a constant"),
    Problem("example-functions", ("lemma.closed_form.shared_example_functions*",), "sec:local_cons_example_funcs",
            "The example f_i is 2L_f-smooth", "f_i is L_f-smooth", "∇²f_i = diag(μ_f, 2L_f)", "changes a constant"),
    Problem("example-matrices", ("lemma.closed_form.shared_example_matrices*",), "sec:local_cons_example_mats",
            "Sign of the split constraints", "the split constraints equal C̃x = 0",
            "only after p ↦ −p (sign of the E-part)", "typo"),
    Problem("regularized-proof", ("lemma.regularized_convergence.proof_chain*",), "lem:regularized_convergence",
            "An arithmetic step of the proof", "ε/64 + ε/4 + ε/2",
            "the terms sum to up to ε/4 + ε/32 + ε/2 = 25ε/32; the lemma itself holds", "typo"),
)
#: titles and severities of the statements recorded in mixbounds.bounds.claims.TEXT_DISCREPANCIES (matched by part of ``where``)
TEXT_PROBLEMS = {
    "nonsmooth convex consensus": ("Nonsmooth convex consensus: ε where the cited rate has ε²", "changes a rate"),
    "app:smooth_objectives_apapc": ("The 1/δ bound after lem:regularized_convergence has M where the lemma has D",
                                    "typo"),
    "the penalty constant": ("The penalty constant of the nonsmooth strongly convex proof: r <= M/σ_min+(B)",
                             "changes a constant"),
    "optimality of the mixed rows": ("Citation for the mixed rows' optimality: it covers κ̃_AC; only Mat. C's κ_C "
                                     "factor is uncovered", "typo"),
    "thm:LI_upper_bound, optimality sentence": ("Citation gap: the identical-C̃ bounds' optimality follows from "
                                                "Nesterov, Scaman et al. 2017 and Salim et al. 2022, uncited", "typo"),
}


@dataclass
class Group:
    key: str
    label: str
    title: str
    printed: str
    corrected: str
    severity: str
    records: list = field(default_factory=list)  # (finding, result) pairs
    named: bool = True  # described by PROBLEMS (else from the records alone)

    @property
    def rank(self) -> tuple:
        return (SEVERITIES.index(self.severity) if self.severity in SEVERITIES else len(SEVERITIES), -len(self.records))


def _problem_for(rid: str, fid: str) -> Problem | None:
    for p in PROBLEMS:
        if any(fnmatchcase(rid, g) or fnmatchcase(fid, g) for g in p.patterns):
            return p
    return None


def _data_key(f: dict, res: dict) -> tuple[str, str, str]:
    """Grouping by data alone: (label of the expected entry or the finding, kind, variant)."""
    e = expected(res.get("id") or f.get("source") or "")
    label = e.label if e else (labels_in(f.get("label")) or [str(f.get("label"))])[0]
    kind = res.get("kind") or "finding"
    variant = (res.get("id", "").partition("@")[2]) or "printed"
    return label, kind, variant


def group_findings(doc: dict) -> list[Group]:
    """Every finding record of ``doc`` in exactly one group, and the text discrepancies; ranked by severity."""
    by_id = {c["id"]: c for c in doc.get("claims", [])}
    groups: dict[str, Group] = {}
    for f in doc.get("findings") or []:
        res = by_id.get(f.get("source"), {})
        rid = res.get("id") or f.get("source") or ""
        p = _problem_for(rid, str(f.get("id", "")))
        if p is not None:
            g = groups.setdefault(p.key, Group(p.key, p.label, p.title, p.printed, p.corrected, p.severity))
        else:
            label, kind, variant = _data_key(f, res)
            key = f"{label}|{kind}|{variant}"
            e = expected(rid)
            sev = "changes a rate" if kind in ("lower", "upper", "tight", "absent") else "changes a constant"
            g = groups.setdefault(key, Group(key, label, str(f.get("statement")), _short(f.get("printed")),
                                             e.reason if e else "not named (an unexpected finding)", sev, named=False))
        g.records.append((f, res))
    out = sorted(groups.values(), key=lambda g: g.rank)
    out += text_discrepancies()
    return sorted(out, key=lambda g: g.rank)


def text_discrepancies() -> list[Group]:
    out = []
    for i, t in enumerate(TEXT_DISCREPANCIES):
        title, sev = next((v for w, v in TEXT_PROBLEMS.items() if w in t["where"]), ("Slip in the text", "typo"))
        line = f", tex line {t['line']}" if t.get("line") else ""
        out.append(Group(f"text-{i}", t["where"], f"{title} (text, {t['where']}{line})", t["printed"], t["source_says"],
                         sev))
    return out


def _short(v, n: int = 160) -> str:
    s = str(v) if v is not None else "—"
    return s if len(s) <= n else s[: n - 1] + "…"
