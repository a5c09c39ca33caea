"""Fixed polynomial operators applied as matrices, counted as the recurrence they replace.

Chebyshev polynomials of ``W`` (``W' = P_W(W)``), of ``CᵀC`` and of the outer normal operators
are linear and fixed during a run, so they may be applied as one matrix product instead of
``degree`` recurrence steps; every application still adds to the oracles exactly the counts one
recurrence application made (measured once on a scratch oracle).  Whether that is *faster*
depends on the sizes: a dense ``n × n`` ``P_W(W)`` costs ``n²`` multiply-adds per column, the
recurrence ``degree · (nnz(W) + vector passes)`` plus a fixed Python cost per step.
:func:`operator_matrix` is the one operator-to-dense step (the operator on the unit vectors), also used by the
dense spectra (:mod:`mixbounds.solvers.reformulation.exact`) and the PEP models (:mod:`mixbounds.checks.pep.model`).
:func:`nodes_dense_is_cheaper` decides by that cost model (no timing, so the choice and hence the
rounding of every run is reproducible); ``Reformulation`` materialises ``W'`` only when it says so.
The counts are identical either way (``tests/test_reformulations.py``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, NamedTuple

import numpy as np
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.bounds.spectra_memo import Unkeyable, content_key
from mixbounds.instances.kron_identity import KronIdentity
from mixbounds.solvers.oracles import CountedOracles, spmv
from scipy.sparse.csgraph import connected_components

#: vector passes of one Chebyshev step besides the product (p update, v update, residual: 2 axpy + scale)
CHEB_VECTOR_PASSES = 4
#: fixed cost of one recurrence step (Python calls, dispatch, counting) in multiply-add equivalents:
#: ~10 µs per step at ~1 ns per multiply-add of a memory-bound dense product
STEP_OVERHEAD_MADDS = 10_000


def nodes_dense_is_cheaper(n: int, nnz_W: int, degree: int, cols: int) -> bool:
    """Is the dense ``n × n`` ``P_W(W)`` cheaper than its recurrence on ``(n, cols)`` node states?

    Dense: ``n² · cols`` multiply-adds.  Recurrence: ``degree`` steps of
    ``nnz(W) · cols + CHEB_VECTOR_PASSES · n · cols + STEP_OVERHEAD_MADDS``.
    """
    cols = max(int(cols), 1)
    dense = float(n) * n * cols
    recurrence = degree * (float(nnz_W) * cols + CHEB_VECTOR_PASSES * n * cols + STEP_OVERHEAD_MADDS)
    return dense < recurrence


#: operators on at most this many unknowns are materialised (see :class:`MaterializedDense`)
MATERIALIZE_LIMIT = 400
#: gossip polynomials P_W(W) (n × n) are materialised up to this many nodes
MATERIALIZE_NODES = 2000


#: bytes of materialised dense operators kept per process (:func:`_dense_memo_put`; a 400 × 400 operator is 1.3 MB)
DENSE_MEMO_BYTES = 64 * 2 ** 20

_DENSE_MEMO: OrderedDict = OrderedDict()
_DENSE_MEMO_LOCK = threading.Lock()


def _memo_key(key: tuple | None, shape: tuple) -> str | None:
    """The content key of a materialisation (``None``: no key given, or a part the key cannot describe)."""
    if key is None:
        return None
    try:
        return content_key("MaterializedDense", (key, tuple(shape)), {})
    except Unkeyable:
        return None


def _dense_memo_get(memo: str | None):
    """The stored ``(M, per_apply)`` of a materialisation key, or ``None``."""
    if memo is None:
        return None
    with _DENSE_MEMO_LOCK:
        stored = _DENSE_MEMO.get(memo)
        if stored is not None:
            _DENSE_MEMO.move_to_end(memo)
        return stored


def _dense_memo_put(memo: str | None, value: tuple) -> None:
    """Keep ``(M, per_apply)`` under its key, dropping the least recently used beyond :data:`DENSE_MEMO_BYTES`."""
    if memo is None or value[0].nbytes > DENSE_MEMO_BYTES:
        return
    with _DENSE_MEMO_LOCK:
        _DENSE_MEMO[memo] = value
        while sum(v[0].nbytes for v in _DENSE_MEMO.values()) > DENSE_MEMO_BYTES:
            _DENSE_MEMO.popitem(last=False)


def clear_memo() -> None:
    """Forget every kept materialised operator of this process."""
    with _DENSE_MEMO_LOCK:
        _DENSE_MEMO.clear()


def operator_matrix(op: Callable, shape: tuple | int) -> np.ndarray:
    """The dense matrix of the linear operator ``op``: column ``j`` is ``op`` applied to the ``j``-th unit vector.

    Parameters
    ----------
    op : callable
        A linear operator on arrays of ``shape`` (returning an array of as many entries); each call gets a fresh unit
        vector, so an operator that writes into its argument changes no other column.
    shape : tuple or int
        The shape of the arrays ``op`` acts on (an int: flat vectors of that length).

    Returns
    -------
    numpy.ndarray
        The ``(size, size)`` matrix, ``size`` the number of entries of ``shape``, in the row-major order of
        ``ravel``.
    """
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    size = int(np.prod(shape))
    M = np.empty((size, size))
    for j in range(size):
        e = np.zeros(size)
        e[j] = 1.0
        M[:, j] = np.asarray(op(e.reshape(shape)), dtype=float).ravel()
    return M


def _reproduces(stored: tuple, op_scratch: Callable, scratch: CountedOracles, shape: tuple) -> bool:
    """Does the recurrence give, on the first and last unit vectors, the stored columns bit for bit and the stored
    counts?  A guard against a key that misses something the operator depends on (cost: 2 of ``size`` columns)."""
    M, per_apply = stored
    size = int(np.prod(shape))
    if M.shape != (size, size):
        return False
    for j in sorted({0, size - 1}):
        probe = np.zeros(size)
        probe[j] = 1.0
        before = scratch.snapshot()
        col = np.asarray(op_scratch(probe.reshape(shape))).ravel()
        after = scratch.snapshot()
        counts = {k: after[k] - before[k] for k in after if after[k] != before[k]}
        if counts != per_apply or not np.array_equal(col, M[:, j]):
            return False
    return True


class MaterializedDense:
    """A fixed linear operator applied as one matrix product, counted as its recurrence.

    Nested Chebyshev polynomials cost thousands of tiny oracle calls per APAPC
    iteration, whose Python overhead (not arithmetic) dominated small instances.  A
    polynomial operator is linear and fixed, so it is built once — by applying the
    *same counted recurrence* to the unit vectors on a scratch oracle whose counts are
    discarded — and each later application adds to the real oracles exactly the counts
    one recurrence application made (measured on the scratch oracle, not computed from
    degrees).  Counts are therefore identical by construction and values agree to
    rounding (``tests/test_reformulations.py`` compares whole runs both ways).
    """

    def __init__(self, op_scratch: Callable, scratch: CountedOracles, main: CountedOracles, shape: tuple, *,
                 key: tuple | None = None):
        self.shape, self.main = shape, main
        memo = _memo_key(key, shape)
        stored = _dense_memo_get(memo)
        if stored is not None and _reproduces(stored, op_scratch, scratch, shape):
            self.M, self.per_apply = stored[0], dict(stored[1])
            return
        before, first = scratch.snapshot(), []

        def counted_once(v: np.ndarray) -> np.ndarray:  # the counts of one application, read on the first column
            out = op_scratch(v)
            if not first:
                after = scratch.snapshot()
                first.append({k: after[k] - before[k] for k in after if after[k] != before[k]})
            return out

        M = operator_matrix(counted_once, shape)
        self.per_apply = first[0]
        M.flags.writeable = False  # shared through the memo: nobody may change it
        self.M = M
        _dense_memo_put(memo, (M, dict(self.per_apply)))

    def __call__(self, v: np.ndarray) -> np.ndarray:
        for k, c in self.per_apply.items():
            self.main.counts[k] += c
        return (self.M @ np.asarray(v, dtype=float).reshape(-1)).reshape(np.shape(v))


class MaterializedNodes:
    """``P_W(W)`` as an ``n × n`` matrix acting along the node axis (counted as its recurrence)."""

    def __init__(self, op_scratch: Callable, scratch: CountedOracles, main: CountedOracles, n: int):
        before = scratch.snapshot()
        self.M = np.asarray(op_scratch(np.eye(n)))  # one polynomial evaluation on the identity
        after = scratch.snapshot()
        self.per_apply = {k: after[k] - before[k] for k in after if after[k] != before[k]}
        self.main = main

    def __call__(self, Y: np.ndarray) -> np.ndarray:
        for k, c in self.per_apply.items():
            self.main.counts[k] += c
        return self.M @ Y


#: a sparse polynomial P(M) of an inner operator (``C'``, ``C̃'``) too large to materialise densely
#: is materialised as a sparse matrix when it has at most this many stored entries per row of M …
#: (128, not 64: at the full tier's κ_C = 3000 the printed C&L construction has a path W_C of 84 nodes, so
#: P_C(CᵀC) = P_C(W_C) ⊗ I has 84 entries per row; with 64 the run fell back to the recurrence, 2⌈√κ_C⌉ products
#: by the dense √W_C blocks per application (2.2·10⁶ entries per node): 37 iterations in 13 min, ~21 s each;
#: materialised, the whole point (build, exact solution, 207 iterations) took 454 s; the counts are the recurrence's)
SPARSE_FILL_PER_ROW = 128
#: … and a probe vector agrees with the recurrence to this relative distance (else: the recurrence)
SPARSE_CHECK_RTOL = 1e-9


def sparse_is_cheaper(nnz_P: int, products: int, factor_nnz: int, size: int) -> bool:
    """Is one product by the sparse ``P(BᵀB)`` (``nnz_P`` multiply-adds) cheaper than the recurrence it replaces?

    The recurrence makes ``products`` products by ``B`` or ``Bᵀ`` (``factor_nnz`` multiply-adds each), two per
    Chebyshev step, and each step costs ``CHEB_VECTOR_PASSES`` passes over ``size`` entries plus
    ``STEP_OVERHEAD_MADDS``.  (A Gaussian ``C_i`` with few rows has a dense ``C_iᵀC_i``: its ``P`` has ``d`` entries per
    row against the ``2p`` of a ``C`` and ``Cᵀ`` product, and materialising it made a loop several times slower.)
    """
    steps = max(products // 2, 1)
    recurrence = float(products) * factor_nnz + steps * (CHEB_VECTOR_PASSES * size + STEP_OVERHEAD_MADDS)
    return float(nnz_P) < recurrence


class RecurrenceProbe(NamedTuple):
    """One application of a recurrence to a fixed random probe on the scratch oracle: what a materialised replacement
    must reproduce (``result``) and the counts each of its applications adds (``per_apply``).  Made once per
    operator and shared by the candidate forms (:meth:`of`)."""

    probe: np.ndarray
    result: np.ndarray
    per_apply: dict

    @classmethod
    def of(cls, op_scratch: Callable, scratch: CountedOracles, shape: tuple) -> "RecurrenceProbe":
        probe = np.random.default_rng(0).standard_normal(int(np.prod(shape)))
        before = scratch.snapshot()
        result = np.asarray(op_scratch(probe.reshape(shape))).ravel()
        after = scratch.snapshot()
        return cls(probe, result, {k: after[k] - before[k] for k in after if after[k] != before[k]})

    def reproduced_by(self, got: np.ndarray) -> bool:
        """Does a materialised product of :attr:`probe` give :attr:`result` to :data:`SPARSE_CHECK_RTOL`?"""
        ref = self.result
        return bool(np.linalg.norm(got - ref) <= SPARSE_CHECK_RTOL * max(np.linalg.norm(ref), SCALE_FLOOR))


class MaterializedSparse:
    """``P(M)`` of an inner operator as one sparse matrix, counted as its recurrence.

    For ``C' = P_C(CᵀC)`` and ``C̃' = P(C̃ᵀC̃)`` above :data:`MATERIALIZE_LIMIT` unknowns:
    the matrix comes from :meth:`mixbounds.solvers.chebyshev.Chebyshev.sparse_P` on ``CᵀC`` (the same
    recurrence on sparse matrices); the counts per application are those of one recurrence
    application measured on the scratch oracle, and that application's result on a random
    probe must agree with the matrix to :data:`SPARSE_CHECK_RTOL` (:meth:`build` returns
    ``None`` otherwise, and when the fill-in exceeds :data:`SPARSE_FILL_PER_ROW`).  On the
    coupled + local worst case (``C_i = diag(√W_C ⊗ I, √W_C ⊗ I)``, ``P(CᵀC)`` keeps the
    pattern of ``CᵀC``) a ``C'`` application becomes one product instead of ``2⌈√κ_C⌉``.
    """

    def __init__(self, P, per_apply: dict, main: CountedOracles, shape: tuple):
        self.P, self.per_apply, self.main, self.shape = P, per_apply, main, shape

    @classmethod
    def build(cls, cheb, M, probe: RecurrenceProbe, main: CountedOracles, shape: tuple, factor_nnz: int):
        """The materialised ``P(M)``, or ``None`` when it is not cheaper than the recurrence, too dense, or does not
        reproduce it (``probe``: one application of the recurrence).  ``factor_nnz``: stored entries of the factor
        ``B`` (``M = BᵀB``) whose products the recurrence counts (:func:`sparse_is_cheaper`)."""
        size = int(np.prod(shape))
        per_apply = probe.per_apply
        products = sum(per_apply.values())
        if not sparse_is_cheaper(M.nnz, products, factor_nnz, size):  # P(M) has at least the pattern of M
            return None
        P = cheb.sparse_P(M, SPARSE_FILL_PER_ROW * size)
        if P is None or not sparse_is_cheaper(P.nnz, products, factor_nnz, size):
            return None
        if not probe.reproduced_by(spmv(P, probe.probe)):
            return None
        return cls(P, per_apply, main, shape)

    def __call__(self, v: np.ndarray) -> np.ndarray:
        for k, c in self.per_apply.items():
            self.main.counts[k] += c
        return spmv(self.P, np.asarray(v, dtype=float).reshape(-1)).reshape(np.shape(v))




#: bytes of the dense diagonal blocks :class:`MaterializedBlocks` may hold (six blocks of 156 at the full tier's
#: κ_C = 10⁴ are 1.2 MB)
BLOCKS_BYTES = 256 * 2 ** 20
#: how many multiply-adds of the batched dense product (BLAS) cost as much as one of the sparse product by
#: ``P(G) ⊗ I_K`` (scipy's ``csr_matvecs``).  Measured 9× on the C&L constructions (``P(G)`` of 288 rows, 43 entries
#: per row, K = 212: 780 µs sparse, 86 µs as six 48×48 blocks; 504 rows, 84 per row, K = 60: 852 against 99 µs);
#: 4 keeps the choice on the safe side of machines whose BLAS is slower
BLAS_MADD_ADVANTAGE = 4.0
#: multiply-adds the dense recurrence that builds the blocks may cost (``blocks · degree · s³``; a few seconds): past
#: it the blocks are not built (at the full tier's κ_C = 10⁴: 6 · 99 · 156³ = 2.3·10⁹)
BLOCKS_BUILD_MADDS = 2.0e10


def equal_diagonal_blocks(M) -> int | None:
    """The size ``s`` of the diagonal blocks of a square sparse ``M`` that is block diagonal with equal, contiguous
    blocks (each its own connected component, in order), or ``None`` (one block, unequal or interleaved blocks)."""
    n = M.shape[0]
    if M.shape[1] != n or n == 0:
        return None
    count, labels = connected_components(M, directed=False)
    if count < 2 or n % count:
        return None
    s = n // count
    return s if np.array_equal(labels, np.repeat(np.arange(count), s)) else None


class MaterializedBlocks:
    """``P(M)`` of an inner operator ``M = G ⊗ I_K`` whose ``G`` is block diagonal, as one dense matrix per diagonal
    block of ``P(G)`` (counted as its recurrence).

    Where the sparse ``P(G)`` fills past :data:`SPARSE_FILL_PER_ROW` (a polynomial of degree ``⌈√κ_C⌉`` of a path is
    dense on a block shorter than its degree's reach), :class:`MaterializedSparse` gives way to the recurrence: at
    the full tier's κ_C = 10⁴ on the coupled + local and mixed constructions (``C`` a ``(930·212) × (936·212)``
    ``S ⊗ I_K``, ``G = SᵀS`` six path blocks of 156), 200 products by ``C`` or ``Cᵀ`` per application of ``C'``.
    ``P(G)`` is block diagonal with ``G`` (a polynomial of a block-diagonal matrix), so one application is one
    batched product of the ``(blocks, s, s)`` stack with ``x`` viewed as ``(blocks, s, K)``.  It is used when
    :func:`sparse_is_cheaper` says the ``blocks·s²·K`` multiply-adds cost less than the recurrence, also in place of
    a sparse ``P(M)`` whose product costs more (:data:`BLAS_MADD_ADVANTAGE`), and only when its product reproduces
    the recurrence on a probe to :data:`SPARSE_CHECK_RTOL` (the same guard as the sparse form); the counts per
    application are those of one recurrence application measured on the scratch oracle.
    """

    def __init__(self, blocks: np.ndarray, K: int, per_apply: dict, main: CountedOracles, shape: tuple):
        self.blocks, self.K, self.per_apply, self.main, self.shape = blocks, K, per_apply, main, shape

    @classmethod
    def build(cls, cheb, M, probe: RecurrenceProbe, main: CountedOracles, shape: tuple, factor_nnz: int,
              rival_nnz: int | None = None):
        """The materialised ``P(M)``, or ``None`` when ``M`` is not ``G ⊗ I_K`` with equal diagonal blocks of ``G``,
        the blocks would exceed :data:`BLOCKS_BYTES` or cost more than :data:`BLOCKS_BUILD_MADDS` to build, the product is not cheaper than the recurrence (nor, given the
        stored entries ``rival_nnz`` of the sparse ``P(M)``, than the sparse product: :data:`BLAS_MADD_ADVANTAGE`),
        or it does not reproduce the recurrence (``probe``: one application of it)."""
        if not isinstance(M, KronIdentity):
            return None
        s = equal_diagonal_blocks(M.S)
        if s is None:
            return None
        count = M.S.shape[0] // s
        if count * s * s * 8 > BLOCKS_BYTES or float(count) * cheb.degree * s ** 3 > BLOCKS_BUILD_MADDS:
            return None
        if rival_nnz is not None and count * s * s * M.K >= BLAS_MADD_ADVANTAGE * rival_nnz:
            return None
        if not sparse_is_cheaper(count * s * s * M.K, sum(probe.per_apply.values()), factor_nnz, int(np.prod(shape))):
            return None
        G = M.S
        blocks = np.stack([cheb.dense_P(G[b * s:(b + 1) * s, b * s:(b + 1) * s].toarray()) for b in range(count)])
        made = cls(blocks, M.K, probe.per_apply, main, shape)
        return made if probe.reproduced_by(made.product(probe.probe)) else None

    def product(self, v: np.ndarray) -> np.ndarray:
        """``(P(G) ⊗ I_K) v`` for a flat ``v`` (no counting)."""
        count, s, _ = self.blocks.shape
        return np.matmul(self.blocks, np.asarray(v, dtype=float).reshape(count, s, self.K)).reshape(-1)

    def __call__(self, v: np.ndarray) -> np.ndarray:
        for k, c in self.per_apply.items():
            self.main.counts[k] += c
        return self.product(v).reshape(np.shape(v))
