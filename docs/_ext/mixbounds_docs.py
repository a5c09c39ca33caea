"""Sphinx extension of the documentation: write the generated pages before Sphinx reads the sources.

At ``builder-inited`` (before autosummary and before any source is read):

* ``reference/cli.md``: the command-line reference, from the argparse parsers (:mod:`cli_reference`);
* ``reference/families.md``: the instance families and the methods of ``mixbounds solve``, from their registries
  (:mod:`registry_pages`);
* ``results/*.md``: the results pages, from the run snapshots in ``docs/data/`` (:mod:`results_pages`);
* ``reference/api/*.rst``: one page per public module of the installed package (:mod:`api_pages`).

A page is rewritten only when its text changed, so an unchanged build reads nothing again.  Both are listed
in ``docs/.gitignore``: they exist only as generated, and cannot go stale in the repository.
"""

from __future__ import annotations

from pathlib import Path

import api_pages
import cli_reference
import registry_pages
import results_pages

DOCS = Path(__file__).resolve().parent.parent


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` unless it already holds exactly that; True when written."""
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def write_pages(out: Path, pages: dict[str, str], suffix: str) -> None:
    """Write ``pages`` (file name → text) into ``out`` and delete the ``*suffix`` files there it no longer has."""
    for name, text in pages.items():
        write_if_changed(out / name, text)
    for stale in out.glob(f"*{suffix}"):
        if stale.name not in pages:
            stale.unlink()


def generate(app) -> None:
    write_if_changed(DOCS / "reference" / "cli.md", cli_reference.render())
    write_if_changed(DOCS / "reference" / "families.md", registry_pages.render())
    data = DOCS / "data"
    write_pages(DOCS / "results", results_pages.render_pages(results_pages.load_snapshots(data),
                                                             results_pages.load_timed(data), data), ".md")
    write_pages(DOCS / "reference" / "api", api_pages.render(), ".rst")


def setup(app):
    app.connect("builder-inited", generate)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
