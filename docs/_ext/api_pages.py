"""The API reference pages: one page per public module of the installed package, found by walking the packages.

For every package of :data:`ROOTS` and, recursively, every module and sub-package below it whose name does not
start with an underscore, a page ``reference/api/<module>.rst`` holding ``automodule`` (the docstrings,
numpydoc read by napoleon; members are those the module defines, not its re-exports) and, for a package, a
toctree of its modules.  A module added to any folder of the package therefore appears at the next build with
no edit here.

Why not ``autosummary :recursive:``: it resolves ``mixbounds.solvers.solve`` as the attribute ``solve`` of the
package ``mixbounds.solvers`` (the function the package re-exports), so a module whose name equals the
function it defines got the function's page, and its own was never written.  The walk below imports each
module by its full name.
"""

from __future__ import annotations

import importlib
import pkgutil

from mixbounds.bounds.layers import package_dir

#: the installed package's top and the five folders it maps (``mixbounds/`` alone does not contain them)
ROOTS = tuple(package_dir())


def submodules(name: str) -> list[str]:
    """Public modules and sub-packages directly below package ``name`` (none for a plain module)."""
    mod = importlib.import_module(name)
    path = getattr(mod, "__path__", None)
    if path is None:
        return []
    return sorted(f"{name}.{m.name}" for m in pkgutil.iter_modules(path) if not m.name.startswith("_"))


def walk(roots=ROOTS) -> list[str]:
    """Every public module under ``roots``, depth first, each once (the roots themselves included)."""
    out: list[str] = []
    stack = list(reversed(roots))
    while stack:
        name = stack.pop()
        if name in out:
            continue
        out.append(name)
        stack.extend(reversed(submodules(name)))
    return out


def page(name: str) -> str:
    """The reST page of module ``name``."""
    title = f"``{name}``"
    lines = [title, "=" * len(title), "", f".. automodule:: {name}", ""]
    subs = submodules(name)
    if name == ROOTS[0]:  # the folders hang below the top; an editable install does not show them in its __path__
        subs = sorted(set(subs) | set(ROOTS[1:]))
    if subs:
        lines += [".. rubric:: Modules", "", ".. toctree::", "   :maxdepth: 1", ""]
        lines += [f"   {m}" for m in subs]
        lines.append("")
    return "\n".join(lines)


def render(roots=ROOTS) -> dict[str, str]:
    """File name (``<module>.rst``) → page text, for every public module under ``roots``."""
    return {f"{name}.rst": page(name) for name in walk(roots)}
