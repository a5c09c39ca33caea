"""A fingerprint of the data a problem holds, part by part: to tell whether code handed a problem changed it.

``mixbounds bench`` runs a user's method on a copy of the instance in a process of its own
(:mod:`mixbounds.isolation`); the method's counts are counts on *this* instance only if the method left
its data alone.  :func:`data_fingerprint` hashes every array reachable from the problem's parts — the gossip
matrix ``W``, the constraint blocks and right-hand sides, the objective's data — and :func:`changed_parts`
names the parts whose hash moved.  Reached through attributes (``__dict__`` and ``__slots__``) and
containers, each object once; arrays are hashed by their bytes, sparse matrices by their three arrays and
shape, so an in-place change of a single entry shows.
"""

from __future__ import annotations

import hashlib

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.concepts import Matrix

#: the parts of a :class:`~mixbounds.instances.problem.MixedProblem` fingerprinted separately
PARTS = ("W", Matrix.A, "b", Matrix.C, "c", Matrix.CT, "ct", "C_kernels", "objective")


def _feed(h, obj, seen: set, depth: int) -> None:
    if obj is None or depth > 8 or id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        h.update(str((obj.dtype.str, obj.shape)).encode())
        h.update(np.ascontiguousarray(obj).tobytes())
    elif sp.issparse(obj):
        h.update(str((type(obj).__name__, obj.shape)).encode())
        for name in ("data", "indices", "indptr", "row", "col", "offsets"):
            a = getattr(obj, name, None)
            if isinstance(a, np.ndarray):
                _feed(h, a, seen, depth + 1)
    elif isinstance(obj, (bool, int, float, complex, str, bytes)):
        h.update(repr(obj).encode())
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _feed(h, x, seen, depth + 1)
    elif isinstance(obj, dict):
        for k in sorted(obj, key=repr):
            h.update(repr(k).encode())
            _feed(h, obj[k], seen, depth + 1)
    else:
        attrs = dict(getattr(obj, "__dict__", {}))
        for name in getattr(type(obj), "__slots__", ()):
            if hasattr(obj, name):
                attrs[name] = getattr(obj, name)
        for k in sorted(attrs):
            if not callable(attrs[k]) or sp.issparse(attrs[k]):
                h.update(k.encode())
                _feed(h, attrs[k], seen, depth + 1)


def data_fingerprint(problem) -> dict[str, str]:
    """``{part: hex digest}`` of the problem's :data:`PARTS` (an absent part hashes as empty)."""
    out = {}
    for part in PARTS:
        h = hashlib.blake2b(digest_size=16)
        _feed(h, getattr(problem, part, None), set(), 0)
        out[part] = h.hexdigest()
    return out


def changed_parts(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The parts whose fingerprint differs."""
    return [p for p in PARTS if before.get(p) != after.get(p)]
