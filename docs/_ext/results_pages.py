"""The results pages of the documentation, generated from run snapshots so that they cannot go stale.

A *snapshot* is a directory ``docs/data/<name>/`` holding the ``results.json`` of one ``mixbounds verify`` run
and ``snapshot.json``, the provenance :mod:`snapshot` wrote when it made the run (git commit, whether the tree
had uncommitted changes, command, date, the machine's load average).  The docs build
(:mod:`mixbounds_docs`) renders the pages from them at every build; the pages are never committed.

Snapshots read (each optional; a page whose snapshot is absent is not written):

* ``quick``: the quick tier (``mixbounds verify --tier quick``) → the pages ``index``, ``certificates``,
  ``findings``, ``timings``;
* ``bench-tiny``: the benchmarks (``--tier tiny --claims 'bench.*'``) → ``benchmarks`` (and its row in
  ``timings``);
* every snapshot with task durations → ``where-the-time-goes``: its simulated cluster (2, 8, 16, 64 workers), task
  seconds by kind and longest tasks (:func:`mixbounds.checks.run.schedule.record_markdown`);
* ``pytest-benchmark.json`` (a file, not a run): the timed benchmarks of ``sh benchmarks/run_benchmarks.sh``
  (pytest-benchmark's JSON, with the load average and the code version the suite's ``conftest`` adds to its
  ``machine_info``) → ``timed-benchmarks``.

Every page names the snapshot it was generated from, its commit and code version, and says so when the
current source's code version differs (the numbers are then those of the snapshot's code, not of this one).

By hand (the same pages, from any results documents; bad input is one line on stderr, exit 2, nothing
written)::

    python docs/_ext/results_pages.py DATA_DIR --out DIR
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from mdtext import code, escape, table
from mixbounds.checks.run.calibration import in_units
from mixbounds.checks.run.framework import code_version
from mixbounds.checks.run.schedule import ScheduleError, read_run, record_markdown
from mixbounds.plots import ResultsFileError, load_results

from mixbounds.report.blocks import render_md
from mixbounds.report.problems import SEVERITIES, group_findings
from mixbounds.report.upper import dominance_section, factors_section, not_exercised_section, pep_section

#: snapshot name → what it is (the page text says it)
SNAPSHOTS = {"quick": "the quick tier, every check", "bench-tiny": "the benchmarks, tier tiny",
             "full": "the full tier, the paper's claims (its benchmarks are `bench --tier full`)"}
#: keys ``snapshot.json`` must have (written by docs/_ext/snapshot.py)
META_KEYS = ("commit", "dirty", "command", "date", "load_before", "load_after")
#: the pages in the order of the results index
PAGES = (("certificates", "Lower-bound certificates"), ("upper-bounds", "Upper bounds over the class: PEP certificates"),
         ("findings", "Findings: the paper and the numbers disagree"),
         ("benchmarks", "Benchmarks"), ("timed-benchmarks", "Timed benchmarks (pytest-benchmark)"),
         ("timings", "Timings"), ("where-the-time-goes", "Where the time goes: task durations and a simulated cluster"))
#: the worker counts of the simulated cluster (issue 49: 2, 8, 16, 64)
CLUSTER_WORKERS = (2, 8, 16, 64)
#: the timed benchmarks' JSON in the data directory (pytest-benchmark's ``--benchmark-json``)
TIMED = "pytest-benchmark.json"


class SnapshotError(Exception):
    """A snapshot directory cannot be used (one-line message naming the file and what is wrong)."""


@dataclass(frozen=True)
class Snapshot:
    """One run: its results document and where it came from."""

    name: str
    doc: dict
    meta: dict

    @property
    def code(self) -> str:
        return str((self.doc.get("versions") or {}).get("code_version"))


def load_snapshot(d: Path) -> Snapshot:
    """The snapshot in directory ``d`` (``results.json`` and ``snapshot.json``), validated."""
    meta_file = d / "snapshot.json"
    try:
        doc = load_results(d / "results.json")
    except ResultsFileError as exc:
        raise SnapshotError(str(exc)) from None
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SnapshotError(f"{meta_file}: unreadable ({exc})") from None
    missing = [k for k in META_KEYS if not isinstance(meta, dict) or k not in meta]
    if missing:
        raise SnapshotError(f"{meta_file}: missing {', '.join(missing)} (written by docs/_ext/snapshot.py)")
    return Snapshot(d.name, doc, meta)


def load_snapshots(data: Path) -> dict[str, Snapshot]:
    """Every known snapshot present under ``data`` (an unknown directory name is an error: a typo loses a page)."""
    if not data.is_dir():
        raise SnapshotError(f"{data}: not a directory")
    out = {}
    for d in sorted(p for p in data.iterdir() if p.is_dir()):
        if d.name not in SNAPSHOTS:
            raise SnapshotError(f"{d}: unknown snapshot name (known: {', '.join(SNAPSHOTS)})")
        out[d.name] = load_snapshot(d)
    return out


def load_timed(data: Path) -> dict | None:
    """The timed benchmarks' JSON under ``data`` (``None`` when absent), checked for what the page reads."""
    path = data / TIMED
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SnapshotError(f"{path}: unreadable ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list) or "machine_info" not in doc:
        raise SnapshotError(f"{path}: not a pytest-benchmark JSON (no 'benchmarks' list or 'machine_info')")
    for b in doc["benchmarks"]:
        if not isinstance(b, dict) or not isinstance(b.get("stats"), dict) or "median" not in b["stats"]:
            raise SnapshotError(f"{path}: a benchmark without stats.median ({str(b)[:60]})")
    return doc


# ----------------------------------------------------------------------------- formatting
def _num(v, digits: int = 3) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return "—" if v is None else escape(v)
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def _signed(v) -> str:
    return f"{v:+.3f}" if isinstance(v, (int, float)) and math.isfinite(v) else "—"


def _duration(s) -> str:
    if not isinstance(s, (int, float)):
        return "—"
    m, sec = divmod(float(s), 60)
    return f"{sec:.1f} s" if m == 0 else f"{int(m)} min {sec:04.1f} s"


def _calibrated(s, cal) -> str:
    """A duration raw and in calibration units (``u``: reference workloads of the same machine, same run)."""
    u = in_units(s, cal)
    return _duration(s) if u is None else f"{_duration(s)} = {u:.1f} u"


def provenance(s: Snapshot) -> list[str]:
    """The paragraph every page starts with: which run, which commit and code, and whether the code moved since."""
    m, doc = s.meta, s.doc
    dirty = " with uncommitted changes" if m.get("dirty") else ""
    lines = [f"Generated at docs build time from the snapshot `docs/data/{s.name}/` ({SNAPSHOTS[s.name]}): "
             f"{code(m['command'])} at commit {code(str(m['commit'])[:12])}{dirty}, code version {code(s.code)}, "
             f"{escape(m['date'])}, tier {code(doc.get('tier'))}, {doc.get('stats', {}).get('jobs', '?')} jobs "
             f"(load average {m['load_before']} before, {m['load_after']} after the run on a "
             f"{m.get('cores', '?')}-core machine)."]
    now = code_version()
    if now != s.code:
        lines.append(f"The source has changed since (code version now {code(now)}): these are the numbers of the "
                     f"snapshot's code. Refresh with `python docs/_ext/snapshot.py {s.name}`.")
    return [" ".join(lines), ""]


# ----------------------------------------------------------------------------- pages
def page_index(snaps: dict[str, Snapshot], written: list[tuple[str, str]]) -> str:
    out = ["# Results", "",
           "Every page of this section is generated from the `results.json` of a real `mixbounds verify` run kept in "
           "`docs/data/` (a *snapshot*), at every docs build, by `docs/_ext/results_pages.py`: nothing here is typed "
           "by hand; the timed benchmarks page is generated the same way from the pytest-benchmark JSON kept there. "
           "Past measurements that no snapshot holds (full tier, large instances, cluster runs, the "
           "mutation harness) are in the {doc}`records <../records/index>`, each with its commit and command.", ""]
    rows = []
    for s in snaps.values():
        sm = s.doc.get("summary") or {}
        st = sm.get("status") or {}
        counts = ", ".join(f"{n} {k}" for k, n in st.items() if n)
        rows.append([code(s.name), code(s.meta["command"]), code(str(s.meta["commit"])[:12]), code(s.code),
                     escape(s.meta["date"]),
                     f"{sm.get('verdict', '?')}: {sm.get('results', 0)} results ({counts}); controls caught "
                     f"{sm.get('controls_caught', 0)}/{sm.get('controls_total', 0)}", _duration(s.doc.get("wall_time"))])
    out += table(["snapshot", "command", "commit", "code version", "date", "summary", "wall time"], rows)
    now = code_version()
    stale = [s.name for s in snaps.values() if s.code != now]
    if stale:
        out += [f"The source has changed since {', '.join(code(n) for n in stale)} was taken (code version now "
                f"{code(now)}); refresh a snapshot with `python docs/_ext/snapshot.py NAME`.", ""]
    out += ["```{toctree}", ":maxdepth: 1", ""] + [name for name, _ in written] + ["```", ""]
    return "\n".join(out)


def _param_cell(p: str, v: dict) -> str:
    """One parameter of a certificate: exact counts matched / compared, decades, the exponent and its source."""
    ex = v.get("exact") or {}
    exact = f"{ex.get('matched', 0)}/{ex.get('points', 0)} exact" if ex else "no closed form"
    ci = v.get("ci") or [None, None]
    fit = f"fit CI {_num(ci[0])}..{_num(ci[1])}" if ci[0] is not None else "no fit"
    return (f"{code(p)}: {exact}, {_num(v.get('decades'), 2)} decades, exponent {_num(v.get('exponent'))} "
            f"({escape(v.get('exponent_source') or '')}; {fit})")


def _tightness_cell(p: str, v: dict) -> str:
    t = v.get("tightness") or {}
    if t.get("slope") is None:
        return f"{code(p)}: not run"
    return f"{code(p)}: {_signed(t.get('slope'))} ({'flat' if t.get('flat') else 'NOT flat'})"


def _others(v: dict, chosen: str | None) -> list[str]:
    return [f"{escape(c.get('construction'))} ({escape(c.get('method_class'))}): {escape(c.get('verdict'))}"
            for c in v.get("constructions") or [] if c.get("construction") != chosen]


def page_certificates(s: Snapshot) -> str:
    lbc = (s.doc.get("summary") or {}).get("lower_bound_certificates") or {}
    out = ["# Lower-bound certificates", ""] + provenance(s)
    by_class = lbc.get("by_class") or {}
    out += [f"Of {lbc.get('total', 0)} optimality statements of Table 1: printed {lbc.get('printed', 0)}, cited "
            f"{lbc.get('cited', 0)}, variant {lbc.get('variant', 0)}, none {lbc.get('none', 0)}; by the class of "
            f"methods bounded: " + ", ".join(f"{code(k)} {n}" for k, n in by_class.items()) + "; constructions "
            "refuted by measurement: " + (", ".join(code(r) for r in lbc.get("constructions_refuted") or [])
                                           or "none") + " (what the certificates mean: {doc}`../guides/reviewer`).",
            "",
            "Per statement: the class of methods the bound holds for (`def:foda` as printed, `∇f_i*` admitted, or "
            "`primal-gradient`), the construction that carries it, and per parameter how many engine counts equal "
            "the closed-form count (every accuracy level of every sweep point), the decades swept, the exponent "
            "(the closed form's asymptotic one where the counts are exact and every instance is the model's; the fit "
            "must lie in the closed form's band on the grid), the "
            "slope of the tightness ratio (APAPC per decade / engine per decade on the same instances), and the "
            "verdicts of the other constructions tried.", ""]
    rows = []
    for st in lbc.get("statements") or []:
        params = st.get("params") or {}
        chosen = st.get("certificate")
        others = sorted({o for v in params.values() for o in _others(v, v.get("construction"))})
        rows.append([code(st.get("statement")), code(st.get("method_class")), code(chosen),
                     "; ".join(_param_cell(p, v) for p, v in params.items()),
                     "; ".join(_tightness_cell(p, v) for p, v in params.items()), "; ".join(others) or "—"])
    out += table(["statement", "class", "construction", "per parameter: exact counts, decades, exponent",
                  "tightness slope", "other constructions"], rows)
    flat = [(st["statement"], p) for st in lbc.get("statements") or [] for p, v in (st.get("params") or {}).items()
            if (v.get("tightness") or {}).get("flat") is False]
    if flat:
        out += ["Tightness ratios not flat: " + ", ".join(f"{code(a)} in {code(b)}" for a, b in flat) + ".", ""]
    return "\n".join(out)


def page_upper(s: Snapshot) -> str:
    """The report's own PEP, not-exercised, dominance and Table 2 factor sections (:mod:`mixbounds.report.upper`), rendered from the snapshot."""
    out = ["# Upper bounds over the class: PEP certificates", ""] + provenance(s)
    out += ["What the performance-estimation certificates are, and what they do not cover: "
            "{doc}`../guides/reviewer`. The sections below are the report's, rendered from the snapshot's "
            "`results.json`.", ""]
    blocks = pep_section(s.doc) + not_exercised_section(s.doc) + dominance_section(s.doc) + factors_section(s.doc)
    body: list[str] = []
    render_md(blocks, None, body)
    # the report's links point at its own anchors (one result each), which this page does not have: keep the ids
    body = [re.sub(r"\[([^\]]+)\]\(#[^)]*\)", r"`\1`", line) for line in body]
    return "\n".join(out + body).rstrip() + "\n"


def page_findings(s: Snapshot) -> str:
    groups = group_findings(s.doc)
    n_rec = len(s.doc.get("findings") or [])
    out = ["# Findings: the paper and the numbers disagree", ""] + provenance(s)
    by_sev = defaultdict(int)
    for g in groups:
        by_sev[g.severity] += 1
    out += [f"{n_rec} finding records, grouped into {len(groups)} distinct problems with the paper "
            f"({', '.join(f'{by_sev[k]} {k}' for k in SEVERITIES if by_sev[k])}); the grouping and the wording of "
            "each problem are those of the report ({mod}`mixbounds.report.problems`). A problem without records is a "
            "discrepancy of the text the suite records without measuring it.", ""]
    for i, g in enumerate(groups, 1):
        out += [f"## {i}. {escape(g.title)}", "",
                f"Paper label {code(g.label)}; severity: **{g.severity}**.", "",
                f"- printed: {escape(g.printed)}", f"- corrected / measured: {escape(g.corrected)}", ""]
        if g.records:
            rows = [[code(res.get("id") or f.get("source")), escape(f.get("printed")), escape(f.get("measured"))]
                    for f, res in g.records]
            out += table(["result", "paper", "measured"], rows)
    return "\n".join(out)


def page_timings(snaps: dict[str, Snapshot]) -> str:
    out = ["# Timings", "",
           "Wall times of the snapshot runs, read from their `results.json` (`wall_time`, `stats`). They were taken "
           "on the machine and at the load average each row states: a loaded machine stretches them, so read them "
           "as what a run cost there, not as a benchmark of the code. Each is also given in *calibration units* "
           "(`u`): the seconds divided by the run's `stats.calibration_seconds`, the time the same machine took, in "
           "the same run, for a fixed reference workload of sparse products and small Python-loop steps "
           "({mod}`mixbounds.checks.run.calibration`); compare runs of different machines in `u`.", ""]
    rows = []
    for s in snaps.values():
        st = s.doc.get("stats") or {}
        cal = st.get("calibration_seconds")
        rows.append([code(s.name), code(s.meta["command"]), code(str(s.meta["commit"])[:12]),
                     f"{st.get('computed', 0)} computed, {st.get('cached', 0)} cached",
                     _calibrated(st.get("seconds"), cal),
                     _calibrated(st.get("plot_seconds"), cal) if "plot_seconds" in st else "—",
                     _calibrated(s.doc.get("wall_time"), cal), _seconds(cal) if cal is not None else "not recorded",
                     str(st.get("jobs", "?")),
                     f"{s.meta['load_before']} → {s.meta['load_after']} ({s.meta.get('cores', '?')} cores)"])
    out += table(["snapshot", "command", "commit", "sweep points", "sweeps", "figures", "wall", "calibration", "jobs",
                  "load average"], rows)
    out += ["`sweeps` is the time from the first to the last sweep point, `figures` the time spent drawing (absent "
            "with `--no-plots`), `wall` the whole run without the interpreter's start-up, `calibration` the reference "
            "workload's seconds (a run older than the calibration has none: its times are raw only). What the full "
            "tier cost is in the {doc}`full-tier record <../records/full-tier>`.", ""]
    return "\n".join(out)


def page_time(snaps: dict[str, Snapshot], data: Path) -> str:
    """Per snapshot: the simulated cluster, task seconds by kind and the longest tasks, from the run's own recorded
    task durations (``stats.task_seconds``, ``stats.task_groups``; :mod:`mixbounds.checks.run.schedule`)."""
    out = ["# Where the time goes: task durations and a simulated cluster", "",
           "For each snapshot, its recorded task durations replayed on W identical workers by list scheduling, "
           "longest group first ({mod}`mixbounds.checks.run.schedule`: the model, its lower bound and what it leaves "
           "out), then the task seconds by kind and the longest tasks. Durations are raw seconds of the snapshot's "
           "machine and, where the run has a calibration, calibration units (`u`, {doc}`timings`). Regenerate a "
           "snapshot to measure the code you have.", ""]
    for s in snaps.values():
        out += [f"## `{s.name}`", ""] + provenance(s)
        try:
            run = read_run(data / s.name / "results.json")
        except ScheduleError as exc:
            out += [f"No task durations: {escape(str(exc))}", ""]
            continue
        out += record_markdown(run, list(CLUSTER_WORKERS), s.doc) + [""]
    return "\n".join(out)


def page_benchmarks(s: Snapshot) -> str:
    out = ["# Benchmarks", ""] + provenance(s)
    out += ["The suite's baselines and APAPC on the worst-case constructions and random families: the slope of "
            "each method's per-accuracy count against the swept parameter, with its 95% CI and the points fitted. "
            "The benchmark slopes are reported, not judged (a result is `skipped` when its points hit the budget). "
            "Tier `tiny` sweeps 3 points over half a decade: a smoke test of every method and class, not a rate "
            "to cite; the full tier's table is in the {doc}`full-tier record <../records/full-tier>`.", ""]
    rows = []
    for c in s.doc.get("claims", []):
        if not c["id"].startswith("bench.") or c.get("control"):
            continue
        ci = c.get("ci")
        ci_text = f"[{_num(ci[0], 2)}, {_num(ci[1], 2)}]" if isinstance(ci, list) and len(ci) == 2 else ""
        npts = len(c.get("points") or [])
        rows.append([code(c["id"]), escape(c.get("status")), f"{_num(c.get('measured'), 2)} {ci_text}".strip(),
                     str(npts)])
    out += table(["result", "status", "slope [95% CI]", "points"], rows)
    return "\n".join(out)


#: pytest-benchmark group → what it times (the page's headings)
TIMED_GROUPS = {
    "solve-load": "Loading an instance directory (`--format npz`)",
    "solve-facts": "The spectral facts computed from the matrices (what the facts stored in the instance save)",
    "solve-setup": "The solve's set-up: the reformulation with its constants",
    "solve-iterations": "The APAPC iterations to ε = 1e-6",
    "figures": "Drawing figures",
    "quick-tier-subset": "A quick-tier subset end to end",
}
#: ``extra_info`` keys shown, in this order
TIMED_EXTRA = ("variables", "constants", "used", "iterations", "counts", "setup_counts", "figures", "formats",
               "claims", "results", "points", "jobs")


def _seconds(v) -> str:
    return f"{v:.3f} s" if isinstance(v, (int, float)) and math.isfinite(v) else "—"


def _units(v, cal) -> str:
    u = in_units(v, cal)
    return f"{u:.4f} u" if u is not None and math.isfinite(u) else "—"


def _extra(info: dict) -> str:
    parts = []
    for k in TIMED_EXTRA:
        if k not in info:
            continue
        v = info[k]
        if isinstance(v, dict):
            v = ", ".join(f"{o} {n}" for o, n in v.items() if n)
            v = v or "none"
        elif isinstance(v, list):
            v = "+".join(map(str, v))
        parts.append(f"{k}: {v}")
    return escape("; ".join(parts))


def _solve_rows(by_name: dict) -> list[list[str]]:
    """Per size: load + set-up + iterations (medians, ``auto`` constants, as ``mixbounds solve`` runs) and the
    set-up / iterations ratio issue 38 asks to keep ≤ 0.5."""
    rows = []
    for size in ("1e4", "1e5"):
        load = by_name.get(f"test_bench_load[{size}]")
        setup = by_name.get(f"test_bench_setup[{size}-auto]")
        its = by_name.get(f"test_bench_iterations[{size}-auto]")
        if not (load and setup and its):
            continue
        ld, st, it = (b["stats"]["median"] for b in (load, setup, its))
        rows.append([f"{size.replace('1e', '10^')} variables", _seconds(ld), _seconds(st), _seconds(it),
                     _seconds(ld + st + it), f"{st / it:.3f}" if it > 0 else "—"])
    return rows


def page_timed(doc: dict) -> str:
    """The timed benchmarks (pytest-benchmark's JSON), grouped, with their provenance and the solve's phases."""
    mi, ci = doc.get("machine_info") or {}, doc.get("commit_info") or {}
    cal = mi.get("calibration_seconds") if isinstance(mi.get("calibration_seconds"), (int, float)) else None
    load = (f"load average {mi['load_before']} before, {mi['load_after']} after"
            if "load_before" in mi else "load average not recorded")
    out = ["# Timed benchmarks (pytest-benchmark)", "",
           f"Generated at docs build time from `docs/data/{TIMED}`, written by `sh benchmarks/run_benchmarks.sh` "
           f"(pytest-benchmark, `--benchmark-enable`) on {escape(doc.get('datetime', '?'))} at commit "
           f"{code(str(ci.get('id', '?'))[:12])}{' with uncommitted changes' if ci.get('dirty') else ''}, code "
           f"version {code(mi.get('code_version', 'not recorded'))}: {escape(mi.get('cpu', {}).get('brand_raw', '?'))}, "
           f"{mi.get('cores', '?')} cores, Python {escape(mi.get('python_version', '?'))}, {load}. "
           "One BLAS thread everywhere. A time taken beside other work is stretched: read the load average first. "
           + (f"Machine calibration of the session: {_seconds(cal)} for the reference workload "
              "({mod}`mixbounds.checks.run.calibration`); `u` is seconds divided by it, comparable across machines."
              if cal is not None else "No machine calibration recorded (a session older than it): times are raw only."),
           ""]
    now = code_version()
    if mi.get("code_version") and mi["code_version"] != now:
        out += [f"The source has changed since (code version now {code(now)}): these are the times of the "
                "benchmarked code. Refresh with `sh benchmarks/run_benchmarks.sh` on an idle machine.", ""]
    by_name = {b["name"]: b for b in doc["benchmarks"]}
    solve = _solve_rows(by_name)
    if solve:
        out += ["## `mixbounds solve`'s phases", "",
                "The instance of issue 38 (`random-coupled`, d = 100, m = 5, κ_f = κ̂_A = 10, Erdős–Rényi graph), "
                "medians; the set-up with the constants `mixbounds solve` chooses by default (`auto`). The "
                "interpreter's start-up and imports are not in these times.", ""]
        out += table(["size", "load", "set-up", "iterations", "sum", "set-up / iterations"], solve)
    groups: dict[str, list] = defaultdict(list)
    for b in doc["benchmarks"]:
        groups[b.get("group") or "other"].append(b)
    for g, items in groups.items():
        out += [f"## {TIMED_GROUPS.get(g, escape(g))}", ""]
        rows = [[code(b["name"]), _seconds(b["stats"].get("median")), _units(b["stats"].get("median"), cal),
                 _seconds(b["stats"].get("min")), _seconds(b["stats"].get("max")), str(b["stats"].get("rounds", "?")),
                 _extra(b.get("extra_info") or {})]
                for b in items]
        out += table(["case", "median", "median in u", "min", "max", "rounds", "what it did"], rows)
    return "\n".join(out)


def render_pages(snaps: dict[str, Snapshot], timed: dict | None = None, data: Path | None = None) -> dict[str, str]:
    """File name → page text, for the snapshots present (and the timed benchmarks, when given); ``data``, the
    snapshots' directory, adds the page of task durations."""
    pages: dict[str, str] = {}
    if timed is not None:
        pages["timed-benchmarks.md"] = page_timed(timed)
    q, b = snaps.get("quick"), snaps.get("bench-tiny")
    if q is not None:
        pages["certificates.md"] = page_certificates(q)
        pages["upper-bounds.md"] = page_upper(q)
        pages["findings.md"] = page_findings(q)
    if b is not None:
        pages["benchmarks.md"] = page_benchmarks(b)
    if snaps:
        pages["timings.md"] = page_timings(snaps)
    if snaps and data is not None:
        pages["where-the-time-goes.md"] = page_time(snaps, data)
    written = [(name, title) for name, title in PAGES if f"{name}.md" in pages]
    pages["index.md"] = page_index(snaps, written)
    return pages


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 3 or argv[1] != "--out":
        print("usage: python docs/_ext/results_pages.py DATA_DIR --out DIR", file=sys.stderr)
        return 2
    try:
        pages = render_pages(load_snapshots(Path(argv[0])), load_timed(Path(argv[0])), Path(argv[0]))
    except SnapshotError as exc:
        print(f"results_pages: error: {exc}", file=sys.stderr)
        return 2
    out = Path(argv[2])
    if out.exists() and not out.is_dir():
        print(f"results_pages: error: --out {out}: exists and is not a directory", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    for name, text in pages.items():
        (out / name).write_text(text, encoding="utf-8")
    print(f"results_pages: wrote {len(pages)} pages to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
