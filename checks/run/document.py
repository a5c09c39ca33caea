"""The results document: what ``results.json`` and ``results.csv`` hold, assembled from check results.

``build_document`` turns the check results of one run into the document written as
``results.json`` (layout version :data:`SCHEMA`); ``summarize`` counts statuses, controls and
unexpected findings and decides the run's exit code; ``csv_text`` flattens every sweep point into
one CSV row.  Pure data: no figures, no terminal, no files.
"""

from __future__ import annotations

import csv
import io
import json
import platform
from datetime import datetime, timezone
from importlib import metadata

from mixbounds.checks.expected import expected
from mixbounds.checks.lower.certificates import certify
from mixbounds.checks.run.framework import Check, code_version
from mixbounds.checks.run.result import STATUSES, json_clean
from mixbounds.checks.tiers import Tier, as_tier

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: version of the results.json layout (bumped when a field changes meaning).  2: every claim's ``measured`` is a
#: number or null, several numbers of one result go to its ``readings`` (schema 1 put a dict in ``measured``);
#: readers take schema 1 too (:func:`mixbounds.plots.data.upgrade`)
SCHEMA = 2


def _versions(cv: str) -> dict:
    def ver(name):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    return {"python": platform.python_version(), "platform": platform.platform(),
            "mixed-affine-bounds": ver("mixed-affine-bounds"), "numpy": ver("numpy"), "scipy": ver("scipy"),
            "matplotlib": ver("matplotlib"), "joblib": ver("joblib"), "rich": ver("rich"), "code_version": cv}


def _collect_seeds(obj, acc: set) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if str(k).endswith("seed") and isinstance(v, (int, str)) and not isinstance(v, bool):
                acc.add(v)
            else:
                _collect_seeds(v, acc)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _collect_seeds(v, acc)


def seeds_of(plan: dict[str, list]) -> dict:
    """Check id → the seeds its tasks pass to instance builders (checks without seeds are deterministic)."""
    out = {}
    for cid, tasks in plan.items():
        acc: set = set()
        for t in tasks:
            _collect_seeds(t.kwargs, acc)
        if acc:
            out[cid] = sorted(acc, key=lambda s: (isinstance(s, str), s))
    return out


def summarize(claims: list[dict]) -> dict:
    """Counts per status (ordinary results), controls caught, and the run's exit code."""
    ordinary = [c for c in claims if not c.get("control")]
    controls = [c for c in claims if c.get("control")]
    counts = {s: sum(1 for c in ordinary if c["status"] == s) for s in STATUSES}
    caught = [c["id"] for c in controls if c["status"] == "fail"]
    missed = [c["id"] for c in controls if c["status"] != "fail"]
    bad = [c["id"] for c in ordinary if c["status"] in ("fail", "error")]
    # a finding is a legitimate verdict only when it is an expected one (mixbounds.checks.expected, with its reason)
    unexpected = [c["id"] for c in ordinary if c["status"] == "finding" and expected(c["id"]) is None]
    resolved = [c["id"] for c in ordinary if c["status"] == "pass" and expected(c["id"]) is not None
                and c.get("kind") in ("lemma", "closed-form", "finding")]
    code = EXIT_FAIL if (bad or missed or unexpected) else EXIT_OK
    return {"results": len(ordinary), "status": counts, "controls_total": len(controls), "controls_caught": len(caught),
            "failed": bad, "controls_not_caught": missed, "unexpected_findings": unexpected,
            "expected_findings_now_passing": resolved, "exit_code": code,
            "verdict": "ok" if code == EXIT_OK else "failed"}


def collect_findings(claims: list[dict]) -> list[dict]:
    """The finding records of ``claims``, each once (by id), in the order of the results carrying them."""
    findings, seen = [], set()
    for c in claims:
        for f in c.get("findings") or []:
            if f.get("id") not in seen:
                seen.add(f.get("id"))
                findings.append(f)
    return findings


def build_controls(summary: dict, claims: list[dict]) -> dict:
    """The ``controls`` block: counts from ``summary`` (:func:`summarize`), one item per negative control."""
    return {"total": summary["controls_total"], "caught": summary["controls_caught"],
            "not_caught": summary["controls_not_caught"],
            "items": [{"id": c["id"], "status": c["status"], "caught": c["status"] == "fail", "kind": c["kind"],
                       "expected": c.get("expected") or "fail", "detail": c.get("detail", "")}
                      for c in claims if c.get("control")]}


def build_document(results, stats: dict, *, tier: Tier | str, globs: list[str], wall_time: float, started: str,
                   checks: list[Check], plan: dict, jobs: int, cache_dir, command: str = "") -> dict:
    """The results document of one run in ``tier`` (recorded by its name)."""
    tier = as_tier(tier)
    claims = [r.to_json() for r in results]
    findings = collect_findings(claims)
    summary = summarize(claims)
    # certificates of the optimality statements (annotates the tight and lower results; statuses unchanged)
    summary["lower_bound_certificates"] = certify(claims, tier)
    controls = build_controls(summary, claims)
    cv = stats.get("code_version") or code_version()
    return json_clean({
        "schema": SCHEMA,
        "version": _versions(cv)["mixed-affine-bounds"],
        "tier": tier.name,
        "claims_glob": ",".join(globs),
        "complete": True,
        "claims": claims,
        "findings": findings,
        "controls": controls,
        "summary": summary,
        "checks": [{"id": c.id, "family": c.family, "description": c.description, "results": list(c.result_ids(tier))}
                   for c in checks],
        "stats": dict(stats, jobs=jobs, cache=None if cache_dir is None else str(cache_dir)),
        "seeds": seeds_of(plan),
        "versions": _versions(cv),
        "command": command,
        "started": started,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "wall_time": wall_time,
    })


# ----------------------------------------------------------------------------- csv
def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        elif isinstance(v, (list, tuple)):
            out[key] = json.dumps(v)
        else:
            out[key] = v
    return out


CSV_FIXED = ["id", "kind", "status", "control", "cell", "param", "point", "x", "y"]


def csv_text(doc: dict) -> str:
    """One row per sweep point (points with a ``realized`` value): id, kind, status, param, x = realized,
    y = per_accuracy, then the result's ``verdict_label`` and every other field of the point flattened
    (``realized_all.kappa_f``, ``count1``, …)."""
    rows = []
    for c in doc["claims"]:
        for i, p in enumerate(c.get("points") or []):
            if not isinstance(p, dict) or "realized" not in p:
                continue
            x = p.get("realized")
            if isinstance(x, dict):
                x = x.get(c.get("param"))
            row = {"id": c["id"], "kind": c["kind"], "status": c["status"], "control": bool(c.get("control")),
                   "cell": c.get("cell") or "", "param": c.get("param") or "", "point": i, "x": x,
                   "y": p.get("per_accuracy"), "verdict_label": c.get("verdict_label") or ""}
            row.update({k: v for k, v in _flatten(p).items() if k not in ("per_accuracy",) and k not in CSV_FIXED})
            if isinstance(p.get("realized"), dict):
                row.pop("realized", None)
            rows.append(row)
    extra = sorted({k for r in rows for k in r} - set(CSV_FIXED))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIXED + extra, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    return buf.getvalue()
