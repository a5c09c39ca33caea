"""Sphinx configuration of the mixed-affine-bounds documentation (furo theme, MyST Markdown pages).

Build (warnings are errors, as in ``.ci/run``)::

    pip install ".[docs]" && sphinx-build -W --keep-going -b html docs docs/_build/html

Generated at every build, never committed (``docs/.gitignore``): the command-line reference
(``reference/cli.md``, from the argparse parsers), the results pages (``results/``, from the run snapshots in
``docs/data/``) and the API pages (``reference/api/``, one per public module of the installed package).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import mixbounds  # noqa: E402  (after the sys.path line: the local extensions import it too)

project = "mixed-affine-bounds"
author = "the mixed-affine-bounds maintainers"
copyright = "the mixed-affine-bounds maintainers, MIT licence"  # noqa: A001 - Sphinx's name
release = mixbounds.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "mixbounds_docs",  # docs/_ext: writes the CLI reference and the results pages before the sources are read
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "data", "Thumbs.db", ".DS_Store"]

# MyST: ($...$ math is not enabled: the pages write formulas as code or Unicode, like the paper's labels)
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# Smart quotes turn typed quotes into typographic ones and "..." into an ellipsis, but never "--" into a dash: the
# command-line reference and the guides write options (--out, --claims) in running text, and a copied "–out" is no
# option (tests/test_docs_copy.py parses every option string of the built page with the real parser)
smartquotes_action = "qe"

# API reference (pages written by docs/_ext/api_pages.py): one docstring style, numpydoc read by napoleon
# each object documented once, in the module that defines it: a package's re-exports (its __all__) are not
# documented again ("ignore-module-all": members are those whose __module__ is the module itself)
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_class_signature = "mixed"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False

html_theme = "furo"
html_title = f"mixed-affine-bounds {release}"
html_static_path: list[str] = []
