"""The package's layers, declared once: the folders mapped to ``mixbounds.<folder>`` and the thin package above them.

From the bottom (``docs/design.md``, "Layers"): ``bounds`` (the paper's claims and the condition numbers), ``instances``,
``solvers``, ``checks``, ``plots``, then ``mixbounds`` itself (the CLI, the reports, the run orchestration and the
public API, in ``src/mixbounds``).  A module imports only from its own layer or below
(``tests/test_architecture.py``).  This module sits in the lowest layer so that every layer may read it: the run's
cache key (which folders' sources sign a result), the tests (architecture, packaging, the installed copy) and the
documentation's extensions read the list from here; ``pyproject.toml`` cannot import it, so
``tests/test_packaging.py`` checks that its ``package-dir`` and ``packages`` agree with it.
"""

from __future__ import annotations

#: the top-level folders setuptools maps to ``mixbounds.<folder>``, from the bottom layer up
FOLDERS: tuple[str, ...] = ("bounds", "instances", "solvers", "checks", "plots")
#: the thin package: the top layer, and the folder of its sources in a checkout
TOP = "mixbounds"
TOP_SOURCE = "src/mixbounds"
#: the layers from the bottom (a mapped folder's layer is its name; the top package's modules are ``mixbounds``)
LAYERS: tuple[str, ...] = (*FOLDERS, TOP)


def up_to(layer: str) -> tuple[str, ...]:
    """The folders from the bottom up to and including ``layer`` (one of :data:`FOLDERS`).

    Parameters
    ----------
    layer : str
        A mapped folder's name.

    Returns
    -------
    tuple of str
        ``FOLDERS[: FOLDERS.index(layer) + 1]``.
    """
    if layer not in FOLDERS:
        raise ValueError(f"unknown layer {layer!r}; the mapped folders are {', '.join(FOLDERS)}")
    return FOLDERS[: FOLDERS.index(layer) + 1]


def package_dir() -> dict[str, str]:
    """The ``[tool.setuptools.package-dir]`` table these layers mean: ``mixbounds`` → ``src/mixbounds`` and each
    folder ``f`` → ``mixbounds.f``."""
    return {TOP: TOP_SOURCE, **{f"{TOP}.{f}": f for f in FOLDERS}}
