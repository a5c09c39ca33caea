"""Displays that agree (issue 44, item 4): every number shown is named for what it is, and counts add up.

* a result read from a closed form shows the closed form and the fit as two numbers, in the report, the console
  and the figures' legends (never the closed form under the name "fitted slope", nor a CI next to a number it is not
  the interval of);
* the report's index by paper label links every finding to its problem with the paper;
* the console states its counts once (``747 results + 105 controls = 852``) and says why the findings outnumber the
  results with status ``finding``;
* the remaining time rests on measured task durations by kind and does not jump (synthetic sequences, with the
  recent-rate estimator as the negative control);
* the table of verdicts fits the terminal and never cuts a verdict (80, 140, 200 columns).
"""

import io
import json
import math
import random
import re

import matplotlib
import pytest
from matplotlib.figure import Figure
from mixbounds.checks.run import eta as eta_mod
from mixbounds.checks.run._selftest import fake_document
from mixbounds.checks.run.eta import Eta
from mixbounds.plots.data import SweepGroup, fmt_slope, slope_reading
from mixbounds.plots.scaling import draw_group
from rich.console import Console

from mixbounds import console as console_mod
from mixbounds.report.index import label_index
from mixbounds.report.problems import group_findings

matplotlib.use("Agg")

#: the closed-form lower-bound result of the issue: exponent ½ exact, fit 0.445 with a CI that excludes ½
CLOSED = {"id": "T1.coupled.comm.kappa_W.lower", "kind": "lower", "status": "pass", "theory": 0.5,
          "measured": 0.5000000000000976, "ci": [0.406, 0.484], "cell": "T1.coupled.comm", "param": "kappa_W",
          "extra": {"exponent_source": "closed form", "fit": {"slope": 0.445, "ci": [0.406, 0.484]}},
          "points": [{"realized": x, "per_accuracy": 10 * x ** 0.445} for x in (10.0, 31.6, 100.0, 316.0)]}
#: the suite's own Tables 2–4 lower bound: closed form ½ in extra.lower_exponent, the fit in readings
OWN = {"id": "T2.coupled.A.LR2_eps.lower", "kind": "lower", "status": "pass", "theory": 0.5, "measured": 0.49999999,
       "ci": [0.4771, 0.4771], "extra": {"lower_exponent": 0.49999999, "own": True},
       "readings": {"lower_exponent": 0.49999999, "fit": 0.4771}}
#: a solver's fitted slope: one number
FITTED = {"id": "T1.coupled.comm.kappa_W.tight", "kind": "tight", "status": "pass", "theory": 0.5, "measured": 0.481,
          "ci": [0.396, 0.566], "cell": "T1.coupled.comm", "param": "kappa_W",
          "points": [{"realized": x, "per_accuracy": 12 * x ** 0.481} for x in (10.0, 31.6, 100.0, 316.0)]}


# ----------------------------------------------------------------------------- closed form and fit
def test_a_closed_form_result_shows_both_numbers():
    assert fmt_slope(CLOSED, 3) == "0.5 exact; fit 0.445 ± 0.039"
    assert fmt_slope(OWN, 3) == "0.5 exact; fit 0.477 ± 0.000"
    assert fmt_slope(dict(OWN, extra={"lower_exponent": None, "own": True}), 3).startswith("not established; fit")
    assert console_mod.measured_text(CLOSED) == "0.5 exact; fit 0.445 ± 0.039"


def test_negative_control_a_fitted_slope_is_one_number():
    assert fmt_slope(FITTED, 3) == "0.481 ± 0.085"
    assert slope_reading(FITTED) == {"closed": None, "fit": 0.481, "ci": (0.396, 0.566)}


def test_a_legend_names_the_fit_and_the_closed_form_and_draws_the_fit():
    """Root cause: the legend said "fitted slope 0.50 [0.41, 0.48]" (the closed form, the fit's CI) and the line was
    drawn with the closed form's slope."""
    g = SweepGroup("T1.coupled.comm", "kappa_W", upper=[FITTED], lower=[CLOSED])
    ax = Figure().add_subplot()
    out = draw_group(ax, g)
    lower = next(lb for lb in out["labels"] if lb.startswith("lower-bound engine"))
    assert "closed-form exponent 0.5; fitted slope 0.45 ± 0.04" in lower
    assert not re.search(r"fitted slope 0\.50", " ".join(out["labels"]))
    line = next(ln for ln in ax.get_lines() if ln.get_gid() == f"fit:lower:{CLOSED['id']}")
    x, y = line.get_xdata(), line.get_ydata()
    drawn = math.log(y[-1] / y[0]) / math.log(x[-1] / x[0])
    assert drawn == pytest.approx(0.445, abs=1e-9)  # the fit's slope, exactly (a straight line in log-log)
    upper = next(lb for lb in out["labels"] if "fitted slope" in lb and not lb.startswith("lower"))
    assert "fitted slope 0.48 ± 0.08" in upper and "closed-form" not in upper


# ----------------------------------------------------------------------------- the index by label
def _quick_like_document() -> dict:
    """Findings filed under an appendix on results of a theorem's cell (the quick tier's coupled + local lower
    bounds): the shape of the issue's "thm:mixed_upper_bound … 8 finding … —"."""
    claims = []
    for oracle, param in (("A", "kappa_AC"), ("comm", "kappa_W")):
        rid = f"T1.coupled_local.{oracle}.{param}.lower"
        claims.append({"id": rid, "kind": "lower", "status": "finding", "cell": f"T1.coupled_local.{oracle}",
                       "param": param, "label": "app:mixed_coupled_with_local_lower",
                       "findings": [{"id": f"finding:{rid}", "label": "app:mixed_coupled_with_local_lower",
                                     "statement": "weaker", "source": rid}]})
    claims.append({"id": "T1.coupled_local.grad.kappa_f.tight", "kind": "tight", "status": "pass",
                   "cell": "T1.coupled_local.grad", "param": "kappa_f"})
    return {"claims": claims, "findings": [f for c in claims for f in c.get("findings", [])]}


def test_every_label_with_a_finding_links_to_its_problem():
    doc = _quick_like_document()
    idx = label_index(doc, group_findings(doc))
    with_findings = {lab: e for lab, e in idx.items() if any(c["status"] == "finding" for c in e.results)}
    assert "thm:mixed_upper_bound" in with_findings  # the theorem's entry counts the findings …
    for lab, e in with_findings.items():
        assert e.problems, f"{lab}: findings without a problem"  # … and now links to their problem
    assert "cl-printed" in {g.key for g in idx["thm:mixed_upper_bound"].problems}


def test_negative_control_a_label_with_only_passes_gets_no_measured_problem():
    doc = _quick_like_document()
    doc["claims"] = [c for c in doc["claims"] if c["status"] == "pass"]
    doc["findings"] = []
    idx = label_index(doc, group_findings(doc))
    assert not [g for g in idx["thm:mixed_upper_bound"].problems if g.records]


# ----------------------------------------------------------------------------- counts
def test_counts_add_up_in_one_line_and_findings_say_where_they_come_from():
    doc = json.loads(json.dumps(fake_document()))
    f = doc["findings"][0]
    doc["findings"].append(dict(f, id=f["id"] + ".second"))  # one result, two finding records
    buf = io.StringIO()
    console_mod.print_summary(doc, Console(file=buf, width=150, highlight=False))
    out = buf.getvalue()
    s = doc["summary"]
    assert (f"{s['results']} results + {s['controls_total']} controls = {s['results'] + s['controls_total']} "
            in out.strip().splitlines()[-1])
    assert "Findings (2 records from 1 result):" in out


# ----------------------------------------------------------------------------- remaining time
class Kind:
    def __init__(self, name):
        self.name = name


class FakeTask:
    def __init__(self, key, kind, cost=1.0):
        self.key, self.name, self.kwargs = key, kind, ({"_cost": cost} if cost != 1.0 else {})


def _simulate(tasks, durations, workers, estimator):
    """Run ``tasks`` in order on ``workers`` (each takes the next task when free); after every completion, the
    predicted end (now + the estimator's remaining time).  Returns (predictions after completion i, makespan)."""
    free = [0.0] * workers
    events = []
    for t in tasks:
        w = min(range(workers), key=lambda i: free[i])
        free[w] += durations[t.key]
        events.append((free[w], t))
    events.sort(key=lambda e: e[0])
    preds = []
    for now, t in events:
        estimator.record(t, durations[t.key])
        left = estimator.remaining()
        preds.append(None if left is None else now + left)
    return preds, max(free)


class RecentRate:
    """The negative control: the recent-rate estimator (the mean duration of the last ``window`` completions ×
    the tasks left, over the workers), like a progress bar's speed column."""

    def __init__(self, tasks, workers, window=10):
        self.left, self.workers, self.window, self.recent = len(tasks), workers, window, []

    def record(self, task, seconds):
        self.left -= 1
        self.recent = (self.recent + [seconds])[-self.window:]

    def remaining(self):
        return sum(self.recent) / len(self.recent) * self.left / self.workers if self.recent else None


def _blocks_of_kinds(seed=0):
    """Three kinds of very different durations (2 s, 0.1 s, 0.6 s, each ±20 %) run in alternating blocks of 25:
    the order that makes a recent-rate estimate swing with whichever kind is finishing."""
    rng = random.Random(seed)
    means = {"mod:slow": 2.0, "mod:fast": 0.1, "mod:mid": 0.6}
    tasks, durations = [], {}
    for b in range(24):
        kind = list(means)[b % 3]
        for i in range(25):
            t = FakeTask(f"{kind}-{b}-{i}", kind)
            tasks.append(t)
            durations[t.key] = means[kind] * rng.uniform(0.8, 1.2)
    return tasks, durations


#: after this share of the tasks, every predicted end must be within ETA_RTOL of the true one: the sequence's kinds
#: have all been seen once by then (3 blocks of 25 of 600 tasks), and the ±20 % spread of the durations averages out
#: over the ~500 tasks left (a few % at most); 15 % leaves room for the tail, when the last tasks run on fewer workers
SETTLED_SHARE, ETA_RTOL = 0.15, 0.15


def _worst_error(preds, makespan, start):
    return max(abs(p - makespan) / makespan for p in preds[start:] if p is not None)


def test_the_remaining_time_does_not_swing_with_the_kind_finishing_now():
    tasks, durations = _blocks_of_kinds()
    preds, makespan = _simulate(tasks, durations, 2, Eta(tasks, 2))
    assert _worst_error(preds, makespan, int(SETTLED_SHARE * len(tasks))) <= ETA_RTOL


def test_negative_control_the_recent_rate_estimate_swings():
    tasks, durations = _blocks_of_kinds()
    preds, makespan = _simulate(tasks, durations, 2, RecentRate(tasks, 2))
    assert _worst_error(preds, makespan, int(SETTLED_SHARE * len(tasks))) > 2 * ETA_RTOL


def test_with_the_last_runs_times_the_estimate_is_right_from_the_start():
    """Each task's duration in the last run, on a machine now 1.5× slower: the speed ratio is measured on the first
    tasks, and the estimate holds from the first completions on."""
    tasks, durations = _blocks_of_kinds()
    history = {k: v / 1.5 for k, v in durations.items()}
    e = Eta(tasks, 2, history)
    assert e.remaining() is not None  # known before any task finishes
    preds, makespan = _simulate(tasks, durations, 2, e)
    assert _worst_error(preds, makespan, eta_mod.MIN_DONE) <= ETA_RTOL


def test_no_estimate_before_a_few_tasks_finish():
    tasks, _ = _blocks_of_kinds()
    e = Eta(tasks, 2)
    for t in tasks[:eta_mod.MIN_DONE - 1]:
        e.record(t, 1.0)
        assert e.remaining() is None
    assert eta_mod.format_eta(None) == "-:--:--" and eta_mod.format_eta(5341) == "1:29:01"


# ----------------------------------------------------------------------------- the table fits the terminal
def _verdict_doc():
    doc = json.loads(json.dumps(fake_document()))
    long_label = "upper holds by its factors"
    doc["claims"][0]["verdict_label"] = long_label
    doc["claims"][0]["status"] = "pass"
    doc["claims"][1]["id"] = "T1.coupled_local.comm.kappa_AC.upper@random-coupled-local+logcosh"
    return doc


@pytest.mark.parametrize("width", [80, 100, 140, 200])
def test_the_verdict_table_fits_the_terminal_and_never_cuts_a_verdict(width):
    doc = _verdict_doc()
    buf = io.StringIO()
    con = Console(file=buf, width=width, highlight=False, color_system=None)
    rows = [c for c in doc["claims"] if not c.get("control")]
    table = console_mod.verdict_table(rows, "t", width)
    for part in (table if isinstance(table, list) else [table]):
        con.print(part)
    lines = buf.getvalue().splitlines()
    assert max(len(ln) for ln in lines) <= width
    text = buf.getvalue()
    for c in rows:
        assert console_mod.verdict_text(c) in text, (width, console_mod.verdict_text(c))
    compact = isinstance(table, list)
    assert compact == (width < console_mod.wide_width(rows))
    if width <= 80:
        assert compact  # an ordinary terminal gets the two-line layout


def test_negative_control_the_old_table_cut_the_verdict_at_140_columns():
    """The table of the issue (verdict column max 18, claim min 48) at 140 columns: the verdict folded."""
    from rich.table import Table
    doc = _verdict_doc()
    t = Table()
    for col, kw in (("claim", {"overflow": "fold", "min_width": 48}), ("kind", {}),
                    ("theory", {"overflow": "fold", "max_width": 22}),
                    ("measured ± CI", {"overflow": "fold", "max_width": 24}), ("tol", {}),
                    ("verdict", {"overflow": "fold", "max_width": 18})):
        t.add_column(col, **kw)
    for c in doc["claims"]:
        t.add_row(c["id"], c["kind"], str(c.get("theory")), console_mod.measured_text(c), str(c.get("tolerance")),
                  console_mod.verdict_text(c))
    buf = io.StringIO()
    Console(file=buf, width=140, color_system=None).print(t)
    assert "pass (upper holds by its factors)" not in buf.getvalue()
