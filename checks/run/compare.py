"""Two results documents compared: the same result ids, statuses and measured values?

A development tool: a change that should not move any number (a restructuring, a faster path) is run on the
same tier before and after, and the two ``results.json`` are compared::

    python -m mixbounds.checks.run.compare BEFORE/results.json AFTER/results.json

Every field of every result is compared exactly (numbers bit for bit), except what a run cannot repeat:
timings (keys ``seconds``, ``*_seconds``, ``wall_time``) anywhere in a record.  The text fields (``detail``,
``label``, ``statement``, at any depth: a finding inside a result has them too) are compared as well but reported
apart: they name files and modules, which a restructuring may rename without changing a measurement.  Of the document itself the tier and the summary are compared (the
versions, paths, command line and timestamps are not).  Exit 0 when nothing but text differs, 1 otherwise,
2 on unreadable input.

``--rtol R`` also says which differences are rounding only: the two values have the same structure, the same
strings, booleans and integers, and floats within ``R`` relative to the larger of the two (numbers inside a text
field are read as numbers, the rest of the text must be equal).  Such a difference is listed apart and does not
make the exit code 1; a changed status, count or verdict still does.  For a change that moves floating-point
rounding on purpose (a different but equivalent order of operations), never for one that should not move any
number.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

#: the fields compared as text, at any depth (reported, not a change of a measurement)
TEXT_FIELDS = ("detail", "label", "statement")
#: the id under which differences of the document's own fields (tier, summary) are reported
DOCUMENT = "<document>"
#: the document fields that are compared
DOCUMENT_FIELDS = ("tier", "summary")
#: a number inside a text field (read as a float by :func:`relative_difference`)
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class Difference:
    """Result ``id`` differs in ``field``: ``a`` in the first document, ``b`` in the second (``field="presence"``:
    the result is in one document only)."""

    id: str
    field: str
    a: object
    b: object
    #: the values differ only in their text fields
    text_only: bool = False
    #: :func:`relative_difference` of ``a`` and ``b``, when an ``--rtol`` was given (``None`` without one)
    relative: float | None = None
    #: the ``--rtol`` given (``None`` without one)
    rtol: float | None = None

    @property
    def rounding(self) -> bool:
        """The values differ only by rounding: their relative difference is within the ``--rtol`` given."""
        return self.rtol is not None and self.relative is not None and self.relative <= self.rtol

    def line(self, limit: int = 160) -> str:
        def short(v):
            s = json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)
            return s if len(s) <= limit else s[: limit - 1] + "…"

        return f"{self.id} {self.field}: {short(self.a)} -> {short(self.b)}"


def _timing(key: str) -> bool:
    return key == "seconds" or key.endswith("_seconds") or key == "wall_time"


def untimed(x):
    """``x`` without its timing keys, at every depth."""
    if isinstance(x, dict):
        return {k: untimed(v) for k, v in x.items() if not _timing(str(k))}
    if isinstance(x, list):
        return [untimed(v) for v in x]
    return x


def untexted(x):
    """``x`` without its text fields (:data:`TEXT_FIELDS`), at every depth."""
    if isinstance(x, dict):
        return {k: untexted(v) for k, v in x.items() if k not in TEXT_FIELDS}
    if isinstance(x, list):
        return [untexted(v) for v in x]
    return x


def _rel(x: float, y: float) -> float:
    if x == y or (math.isnan(x) and math.isnan(y)):
        return 0.0
    if not (math.isfinite(x) and math.isfinite(y)):
        return math.inf
    return abs(x - y) / max(abs(x), abs(y))


def relative_difference(x, y) -> float:
    """The largest relative difference of the floats of ``x`` and ``y`` (``inf`` when they differ otherwise: in
    structure, strings, booleans or integers; numbers inside strings are read as numbers, module docstring)."""
    if isinstance(x, bool) or isinstance(y, bool) or x is None or y is None:
        return 0.0 if type(x) is type(y) and x == y else math.inf
    if isinstance(x, float) or isinstance(y, float):
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            return _rel(float(x), float(y))
        return math.inf
    if isinstance(x, str) and isinstance(y, str):
        if x == y:
            return 0.0
        if NUMBER.split(x) != NUMBER.split(y):
            return math.inf
        pairs = [(u, v) for u, v in zip(NUMBER.findall(x), NUMBER.findall(y)) if u != v]
        if any(not ("." in u or "e" in u.lower()) for u, _ in pairs):  # an integer in a text: exact
            return math.inf
        return max((_rel(float(u), float(v)) for u, v in pairs), default=0.0)
    if isinstance(x, dict) and isinstance(y, dict):
        if x.keys() != y.keys():
            return math.inf
        return max((relative_difference(x[k], y[k]) for k in x), default=0.0)
    if isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            return math.inf
        return max((relative_difference(u, v) for u, v in zip(x, y)), default=0.0)
    return 0.0 if x == y else math.inf


def compare_results(a: dict, b: dict, rtol: float | None = None) -> list[Difference]:
    """Every difference between results documents ``a`` and ``b`` (module docstring), in ``a``'s result order;
    with ``rtol``, each with its :func:`relative_difference` (rounding only when within ``rtol``)."""
    def rel(x, y) -> float | None:
        return None if rtol is None else relative_difference(x, y)

    out = [Difference(DOCUMENT, f, untimed(a.get(f)), untimed(b.get(f)),
                      relative=rel(untimed(a.get(f)), untimed(b.get(f))), rtol=rtol)
           for f in DOCUMENT_FIELDS if untimed(a.get(f)) != untimed(b.get(f))]
    ra = {c["id"]: c for c in a.get("claims", [])}
    rb = {c["id"]: c for c in b.get("claims", [])}
    out += [Difference(i, "presence", "present", "absent") for i in ra if i not in rb]
    out += [Difference(i, "presence", "absent", "present") for i in rb if i not in ra]
    for i, ca in ra.items():
        cb = rb.get(i)
        if cb is None:
            continue
        for f in sorted(set(ca) | set(cb)):
            if _timing(f):
                continue
            va, vb = untimed(ca.get(f)), untimed(cb.get(f))
            if va != vb:
                out.append(Difference(i, f, va, vb, text_only=f in TEXT_FIELDS or untexted(va) == untexted(vb),
                                      relative=rel(va, vb), rtol=rtol))
    return out


def report(diffs: list[Difference], a: dict, b: dict, rtol: float | None = None) -> list[str]:
    """A summary of ``diffs``: counts of results compared, of changed measurements, of text-only changes and (with
    ``rtol``) of the changes that are rounding only."""
    ids_a, ids_b = {c["id"] for c in a.get("claims", [])}, {c["id"] for c in b.get("claims", [])}
    hard = [d for d in diffs if not d.text_only and not d.rounding]
    text = [d for d in diffs if d.text_only and not d.rounding]
    rounding = [d for d in diffs if d.rounding]
    lines = [f"results: {len(ids_a)} and {len(ids_b)}, {len(ids_a & ids_b)} in both; tier {a.get('tier')} / "
             f"{b.get('tier')}",
             f"differences other than text: {len(hard)}"
             + (f" ({dict(Counter(d.field for d in hard))})" if hard else ""),
             f"text-only differences ({', '.join(TEXT_FIELDS)}): {len(text)} in {len({d.id for d in text})} results"]
    if rtol is not None:
        largest = max((d.relative or 0.0 for d in rounding), default=0.0)
        lines.append(f"rounding-only differences (floats within rtol {rtol:g}): {len(rounding)} in "
                     f"{len({d.id for d in rounding})} results; largest relative difference {largest:.1e}")
    lines += ["  " + d.line() for d in hard]
    lines += ["  text: " + d.line() for d in text]
    lines += ["  rounding: " + d.line() for d in rounding]
    return lines


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m mixbounds.checks.run.compare",
                                 description="Compare two results.json documents (module docstring).")
    ap.add_argument("a", help="the first results.json")
    ap.add_argument("b", help="the second results.json")
    ap.add_argument("--rtol", type=float, default=None,
                    help="list float differences within this relative tolerance apart (rounding only; exit 0)")
    return ap


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse's usage error: exit 2, as for unreadable input
        return int(exc.code or 0)
    if args.rtol is not None and not (math.isfinite(args.rtol) and 0 < args.rtol < 1):
        print(f"compare: error: --rtol must be in (0, 1), got {args.rtol}", file=sys.stderr)
        return 2
    docs = []
    for p in (args.a, args.b):
        try:
            docs.append(json.loads(Path(p).read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            print(f"compare: error: {p}: {exc}", file=sys.stderr)
            return 2
    a, b = docs
    diffs = compare_results(a, b, rtol=args.rtol)
    print("\n".join(report(diffs, a, b, rtol=args.rtol)))
    return 1 if any(not d.text_only and not d.rounding for d in diffs) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
