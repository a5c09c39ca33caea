"""The binary form of an instance directory's block groups: one ``.npz`` per group (docs/design.md, "Instance directory").

Matrix Market keeps one text file per node and block (``A_0.mtx … A_{n-1}.mtx``); at 1000 nodes that
is thousands of files parsed one by one.  The binary form stores a whole group in one NumPy archive
(``numpy.savez``, uncompressed, no pickles), read with ``numpy.load(allow_pickle=False)``:

* a matrix group (``W``, ``edges``, ``A``, ``C``, ``Ct``, ``Nker``, ``Q``, ``F``) holds the CSR arrays
  of its blocks concatenated in node order: ``shape`` (k × 2: rows, columns of each block),
  ``indptr`` (each block's row pointer, k blocks of rows + 1 entries), ``indices`` and ``data``
  (each block's nonzeros, Σ nnz entries);
* a vector group (``b``, ``c``, ``ct``, ``q``, ``y``) holds ``ptr`` (k + 1 offsets) and ``data``
  (the vectors concatenated).

Reading checks everything before a block is built: the member names, dtypes (integers for the
structure, real numbers for the values), the block count, each row pointer (starts at 0,
non-decreasing, ends at the block's nonzero count), every column index inside its block, and
finite values; violations are one-line ``ValueError`` s naming the file and the block.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Sequence

import numpy as np
import scipy.sparse as sp

MATRIX_KEYS = frozenset({"shape", "indptr", "indices", "data"})
VECTOR_KEYS = frozenset({"ptr", "data"})


def _one_line(text) -> str:
    return " ".join(str(text).split())


def write_matrices(path: Path, blocks: Sequence) -> None:
    """Write the blocks (sparse or dense, node order) of one group to ``path`` (``.npz``)."""
    csr = [sp.csr_matrix(B, dtype=float) for B in blocks]
    shape = np.array([B.shape for B in csr], dtype=np.int64).reshape(len(csr), 2)
    wide = any(B.shape[1] >= 2**31 for B in csr)
    empty = np.zeros(0)
    np.savez(str(path), allow_pickle=False, shape=shape,
             indptr=np.concatenate([B.indptr.astype(np.int64) for B in csr]) if csr else empty.astype(np.int64),
             indices=np.concatenate([B.indices.astype(np.int64 if wide else np.int32) for B in csr] + [empty.astype(np.int32)]),
             data=np.concatenate([B.data for B in csr] + [empty]))


def write_vectors(path: Path, vectors: Sequence) -> None:
    """Write the vectors (node order) of one group to ``path`` (``.npz``)."""
    vs = [np.asarray(v, dtype=float).ravel() for v in vectors]
    ptr = np.concatenate([[0], np.cumsum([v.size for v in vs], dtype=np.int64)]).astype(np.int64)
    np.savez(str(path), allow_pickle=False, ptr=ptr, data=np.concatenate(vs + [np.zeros(0)]))


def _load(path: Path, keys: frozenset) -> dict:
    if not path.is_file():
        raise ValueError(f"{path.parent}: missing file {path.name}")
    try:
        with np.load(str(path), allow_pickle=False) as z:
            names = set(z.files)
            if names != keys:
                raise ValueError(f"{path}: members {sorted(names)}, expected {sorted(keys)}")
            return {k: z[k] for k in keys}
    except ValueError as exc:
        msg = _one_line(exc)
        raise ValueError(msg if msg.startswith(str(path)) else f"{path}: unreadable NumPy archive ({msg})") from None
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: unreadable NumPy archive ({_one_line(exc)})") from None


def _int_array(path: Path, name: str, a: np.ndarray, ndim: int, *, keep: bool = False) -> np.ndarray:
    """``a`` checked to be an integer array of ``ndim`` dimensions, as int64 (or as stored, int32 or int64, with
    ``keep``: the column indices of a 10⁶-variable group are 10⁸ entries, and their int32 form is what CSR uses)."""
    if a.dtype.kind not in "iu" or a.ndim != ndim:
        raise ValueError(f"{path}: member {name!r} must be a {ndim}-D integer array, got dtype {a.dtype}, shape {a.shape}")
    if keep and a.dtype in (np.int32, np.int64):
        return a
    return a.astype(np.int64, copy=False)


def _real_array(path: Path, name: str, a: np.ndarray) -> np.ndarray:
    if a.dtype.kind not in "biuf" or a.ndim != 1:
        raise ValueError(f"{path}: member {name!r} must be a 1-D real array, got dtype {a.dtype}, shape {a.shape}")
    a = a.astype(float, copy=False)
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{path}: member {name!r} has non-finite entries (first at position "
                         f"{int(np.flatnonzero(~np.isfinite(a))[0])})")
    return a


def read_matrices(path: Path, count: int, *, dense: bool = False) -> list:
    """The ``count`` blocks of a matrix group, validated (CSR, or dense arrays with ``dense=True``)."""
    z = _load(path, MATRIX_KEYS)
    shape = _int_array(path, "shape", z["shape"], 2)
    if shape.shape != (count, 2) or (shape < 0).any():
        raise ValueError(f"{path}: 'shape' is {shape.shape} with entries {'>= 0' if (shape >= 0).all() else '< 0'}, "
                         f"expected ({count}, 2) non-negative (one row per block)")
    indptr, indices = _int_array(path, "indptr", z["indptr"], 1), _int_array(path, "indices", z["indices"], 1, keep=True)
    data = _real_array(path, "data", z["data"])
    rows, cols = shape[:, 0], shape[:, 1]
    p_off = np.concatenate([[0], np.cumsum(rows + 1)])
    if indptr.size != p_off[-1]:
        raise ValueError(f"{path}: 'indptr' has {indptr.size} entries, expected {p_off[-1]} (rows + 1 per block)")
    starts, ends = indptr[p_off[:-1]], indptr[p_off[1:] - 1]
    nnz = ends - starts
    steps = np.diff(indptr)
    steps[p_off[1:-1] - 1] = 0  # the jumps between blocks are not row lengths
    bad = np.flatnonzero((starts != 0) | (nnz < 0))
    if bad.size or (steps < 0).any():
        i = int(bad[0]) if bad.size else int(np.searchsorted(p_off, np.flatnonzero(steps < 0)[0], side="right") - 1)
        raise ValueError(f"{path}: block {i}: row pointer must start at 0 and not decrease")
    if data.size != nnz.sum() or indices.size != data.size:
        raise ValueError(f"{path}: {data.size} values and {indices.size} column indices, expected {nnz.sum()} "
                         f"(the blocks' row pointers)")
    d_off = np.concatenate([[0], np.cumsum(nnz)])
    full = np.flatnonzero(nnz > 0)  # per-block extremes of the column indices (reduceat needs non-empty segments)
    if full.size:
        lo = np.minimum.reduceat(indices, d_off[full])
        hi = np.maximum.reduceat(indices, d_off[full])
        bad = full[(lo < 0) | (hi >= cols[full])]
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{path}: block {i}: column index outside 0..{cols[i] - 1}")
    # one index dtype for the row pointers and the column indices (CSR would otherwise convert every block)
    idx = indices.dtype if indptr.size == 0 or int(indptr.max()) <= np.iinfo(indices.dtype).max else np.int64
    indptr, indices = indptr.astype(idx, copy=False), indices.astype(idx, copy=False)
    out = []
    for i in range(count):
        B = sp.csr_matrix((data[d_off[i]:d_off[i + 1]], indices[d_off[i]:d_off[i + 1]], indptr[p_off[i]:p_off[i + 1]]),
                          shape=(int(rows[i]), int(cols[i])))
        out.append(B.toarray() if dense else B)
    return out


def read_vectors(path: Path, lengths: Sequence[int], what: Sequence[str]) -> list[np.ndarray]:
    """The vectors of a vector group; vector ``i`` must have ``lengths[i]`` entries (``what[i]`` says why)."""
    z = _load(path, VECTOR_KEYS)
    ptr = _int_array(path, "ptr", z["ptr"], 1)
    data = _real_array(path, "data", z["data"])
    k = len(lengths)
    if ptr.size != k + 1 or ptr[0] != 0 or (np.diff(ptr) < 0).any() or ptr[-1] != data.size:
        raise ValueError(f"{path}: 'ptr' must hold {k + 1} non-decreasing offsets from 0 to {data.size} (one vector per block)")
    got = np.diff(ptr)
    bad = np.flatnonzero(got != np.asarray(lengths, dtype=np.int64))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{path}: vector {i}: length {got[i]}, expected {lengths[i]} ({what[i]})")
    return [data[ptr[i]:ptr[i + 1]].copy() for i in range(k)]
