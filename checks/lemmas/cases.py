"""Matrices for the lemma checks of :mod:`mixbounds.checks.lemmas`: seeded cases and dense spectral helpers.

A *case* is a JSON-able dict (so a :class:`mixbounds.checks.run.framework.Task` can carry it);
:func:`materialize` turns it into the matrices of problem (P):

``{"source": "raw", "seed": s, ...}``
    Gaussian blocks drawn here (sizes, ranks, zero nodes, scales all in the spec;
    see :func:`_raw`).  Singular values of every random block are set in
    ``[1, √cond]`` (times ``scale``), so that no positive singular value comes near
    the relative zero threshold ``mixbounds.bounds.spectral.ZERO_RTOL`` by accident, while
    rank deficiency is exact (a product of thin factors).
``{"source": "family", "family": "random-coupled-local", "seed": s, "kw": {...}}``
    a seeded family of :mod:`mixbounds.instances.random` (its matrices, optionally rescaled
    by ``scale_A``, ``scale_C``, ``scale_Ct``, ``scale_W``).
``{"source": "worst", "family": "coupled", "kw": {...}}``
    a worst-case construction of :mod:`mixbounds.instances.worst_case` (small ``chain``).
``{"source": "explicit", "W": [[…]], "A": [[[…]], …], "C": …, "Ct": …}``
    matrices given as JSON lists (what an adversarial search reports; :func:`_explicit`).

Random streams are ``default_rng([seed, crc32(stream)])``: one per component.

The spectral helpers are *dense* (``numpy.linalg.eigvalsh``) and independent of
``mixbounds.bounds.spectral`` except for the shared relative zero threshold, so the lemma
checks do not just re-run the code they check against.  Each returns the gap
between the largest eigenvalue counted as zero and the smallest counted as
positive, so a point whose split is ambiguous is flagged, not silently used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.concepts import Matrix
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.bounds.spectral import ZERO_RTOL
from mixbounds.instances import graphs as g
from mixbounds.instances.families import build
from mixbounds.instances.random import make_gossip
from mixbounds.instances.random.common import seeded_rng  # one seeding rule for every seeded case

#: a split is *clear* when the largest "zero" eigenvalue is below CLEAR_ZERO·λ_max and the smallest
#: positive one above CLEAR_POS·λ_max: rounding puts true zeros near 1e-16·λ_max, and every case
#: keeps its condition numbers below 1e8, so 1e-12 and 1e-8.5 leave orders of magnitude on both sides
#: of ZERO_RTOL = 1e-9.
CLEAR_ZERO = 1e-12
CLEAR_POS = 10 ** -8.5


# ----------------------------------------------------------------------------- dense spectra
def _dense(M) -> np.ndarray:
    return M.toarray() if sp.issparse(M) else np.asarray(M, dtype=float)


def psd_spectrum(G, *, ref: float | None = None) -> dict:
    """Eigenvalues of a symmetric PSD matrix, split at ``ZERO_RTOL · ref`` (``ref`` = λ_max by default).

    Returns ``lmax``, ``lmin_pos`` (0.0 if none), ``rank``, ``max_zero`` (largest eigenvalue
    counted as zero, relative to ``ref``), ``clear`` (the split is unambiguous, see
    :data:`CLEAR_ZERO`), and the sorted eigenvalues ``ev``.
    """
    Gd = _dense(G)
    if Gd.shape[0] == 0:
        return {"lmax": 0.0, "lmin_pos": 0.0, "rank": 0, "max_zero": 0.0, "clear": True, "ev": np.zeros(0)}
    ev = np.linalg.eigvalsh(0.5 * (Gd + Gd.T))
    lmax = float(max(ev[-1], 0.0))
    r = lmax if ref is None else float(ref)
    if r <= 0:
        return {"lmax": lmax, "lmin_pos": 0.0, "rank": 0, "max_zero": 0.0, "clear": True, "ev": ev}
    thr = ZERO_RTOL * r
    pos = ev[ev > thr]
    zero = ev[ev <= thr]
    lmin = float(pos.min()) if pos.size else 0.0
    max_zero = float(np.max(np.abs(zero))) / r if zero.size else 0.0
    clear = bool(max_zero <= CLEAR_ZERO and (lmin == 0.0 or lmin >= CLEAR_POS * r))
    return {"lmax": lmax, "lmin_pos": lmin, "rank": int(pos.size), "max_zero": max_zero, "clear": clear, "ev": ev}


def sv2(M, *, ref: float | None = None) -> dict:
    """``σ_max²`` (``lmax``) and ``σ_min+²`` (``lmin_pos``) of ``M`` from the smaller dense Gram matrix."""
    Md = _dense(M)
    if min(Md.shape) == 0:
        return {"lmax": 0.0, "lmin_pos": 0.0, "rank": 0, "max_zero": 0.0, "clear": True, "ev": np.zeros(0)}
    G = Md @ Md.T if Md.shape[0] <= Md.shape[1] else Md.T @ Md
    return psd_spectrum(G, ref=ref)


def group_extremes(blocks) -> tuple[float, float]:
    """``L = max_i σ_max²(B_i)`` and ``μ = min_i σ_min+²(B_i)`` over the nonzero blocks (eq:mat_Lmu)."""
    L, mu = 0.0, float("inf")
    for B in blocks:
        Bd = _dense(B)
        if Bd.size == 0 or not np.any(Bd):
            continue
        s = sv2(Bd)
        L = max(L, s["lmax"])
        if s["lmin_pos"] > 0:
            mu = min(mu, s["lmin_pos"])
    return L, (0.0 if mu == float("inf") else mu)


def gossip_extremes(W) -> dict:
    """``λ_max(W)``, ``λ_min+(W)``, ``κ_W``; ``L_W = σ_max²(W) = λ_max²`` and ``μ_W = σ_min+²(W) = λ_min+²``
    (W symmetric PSD, so its singular values are its eigenvalues)."""
    s = psd_spectrum(W)
    lmax, lmin = s["lmax"], s["lmin_pos"]
    return {"lmax": lmax, "lmin_pos": lmin, "kappa_W": lmax / lmin, "L_W": lmax ** 2, "mu_W": lmin ** 2, "clear": s["clear"]}


def interaction_min_pos(blocks, *, transpose: bool = False, ref: float | None = None) -> tuple[float, float]:
    """``λ_max`` and ``λ_min+`` of ``S_B = (1/n) Σ B_i B_iᵀ`` (or ``Σ B_iᵀ B_i / n``), dense."""
    n = len(blocks)
    S = sum((_dense(B).T @ _dense(B)) if transpose else (_dense(B) @ _dense(B).T) for B in blocks) / n
    s = psd_spectrum(S, ref=ref)
    return s["lmax"], s["lmin_pos"]


def orth_kernel(M, *, ref: float | None = None) -> np.ndarray:
    """Orthonormal basis of ``ker M`` (dense SVD, zero threshold ``ZERO_RTOL`` on σ² relative to ``ref``)."""
    Md = _dense(M)
    d = Md.shape[1]
    if Md.shape[0] == 0 or not np.any(Md):
        return np.eye(d)
    _, s, Vt = np.linalg.svd(Md, full_matrices=True)
    r = (s[0] ** 2) if ref is None else ref
    rank = int(np.sum(s ** 2 > ZERO_RTOL * r))
    return Vt[rank:].T


def orth_range(M, *, ref: float | None = None) -> np.ndarray:
    """Orthonormal basis of ``range M``."""
    Md = _dense(M)
    if Md.size == 0 or not np.any(Md):
        return np.zeros((Md.shape[0], 0))
    U, s, _ = np.linalg.svd(Md, full_matrices=False)
    r = (s[0] ** 2) if ref is None else ref
    rank = int(np.sum(s ** 2 > ZERO_RTOL * r))
    return U[:, :rank]


def ones_complement(N: int) -> np.ndarray:
    """Orthonormal basis (N × (N−1)) of ``{y ∈ R^N : ⟨y, 1⟩ = 0}``."""
    if N <= 1:
        return np.zeros((N, 0))
    Qm, _ = np.linalg.qr(np.eye(N) - np.full((N, N), 1.0 / N))
    return Qm[:, : N - 1]


def consensus_complement(n: int, m: int) -> np.ndarray:
    """Orthonormal basis of ``L_m^⊥ = {(y_1 … y_n) : Σ_i y_i = 0}`` (eq:Lperp), as ``V ⊗ I_m``."""
    return np.kron(ones_complement(n), np.eye(m))


def subspace_equal(U: np.ndarray, V: np.ndarray, *, tol: float = 1e-8) -> tuple[bool, float]:
    """Whether orthonormal bases ``U`` and ``V`` span the same subspace; also ``sin`` of the largest
    principal angle, computed as ``‖(I − UUᵀ)V‖₂`` (accurate for small angles, unlike ``√(1 − cos²)``)."""
    if U.shape[1] != V.shape[1]:
        return False, 1.0
    if U.shape[1] == 0:
        return True, 0.0
    sin_max = float(np.linalg.norm(V - U @ (U.T @ V), 2))
    return bool(sin_max <= tol), sin_max


def intersection(U: np.ndarray, V: np.ndarray, *, tol: float = 1e-7) -> np.ndarray:
    """Orthonormal basis of ``range U ∩ range V`` (orthonormal inputs): ``x = Ua = Vb`` for the right
    singular vectors of ``[U, −V]`` with singular value ``<= tol`` (principal angle ``<~ √2·tol``)."""
    if U.shape[1] == 0 or V.shape[1] == 0:
        return np.zeros((U.shape[0], 0))
    k = U.shape[1]
    _, s, Vt = np.linalg.svd(np.hstack([U, -V]))
    s_full = np.zeros(Vt.shape[0])
    s_full[: s.size] = s
    null = Vt[s_full <= tol].T
    if null.shape[1] == 0:
        return np.zeros((U.shape[0], 0))
    X = U @ null[:k]
    Qx, R = np.linalg.qr(X)
    return Qx[:, np.abs(np.diag(R)) > 1e-10]


# ----------------------------------------------------------------------------- random pieces


def _orth(rng, k: int, r: int) -> np.ndarray:
    Qm, R = np.linalg.qr(rng.standard_normal((k, r)))
    return Qm * np.sign(np.where(np.diag(R) == 0, 1.0, np.diag(R)))


def random_block(rng, rows: int, cols: int, *, rank: int | None = None, cond: float = 10.0, scale: float = 1.0) -> np.ndarray:
    """``rows × cols`` block of exact rank ``rank`` with squared singular values in ``[1, cond]·scale²``
    (both ends attained when rank >= 2)."""
    r = min(rows, cols) if rank is None else int(min(rank, rows, cols))
    if r <= 0:
        return np.zeros((rows, cols))
    s2 = np.exp(rng.uniform(0.0, np.log(cond), r)) if cond > 1 else np.ones(r)
    s2[0] = 1.0
    if r >= 2:
        s2[1] = cond
    U, V = _orth(rng, rows, r), _orth(rng, cols, r)
    return scale * (U * np.sqrt(s2)) @ V.T


def random_spd(rng, k: int, kappa: float, *, scale: float = 1.0) -> np.ndarray:
    """Symmetric ``k × k`` with spectrum in ``[1, κ]·scale`` (both ends attained for k >= 2)."""
    ev = np.exp(rng.uniform(0.0, np.log(kappa), k)) if kappa > 1 else np.ones(k)
    ev[0] = 1.0
    if k >= 2:
        ev[1] = kappa
    U = _orth(rng, k, k)
    Q = scale * (U * ev) @ U.T
    return 0.5 * (Q + Q.T)


def gossip_matrix(rng, n: int, graph: str, weights: str, *, seed: int = 0) -> sp.csr_matrix:
    """Laplacian of a connected graph (``path``, ``ring``, ``star``, ``complete``, ``er``, ``grid``) with
    unit, random (uniform in [0.2, 1]) or Metropolis weights."""
    if graph == "path":
        adj = g.path_adjacency(n)
    elif graph == "ring":
        adj = g.ring_adjacency(n)
    elif graph == "star":
        adj = g.star_adjacency(n)
    elif graph == "complete":
        adj = g.complete_adjacency(n)
    elif graph == "er":
        adj = g.erdos_renyi_adjacency(n, min(1.0, 2.5 * np.log(n) / n), seed)
    elif graph == "grid":
        rows = max(r for r in range(1, int(np.sqrt(n)) + 1) if n % r == 0)
        adj = g.grid_adjacency(rows, n // rows)
    else:
        raise ValueError(f"lemma cases: unknown graph {graph!r}")
    if weights == "metropolis":
        return sp.csr_matrix(g.metropolis(adj))
    A = sp.triu(sp.csr_matrix(adj, dtype=float), k=1).tocoo()
    w = np.ones(A.nnz) if weights == "unit" else rng.uniform(0.2, 1.0, A.nnz)
    Wt = sp.csr_matrix((w, (A.row, A.col)), shape=adj.shape)
    Wt = Wt + Wt.T
    return sp.csr_matrix(sp.diags(np.asarray(Wt.sum(axis=1)).ravel()) - Wt)


# ----------------------------------------------------------------------------- materialized case
@dataclass
class Mats:
    """The matrices of one case (dense blocks; ``W`` sparse).

    ``A``: list of ``m × d_i``; ``C``: list of ``p_i × d_i``; ``Ct``: list of ``p̃_i × d̃``;
    ``Q``: list of ``(d_i + d̃) × (d_i + d̃)`` Hessians of ``f_i`` on ``z_i = (x_i, x̃_i)``.
    Absent groups are ``None``.
    """

    W: sp.csr_matrix
    n: int
    d: list
    dt: int
    m: int
    A: list | None = None
    C: list | None = None
    Ct: list | None = None
    Q: list | None = None
    label: str = ""
    info: dict = field(default_factory=dict)


def _scaled(blocks, s: float):
    return None if blocks is None else [s * B for B in blocks]


def _raw(spec: dict) -> Mats:
    """Raw Gaussian case.  Keys (defaults): ``seed``; ``n`` (6); ``graph`` ("ring"); ``weights``
    ("random"); ``kappa_W`` (optional: tuned by :func:`mixbounds.instances.random.make_gossip`, weights ignored); ``m`` (3); ``d`` (5, or a list per node); ``p`` (0: no C); ``dt`` (0); ``pt`` (0: no C̃);
    ``rank_A`` / ``rank_C`` / ``rank_Ct`` (full); ``zero_A`` (number of nodes with A_i = 0);
    ``mu0`` (A_i = R_i C_i, so μ̃_AC = 0); ``ident_Ct`` (identical C̃); ``cond`` (10);
    ``kappa_f`` (10); ``scale_A``, ``scale_C``, ``scale_Ct``, ``scale_W``, ``scale_f`` (1); ``node_spread``
    (True: each non-identical block is multiplied by its own factor in [1/2, 2]).
    """
    seed = int(spec["seed"])
    n = int(spec.get("n", 6))
    m = int(spec.get("m", 3))
    d = spec.get("d", 5)
    d = [int(d)] * n if isinstance(d, (int, np.integer)) else [int(v) for v in d]
    dt, p, pt = int(spec.get("dt", 0)), int(spec.get("p", 0)), int(spec.get("pt", 0))
    cond = float(spec.get("cond", 10.0))
    if spec.get("kappa_W") is not None:  # a tuned gossip matrix (mixbounds.instances.random: Fiedler-cut weakening / tuned path)
        W = make_gossip(spec.get("graph", "ring"), n, default_n=n, kappa_W=float(spec["kappa_W"]), seed=seed).W
    else:
        W = gossip_matrix(seeded_rng(seed, "graph"), n, spec.get("graph", "ring"), spec.get("weights", "random"), seed=seed)
    W = float(spec.get("scale_W", 1.0)) * W
    spread = seeded_rng(seed, "node-spread")

    def node_factor() -> float:
        # per-node factor in [1/2, 2]: the blocks' extreme singular values differ between nodes
        return float(np.exp(spread.uniform(np.log(0.5), np.log(2.0)))) if spec.get("node_spread", True) else 1.0

    C = None
    if p > 0:
        rc = seeded_rng(seed, Matrix.C)
        C = [random_block(rc, p, d[i], rank=spec.get("rank_C"), cond=cond, scale=float(spec.get("scale_C", 1.0)) * node_factor())
             for i in range(n)]
    A = None
    if m > 0 and spec.get("has_A", True):
        ra = seeded_rng(seed, Matrix.A)
        zero = set(range(n - int(spec.get("zero_A", 0)), n))
        sA = float(spec.get("scale_A", 1.0))
        A = []
        for i in range(n):
            if i in zero:
                A.append(np.zeros((m, d[i])))
            elif spec.get("mu0") and C is not None:
                R = random_block(ra, m, p, cond=cond)
                Ai = R @ C[i]
                A.append(sA * node_factor() * Ai / max(np.linalg.norm(Ai, 2), SCALE_FLOOR))
            else:
                A.append(random_block(ra, m, d[i], rank=spec.get("rank_A"), cond=cond, scale=sA * node_factor()))
    Ct = None
    if pt > 0 and dt > 0:
        rt = seeded_rng(seed, Matrix.CT)
        sC = float(spec.get("scale_Ct", 1.0))
        if spec.get("ident_Ct"):
            C0 = random_block(rt, pt, dt, rank=spec.get("rank_Ct"), cond=cond, scale=sC)
            Ct = [C0] * n
        else:
            Ct = [random_block(rt, pt, dt, rank=spec.get("rank_Ct"), cond=cond, scale=sC * node_factor()) for _ in range(n)]
    Q = None
    if spec.get("objective", True):
        rq = seeded_rng(seed, "objective")
        kf = float(spec.get("kappa_f", 10.0))
        Q = [random_spd(rq, d[i] + dt, kf, scale=float(spec.get("scale_f", 1.0))) for i in range(n)]
    label = "raw(" + ", ".join(f"{k}={v}" for k, v in sorted(spec.items()) if k != "source") + ")"
    return Mats(W=sp.csr_matrix(W), n=n, d=d, dt=dt, m=m if A is not None else 0, A=A, C=C, Ct=Ct, Q=Q, label=label)


def _from_problem(P, label: str, spec: dict, info: dict | None = None) -> Mats:
    lay = P.layout
    A = None if P.A is None else [B.toarray() for B in P.A]
    C = None if P.C is None else [B.toarray() for B in P.C]
    Ct = None if P.Ct is None else [B.toarray() for B in P.Ct]
    Q = [B.toarray() for B in P.objective.Q_blocks] if hasattr(P.objective, "Q_blocks") else None
    M = Mats(W=sp.csr_matrix(P.W) * float(spec.get("scale_W", 1.0)), n=P.n, d=list(lay.d), dt=lay.dt, m=P.m,
             A=_scaled(A, float(spec.get("scale_A", 1.0))), C=_scaled(C, float(spec.get("scale_C", 1.0))),
             Ct=_scaled(Ct, float(spec.get("scale_Ct", 1.0))), Q=_scaled(Q, float(spec.get("scale_f", 1.0))),
             label=label, info=dict(info or {}))
    return M


def materialize(spec: dict) -> Mats:
    """Matrices of a case spec (module docstring)."""
    src = spec.get("source", "raw")
    if src == "raw":
        return _raw(spec)
    if src == "family":
        I = build(spec["family"], seed=int(spec.get("seed", 0)), **spec.get("kw", {}))
        return _from_problem(I.problem, f"{spec['family']}(seed={spec.get('seed', 0)}, {spec.get('kw', {})})", spec,
                             {"realized": I.realized})
    if src == "worst":
        I = build(spec["family"], **spec.get("kw", {}))
        return _from_problem(I.problem, f"worst-case {spec['family']}({spec.get('kw', {})})", spec,
                             {"realized": I.realized, "variant": I.variant})
    if src == "explicit":
        return _explicit(spec)
    raise ValueError(f"lemma cases: unknown source {src!r}")


def _explicit(spec: dict) -> Mats:
    """A case given by its matrices (JSON lists): ``W`` (n × n) and the blocks ``A``, ``C``, ``Ct`` present (each a list
    of n matrices).  The form in which the adversarial searches (:mod:`checks.lemmas.adversarial`) report the worst
    matrices they find, so that a counterexample can be loaded and re-checked."""
    W = np.asarray(spec["W"], dtype=float)
    n = W.shape[0]
    blocks = {k: None if spec.get(k) is None else [np.atleast_2d(np.asarray(b, dtype=float)) for b in spec[k]]
              for k in (Matrix.A, Matrix.C, Matrix.CT)}
    for k, bl in blocks.items():
        if bl is not None and len(bl) != n:
            raise ValueError(f"lemma cases: explicit {k} has {len(bl)} blocks for {n} nodes")
    A, C, Ct = blocks[Matrix.A], blocks[Matrix.C], blocks[Matrix.CT]
    d = [b.shape[1] for b in A] if A is not None else [b.shape[1] for b in C] if C is not None else [0] * n
    return Mats(W=sp.csr_matrix(W), n=n, d=d, dt=Ct[0].shape[1] if Ct is not None else 0,
                m=A[0].shape[0] if A is not None else 0, A=A, C=C, Ct=Ct, label=spec.get("label", "explicit"))


def describe(spec: dict) -> str:
    """Short human-readable name of a case spec."""
    src = spec.get("source", "raw")
    if src == "explicit":
        return f"explicit[{spec.get('label', '')}]"
    if src == "raw":
        keys = [k for k in sorted(spec) if k not in ("source",)]
        return "raw[" + ",".join(f"{k}={spec[k]}" for k in keys) + "]"
    extra = {k: v for k, v in spec.items() if k.startswith("scale_")}
    return f"{src}:{spec['family']}[seed={spec.get('seed', '-')},{spec.get('kw', {})}{',' + str(extra) if extra else ''}]"
