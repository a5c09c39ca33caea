"""Lower-bound certificates: is each optimality statement backed by a solver-free lower bound, for which class, how?

Table 1 (``table:smooth_str_convex_optimization_affine_constraints``) claims *optimal* complexities: 17 cells, plus
5 identical-``C̃`` statements stated only in theorems (``thm:LI_upper_bound`` and the identical case of
``thm:upper_bound_coupled_plus_non_ident_local_constraints_prob``) — 22 optimality statements.  A matching solver
slope shows the method is fast on the instance, not that the instance is hard (docs/design.md, "Certificates").

Every statement × parameter with ``θ > 0`` is read from the lower-bound results of the same run
(:mod:`mixbounds.checks.lower.constructions`), one per construction tried, each with its own verdict:

* ``certified``: the result passed: exact engine counts equal to the closed form at every point (or, without a
  closed form, the slope rule), the claimed exponent, the tier's decades;
* ``refuted``: measured: the construction does not carry the bound and a method of the class beats the claimed
  growth on it (:mod:`mixbounds.checks.lower.refutation`);
* ``none``: neither (the reason is the result's).

A parameter is certified when some construction certifies it; the one named is the best by class first
(``def:foda`` — Definition ``def:foda`` as printed, ``∇f_i*`` admitted — before ``primal-gradient``) and then by how
close it is to the paper (``printed``, then ``cited:<what the paper cites>``, then ``variant:<name>``).  A statement's
certificate is its weakest parameter's (``printed`` > ``cited`` > ``variant`` > ``none``), its class the narrowest
parameter's.

Tightness (solver per decade of accuracy / engine bound per decade, on the same instance, flat in the swept parameter
within the tier's Table 1 ratio tolerance, or not flat but *explained* — ``ratios_explained``: the per-iteration count
follows the bound and APAPC's iterations per accuracy fall, :mod:`mixbounds.checks.lower.tightness`): read from the ``…tightness`` results of :mod:`mixbounds.checks.lower.tightness`, which run
APAPC on the certifying construction itself (printed or variant), or, for the printed worst-case families, from the
``…tight`` results of :mod:`mixbounds.checks.rates` (their ``tightness`` ratios are on the same instances).
"""

from __future__ import annotations

from mixbounds.bounds.claims import REGISTRY
from mixbounds.bounds.concepts import ProblemClass
from mixbounds.checks.sweeps import CLASS_FAMILIES
from mixbounds.checks.tiers import Tier, as_tier

#: statement-level kinds, weakest first
KINDS = ("none", "variant", "cited", "printed")
#: method classes, narrowest first
CLASSES = ("primal-gradient", "def:foda")


def statements() -> list:
    """The 22 optimality statements: tight Table 1 cells and the identical-C̃ theorem statements."""
    return [c for c in REGISTRY if c.tight and (c.table == 1 or c.problem_class in (ProblemClass.SHARED_IDENT, ProblemClass.MIXED_IDENT))]


def _params(cell) -> list[str]:
    return [p for p in CLASS_FAMILIES[cell.problem_class][2] if cell.exponent(p) > 0]


def _lower_results(claims: list[dict], cell_id: str, param: str) -> list[dict]:
    base = f"{cell_id}.{param}.lower"
    return [c for c in claims if c.get("kind") == "lower" and not c.get("control")
            and (c["id"] == base or c["id"].startswith(base + "@"))]


def kind_of(construction: str | None) -> str:
    """``printed`` / ``cited`` / ``variant`` of a construction name (``none`` for ``None``)."""
    return "none" if not construction else construction.split(":", 1)[0]


def _construction(c: dict) -> str:
    return (c.get("extra") or {}).get("construction") or (c.get("instance") or {}).get("construction") or "printed"


def construction_verdicts(claims: list[dict], cell, param: str) -> list[dict]:
    """Every construction tried for (statement × parameter), with its own verdict (module docstring)."""
    refuted = {_construction(r): r for r in claims if r.get("kind") == "refutation" and not r.get("control")
               and r["id"] == f"{cell.id}.{param}.lower.refutation" and (r.get("extra") or {}).get("verdict") == "refuted"}
    out = []
    for r in _lower_results(claims, cell.id, param):
        ex = r.get("extra") or {}
        name = _construction(r)
        if r["status"] == "pass":
            v, why = "certified", ""
        elif name in refuted:
            v, why = "refuted", refuted[name]["detail"]
        else:
            v, why = "none", f"{r['status']}: {str(r.get('detail', ''))[:300]}"
        out.append({"construction": name, "verdict": v, "method_class": ex.get("method_class"), "result": r["id"],
                    "exact": _exact(ex), "decades": ex.get("decades"), "exponent": r.get("measured"),
                    "exponent_source": ex.get("exponent_source"), "ci": r.get("ci"), "reason": why})
    return out


def _exact(ex: dict) -> dict:
    e = ex.get("exact")
    if not e:
        return {"formula": "no closed form: slope rule", "matched": 0, "points": 0}
    return {"formula": e.get("formula") or "", "matched": e["matched"], "points": e["points"],
            "boundary": e.get("boundary", [])}


def certify_param(claims: list[dict], cell, param: str) -> dict | None:
    """The certificate of one statement × parameter (``None``: nothing was run for it)."""
    tried = construction_verdicts(claims, cell, param)
    if not tried:
        return None
    good = [t for t in tried if t["verdict"] == "certified"]
    if not good:
        why = "; ".join(f"{t['construction']}: {t['verdict']} ({t['reason'][:160]})" for t in tried)
        return {"certificate": "none", "construction": None, "method_class": None, "exact": None, "decades": None,
                "constructions": tried, "reason": f"no construction tried certifies it — {why}"}
    best = max(good, key=lambda t: (CLASSES.index(t["method_class"]) if t["method_class"] in CLASSES else -1,
                                    KINDS.index(kind_of(t["construction"]))))
    return {"certificate": best["construction"], "construction": best["construction"],
            "method_class": best["method_class"], "exact": best["exact"], "decades": best["decades"],
            "exponent": best["exponent"], "exponent_source": best["exponent_source"], "ci": best["ci"],
            "result": best["result"], "constructions": tried}


def _tightness(by_id: dict, cell, param: str, cert: dict, tier: Tier) -> dict:
    """Solver / engine per decade on the certifying construction's own instances (module docstring)."""
    suffix = cert["result"].split("@", 1)[1] if "@" in cert["result"] else None
    rid = f"{cell.id}.{param}.tightness" + (f"@{suffix}" if suffix else "")
    t = by_id.get(rid)
    if t is not None:
        ex = t.get("extra") or {}
        return {"ratios": ex.get("ratios"), "slope": t.get("measured"), "flat": ex.get("flat"),
                "expected_slope": ex.get("expected_slope"), "explained": ex.get("explained"),
                "decomposition": ex.get("decomposition"),
                "result": rid, "note": "same instance: APAPC and the engine on the certifying construction"}
    up = by_id.get(f"{cell.id}.{param}.tight")
    if suffix is None and up is not None and (up.get("extra") or {}).get("tightness_slope") is not None:
        ex = up["extra"]
        slope = ex["tightness_slope"]
        return {"ratios": ex.get("tightness"), "slope": slope, "flat": bool(abs(slope) <= tier.table1.ratio_tol),
                "result": up["id"], "note": "same instance: the rates sweep on the printed worst-case family"}
    return {"ratios": None, "slope": None, "flat": None, "result": None,
            "note": "no solver sweep on the certifying construction in this run"}


def certify(claims: list[dict], tier: Tier | str) -> dict:
    """Annotate ``claims`` in place (``certificate``, ``verdict_label``) and return the summary block
    (docs/design.md, "Record fields"; ``tier``: the run's tier or its name, whose Table 1 ratio tolerance decides
    whether a tightness ratio of the rate checks is flat)."""
    tier = as_tier(tier)
    by_id = {c["id"]: c for c in claims}
    rows = []
    counts = {k: 0 for k in ("printed", "cited", "variant", "none")}
    by_class = {k: 0 for k in CLASSES}
    refuted, not_flat, explained = [], [], []
    for cell in statements():
        per = {}
        for p in _params(cell):
            cert = certify_param(claims, cell, p)
            if cert is None:
                continue
            refuted += [f"{cell.id}.{p}:{t['construction']}" for t in cert["constructions"] if t["verdict"] == "refuted"]
            if cert["certificate"] != "none":
                cert["tightness"] = _tightness(by_id, cell, p, cert, tier)
                if cert["tightness"]["flat"] is False:
                    (explained if cert["tightness"].get("explained") else not_flat).append(f"{cell.id}.{p}")
            per[p] = cert
            for c in _lower_results(claims, cell.id, p):
                c["certificate"] = cert["certificate"]
            up = by_id.get(f"{cell.id}.{p}.tight")
            if up is not None:
                up["certificate"] = cert["certificate"]
                ok = cert["certificate"] != "none"
                up["verdict_label"] = ("tight" if ok else "upper matches, lower not certified") if up["status"] == "pass" \
                    else up["status"]
        if not per:
            continue
        worst = min(per.values(), key=lambda c: KINDS.index(kind_of(c["construction"])))
        kind = kind_of(worst["construction"])
        names = sorted({c["construction"] for c in per.values() if c["construction"]})
        label = "none" if kind == "none" else (names[0] if len(names) == 1 else f"{kind}:" + "+".join(
            n.split(":", 1)[1] if ":" in n else n for n in names))
        classes = [c["method_class"] for c in per.values() if c["method_class"]]
        mclass = min(classes, key=CLASSES.index) if classes and kind != "none" else None
        counts[kind] += 1
        if mclass:
            by_class[mclass] += 1
        rows.append({"statement": cell.id, "certificate": label, "kind": kind, "method_class": mclass,
                     "class": cell.problem_class, "oracle": cell.oracle, "params": per})
    return dict(counts, total=len(rows), by_class=by_class, constructions_refuted=refuted, statements=rows,
                ratios_not_flat=not_flat, ratios_explained=explained)


def summary_line(block: dict) -> str:
    """One line for the terminal and the report."""
    bc = block.get("by_class") or {}
    return (f"Lower-bound certificates: printed {block.get('printed', 0)}, cited {block.get('cited', 0)}, variant "
            f"{block.get('variant', 0)}, none {block.get('none', 0)} (of {block.get('total', 0)} optimality statements); "
            f"by class: def:foda {bc.get('def:foda', 0)}, primal-gradient {bc.get('primal-gradient', 0)}; "
            f"constructions refuted: {len(block.get('constructions_refuted') or [])}")
