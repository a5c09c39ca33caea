"""Lower-bound certificates: is each optimality statement backed by a solver-free lower bound?

Table 1 (``table:smooth_str_convex_optimization_affine_constraints``) claims *optimal* complexities: 17
cells, plus 5 identical-``C̃`` statements stated only in theorems (``thm:LI_upper_bound`` and the identical
case of ``thm:upper_bound_coupled_plus_non_ident_local_constraints_prob``) — 22 optimality statements.  A
matching solver slope shows the method is fast on the instance, not that the instance is hard
(docs/design.md, "Certificates").  For every statement × parameter with ``θ > 0`` the certificate is read from
the engine's lower-bound results (:mod:`mixbounds.checks.lower.slopes`) of the same run:

``printed``          the engine's bound on the construction as printed has the claimed slope (``pass``).  For
                     the mixed row the paper prints no construction; it cites "the combination of lower bounds"
                     of thm:LN_upper_bound and thm:coupled_iclr: the ``cited`` direct sum counts as printed, and
                     the suite's C&L ⊕ shared family (result ids without suffix) as ``variant:cl-shared``.
``variant:<name>``   only on a documented corrected or natural construction (:data:`VARIANT_ORDER`).
``refuted``          a method of the class whose counts grow with a smaller exponent on every construction
                     tried (:data:`REFUTATIONS`, with the numbers).  None is recorded: no such method was found.
``none``             undecided; the reason lists what was tried (each lower result's verdict).

A statement's certificate is its weakest parameter's (``refuted`` < ``none`` < ``variant`` < ``printed``).

Mapping to statuses (exit codes unchanged): a ``…tight`` result keeps its ``pass``/``fail`` status (the
upper side: the solver's slope), and gains ``certificate`` and ``verdict_label``: ``tight`` only with a
``printed`` or ``variant`` certificate, ``upper matches, lower not certified`` otherwise.  The lower-bound
results themselves carry their own verdicts (a construction that gives no bound is an expected
``finding``, :mod:`mixbounds.checks.expected`).

Tightness (item of the same audit): for each certified statement × parameter, solver count per decade of
accuracy / engine bound per decade at each sweep point, and the slope of that ratio in the swept
parameter; it must be flat (``|slope| <= tol``, the rate checks' tolerance).  For a ``variant`` certificate
the solver ran on the printed construction: the ratio compares the two at the same targets and says so.
"""

from __future__ import annotations

import math

from mixbounds.bounds.claims import REGISTRY
from mixbounds.checks.sweeps import CLASS_FAMILIES, UB_EPS1, UB_EPS2, fit_slope

#: preferred documented constructions, best first (``cited`` is the mixed row's "as printed")
VARIANT_ORDER = ("printed", "shared-rows-incidence", "split-rows", "natural")
#: the paper's own construction per class, when it is not the family's ``printed`` one: the mixed row cites the
#: combination coupled ⊕ shared (``cited``); the suite's ``printed`` mixed family (C&L ⊕ shared) is then a variant
PRINTED_AS = {"mixed": "cited"}
#: the name of the suite's ``printed`` family as a variant where the paper's construction is another one
SUITE_NAMES = {"mixed": "cl-shared"}
#: measured refutations: (cell id, param) → evidence text.  Empty: no method of the class was found that beats
#: a claimed lower bound on every construction tried (see the report's κ_C discussion).
REFUTATIONS: dict = {}
#: tightness ratio flat iff |slope| <= this (the quick tier's rate tolerance, mixbounds.checks.rates.TOL)
RATIO_TOL = {"tiny": 0.25, "quick": 0.12, "full": 0.08}
_RANK = {"refuted": 0, "none": 1, "variant": 2, "printed": 3}
_LB_DECADES = 4.0  # mixbounds.checks.lower.slopes.LB_DECADES (not imported: mixbounds.checks.lower.slopes imports the solver-free engine only)


def statements() -> list:
    """The 22 optimality statements: tight Table 1 cells and the identical-C̃ theorem statements."""
    return [c for c in REGISTRY if c.tight and (c.table == 1 or c.problem_class in ("shared_ident", "mixed_ident"))]


def _params(cell) -> list[str]:
    return [p for p in CLASS_FAMILIES[cell.problem_class][2] if cell.exponent(p) > 0]


def _lower_results(claims: list[dict], cell_id: str, param: str) -> list[dict]:
    base = f"{cell_id}.{param}.lower"
    return [c for c in claims if c.get("kind") == "lower" and not c.get("control")
            and (c["id"] == base or c["id"].startswith(base + "@"))]


def _variant_of(c: dict) -> str:
    return c["id"].split("@", 1)[1] if "@" in c["id"] else "printed"


def certify_param(claims: list[dict], cell, param: str) -> dict | None:
    """``{"certificate", "construction", "reason"}`` for one statement × parameter (``None``: not run)."""
    res = _lower_results(claims, cell.id, param)
    if (cell.id, param) in REFUTATIONS:
        return {"certificate": "refuted", "construction": None, "reason": REFUTATIONS[(cell.id, param)]}
    if not res:
        return None
    passing = {_variant_of(c): c for c in res if c["status"] == "pass"}
    own = PRINTED_AS.get(cell.problem_class, "printed")
    if own in passing:
        return {"certificate": "printed", "construction": own, "reason": passing[own].get("detail", ""),
                "result": passing[own]["id"]}
    for v in VARIANT_ORDER + tuple(sorted(passing)):
        if v == "printed" and v in passing:  # the suite's own construction of a class the paper builds otherwise
            return {"certificate": f"variant:{SUITE_NAMES.get(cell.problem_class, 'printed')}", "construction": v,
                    "reason": passing[v].get("detail", ""), "result": passing[v]["id"]}
        if v in passing:
            return {"certificate": f"variant:{v}", "construction": v, "reason": passing[v].get("detail", ""),
                    "result": passing[v]["id"]}
    tried = "; ".join(f"{_variant_of(c)}: {c['status']} ({str(c.get('detail', ''))[:160]})" for c in res)
    return {"certificate": "none", "construction": None,
            "reason": f"no construction tried gives the claimed slope and no refutation is recorded — {tried}"}


def _ratio(claims_by_id: dict, cell, param: str, cert: dict, tier: str) -> dict | None:
    """Solver per decade / engine bound per decade at each point of the (cell, param) sweep."""
    up = claims_by_id.get(f"{cell.id}.{param}.tight")
    lo = claims_by_id.get(cert.get("result") or "")
    if up is None or lo is None:
        return {"ratios": None, "slope": None, "flat": None,
                "note": "no solver sweep on a worst-case construction of this class in this run"}
    lb = {round(float(r["target"]), 6): r for r in lo.get("points") or [] if r.get("target") is not None}
    xs, qs = [], []
    for r in up.get("points") or []:
        b = lb.get(round(float(r["target"]), 6)) if r.get("target") is not None else None
        if not b or not b.get("per_accuracy") or b["per_accuracy"] <= 0 or not r.get("per_accuracy"):
            continue
        xs.append(r["realized"])
        qs.append((r["per_accuracy"] / math.log10(UB_EPS1 / UB_EPS2)) / (b["per_accuracy"] / _LB_DECADES))
    if len(qs) < 2:
        return {"ratios": qs, "slope": None, "flat": None, "note": "fewer than two comparable points"}
    f = fit_slope(xs, qs)
    note = "same instance" if cert["construction"] == "printed" else \
        f"solver on the printed construction, engine on {cert['construction']}, at the same targets"
    return {"ratios": [round(q, 4) for q in qs], "realized": xs, "slope": f["slope"],
            "flat": bool(abs(f["slope"]) <= RATIO_TOL.get(tier, RATIO_TOL["quick"])), "note": note}


def certify(claims: list[dict], tier: str) -> dict:
    """Annotate ``claims`` in place (``certificate``, ``verdict_label``) and return the summary block."""
    by_id = {c["id"]: c for c in claims}
    rows, counts = [], {"printed": 0, "variant": 0, "refuted": 0, "none": 0}
    not_flat = []
    for cell in statements():
        per = {}
        for p in _params(cell):
            cert = certify_param(claims, cell, p)
            if cert is None:
                continue
            if cert["certificate"] in ("printed",) or cert["certificate"].startswith("variant:"):
                cert["tightness"] = _ratio(by_id, cell, p, cert, tier)
                if cert["tightness"].get("flat") is False:
                    not_flat.append(f"{cell.id}.{p}")
            per[p] = cert
            for c in _lower_results(claims, cell.id, p):
                c["certificate"] = cert["certificate"]
            up = by_id.get(f"{cell.id}.{p}.tight")
            if up is not None:
                up["certificate"] = cert["certificate"]
                ok = cert["certificate"] == "printed" or cert["certificate"].startswith("variant:")
                up["verdict_label"] = ("tight" if ok else "upper matches, lower not certified") if up["status"] == "pass" \
                    else up["status"]
        if not per:
            continue
        worst = min(per.values(), key=lambda c: _RANK[c["certificate"].split(":")[0]])
        kind = worst["certificate"].split(":")[0]
        if kind == "variant":
            names = sorted({c["certificate"].split(":", 1)[1] for c in per.values() if c["certificate"].startswith("variant:")})
            label = "variant:" + "+".join(names)
        else:
            label = worst["certificate"]
        counts[kind] += 1
        rows.append({"statement": cell.id, "certificate": label, "class": cell.problem_class, "oracle": cell.oracle,
                     "params": {p: {k: v for k, v in c.items() if k != "reason" or c["certificate"] in ("none", "refuted")}
                                for p, c in per.items()}})
    return dict(counts, total=len(rows), statements=rows, ratios_not_flat=not_flat)


def summary_line(block: dict) -> str:
    """One line for the terminal and the report."""
    return (f"Lower-bound certificates: printed {block['printed']}, variant {block['variant']}, refuted "
            f"{block['refuted']}, none {block['none']} (of {block['total']} optimality statements)")
