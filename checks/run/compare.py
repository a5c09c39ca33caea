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
"""

from __future__ import annotations

import json
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


def compare_results(a: dict, b: dict) -> list[Difference]:
    """Every difference between results documents ``a`` and ``b`` (module docstring), in ``a``'s result order."""
    out = [Difference(DOCUMENT, f, untimed(a.get(f)), untimed(b.get(f))) for f in DOCUMENT_FIELDS
           if untimed(a.get(f)) != untimed(b.get(f))]
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
                out.append(Difference(i, f, va, vb, text_only=f in TEXT_FIELDS or untexted(va) == untexted(vb)))
    return out


def report(diffs: list[Difference], a: dict, b: dict) -> list[str]:
    """A summary of ``diffs``: counts of results compared, of changed measurements and of text-only changes."""
    ids_a, ids_b = {c["id"] for c in a.get("claims", [])}, {c["id"] for c in b.get("claims", [])}
    hard = [d for d in diffs if not d.text_only]
    text = [d for d in diffs if d.text_only]
    lines = [f"results: {len(ids_a)} and {len(ids_b)}, {len(ids_a & ids_b)} in both; tier {a.get('tier')} / "
             f"{b.get('tier')}",
             f"differences other than text: {len(hard)}"
             + (f" ({dict(Counter(d.field for d in hard))})" if hard else ""),
             f"text-only differences ({', '.join(TEXT_FIELDS)}): {len(text)} in {len({d.id for d in text})} results"]
    lines += ["  " + d.line() for d in hard]
    lines += ["  text: " + d.line() for d in text]
    return lines


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m mixbounds.checks.run.compare A/results.json B/results.json", file=sys.stderr)
        return 2
    docs = []
    for p in args:
        try:
            docs.append(json.loads(Path(p).read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            print(f"compare: error: {p}: {exc}", file=sys.stderr)
            return 2
    diffs = compare_results(*docs)
    print("\n".join(report(diffs, *docs)))
    return 1 if any(not d.text_only for d in diffs) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
