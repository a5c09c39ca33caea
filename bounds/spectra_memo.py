"""Spectra computed once per process: a memo of the spectral functions keyed by their inputs' content.

The checks build hundreds of instances that share matrices: along a κ_f sweep every point has the same gossip
matrix ``W`` and constraint blocks, the solver's facts and the lower-bound engine ask again for spectra the
instance build already computed, and several checks build the same construction.  In the quick tier 11,550
top-level calls of the functions of :mod:`mixbounds.bounds.spectral` and :mod:`mixbounds.bounds.condition` had
2,308 distinct inputs; the repeats were 34.7 of their 45.8 CPU seconds (``docs/records/quick-tier-profile.md``).

:func:`memo_by_content` returns the stored result when a function is called again on inputs with the same
content, so the numbers are those of the first call, bit for bit: the functions are deterministic in their
arguments and in the module constants that steer them (``DENSE_LIMIT``, ``BANDED_LIMIT``, tolerances…), and the key
holds all of these:

* a matrix by its class, dtype, shape, memory order and stored arrays (a sparse matrix by its format's arrays as
  stored, so two storages of the same values are two keys: never a hit that could take another path);
* ``None``, numbers, strings and booleans by type and value; lists and tuples element by element;
* the upper-case numeric and text constants of every module registered with :func:`watch_settings` (a test that
  lowers ``DENSE_LIMIT`` gets a new key, not the answer of the other path).

An argument of any other type makes no key: the call is computed as without the memo.  The keyword arguments
named in ``ignore`` (``name``) change only the text of an error and are left out of the key; errors are never
stored, so a failing call raises with its own name every time.  Results must be immutable (the
frozen :class:`~mixbounds.bounds.spectral.Extremes`, floats): every caller receives the same object.

The memo is per process (each loky or Dask worker has its own), bounded (:data:`MEMO_ENTRIES`, least recently used
dropped first) and thread-safe (a Dask worker may run several task groups in threads).
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections import OrderedDict
from typing import Callable

import numpy as np
import scipy.sparse as sp

#: stored results at most (a result is a few floats; the quick tier has ~2,300 distinct inputs)
MEMO_ENTRIES = 8192

_LOCK = threading.Lock()
_STORE: OrderedDict = OrderedDict()
_SETTINGS: list[dict] = []
_STATS = {"hits": 0, "misses": 0, "unkeyed": 0}
_ENABLED = [True]


class Unkeyable(Exception):
    """An argument whose content the key does not describe."""


def watch_settings(module_globals: dict) -> None:
    """Add a module's upper-case numeric and text constants to every key (call with ``globals()``)."""
    if not any(g is module_globals for g in _SETTINGS):
        _SETTINGS.append(module_globals)


def _settings_key() -> tuple:
    return tuple((k, type(v).__name__, v) for g in _SETTINGS for k, v in sorted(g.items())
                 if k.isupper() and isinstance(v, (bool, int, float, str)))


def _feed(h, x) -> None:
    """Feed the content of ``x`` into hash ``h``; :class:`Unkeyable` for a type the key does not describe."""
    if x is None or isinstance(x, (bool, int, float, str, np.integer, np.floating)):
        h.update(f"{type(x).__name__}:{x!r};".encode())
    elif isinstance(x, np.ndarray):
        if x.dtype == object:
            raise Unkeyable
        h.update(f"nd:{x.dtype.str}:{x.shape}:{x.flags.c_contiguous}{x.flags.f_contiguous};".encode())
        h.update(np.ascontiguousarray(x).tobytes())
    elif sp.issparse(x):
        h.update(f"sp:{type(x).__name__}:{x.dtype.str}:{x.shape};".encode())
        arrays: tuple
        if x.format in ("csr", "csc", "bsr"):
            arrays = (x.indptr, x.indices, x.data)
        elif x.format == "coo":
            arrays = (*x.coords, x.data) if hasattr(x, "coords") else (x.row, x.col, x.data)
        elif x.format == "dia":
            arrays = (x.offsets, x.data)
        else:
            raise Unkeyable
        for a in arrays:
            h.update(f"{a.dtype.str}:{a.shape};".encode())
            h.update(np.ascontiguousarray(a).tobytes())
    elif callable(getattr(x, "content_parts", None)):  # a structured operator (solvers.kron_identity) by its parts
        h.update(f"parts:{type(x).__name__};".encode())
        _feed(h, tuple(x.content_parts()))
    elif isinstance(x, (list, tuple)):
        h.update(f"{type(x).__name__}:{len(x)}[".encode())
        for v in x:
            _feed(h, v)
        h.update(b"]")
    else:
        raise Unkeyable


def content_key(name: str, args: tuple, kwargs: dict) -> str:
    """The memo key of a call of function ``name``: its arguments' content and the watched settings."""
    h = hashlib.blake2b(digest_size=20)
    h.update(name.encode())
    _feed(h, args)
    for k in sorted(kwargs):
        h.update(f"|{k}=".encode())
        _feed(h, kwargs[k])
    h.update(repr(_settings_key()).encode())
    return h.hexdigest()


def memo_by_content(*, ignore: tuple[str, ...] = ("name",)) -> Callable:
    """Decorator: store ``func``'s result under its inputs' content (module docstring); ``ignore``: keyword
    arguments that change only error messages, left out of the key."""

    def deco(func: Callable) -> Callable:
        qual = f"{func.__module__}.{func.__qualname__}"

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if not _ENABLED[0]:
                return func(*args, **kwargs)
            try:
                key = content_key(qual, args, {k: v for k, v in kwargs.items() if k not in ignore})
            except Unkeyable:
                with _LOCK:
                    _STATS["unkeyed"] += 1
                return func(*args, **kwargs)
            with _LOCK:
                if key in _STORE:
                    _STORE.move_to_end(key)
                    _STATS["hits"] += 1
                    return _STORE[key]
            value = func(*args, **kwargs)
            with _LOCK:
                _STATS["misses"] += 1
                _STORE[key] = value
                while len(_STORE) > MEMO_ENTRIES:
                    _STORE.popitem(last=False)
            return value

        wrapper.uncached = func  # type: ignore[attr-defined]  # the undecorated function, for the memo's tests
        return wrapper

    return deco


def clear() -> None:
    """Forget every stored result and zero the statistics."""
    with _LOCK:
        _STORE.clear()
        for k in _STATS:
            _STATS[k] = 0


def stats() -> dict:
    """``{"hits", "misses", "unkeyed", "entries"}`` of this process since the last :func:`clear`."""
    with _LOCK:
        return {**_STATS, "entries": len(_STORE)}


class disabled:
    """Context manager: every memoized function computes (nothing read or stored) inside the block."""

    def __enter__(self):
        self._was = _ENABLED[0]
        _ENABLED[0] = False
        return self

    def __exit__(self, *exc) -> None:
        _ENABLED[0] = self._was
