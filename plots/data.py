"""Reading ``results.json`` and grouping its sweep results for the figures.

Nothing here runs a solver: every number comes from the results document
written by ``mixbounds verify`` (schema in ``docs/design.md``).  Sweep-type results
carry per point ``realized`` (the x value: the realized swept κ) and
``per_accuracy`` (the y value: the per-accuracy oracle count).

Result ids: ``T<k>.<class>.<oracle>.<param>.<upper|tight|absent>`` (solver slope
checks) and ``T<k>.<class>.<oracle>.<param>.lower[@variant]`` (the lower-bound
engine); the result's ``cell``/``param`` fields are used when present.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from mixbounds.bounds.result_id import parse
from mixbounds.checks.run.document import SCHEMA
from mixbounds.instances.json_file import JSONFileError, read_json

UPPER_KINDS = ("upper", "tight", "absent")
SWEEP_KINDS = UPPER_KINDS + ("lower",)


class ResultsFileError(ValueError):
    """``results.json`` is missing or is not a results document (one-line message)."""


def load_results(path) -> dict:
    """Read and validate a results document; raises :class:`ResultsFileError` with a one-line reason (a FIFO, a
    directory without results.json, bad JSON or JSON nested too deeply, a field of the wrong type)."""
    path = Path(path)
    if not (path.exists() or path.is_symlink()):
        raise ResultsFileError(f"{path}: no such file")
    if path.is_dir():
        cand = path / "results.json"
        if not (cand.exists() or cand.is_symlink()):
            raise ResultsFileError(f"{path}: is a directory without results.json")
        path = cand
    try:
        doc = read_json(path)
    except FileNotFoundError:
        raise ResultsFileError(f"{path}: no such file") from None
    except JSONFileError as exc:
        raise ResultsFileError(str(exc)) from None
    validate(doc, str(path))
    return upgrade(doc)


#: results layouts this version reads (:data:`mixbounds.checks.run.document.SCHEMA` and the older ones :func:`upgrade` converts)
READABLE_SCHEMAS = (1, 2)


def upgrade(doc: dict) -> dict:
    """A validated document in the current layout (schema 2).  Schema 1 put several numbers of a result in its
    ``measured`` (a dict, a list or text): they move to ``readings`` and ``measured`` becomes ``null``
    (schema 1 did not say which one the verdict compared).  ``upgraded_from`` records the original schema."""
    if doc.get("schema") == SCHEMA:
        return doc
    claims = []
    for c in doc["claims"]:
        m = c.get("measured")
        if m is not None and not isinstance(m, bool) and num(m) is None:
            c = dict(c, measured=None, readings=m if isinstance(m, dict) else {"measured": m})
        claims.append(c)
    return dict(doc, schema=SCHEMA, upgraded_from=doc.get("schema"), claims=claims)


def _is_value(v, *, obj_ok: bool = False) -> bool:
    """A JSON value a point coordinate may hold: a number, a numeric string (``"inf"``), null, or an object:
    ``realized`` (any object: the realized constants) or ``per_accuracy`` (per oracle, as the Tables 2-4 points
    write it: every value itself a number)."""
    if v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)):
        return True
    if isinstance(v, str):
        return num(v) is not None
    if obj_ok == "numbers" and isinstance(v, dict):
        return all(_is_value(x) for x in v.values())
    return bool(obj_ok) and isinstance(v, dict)


#: the type of every field the report and the figures read, when present (``*``: every element of a list or value
#: of an object; ``num``: a number or a numeric string such as ``"inf"``; ``int`` excludes ``bool``)
FIELD_TYPES = {
    "tier": ("str",), "command": ("str", "null"), "started": ("str", "null"), "wall_time": ("num", "null"),
    "controls": ("dict",), "controls.total": ("int",), "controls.caught": ("int",), "controls.items": ("list",),
    "controls.items.*": ("dict",), "controls.items.*.id": ("str",), "controls.items.*.status": ("str",),
    "controls.items.*.caught": ("bool",), "controls.items.*.detail": ("str", "null"),
    "findings": ("list",), "findings.*": ("dict",), "findings.*.id": ("str",), "findings.*.label": ("str", "null"),
    "findings.*.statement": ("str", "null"), "findings.*.source": ("str", "null"), "findings.*.detail": ("str", "null"),
    "seeds": ("dict", "list"), "stats": ("dict",), "versions": ("dict",), "checks": ("list", "dict"),
    "summary": ("dict",), "summary.status": ("dict",), "summary.status.*": ("int",),
    "summary.failed": ("list",), "summary.failed.*": ("str",), "summary.controls_not_caught": ("list",),
    "summary.unexpected_findings": ("list",), "summary.unexpected_findings.*": ("str",),
    "summary.expected_findings_now_passing": ("list",), "summary.expected_findings_now_passing.*": ("str",),
    "summary.lower_bound_certificates": ("dict",),
    "summary.lower_bound_certificates.ratios_not_flat": ("list",),
    "summary.lower_bound_certificates.ratios_not_flat.*": ("str",),
    "summary.lower_bound_certificates.ratios_explained": ("list",),
    "summary.lower_bound_certificates.ratios_explained.*": ("str",),
    "summary.lower_bound_certificates.statements": ("list",),
    "summary.lower_bound_certificates.statements.*": ("dict",),
    "summary.lower_bound_certificates.statements.*.params": ("dict",),
    "summary.lower_bound_certificates.statements.*.params.*": ("dict",),
    "summary.lower_bound_certificates.statements.*.params.*.tightness": ("dict", "null"),
    "claims.*.cell": ("str", "null"), "claims.*.param": ("str", "null"), "claims.*.label": ("str", "null"),
    "claims.*.detail": ("str", "null"), "claims.*.variant": ("str", "null"), "claims.*.expected": ("str", "null"),
    "claims.*.verdict_label": ("str", "null"), "claims.*.source": ("str", "null"), "claims.*.control": ("bool",),
    "claims.*.extra": ("dict",), "claims.*.instance": ("dict",), "claims.*.findings": ("list",),
    "claims.*.findings.*": ("dict",), "claims.*.ci": ("list", "null"), "claims.*.ci.*": ("num", "null"),
    "claims.*.tolerance": ("num", "null"), "claims.*.r2": ("num", "null"), "claims.*.theory": ("num", "str", "null"),
}
#: fields the report reads without a default: an object at the path must have them
REQUIRED_FIELDS = {"controls.items.*": ("id", "status", "caught"),
                   "summary.lower_bound_certificates.statements.*": ("statement", "params"),
                   "summary.lower_bound_certificates.statements.*.params.*": ("certificate",)}
_TYPE_NAMES = {"str": "a string", "bool": "true or false", "int": "an integer", "list": "a list", "dict": "an object",
               "null": "null", "num": "a number"}
_TYPE_TESTS = {"str": lambda v: isinstance(v, str), "bool": lambda v: isinstance(v, bool),
               "int": lambda v: isinstance(v, int) and not isinstance(v, bool), "list": lambda v: isinstance(v, list),
               "dict": lambda v: isinstance(v, dict), "null": lambda v: v is None,
               "num": lambda v: not isinstance(v, bool) and num(v) is not None}


def _check_types(doc: dict, where: str) -> None:
    """Every field of :data:`FIELD_TYPES` present in ``doc`` has one of its types (:class:`ResultsFileError` naming the
    first that has not, with its path)."""
    def walk(obj, parts, shown):
        if not parts:
            return [(shown, obj)]
        head, rest = parts[0], parts[1:]
        if head == "*":
            items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
            return [x for k, v in items for x in walk(v, rest, f"{shown}[{k!r}]" if isinstance(obj, dict)
                                                      else f"{shown}[{k}]")]
        if isinstance(obj, dict) and head in obj:
            return walk(obj[head], rest, f"{shown}.{head}" if shown else head)
        return []

    for path, types in FIELD_TYPES.items():
        for shown, v in walk(doc, path.split("."), ""):
            if not any(_TYPE_TESTS[t](v) for t in types):
                raise ResultsFileError(f"{where}: {shown} = {str(v)[:40]!r} must be "
                                       f"{' or '.join(_TYPE_NAMES[t] for t in types)}")
    for path, keys in REQUIRED_FIELDS.items():
        for shown, v in walk(doc, path.split("."), ""):
            missing = [k for k in keys if k not in v]
            if missing:
                raise ResultsFileError(f"{where}: {shown} lacks {', '.join(missing)}")


def validate(doc, where: str = "results") -> None:
    """Check that ``doc`` is a results document of this suite in the layout this version reads (:data:`SCHEMA`).

    Checked: the top-level ``schema`` (the layout version: another one is refused, not guessed at), the
    ``claims`` list, each claim's ``id``/``kind``/``status`` (strings), ``points`` (a list of objects), and
    for sweep results that the points carry the plotted fields (``realized``, ``per_accuracy``) as numbers.
    Raises :class:`ResultsFileError` naming the first thing that is wrong.
    """
    if not isinstance(doc, dict):
        raise ResultsFileError(f"{where}: not a results document (top level is a {type(doc).__name__}, expected an object)")
    if "schema" not in doc:
        raise ResultsFileError(f"{where}: not a mixbounds results document (no 'schema' field; "
                               f"expected schema {SCHEMA})")
    if doc["schema"] not in READABLE_SCHEMAS or isinstance(doc["schema"], bool):
        schemas = ", ".join(map(str, READABLE_SCHEMAS))
        raise ResultsFileError(f"{where}: results schema {doc['schema']!r} is not one this mixbounds reads "
                               f"(schemas {schemas}); rerun 'mixbounds verify' or use the matching mixbounds version")
    if "version" in doc and not isinstance(doc["version"], str):
        raise ResultsFileError(f"{where}: 'version' is a {type(doc['version']).__name__}, expected a string")
    claims = doc.get("claims")
    if not isinstance(claims, list):
        raise ResultsFileError(f"{where}: not a results document (no 'claims' list)")
    for i, c in enumerate(claims):
        _validate_claim(c, f"{where}: claims[{i}]", doc["schema"])
    _check_types(doc, where)


def _validate_claim(c, where: str, schema: int) -> None:
    if not isinstance(c, dict):
        raise ResultsFileError(f"{where} is not an object")
    missing = [k for k in ("id", "kind", "status") if k not in c]
    if missing:
        raise ResultsFileError(f"{where} lacks {', '.join(missing)}")
    bad = [k for k in ("id", "kind", "status") if not isinstance(c[k], str)]
    if bad:
        raise ResultsFileError(f"{where}: {', '.join(bad)} must be strings")
    where = f"{where} ({c['id']})"
    if schema >= 2:  # schema 1 may hold a dict or text in measured (upgrade moves it to readings)
        m = c.get("measured")
        if m is not None and (isinstance(m, bool) or num(m) is None):
            raise ResultsFileError(f"{where}: 'measured' = {str(m)[:40]!r} is not a number (schema {schema})")
        if not isinstance(c.get("readings", {}), dict):
            raise ResultsFileError(f"{where}: 'readings' is a {type(c['readings']).__name__}, expected an object")
    pts = c.get("points", [])
    if pts is None:
        pts = []
    if not isinstance(pts, list):
        raise ResultsFileError(f"{where}: 'points' is not a list")
    for j, pt in enumerate(pts):
        if not isinstance(pt, dict):
            raise ResultsFileError(f"{where}: points[{j}] is a {type(pt).__name__}, expected an object")
        for k in ("realized", "per_accuracy"):
            if k in pt and not _is_value(pt[k], obj_ok=True if k == "realized" else "numbers"):
                raise ResultsFileError(f"{where}: points[{j}].{k} = {str(pt[k])[:40]!r} is not a number")
    if c["kind"] in SWEEP_KINDS and pts and not any("realized" in pt and "per_accuracy" in pt for pt in pts):
        raise ResultsFileError(f"{where}: no point has the fields 'realized' and 'per_accuracy' of a sweep result "
                               f"(keys: {', '.join(sorted(pts[0])[:6]) or 'none'})")


def num(v) -> float | None:
    """A finite or infinite float from a JSON value (``"inf"``/``"nan"`` strings included), else ``None``."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def finite(v) -> float | None:
    x = num(v)
    return x if x is not None and math.isfinite(x) else None


def parse_id(rid: str) -> dict | None:
    """``cell``, ``param``, ``kind`` of a claim-cell result id (:func:`mixbounds.bounds.result_id.parse`), else ``None``."""
    p = parse(rid)
    return None if p.cell is None else {"cell": p.cell, "param": p.param, "kind": p.kind}


def variant_of(res: dict) -> str:
    """The series of a result (its ``variant`` field: a construction variant or a random family), else the
    instance's variant, else ``printed``."""
    if res.get("variant"):
        return res["variant"]
    inst = res.get("instance") or {}
    v = inst.get("variant") if isinstance(inst, dict) else None
    return v or "printed"


def cell_param(res: dict) -> tuple[str, str] | None:
    p = parse_id(res.get("id", ""))
    cell = res.get("cell") or (p and p["cell"])
    param = res.get("param") or (p and p["param"])
    return (cell, param) if cell and param else None


def xy(res: dict) -> tuple[list[float], list[float]]:
    """The (realized κ, per-accuracy count) pairs of a sweep result with both positive and finite."""
    xs, ys = [], []
    param = res.get("param")
    for pt in res.get("points") or []:
        if not isinstance(pt, dict):
            continue
        x = pt.get("realized")
        if isinstance(x, dict):
            x = x.get(param)
        x, y = finite(x), finite(pt.get("per_accuracy"))
        if x is not None and y is not None and x > 0 and y > 0:
            xs.append(x)
            ys.append(y)
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    return [xs[i] for i in order], [ys[i] for i in order]


@dataclass
class SweepGroup:
    """All sweep results of one (table cell, parameter): solver slopes and engine lower bounds."""

    cell: str
    param: str
    upper: list = field(default_factory=list)
    lower: list = field(default_factory=list)

    @property
    def oracle(self) -> str:
        return self.cell.split(".")[2] if self.cell.count(".") >= 2 else ""

    @property
    def problem_class(self) -> str:
        return self.cell.split(".")[1] if self.cell.count(".") >= 1 else ""

    @property
    def table(self) -> str:
        return self.cell.split(".")[0]

    @property
    def theory(self) -> float | None:
        for r in self.upper + self.lower:
            t = finite(r.get("theory"))
            if t is not None:
                return t
        return None

    def has_data(self) -> bool:
        return any(xy(r)[0] for r in self.upper + self.lower)


def sweep_groups(doc: dict) -> dict[tuple[str, str], SweepGroup]:
    """(cell, param) → :class:`SweepGroup` over the non-control sweep results (document order kept)."""
    out: dict[tuple[str, str], SweepGroup] = {}
    for r in doc.get("claims", []):
        if r.get("control") or r.get("kind") not in SWEEP_KINDS:
            continue
        cp = cell_param(r)
        if cp is None:
            continue
        g = out.setdefault(cp, SweepGroup(*cp))
        (g.lower if r["kind"] == "lower" else g.upper).append(r)
    for g in out.values():  # printed construction first, then variants by name
        g.lower.sort(key=lambda r: (variant_of(r) != "printed", variant_of(r)))
    return out


def slope_reading(res: dict) -> dict:
    """What a slope result's numbers are: ``{"closed": c, "fit": s, "ci": (lo, hi)}``.

    ``closed`` is the exponent of a closed form when the verdict read one (a lower bound whose engine counts are exact:
    ``extra.exponent_source == "closed form"``, the fit in ``extra.fit``; the suite's own Tables 2–4 lower bounds:
    ``extra.lower_exponent``, the fit in ``readings.fit``), else ``None`` — then ``measured`` is the fit.  ``fit`` and
    ``ci`` are the log-log fit and its 95% interval (``None`` when absent).  ``closed`` is ``"not established"``
    for an own lower bound that claims no exponent.  A display shows both numbers: the interval is the fit's, and
    it may exclude the closed form (a fit over a short range of κ reads a local slope).
    """
    ex = res.get("extra") if isinstance(res.get("extra"), dict) else {}
    ci = res.get("ci")
    ci = (num(ci[0]), num(ci[1])) if isinstance(ci, (list, tuple)) and len(ci) == 2 else None
    m = finite(res.get("measured"))
    if ex.get("exponent_source") == "closed form" and isinstance(ex.get("fit"), dict):
        fit = ex["fit"]
        fci = fit.get("ci")
        fci = (num(fci[0]), num(fci[1])) if isinstance(fci, (list, tuple)) and len(fci) == 2 else ci
        return {"closed": m, "fit": finite(fit.get("slope")), "ci": fci}
    if ex.get("own") and res.get("kind") == "lower":
        rd = res.get("readings") if isinstance(res.get("readings"), dict) else {}
        low = finite(ex.get("lower_exponent"))
        return {"closed": low if low is not None else "not established", "fit": finite(rd.get("fit")), "ci": ci}
    return {"closed": None, "fit": m, "ci": ci}


def _fit_text(m: float | None, ci, digits: int) -> str:
    if m is None:
        return "—"
    if ci is not None:
        lo, hi = ci
        if lo is not None and hi is not None:
            if not (math.isfinite(lo) and math.isfinite(hi)):
                return f"{m:.{digits}f} ± ∞"
            if abs((hi - m) - (m - lo)) <= 1e-6 * max(1.0, abs(hi - lo)):
                return f"{m:.{digits}f} ± {(hi - lo) / 2:.{digits}f}"
            return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
    return f"{m:.{digits}f}"


def closed_text(closed) -> str:
    """A closed-form exponent as shown: ``0.5`` (four significant digits: it is exact, not a measurement)."""
    return closed if isinstance(closed, str) else f"{closed:.4g}"


def fmt_slope(res: dict, digits: int = 2) -> str:
    """``0.49 ± 0.03`` (or ``0.49 [0.41, 0.60]`` for an asymmetric interval, ``—`` if unmeasured); a result read
    from a closed form shows both numbers, ``0.5 exact; fit 0.445 [0.406, 0.484]`` (:func:`slope_reading`)."""
    r = slope_reading(res)
    if r["closed"] is None:
        return _fit_text(r["fit"], r["ci"], digits)
    fit = "" if r["fit"] is None else f"; fit {_fit_text(r['fit'], r['ci'], digits)}"
    return f"{closed_text(r['closed'])}{' exact' if not isinstance(r['closed'], str) else ''}{fit}"


def bench_series(res: dict) -> dict | None:
    """The series of a benchmark slope result, read from its fields (``None`` for other results, e.g. the
    consistency records): class and oracle from ``cell`` (``T1.<class>.<oracle>``), ``param``, the method from
    ``extra["method"]``, and the family from ``variant`` (the random family; ``"worst"`` on the worst-case
    construction, whose ``variant`` is ``None``).  The id (``bench.<class>.<method>.<oracle>.<param>[@family]``)
    is not parsed."""
    if res.get("kind") != "bench":
        return None
    cell = str(res.get("cell") or "").split(".")
    method = (res.get("extra") or {}).get("method")
    if len(cell) != 3 or not method or not res.get("param"):
        return None
    return {"class": cell[1], "method": method, "oracle": cell[2], "param": res["param"],
            "family": res.get("variant") or "worst"}


def bench_groups(doc: dict) -> dict[tuple[str, str], list[dict]]:
    """(class, oracle) → the bench results of that pair (document order)."""
    out: dict[tuple[str, str], list[dict]] = {}
    for r in doc.get("claims", []):
        p = bench_series(r)
        if p is None:
            continue
        out.setdefault((p["class"], p["oracle"]), []).append(dict(r, _bench=p))
    return out


def figure_files(manifest: dict) -> list[list]:
    """The files of every figure a manifest of :func:`mixbounds.plots.draw.draw_all` (or ``existing_manifest``)
    lists, one list per figure: the cell figures, the class panels, the benchmark figures and the heat map."""
    figs = [paths for section in ("cells", "classes", "bench") for paths in (manifest.get(section) or {}).values()]
    if manifest.get("heatmap"):
        figs.append(manifest["heatmap"])
    return figs
