"""The reference page of the instance families and the baselines, generated from the registries at every build.

``reference/families.md`` lists every family of :func:`mixbounds.instances.families.families` (``mixbounds instance
FAMILY``) with the keywords its builder takes — the named ones and their defaults, read from the builder's
signature (and from the builder a wrapper passes its keywords on to, ``__wrapped__``), the option that sets each
one on the command line — and its docstring's first paragraph, which states its targets and sizes; then every
method ``mixbounds solve --method`` accepts (its own list, :mod:`mixbounds.cli.solve`): the paper's and the
baselines of :data:`mixbounds.solvers.baselines.BASELINES` with the classes they apply to and their citation.
A family or baseline added to a registry appears at the next build with no edit here (``tests/test_docs.py``).
"""

from __future__ import annotations

import inspect
import re

from mdtext import code, escape, table
from mixbounds.instances.families import families
from mixbounds.solvers.baselines import BASELINES

from mixbounds.cli.command import build_parser
from mixbounds.cli.option_names import option_names
from mixbounds.cli.solve import _methods as solve_methods


def keywords(builder) -> list[tuple[str, object]]:
    """``[(name, default)]`` of the keywords ``builder`` takes (``inspect.Parameter.empty``: required), following
    ``__wrapped__`` through the wrappers that pass their other keywords on."""
    out: list[tuple[str, object]] = []
    f = builder
    while f is not None:
        for p in inspect.signature(f, follow_wrapped=False).parameters.values():
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in dict(out):
                out.append((p.name, p.default))
        f = getattr(f, "__wrapped__", None)
    return out


#: keyword a builder is probed with: no family takes it, so each names the extra keywords it accepts (the random,
#: convex and nonsmooth families: "accepted extra parameters: …", mixbounds.instances.random.common)
PROBE = "docs_probe_keyword"


def extra_keywords(builder) -> list[str]:
    """The keywords beyond the common targets a ``**kw`` builder accepts, as it names them when given one it does not
    take (empty when it does not say)."""
    try:
        builder(**{PROBE: 1})
    except Exception as exc:  # noqa: BLE001 - whatever the builder raises, only its own list is read
        m = re.search(r"accepted extra parameters: ([\w, ]+)$", str(exc))
        if m:
            return [k.strip() for k in m.group(1).split(",") if k.strip() and k.strip() != "none"]
    return []


def first_paragraph(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line, its reST inline markup as Markdown (code spans kept, the rest
    escaped)."""
    text = " ".join(inspect.cleandoc(doc or "").split("\n\n")[0].split())
    text = re.sub(r":\w+:`~?([^`]+)`", r"``\1``", text)
    parts = re.split(r"``([^`]+)``", text)
    return "".join(code(p) if i % 2 else escape(p) for i, p in enumerate(parts))


def _keyword_cell(name: str, default, options: dict) -> str:
    shown = "required" if default is inspect.Parameter.empty else f"default {default!r}"
    return f"{code(options.get(name, f'--param {name}'))} ({shown})"


def render() -> str:
    """The whole page (MyST Markdown)."""
    sub = next(a for a in build_parser()._actions if getattr(a, "choices", None) and "instance" in a.choices)
    options = option_names(sub.choices["instance"])
    lines = ["# Instance families and methods", "",
             "Generated at every docs build from the registries (`docs/_ext/registry_pages.py`): the families "
             "`mixbounds instance FAMILY` builds and the methods `mixbounds solve --method` runs. Keywords are "
             "given as options (`--kappa-W 30`) or, for those without one, as `--param KEY=VALUE`; a family "
             "rejects a keyword it does not take, naming the ones it accepts.", "",
             "## Instance families", ""]
    rows = []
    for name, builder in sorted(families().items()):
        kws = [_keyword_cell(k, d, options) for k, d in keywords(builder)]
        extra = [code(options.get(k, f"--param {k}")) for k in extra_keywords(builder)]
        rows.append([code(name), code(builder.__module__),
                     "; ".join(kws) or "the targets and sizes the description names",
                     ", ".join(extra) or "—", first_paragraph(builder.__doc__)])
    lines += table(["family", "module", "named keywords", "other keywords it takes",
                    "description (targets, sizes, defaults)"], rows)
    lines += ["## Methods of `mixbounds solve`", ""]
    rows = []
    for name in solve_methods():  # the names --method accepts, in its order
        if name not in BASELINES:
            rows.append([code(name), "every class", "the paper's method (APAPC with Chebyshev acceleration on the "
                                                    "paper's reformulation)", "—"])
            continue
        fn, classes, citation = BASELINES[name]
        rows.append([code(name), ", ".join(code(c) for c in classes), first_paragraph(inspect.getmodule(fn).__doc__),
                     escape(citation)])
    lines += table(["method", "classes", "what it is", "citation"], rows)
    return "\n".join(lines).rstrip() + "\n"
