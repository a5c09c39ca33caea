"""What ``mixbounds verify`` prints at the end: the table of verdicts, findings, controls and the summary line.

The table fits the terminal it is printed on, and its verdict column is never cut:

* **wide** (a console at least :func:`wide_width` columns wide, e.g. 150, the width given to a log file): one row per
  result — claim, kind, theory, measured ± CI, tolerance, verdict — with the verdict column as wide as its
  longest entry and never wrapped; the other columns fold long entries onto a second line of the row;
* **compact** (narrower, e.g. an 80-column terminal): two lines per result, the verdict first (padded to the
  longest verdict) then the claim id, and under it, indented, kind · theory · measured · tolerance.

Counts are stated once and agree everywhere: the header's total (``852 results, controls included``) is the last
line's sum (``747 results + 105 controls = 852``); ``Findings (44 records from 43 results)`` says why a result can
carry more than one finding record.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from mixbounds.checks.lower.certificates import summary_line
from mixbounds.checks.lower.tables234 import CARRIED_BELOW, NOT_CARRIED
from mixbounds.plots.data import finite, fmt_slope

#: how the terminal shows a pass's verdict label (labels not listed are shown as they are; ``tight`` adds nothing)
LABEL_TEXT = {"tight": None, "upper matches, lower not certified": "lower not certified", NOT_CARRIED: "not carried",
              CARRIED_BELOW: "carried below threshold"}
STATUS_STYLE = {"pass": "green", "fail": "bold red", "finding": "yellow", "error": "bold magenta", "skipped": "dim"}
#: the columns of the wide table other than the verdict: (name, narrowest width it folds to, widest it takes)
#: the compact layout: verdicts padded to this width (the statuses and the short labels), second lines indented
COMPACT_VERDICT, COMPACT_INDENT = 20, 4
#: the widths fit the kind column's longest value ('consistency') whole and the measured column's ('0.5 exact; fit 0.489 ± 0.086') on at most two lines
COLUMNS = (("claim", 30, 64), ("kind", 11, 11), ("theory", 10, 22), ("measured ± CI", 16, 40), ("tol", 5, 6))


def short(v, n: int = 34) -> str:
    """A value on one line of at most ``n`` characters (``—`` for none, floats in 4 significant digits)."""
    if v is None:
        return "—"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, dict):
        items = [f"{k}: {short(x, 12)}" for k, x in list(v.items())[:2]]
        s = "; ".join(items) + ("; …" if len(v) > 2 else "")
    else:
        s = " ".join(str(v).split())
    return s if len(s) <= n else s[: n - 1] + "…"


def measured_text(c: dict, digits: int = 3) -> str:
    """The measured cell: several named numbers (lemma checks, audits), a slope (± CI; closed form and fit as two
    numbers, :func:`mixbounds.plots.data.fmt_slope`) or the value."""
    if c.get("readings"):
        return short(c["readings"])
    if finite(c.get("measured")) is not None:
        return fmt_slope(c, digits)
    return short(c.get("measured"))


def verdict_text(c: dict) -> str:
    """The verdict column: the status, and for a pass its ``verdict_label`` (``pass (upper holds, not exercised)``)."""
    label = c.get("verdict_label")
    shown = LABEL_TEXT.get(label, label) if label else None
    return c["status"] + (f" ({shown})" if shown and c["status"] == "pass" else "")


def _cells(c: dict) -> list[str]:
    return [c["id"], c["kind"], short(c.get("theory"), 28), measured_text(c), short(c.get("tolerance"))]


def _widths(rows: list[dict], width: int) -> list[int] | None:
    """Column widths of the wide table on a console ``width`` columns wide (``None``: it does not fit): the verdict
    column as wide as its longest entry, kind, theory, measured and tolerance at their longest entry up to their
    widest, shrunk toward their narrowest while the claim column is narrower than its longest id, and the claim column
    gets the rest."""
    cells = [_cells(c) for c in rows]
    verdict = max([len("verdict")] + [len(verdict_text(c)) for c in rows])
    longest = [max([len(name)] + [len(r[i]) for r in cells]) for i, (name, _, _) in enumerate(COLUMNS)]
    w = [min(hi, max(lo, n)) for n, (_, lo, hi) in zip(longest, COLUMNS)]
    borders = 3 * (len(COLUMNS) + 1) + 1
    for i in (2, 3):  # theory, then measured, give way to the claim id first
        room = width - borders - verdict - sum(w[1:])
        if room >= longest[0]:
            break
        w[i] = max(COLUMNS[i][1], w[i] - (longest[0] - room))
    w[0] = min(longest[0], width - borders - verdict - sum(w[1:]))
    return w + [verdict] if w[0] >= COLUMNS[0][1] else None


def wide_width(rows: list[dict]) -> int:
    """Columns the wide table needs: every column at its narrowest, the verdict column whole, and the borders."""
    verdict = max([len("verdict")] + [len(verdict_text(c)) for c in rows])
    return sum(lo for _, lo, _ in COLUMNS) + verdict + 3 * (len(COLUMNS) + 1) + 1


def verdict_table(rows: list[dict], title: str, width: int):
    """The table of ``rows`` for a console ``width`` columns wide: a rich ``Table`` (wide) or a list of ``Text``
    lines (compact), module docstring."""
    widths = _widths(rows, width)
    verdict = max([len("verdict")] + [len(verdict_text(c)) for c in rows])
    if widths is not None:
        t = Table(title=title, show_lines=False, header_style="bold", expand=False)
        for (name, _, _), w in zip(COLUMNS, widths):
            t.add_column(name, overflow="fold", min_width=w, max_width=w)
        t.add_column("verdict", no_wrap=True, min_width=widths[-1], max_width=widths[-1])
        for c in rows:
            t.add_row(*[Text(x) for x in _cells(c)], Text(verdict_text(c), style=STATUS_STYLE.get(c["status"], "")))
        return t
    pad = min(verdict, COMPACT_VERDICT)  # a longer verdict pushes its own id right, whole
    out = [Text(title, style="bold"), Text(f"{'verdict':<{pad}}  claim", style="bold"),
           Text(f"{'':<{COMPACT_INDENT}}kind · theory · measured ± CI · tol", style="bold")]
    for c in rows:
        cid, kind, theory, measured, tol = _cells(c)
        out.append(Text(f"{verdict_text(c):<{pad}}", style=STATUS_STYLE.get(c["status"], "")) + Text(f"  {cid}"))
        out.append(Text(f"{'':<{COMPACT_INDENT}}{kind} · {theory} · {measured} · tol {tol}"))
    return out


def count_line(s: dict) -> str:
    """``747 results + 105 controls = 852 (704 pass, 0 fail, 43 finding)``: the summary's counts, summed once."""
    counts = ", ".join(f"{n} {k}" for k, n in s["status"].items() if n or k in ("pass", "fail"))
    total = s["results"] + s["controls_total"]
    return f"{s['results']} results + {s['controls_total']} controls = {total} ({counts})"


def findings_title(doc: dict) -> str:
    """``Findings (44 records from 43 results)``: a result can carry several finding records."""
    fnd = doc.get("findings") or []
    n_res = len({f.get("source") for f in fnd})
    return f"Findings ({len(fnd)} record{'s' if len(fnd) != 1 else ''} from {n_res} result{'s' if n_res != 1 else ''})"


def print_summary(doc: dict, console, *, outputs: str | None = None, merged: dict | None = None) -> None:
    """The verdicts of ``doc`` on ``console``: table, findings, controls, failures, certificates, the last line.

    ``merged``: the set this run was merged into (``--merge``): a last line states the set's counts and verdict,
    which is the command's exit code (:mod:`mixbounds.checks.run.merge`)."""
    claims = doc["claims"]
    ordinary = [c for c in claims if not c.get("control")]
    if ordinary:
        table = verdict_table(ordinary, f"mixbounds verify — tier {doc['tier']}", console.width)
        for part in (table if isinstance(table, list) else [table]):
            console.print(part, soft_wrap=not isinstance(part, Table))
    fnd = doc.get("findings") or []
    if fnd:
        console.print(Text(f"{findings_title(doc)}:", style="bold yellow"))
        for f in fnd:
            console.print(Text(f"  {short(f.get('label'), 60)}: {f.get('statement')} — printed {short(f.get('printed'), 40)} "
                               f"vs measured {short(f.get('measured'), 60)}"), soft_wrap=True)
    ctl = doc["controls"]
    if ctl["total"]:
        style = "bold green" if ctl["caught"] == ctl["total"] else "bold red"
        console.print(Text(f"Negative controls: {ctl['caught']}/{ctl['total']} caught", style=style))
        why = {c["id"]: c.get("detail") for c in doc["claims"]}
        for it in ctl["items"]:
            mark = Text("caught     ", style="green") if it["caught"] else Text("NOT CAUGHT ", style="bold red")
            # a control that could not run says why (e.g. an optional extra that is not installed)
            reason = f": {short(why.get(it['id']), 160)}" if not it["caught"] and it["status"] == "skipped" else ""
            console.print(Text("  ") + mark + Text(f"{it['id']} (status {it['status']}){reason}"), soft_wrap=True)
    for c in (c for c in ordinary if c["status"] in ("fail", "error")):
        console.print(Text(f"  {c['status'].upper()} {c['id']}: {short(c.get('detail'), 300)}",
                           style=STATUS_STYLE[c["status"]]), soft_wrap=True)
    s = doc["summary"]
    for rid in s.get("unexpected_findings", []):
        console.print(Text(f"  UNEXPECTED FINDING {rid}: not in checks/expected.py — a new disagreement or a regression",
                           style="bold red"), soft_wrap=True)
    for rid in s.get("expected_findings_now_passing", []):
        console.print(Text(f"  note: {rid} is listed as an expected finding but passed", style="yellow"), soft_wrap=True)
    lbc = s.get("lower_bound_certificates")
    if lbc and lbc.get("total"):
        console.print(Text(summary_line(lbc), style="bold" if not lbc["none"] else "yellow"), soft_wrap=True)
    if outputs:
        console.print(Text(outputs), soft_wrap=True)
    st = doc["stats"]
    line = (f"{'OK' if s['exit_code'] == 0 else 'FAILED'}: {count_line(s)}; controls caught "
            f"{s['controls_caught']}/{s['controls_total']}; {doc['wall_time']:.1f} s wall; {st.get('computed', 0)} points "
            f"computed, {st.get('cached', 0)} cached; tier {doc['tier']}; code {doc['versions']['code_version']}")
    console.print(Text(line if merged is None else f"this run: {line}",
                       style="bold green" if s["exit_code"] == 0 else "bold red"), soft_wrap=True)
    if merged is not None:
        m = merged["summary"]
        versions = {p.get("code_version") for p in merged.get("parts") or []}
        parts = "; ".join(f"{p['results']} from {p.get('command') or '?'} (code {p.get('code_version')})"
                          for p in merged.get("parts") or [])
        console.print(Text(f"{'OK' if m['exit_code'] == 0 else 'FAILED'} (the merged set): {count_line(m)}; "
                           f"controls caught {m['controls_caught']}/{m['controls_total']}; results of {len(versions)} "
                           f"code version{'s' if len(versions) != 1 else ''}: {parts}",
                           style="bold green" if m["exit_code"] == 0 else "bold red"), soft_wrap=True)
