"""The selection that made an output set, so that a subset never replaces a set.

An output directory of the suite (:mod:`mixbounds.outdir`) holds one *set*: the results of one selection, with the
report and figures drawn from them.  A later command that writes a set into the same directory from another
selection — ``mixbounds verify --claims 'T1.x'`` into the directory of a whole quick-tier run, the report's
"Reproduce" command run where the set lives, ``mixbounds bench`` of another class, ``mixbounds plot`` of another
run's results — would replace 852 results by 3 without a word.  So every set records its selection in its manifest,
and a command whose selection differs is refused (exit 2, one line naming ``--out`` and both selections) unless it
says what it wants: ``--merge`` (update the results it selects, keep the others, rebuild report and figures from
the union: :mod:`mixbounds.checks.run.merge`) or ``--replace``.

A selection is a small dict, compared on the keys of :data:`KEYS` only:

* ``verify`` (its result set and figures, and ``mixbounds plot``/``report`` of a results document): the tier and
  the *effective* ``--claims`` globs, sorted — the user's globs plus the self-checks they rest on, the globs a
  results document records in ``claims_glob``, so a set written before selections were recorded compares
  equal to a rerun of its own command;
* ``bench``: the method and its ``--method-arg`` keywords, the tier, the classes (sorted) and the filters
  ``--params``, ``--families``, ``--oracles`` (``None``: all), so a bench of a few sweeps never replaces the set of
  all of them without ``--merge``.

The other keys (``given``: the ``--claims`` as typed, ``results``: how many results) only make the refusal readable.
"""

from __future__ import annotations

from pathlib import Path

from mixbounds.checks.run.globs import union_globs
from mixbounds.instances.json_file import JSONFileError, read_json

#: the keys a selection is compared on, per kind of record
KEYS = {"verify": ("tier", "claims"), "bench": ("method", "method_args", "tier", "classes", "filters")}
#: the filters of a ``mixbounds bench`` run, the keys of a bench selection's ``filters``
BENCH_FILTERS = ("params", "families", "oracles")


def verify_selection(tier: str, globs, *, given: str | None = None, results: int | None = None) -> dict:
    """The selection of a ``verify`` run (or of a results document): tier name and effective globs."""
    out = {"kind": "verify", "tier": str(tier), "claims": sorted({str(g) for g in globs})}
    if given is not None:
        out["given"] = given
    if results is not None:
        out["results"] = int(results)
    return out


def document_selection(doc: dict) -> dict:
    """The selection a results document (``results.json``) was made with: its tier and ``claims_glob``."""
    globs = [g for g in str(doc.get("claims_glob") or "*").split(",") if g]
    n = sum(1 for c in doc.get("claims") or [] if isinstance(c, dict))
    return verify_selection(doc.get("tier") or "?", globs, results=n)


def bench_selection(method: str, tier: str, classes, *, method_args: dict | None = None,
                    filters: dict | None = None) -> dict:
    """The selection of a ``mixbounds bench`` run: the method and its keyword arguments, the tier, the classes and
    the filters (``{"params": [...] or None, ...}``; ``None`` or a missing key: all)."""
    filters = filters or {}
    return {"kind": "bench", "method": str(method), "method_args": {str(k): v for k, v in (method_args or {}).items()},
            "tier": str(tier), "classes": sorted({str(c) for c in classes}),
            "filters": {k: None if filters.get(k) is None else sorted({str(v) for v in filters[k]})
                        for k in BENCH_FILTERS}}


def same(a: dict | None, b: dict | None) -> bool:
    """Whether two selections select the same set (``None``, unknown, is the same as anything)."""
    if a is None or b is None:
        return True
    kind = a.get("kind", "verify")
    if kind != b.get("kind", "verify"):
        return False
    return all(a.get(k) == b.get(k) for k in KEYS.get(kind, ()))


def union(a: dict, b: dict) -> dict:
    """The selection of a merged set: ``b``'s tier (the same as ``a``'s: merging refuses another tier) and the
    union of the globs (a result is in the union when either selection selects it; a glob the other side covers
    is not added, so a subset merged into its set leaves the set's selection as it was), or of the classes."""
    if b.get("kind", "verify") == "bench":
        fa, fb = a.get("filters") or {}, b.get("filters") or {}
        filters = {k: None if fa.get(k) is None or fb.get(k) is None else sorted(set(fa[k]) | set(fb[k]))
                   for k in BENCH_FILTERS}
        return dict(b, classes=sorted(set(a.get("classes", [])) | set(b["classes"])), filters=filters)
    return verify_selection(b["tier"], union_globs(a.get("claims", []), b["claims"]))


def describe(sel: dict) -> str:
    """``tier quick, --claims '*' (852 results)``; ``method m:f, tier quick, classes coupled,mixed``."""
    if sel.get("kind") == "bench":
        args = sel.get("method_args") or {}
        filters = {k: v for k, v in (sel.get("filters") or {}).items() if v is not None}
        return (f"method {sel.get('method')}" + "".join(f" {k}={v!r}" for k, v in sorted(args.items()))
                + f", tier {sel.get('tier')}, classes {','.join(sel.get('classes') or [])}"
                + "".join(f", --{k} {','.join(v)}" for k, v in filters.items()))
    given = sel.get("given")
    claims = sel.get("claims") or []
    if given is None:
        given = claims[0] + (f",… ({len(claims)} globs)" if len(claims) > 1 else "") if claims else "?"
    n = sel.get("results")
    return f"tier {sel.get('tier')}, --claims '{given}'" + (f" ({n} results)" if n is not None else "")


def legacy_selection(d: Path, kind: str) -> dict | None:
    """The selection of a set whose manifest predates selections, read from its documents (``None``: unknown)."""
    d = Path(d)
    try:
        if kind == "verify":
            doc = read_json(d / "results.json")
            return document_selection(doc) if isinstance(doc, dict) and "tier" in doc else None
        if kind == "verify-figures":
            return legacy_selection(d.parent, "verify")
        if kind == "bench":
            doc = read_json(d / "bench.json")
            if isinstance(doc, dict) and isinstance(doc.get("classes"), list):
                opts = doc.get("options") if isinstance(doc.get("options"), dict) else {}
                filters = {k: None if not isinstance(opts.get(k), str) else opts[k].split(",") for k in BENCH_FILTERS}
                return bench_selection(doc.get("method"), doc.get("tier"), doc["classes"],
                                       method_args=doc.get("method_args") or {}, filters=filters)
    except (OSError, JSONFileError):
        return None
    return None


def refusal(what: str, path: Path, tool: str, old: dict, new: dict, *, merge: bool = True) -> str:
    """The one-line refusal of a command whose selection differs from the set in ``path``."""
    how = ("--merge updates the results this run selects and keeps the others, --replace replaces the set"
           if merge else "--replace replaces them")
    return (f"{what} {path}: holds the set of {describe(old)}; this mixbounds {tool} selects {describe(new)}: a "
            f"different selection never replaces a set ({how}; or choose another --out)")
