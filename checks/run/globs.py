"""``--claims`` globs: which result ids a glob selects, and the globs of the union of two selections.

A glob selects a result id when it matches it, or one of its parents: ``T1.coupled.comm`` selects
``T1.coupled.comm.kappa_W.tight`` (a ``.`` child) and ``…lower`` selects ``…lower@variant`` (an ``@`` child).
Light on purpose (no numerical import): the command line's output-directory checks use it before any work.
"""

from __future__ import annotations

from fnmatch import fnmatchcase


def matches(rid: str, globs) -> bool:
    """Whether result id ``rid`` is selected: a glob matches it, or one of its parents (``.`` / ``@`` children)."""
    return any(fnmatchcase(rid, g) or fnmatchcase(rid, g + ".*") or fnmatchcase(rid, g + "@*") for g in globs)


def covered(glob: str, globs) -> bool:
    """Whether ``globs`` select everything ``glob`` selects, as far as a glob can tell: one of them selects the glob
    itself read as an id (``T1.*`` covers ``T1.coupled.*`` and ``T1.coupled.comm.kappa_W.tight``)."""
    return matches(glob, globs)


def union_globs(a, b) -> list[str]:
    """The globs of a merged set: ``a``'s, then those of ``b`` that ``a`` does not cover (:func:`covered`), so that a
    subset merged into its set leaves the set's selection as it was."""
    a = list(dict.fromkeys(a))
    return a + [g for g in dict.fromkeys(b) if not covered(g, a)]
