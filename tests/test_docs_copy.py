"""Docs that work when copied (issue 44, item 5): every option string of the *built* command-line reference is the
ASCII option the real parser accepts, and the docs extra installs what the docs build imports.

The reference page is built by Sphinx with the documentation's own configuration (``docs/conf.py``: MyST, smart
quotes) from the page the docs extension generates (``docs/_ext/cli_reference.py``), in a temporary project holding
only that page (the whole site takes minutes).  Sphinx's smart quotes turned ``--out`` into ``–out`` in running text;
the negative control builds the same page with them on and sees the dashes.
"""

from __future__ import annotations

import argparse
import html.parser
import importlib
import importlib.metadata as md
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from mixbounds.cli.command import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: an option as written in running text: one or two dashes of any kind, then a letter
OPTION = re.compile(r"(?<![\w\-‐‑‒–—―])([\-‐‑‒–—―]{1,2})([A-Za-z][\w\-]*)")
#: the minimal valid command line of each subcommand, to which the option under test is added
BASE = {"instance": ["coupled", "--out", "x"], "report": ["r"], "plot": ["r"], "solve": ["d"],
        "bench": ["--method", "m:f"], "verify": [], "table": []}

CONF = """
import runpy, sys
ns = runpy.run_path({conf!r})
for k, v in ns.items():
    if not k.startswith("_") and k not in ("extensions", "sys", "Path", "HERE", "mixbounds", "annotations"):
        globals()[k] = v
extensions = ["myst_parser"]
exclude_patterns = ["_build"]
{extra}
"""


def _build(tmp: Path, extra: str = "") -> str:
    """The HTML of the CLI reference page, built by Sphinx with docs/conf.py's settings (plus ``extra``)."""
    cli_reference, registry_pages = _ext("cli_reference"), _ext("registry_pages")
    src = tmp / "src"
    src.mkdir()
    (src / "conf.py").write_text(CONF.format(conf=str(DOCS / "conf.py"), extra=extra))
    (src / "index.md").write_text("# Docs\n\n```{toctree}\ncli\nfamilies\n```\n")
    (src / "cli.md").write_text(cli_reference.render())
    (src / "families.md").write_text(registry_pages.render())
    r = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-W", "-b", "html", str(src), str(tmp / "out")],
                       capture_output=True, text=True, cwd=tmp)
    assert r.returncode == 0, r.stderr
    return (tmp / "out" / "cli.html").read_text(encoding="utf-8")


def _ext(name: str):
    """A module of docs/_ext (not a package: imported with its folder on sys.path)."""
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(DOCS / "_ext"))


class _Sections(html.parser.HTMLParser):
    """The text of each subcommand's section (an ``<h2>`` ``mixbounds NAME``) of the built page."""

    def __init__(self):
        super().__init__()
        self.sections: dict[str, list[str]] = {}
        self.current: str | None = None
        self.in_h2 = False
        self.h2 = ""
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag == "h2":
            self.in_h2, self.h2 = True, ""
        if tag in ("script", "style"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag == "h2":
            self.in_h2 = False
            m = re.match(r"\s*mixbounds\s+(\S+)", self.h2.replace("¶", ""))
            self.current = m.group(1) if m else None
            if self.current:
                self.sections[self.current] = []
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data):
        if self.in_h2:
            self.h2 += data
        elif self.current and not self.skip:
            self.sections[self.current].append(data)


def options_in(page: str) -> dict[str, set[str]]:
    """Subcommand → every option string written in its section (dashes as they are on the page)."""
    p = _Sections()
    p.feed(page)
    return {name: {m.group(1) + m.group(2) for m in OPTION.finditer(" ".join(parts))}
            for name, parts in p.sections.items()}


def _parses(sub: str, opt: str) -> bool:
    """Whether the real parser accepts ``opt`` in ``mixbounds SUB`` (with a value when it takes one)."""
    parser = build_parser()
    action = next((a for a in _sub(parser, sub)._actions if opt in a.option_strings), None)
    if action is None:
        return False
    values = [[]] if action.nargs == 0 else [[str(c)] for c in (action.choices or [])][:1] or [["1"], ["tiny"], ["x"]]
    for v in values:
        try:
            ns = parser.parse_args([sub, *BASE[sub], opt, *v])
        except SystemExit:
            continue
        if getattr(ns, action.dest, None) is not None:
            return True
    return False


def _sub(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]


def test_every_option_string_of_the_built_reference_parses(tmp_path, capsys):
    found = options_in(_build(tmp_path))
    assert set(found) == set(BASE)
    parser = build_parser()
    bad, n = [], 0
    for sub, opts in found.items():
        own = {s for a in _sub(parser, sub)._actions for s in a.option_strings}
        for opt in sorted(opts):
            if opt in ("-h", "--help") or opt.startswith("-") and opt not in own and opt.lstrip("-") not in \
                    {s.lstrip("-") for s in own}:
                continue  # a hyphenated word of the prose ("-1e-3"…), or a dashed word that is no option of any kind
            n += 1
            if not re.fullmatch(r"--?[A-Za-z][\w-]*", opt) or not _parses(sub, opt):
                bad.append(f"{sub} {opt!r}")
    assert bad == [] and n >= 50, (bad, n)
    capsys.readouterr()  # argparse's messages of the value candidates that did not parse


def test_negative_control_smart_dashes_are_seen(tmp_path):
    """With Sphinx's default smart quotes (dashes on) the same page carries '–out': the test above can fail."""
    found = options_in(_build(tmp_path, extra='smartquotes_action = "qDe"'))
    assert any(o.startswith("–") for o in found["verify"])


# ----------------------------------------------------------------------------- the docs extra
def _requirement_names(reqs) -> set[str]:
    return {re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0].lower().replace("_", "-") for r in reqs}


def _imported_distributions(code: str, block=()) -> set[str]:
    """The distributions whose modules a Python process imports running ``code`` (third-party only); ``block``: top-level
    modules made unimportable first (an optional import then fails quietly, a required one fails the run)."""
    prog = "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in block) + code + ("\nimport sys, json, importlib.metadata as md\n"
                   "pd = md.packages_distributions()\n"
                   "print(json.dumps(sorted({d for m in list(sys.modules) for d in pd.get(m.split('.')[0], [])})))")
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    return {d.lower().replace("_", "-") for d in json.loads(r.stdout.strip().splitlines()[-1])}


#: what the docs build imports: the extension's generators and every module the API pages document (autodoc imports
#: each one; mixbounds.checks.pep imports cvxpy and PEPit)
DOCS_IMPORTS = f"""
sys.path.insert(0, {str(DOCS / '_ext')!r})
import importlib, api_pages, cli_reference, results_pages, myst_parser, sphinx, furo
for name in api_pages.walk():
    importlib.import_module(name)
"""


@pytest.fixture(scope="module")
def docs_imports() -> set[str]:
    """The distributions the docs build imports (one walk over every documented module: ~30 s under load)."""
    return _imported_distributions(DOCS_IMPORTS)


def test_the_docs_extra_installs_what_the_docs_build_imports(docs_imports):
    """Root cause: ``pip install ".[docs]" && sphinx-build …`` failed in a fresh venv (No module named 'cvxpy'):
    the API pages import the PEP modules, and the docs extra lacked their dependencies."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    allowed = _requirement_names(meta["dependencies"]) | _requirement_names(meta["optional-dependencies"]["docs"])
    needed = docs_imports - {"mixed-affine-bounds"}
    candidates = sorted(d for d in needed if d not in allowed and not _pulled_in(d, allowed))
    # imported only because they are installed here (psutil by joblib): the build runs with all of them unimportable
    assert candidates == [] or _optional(candidates), f"imported by the docs build, not installed by .[docs]: {candidates}"


def _pulled_in(dist: str, allowed: set[str]) -> bool:
    """Whether ``dist`` is a dependency (at any depth) of one of the ``allowed`` distributions."""
    seen, todo = set(), list(allowed)
    while todo:
        d = todo.pop()
        if d in seen:
            continue
        seen.add(d)
        try:
            reqs = md.requires(d) or []
        except md.PackageNotFoundError:
            continue
        todo += [n for n in _requirement_names(r for r in reqs if "extra ==" not in r)]
    return dist in seen


def _optional(dists) -> bool:
    """Whether the docs build's imports succeed with the modules of ``dists`` unimportable (each imported only if
    present)."""
    dists = {dists} if isinstance(dists, str) else set(dists)
    tops = [m for m, ds in md.packages_distributions().items() if dists & {d.lower().replace("_", "-") for d in ds}]
    try:
        _imported_distributions(DOCS_IMPORTS, block=tops)
    except AssertionError:
        return False
    return True


def test_negative_control_a_docs_extra_without_cvxpy_misses_it(docs_imports):
    """The extra of the issue (sphinx, furo, myst-parser and the core): cvxpy is required by the build and not in it."""
    assert "cvxpy" in docs_imports and not _optional("cvxpy")
    bare = {"sphinx", "furo", "myst-parser", "numpy", "scipy", "matplotlib", "rich", "joblib", "threadpoolctl"}
    assert not _pulled_in("cvxpy", bare)


@pytest.mark.parametrize("page", ["guides/method-designer.md"])
def test_the_method_designer_guide_says_pytest_must_be_installed(page):
    text = (DOCS / page).read_text()
    assert re.search(r"pip install [^\n`]*pytest", text), "no install line for the pytest helpers"


# ----------------------------------------------------------------------------- the registries' page
def test_the_families_page_lists_every_family_and_method_from_the_registries():
    from mixbounds.instances.families import families

    from mixbounds.cli.solve import _methods

    page = _ext("registry_pages").render()
    assert all(f"| `{name}` |" in page for name in families())
    assert all(f"| `{name}` |" in page for name in _methods())
    row = next(ln for ln in page.splitlines() if ln.startswith("| `coupled` |"))
    assert "`--kappa-W` (required)" in row and "`--kappa-f` (required)" in row  # from the builder behind the wrapper
    row = next(ln for ln in page.splitlines() if ln.startswith("| `random-consensus` |"))
    assert "`--er-p`" in row and "`--gossip`" in row  # as the builder names them when given a keyword it does not take


def test_negative_control_a_family_added_to_the_registry_appears(monkeypatch):
    """The page is generated: a family the registry gains is listed with its keywords, no edit of the docs."""
    from mixbounds.instances import families as fam_mod

    def build_zz(*, kappa_zz: float, size: int = 3):
        """A family added by a test."""

    real = fam_mod.families
    monkeypatch.setattr(fam_mod, "families", lambda: {**real(), "zz-new": build_zz})
    rp = _ext("registry_pages")
    monkeypatch.setattr(rp, "families", fam_mod.families)
    row = next(ln for ln in rp.render().splitlines() if ln.startswith("| `zz-new` |"))
    assert "`--param kappa_zz` (required)" in row and "`--param size` (default 3)" in row
