"""The report's index by paper label, and each result's context (labels, figure, instance, reproduce command).

Paper labels are the ``\\label{…}`` names of the paper (``thm:LI_upper_bound``, ``lem:local_spectrum``,
``table:smooth_conv_optimization_constraints``, ``eq:Ai_rear``, ``app:…``, ``rem:…``).  A result is
indexed under every label found in its own ``label`` field, in its findings' labels, and in its
registry cell (``source``, ``table_label``; ``lower_source`` for the engine's results), so that a
reviewer searching for a theorem finds every result that measures it.  Citation keys of other papers
(``scaman2017optimal``) are indexed as *cited work*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mixbounds.bounds.claims import PARAMS, REGISTRY, get
from mixbounds.bounds.guards import SCALE_FLOOR

#: label prefix → what it names in the paper
LABEL_KINDS = {"thm": "Theorem", "lem": "Lemma", "rem": "Remark", "table": "Table", "eq": "Equation",
               "app": "Appendix", "sec": "Section", "subsec": "Section", "sub": "Section", "def": "Definition",
               "alg": "Algorithm", "ass": "Assumption", "cor": "Corollary", "prop": "Proposition", "fig": "Figure"}
#: order of the kinds in the index (theorems first: they are what a reviewer looks up)
KIND_ORDER = ("Theorem", "Table", "Lemma", "Remark", "Corollary", "Proposition", "Definition", "Assumption",
              "Algorithm",
              "Equation", "Appendix", "Section", "Figure", "Cited work")
_LABEL = re.compile(r"\b(" + "|".join(sorted(LABEL_KINDS, key=len, reverse=True)) + r"):[A-Za-z0-9_\-]+")
_CITE = re.compile(r"\b([a-z]+20\d\d[a-z_]+)\b")


def labels_in(text) -> list[str]:
    """Paper labels in a free-text field, in order of appearance (``thm:x (identical C̃_i)`` → ``[thm:x]``)."""
    out = []
    for m in _LABEL.finditer(str(text or "")):
        if m.group(0) not in out:
            out.append(m.group(0).rstrip("-"))
    return out


def cited_in(text) -> list[str]:
    return list(dict.fromkeys(_CITE.findall(str(text or ""))))


def label_kind(label: str) -> str:
    if ":" not in label:
        return "Cited work"
    return LABEL_KINDS.get(label.split(":", 1)[0], "Other")


def registry_cell(cell_id):
    """The registry cell of ``cell_id`` (:func:`mixbounds.bounds.claims.get`), ``None`` when empty or unknown."""
    try:
        return get(cell_id) if cell_id else None
    except KeyError:
        return None


def result_labels(c: dict) -> list[str]:
    """Every paper label (and cited work) a result measures: its own label, its findings', its registry cell's."""
    texts = [c.get("label")] + [f.get("label") for f in c.get("findings") or []]
    cell = registry_cell(c.get("cell"))
    if cell is not None:
        texts += [cell.table_label, cell.source] + ([cell.lower_source] if c.get("kind") == "lower" else [])
    out: list[str] = []
    for t in texts:
        for lab in labels_in(t) + cited_in(t):
            if lab not in out:
                out.append(lab)
    return out


@dataclass
class LabelEntry:
    label: str
    kind: str
    results: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    cells: list = field(default_factory=list)  # registry cells citing it (measured or not)
    problems: list = field(default_factory=list)  # problems with the paper under this label (mixbounds.report.problems.Group)


def label_index(doc: dict, problems=()) -> dict[str, LabelEntry]:
    """label → :class:`LabelEntry` over every result (controls included: they test the label's check family),
    the registry cells citing it and the ``problems`` (groups of findings, text discrepancies) under it: a problem
    is under its own label and under every label its records are (a finding on a result of ``thm:mixed_upper_bound``
    filed under the appendix that explains it links to that problem from the theorem's entry too)."""
    idx: dict[str, LabelEntry] = {}

    def entry(lab):
        return idx.setdefault(lab, LabelEntry(lab, label_kind(lab)))

    for cell in REGISTRY:
        for t in (cell.table_label, cell.source, cell.lower_source):
            for lab in labels_in(t) + cited_in(t):
                e = entry(lab)
                if cell.id not in e.cells:
                    e.cells.append(cell.id)
    for c in doc.get("claims", []):
        for lab in result_labels(c):
            entry(lab).results.append(c)
    for f in doc.get("findings") or []:
        for lab in labels_in(f.get("label")) + cited_in(f.get("label")):
            entry(lab).findings.append(f)
    for g in problems:  # under its own label, and under every label one of its records is indexed under
        labs = labels_in(g.label) + cited_in(g.label)
        for f, res in g.records:
            labs += labels_in(f.get("label")) + cited_in(f.get("label")) + (result_labels(res) if res else [])
        for lab in dict.fromkeys(labs):
            entry(lab).problems.append(g)
    order = {k: i for i, k in enumerate(KIND_ORDER)}
    return dict(sorted(idx.items(), key=lambda kv: (order.get(kv[1].kind, 99), kv[0].lower())))


# ----------------------------------------------------------------------------- a result's context
def check_of(doc: dict) -> dict[str, str]:
    """result id → id of the check that produces it (from the document's ``checks`` list)."""
    return {r: ch["id"] for ch in doc.get("checks") or [] for r in ch.get("results") or []}


#: the directory a report's "Reproduce" command writes into: a new one per result, never the set it came from
RERUN_PREFIX = "mixbounds-rerun-"


def rerun_dir(rid: str) -> str:
    """``mixbounds-rerun-<id>``: the result id with characters a file name should not hold replaced by ``_``."""
    return RERUN_PREFIX + (re.sub(r"[^A-Za-z0-9._@-]", "_", str(rid))[:120] or "_")


def _quoted(s: str, *, bare_if_safe: bool = False) -> str:
    """``s`` in single quotes for a POSIX shell (an id is data: a quote in it cannot end the argument); with
    ``bare_if_safe``, a word of letters, digits and ``._@-`` only is left as it is."""
    if bare_if_safe and re.fullmatch(r"[A-Za-z0-9._@-]+", str(s)):
        return str(s)
    return "'" + str(s).replace("'", "'\"'\"'") + "'"


def reproduce_command(c: dict, tier: str) -> str:
    """The command that reruns this one result (its whole check runs; only this result is printed and written) into
    a new directory (:func:`rerun_dir`): run where the set lives, it never touches the set, which a different
    selection could not replace anyway (:mod:`mixbounds.selection`)."""
    return (f"mixbounds verify --tier {_quoted(tier, bare_if_safe=True)} --claims {_quoted(c['id'])} "
            f"--out {_quoted(rerun_dir(c['id']), bare_if_safe=True)}")


def _sym(k: str) -> str:
    return PARAMS[k][0] if k in PARAMS else k


def _span(vals) -> str | None:
    vals = [v for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not vals:
        return None
    lo, hi = min(vals), max(vals)
    f = (lambda v: f"{v:g}") if all(float(v).is_integer() for v in vals) else (lambda v: f"{v:.4g}")
    return f(lo) if hi - lo <= 1e-3 * max(abs(hi), SCALE_FLOOR) else f"{f(lo)}–{f(hi)}"


def instance_text(c: dict) -> str:
    """Family/variant, the non-swept parameters and the sizes behind a result, read from its points.

    ``κ_f = 10, κ̃_AC = 30.1, κ_W = 10.2–10.4 · n = 24 · K = 120–160`` (ranges over the sweep points).
    """
    inst = c.get("instance") if isinstance(c.get("instance"), dict) else {}
    pts = [p for p in c.get("points") or [] if isinstance(p, dict)]
    head = []
    if inst.get("family"):
        v = inst.get("variant")
        head.append(f"{inst['family']}" + (f" ({v})" if v and v not in ("default",) else ""))
    if inst.get("method") or inst.get("solver"):
        head.append(f"method {inst.get('solver') or inst.get('method')}")
    if inst.get("part") and inst["part"] != "all":
        head.append(f"part {inst['part']}")
    swept = c.get("param")
    keys: list[str] = []
    for p in pts:
        ra = p.get("realized_all")
        if isinstance(ra, dict):
            keys += [k for k in ra if k in PARAMS and k not in keys and k != swept]
    fixed = []
    for k in keys:
        s = _span([p["realized_all"].get(k) for p in pts if isinstance(p.get("realized_all"), dict)])
        if s is not None:
            fixed.append(f"{_sym(k)} = {s}")
    if not fixed and isinstance(inst.get("base"), dict):
        fixed = [f"{_sym(k)} = {v:g}" for k, v in inst["base"].items() if k != swept and isinstance(v, (int, float))]
    sizes = []
    for key, name in (("n", "n"), ("chain_length", "K"), ("variables", "variables"), ("eps", "ε")):
        s = _span([p.get(key) for p in pts])
        if s is not None:
            sizes.append(f"{name} = {s}")
    swept_s = _span([p.get("realized") for p in pts if not isinstance(p.get("realized"), dict)])
    parts = [", ".join(head)] if head else []
    if swept and swept_s:
        parts.append(f"swept {_sym(swept)} = {swept_s} ({len(pts)} points)")
    if fixed:
        parts.append("fixed " + ", ".join(fixed))
    if sizes:
        parts.append(", ".join(sizes))
    return " · ".join(parts) if parts else "—"
