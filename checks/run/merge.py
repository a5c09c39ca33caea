"""One results document from two runs: ``mixbounds verify --merge`` updates the results it selects and keeps the rest.

A set (``results.json`` with its report and figures) is the results of one selection.  ``--merge`` writes the
results of a new run into a set made by another selection: the union is a set of its own, whose meaning is fixed
here, field by field, so that nothing in it describes only one of the runs while claiming to describe the set:

* **results**: every result the new run's globs select comes from the new run (a result of the old set those globs
  select and the new run did not produce is dropped: the new run is the truth about its selection); every other
  result of the old set is kept as it was — in the old set's order, the new run's new ids after them;
* **findings, controls, summary, certificates**: recomputed from the union's results, as :func:`build_document` does
  for one run (a statement is certified by whichever run measured its results); the **exit code** of the command is
  the union's, which is the verdict the report prints at its top;
* **claims_glob**: the union of the globs (a result is in the set when either run selected it); the tier is the
  same (:func:`merge_documents` refuses two tiers: their sweeps are not the same measurements);
* **checks, seeds**: the union, the new run's entry first where both have one;
* **stats, versions, command, started, finished, wall_time**: the new run's, and ``parts`` lists every run that
  contributed results (its command, code version, start, and how many results it still holds in the set), so that
  a set whose results come from two code versions says so (the report's Run section shows them).
"""

from __future__ import annotations

from mixbounds.checks.lower.certificates import certify
from mixbounds.checks.run.document import build_controls, collect_findings, summarize
from mixbounds.checks.run.globs import matches as _matches
from mixbounds.checks.run.globs import union_globs


class MergeError(ValueError):
    """Two documents that are not one set (another tier)."""


def _globs(doc: dict) -> list[str]:
    return [g for g in str(doc.get("claims_glob") or "*").split(",") if g]


def _part(doc: dict, results: int) -> dict:
    return {"command": doc.get("command"), "code_version": (doc.get("versions") or {}).get("code_version"),
            "started": doc.get("started"), "claims_glob": doc.get("claims_glob"), "results": results}


def _reset(p: dict) -> dict:
    return dict(p, results=0)


def merge_documents(old: dict, new: dict) -> dict:
    """The results document of the union of ``old`` (the set in the directory) and ``new`` (this run): module
    docstring.  :class:`MergeError` when they are of different tiers."""
    if old.get("tier") != new.get("tier"):
        raise MergeError(f"the set holds tier {old.get('tier')} results and this run is tier {new.get('tier')}: "
                         f"results of two tiers are not one set")
    globs = _globs(new)
    fresh = {c["id"]: c for c in new["claims"]}
    claims, placed = [], set()
    for c in old["claims"]:
        if not _matches(c["id"], globs):
            claims.append(c)
        elif c["id"] in fresh and c["id"] not in placed:
            claims.append(fresh[c["id"]])
            placed.add(c["id"])
    claims += [c for c in new["claims"] if c["id"] not in placed]
    summary = summarize(claims)
    summary["lower_bound_certificates"] = certify(claims, new["tier"])
    new_checks = {ch["id"] for ch in new.get("checks") or []}
    parts = [_reset(p) for p in old.get("parts") or [_part(old, 0)]] + [_part(new, 0)]
    for c in claims:  # a result belongs to the last run whose globs select it: the one that wrote it
        owner = next((p for p in reversed(parts) if _matches(c["id"], _globs(p))), parts[-1])
        owner["results"] += 1
    parts = [p for p in parts if p["results"]]
    return dict(new, claims=claims, findings=collect_findings(claims), controls=build_controls(summary, claims),
                summary=summary, claims_glob=",".join(union_globs(_globs(old), globs)),
                checks=list(new.get("checks") or []) + [ch for ch in old.get("checks") or []
                                                        if ch.get("id") not in new_checks],
                seeds={**(old.get("seeds") or {}), **(new.get("seeds") or {})}, parts=parts)


def merge_bench_documents(old: dict, new: dict, summarize_lines) -> dict:
    """The ``bench.json`` of the union of ``old`` (the set in the directory) and ``new`` (this ``mixbounds bench``
    run), for ``bench --merge``: the results this run measured (by result id) are its own, the others are kept; the
    classes are the union, the summary lines are recomputed by ``summarize_lines`` (results → lines), the stats are
    this run's, and ``parts`` names the runs the results come from.  :class:`MergeError` for another method, other
    method keyword arguments or another tier (the verdicts of two methods, or of two tiers' sweeps, are not one set)."""
    for key in ("method", "tier", "method_args"):
        if (old.get(key) or None) != (new.get(key) or None):
            raise MergeError(f"the set holds the bench of {key} {old.get(key)} and this run's {key} is {new.get(key)}: "
                             f"they are not one set")
    mine = set(new.get("classes") or [])
    ids = {r.get("id") for r in new.get("results") or []}
    results = [r for r in old.get("results") or [] if r.get("id") not in ids] + list(new.get("results") or [])
    classes = list(dict.fromkeys(list(old.get("classes") or []) + list(new.get("classes") or [])))
    parts = [p for p in old.get("parts") or [{"command": old.get("command"), "classes": old.get("classes")}]
             if set(p.get("classes") or []) - mine]
    parts = [dict(p, classes=[c for c in p.get("classes") or [] if c not in mine]) for p in parts]
    return dict(new, results=results, classes=classes, summary=summarize_lines(results),
                parts=parts + [{"command": new.get("command"), "classes": sorted(mine)}])
