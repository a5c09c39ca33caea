"""Exact verification of a PEP's dual certificate: rational multipliers, an exact identity, exact LDLᵀ.

A bound ``objective <= t·initial`` holds on every feasible point of the PEP when there are ``λ_k >= 0``
(inequalities ``h_k <= 0``), ``ν_e`` (equalities), ``Z_m ⪰ 0`` (LMIs ``T_m ⪰ 0``) and ``S_b ⪰ 0`` (Gram
blocks) with, identically in the Gram entries and the function values,

    objective − t·initial − Σ λ_k h_k − Σ ν_e e_e + Σ ⟨Z_m, T_m⟩ + Σ ⟨S_b, G_b⟩ = 0,

because then ``objective = t·initial + Σλh − Σ⟨Z, T⟩ − Σ⟨S, G⟩ <= t·initial``.  :func:`verify` takes the
solver's float duals and, in :class:`fractions.Fraction` arithmetic against the exact forms:

1. rounds ``λ`` (multipliers below :data:`ACTIVE_RTOL` of the largest set to 0), ``ν``, and ``Z_m`` as
   ``R Rᵀ`` with ``R`` the rounded ``V√Λ₊`` of its eigen-decomposition (PSD by construction);
2. makes the function-value part of the identity vanish exactly: the least-norm correction of the
   active ``λ`` (and of the equalities that involve values) solving the small linear system in exact
   arithmetic; every corrected ``λ`` must stay ``>= 0``;
3. defines ``S_b`` as minus the Gram part of the remaining form and checks ``S_b ⪰ 0`` by an exact LDLᵀ
   (a zero pivot must have a zero column; a negative pivot refutes).

Nothing here depends on floating-point rounding after step 1's inputs: the float duals only propose a
certificate, the check is exact.  A certificate that fails at ``t`` (rounding moved ``S`` off the PSD cone
in the directions of the worst case, where ``S`` is singular by complementary slackness) is retried at a
larger ``t`` (:func:`certify`, a short ladder up to the bound that matters); the result says which ``t`` was
proved, or that none was.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

import numpy as np
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.checks.pep.engine.forms import ONE, ZERO, D, q
from mixbounds.checks.pep.engine.problem import PEP

#: inequality multipliers below this fraction of the largest are inactive (set to exactly 0)
ACTIVE_RTOL = 1e-9
#: eigenvalues of an LMI's dual below this fraction of its largest are dropped (Z is rebuilt as R Rᵀ)
Z_RTOL = 1e-10
#: relative increments of t over the SDP's bound tried before the target itself (the ladder of certify)
LADDER = (1e-9, 1e-7, 1e-5, 1e-3)


@dataclass(frozen=True)
class ExactResult:
    """The outcome of one exact check: ``t`` proved (``V^K <= t·V⁰``) or why not."""

    verified: bool
    t: Fraction | None
    reason: str
    seconds: float
    attempts: int

    def record(self, K: int) -> dict:
        t = float(self.t) if self.t is not None else None
        return {"exact": self.verified, "exact_t": t, "exact_rho": (t ** (1.0 / K) if t is not None and t > 0 else t),
                "exact_reason": self.reason, "exact_seconds": self.seconds, "exact_attempts": self.attempts,
                "exact_t_fraction": (f"{self.t.numerator}/{self.t.denominator}" if self.t is not None else None)}


def ldl_psd(M: list[list[Fraction]]) -> tuple[bool, str]:
    """Exact LDLᵀ test of positive semidefiniteness of a symmetric rational matrix (its lower triangle is read)."""
    n = len(M)
    A = [[M[i][j] for j in range(i + 1)] for i in range(n)]  # lower triangle, row i holds A[i][0..i]
    for k in range(n):
        d = A[k][k]
        if d < 0:
            return False, f"negative pivot {float(d):.3g} at {k}"
        if d == 0:
            if any(A[i][k] != 0 for i in range(k + 1, n)):
                return False, f"zero pivot with a non-zero column at {k}"
            continue
        for i in range(k + 1, n):
            aik = A[i][k]
            if aik == 0:
                continue
            f = aik / d
            Ai = A[i]
            for j in range(k + 1, i + 1):
                ajk = A[j][k]
                if ajk:
                    Ai[j] -= f * ajk
    return True, "PSD"


def psd_integer(M: list[list[int]]) -> tuple[bool, str]:
    """PSD test of a symmetric integer matrix: zero rows dropped, then fraction-free (Bareiss) elimination, whose
    pivots are the leading principal minors (all > 0: positive definite; one < 0: not PSD); a zero pivot is
    decided by :func:`ldl_psd`."""
    keep = [i for i in range(len(M)) if any(M[i])]
    A = [[M[i][j] for j in keep[:a + 1]] for a, i in enumerate(keep)]
    n, prev = len(A), 1
    for k in range(n):
        p = A[k][k]
        if p < 0:
            return False, f"negative leading minor at {k}"
        if p == 0:
            return ldl_psd([[Fraction(M[i][j]) for j in keep] for i in keep])
        for i in range(k + 1, n):
            Ai, aik = A[i], A[i][k]
            for j in range(k + 1, i + 1):
                Ai[j] = (p * Ai[j] - aik * A[j][k]) // prev
        prev = p
    return True, "PSD (positive definite on the leaves in use)"


def psd_verified(S: list[list[Fraction]]) -> tuple[bool, str]:
    """PSD test of a symmetric rational matrix with a float proposal and an exact check: ``δ`` = half the smallest
    float eigenvalue, ``L`` the float Cholesky factor of ``S − δI`` (taken as exact dyadic numbers), and
    ``E = S − δI − LLᵀ`` computed exactly; every Gershgorin radius ``Σ_j |E_ij| <= δ`` proves
    ``S = LLᵀ + δI + E ⪰ 0``.  Otherwise (the float check fails, e.g. ``S`` singular) :func:`psd_integer` decides."""
    keep = [i for i in range(len(S)) if any(S[i])]
    A = [[S[i][j] for j in keep] for i in keep]
    n = len(A)
    if not n:
        return True, "zero"
    Af = np.array([[float(v) for v in row] for row in A])
    lam = float(np.linalg.eigvalsh(Af)[0])
    if lam <= 0:  # not PSD in floats: no proof attempted (a failure needs none: the ladder moves on)
        return False, f"smallest eigenvalue {lam:.3g} <= 0 in floats"
    if lam > 0:
        delta = q(0.5 * lam).fraction()
        try:
            Lf = np.linalg.cholesky(Af - float(delta) * np.eye(n))
        except np.linalg.LinAlgError:
            Lf = None
        if Lf is not None:
            Ld = [[q(x) for x in row] for row in Lf]
            ok = True
            for i in range(n):
                r = Fraction(0)
                for j in range(n):
                    llt = sum((Ld[i][k] * Ld[j][k] for k in range(min(i, j) + 1)), ZERO).fraction()
                    e = A[i][j] - llt - (delta if i == j else 0)
                    r += abs(e)
                if r > delta:
                    ok = False
                    break
            if ok:
                return True, f"PSD (verified: Cholesky of S − δI, δ = {float(delta):.3g}, Gershgorin remainder)"
    den = 1
    for row in A:
        for v in row:
            den = lcm(den, v.denominator)
    return psd_integer([[int(v * den) for v in row] for row in A])


def _solve_int(M: list[list[int]], r: list[int]) -> list[Fraction] | None:
    """A solution of the square, possibly singular system ``M y = r`` (integers) by fraction-free Gauss–Jordan;
    ``None`` if it is inconsistent."""
    n = len(M)
    A = [row[:] + [r[i]] for i, row in enumerate(M)]
    piv, row = [], 0
    for c in range(n):
        p = next((i for i in range(row, n) if A[i][c] != 0), None)
        if p is None:
            continue
        A[row], A[p] = A[p], A[row]
        pr = A[row]
        for i in range(n):
            if i != row and A[i][c]:
                f, g = A[i][c], pr[c]
                A[i] = [g * a - f * b for a, b in zip(A[i], pr)]
                h = 0
                for a in A[i]:
                    h = math.gcd(h, a)
                if h > 1:
                    A[i] = [a // h for a in A[i]]
        piv.append(c)
        row += 1
    if any(A[i][n] for i in range(row, n)):
        return None
    y = [Fraction(0)] * n
    for i, c in enumerate(piv):
        y[c] = Fraction(A[i][n], A[i][c])
    return y


def _to_ints(vals: list[D]) -> tuple[list[int], int]:
    """``vals = out · 2^e`` with integers ``out`` (a common exponent)."""
    e = min((v.e for v in vals if v.m), default=0)
    return [(v.m << (v.e - e)) if v.m else 0 for v in vals], e


def _acc(acc: dict, items, a: D) -> None:
    for k, v in items:
        s = acc.get(k, ZERO) + a * v
        if s:
            acc[k] = s
        else:
            acc.pop(k, None)


def _rounded(duals: dict):
    lam_f = np.asarray(duals["ineq"], dtype=float)
    top = float(lam_f.max(initial=0.0))
    lam = [(q(v) if v > ACTIVE_RTOL * max(top, SCALE_FLOOR) else ZERO) for v in lam_f]
    nu = [q(v) for v in duals["eq"]]
    Zs = []
    for Zf in duals["lmi"]:
        w, V = np.linalg.eigh(0.5 * (Zf + Zf.T))
        keep = w > Z_RTOL * max(float(w.max(initial=0.0)), SCALE_FLOOR)
        R = [[q(x) for x in row] for row in (V[:, keep] * np.sqrt(w[keep]))]
        Z = [[sum((a * b for a, b in zip(R[i], R[j])), ZERO) for j in range(len(R))] for i in range(len(R))]
        Zs.append(Z)
    return lam, nu, Zs


def _balance(cf: dict, lam: list, nu: list, ineq: list, eq: list) -> tuple[dict, str]:
    """Corrections ``δ`` (Fractions; keys ``("i", k)`` / ``("e", k)``) of the active multipliers, least-norm, that make
    the value part ``cf`` vanish; ``({}, why)`` if impossible."""
    cols = [("i", k) for k, a in enumerate(lam) if a and ineq[k].l] + [("e", k) for k, e in enumerate(eq) if e.l]
    if not cols:
        return {}, "value terms remain and no multiplier can absorb them"
    keys = sorted({k for kind, c in cols for k in (ineq[c] if kind == "i" else eq[c]).l} | set(cf))
    idx = {k: r for r, k in enumerate(keys)}
    flat = [v for kind, c in cols for v in (ineq[c] if kind == "i" else eq[c]).l.values()] + list(cf.values())
    _, e0 = _to_ints(flat)
    scale = lambda v: (v.m << (v.e - e0)) if v.m else 0  # noqa: E731
    Mc = []
    for kind, c in cols:
        col = [0] * len(idx)
        for k, v in (ineq[c] if kind == "i" else eq[c]).l.items():
            col[idx[k]] = scale(v)
        Mc.append(col)
    rhs = [0] * len(idx)
    for k, v in cf.items():
        rhs[idx[k]] = scale(v)
    n = len(idx)
    MMt = [[sum(col[i] * col[j] for col in Mc) for j in range(n)] for i in range(n)]
    y = _solve_int(MMt, rhs)
    if y is None:
        return {}, "the value terms cannot be balanced by the active multipliers"
    # Mᵀ y in the scaled units: the correction of each multiplier (the columns were scaled by 2^-e0, rhs too)
    return {key: sum((Fraction(a) * b for a, b in zip(col, y) if a), Fraction(0)) for key, col in zip(cols, Mc)}, ""


class _Identity:
    """The identity of the module docstring for the rounded multipliers, as ``A − t·B`` in the Gram entries with the
    value part balanced for every ``t`` (the balancing is linear in ``t``): one assembly, a PSD test per ``t``."""

    def __init__(self, pep: PEP, duals: dict):
        ineq, eq, lmis = pep.constraints()
        self.pep, self.why = pep, ""
        for f in [pep.objective, pep.initial] + ineq + eq:
            if f.c:
                self.why = "a form has a constant term (the PEP is not homogeneous)"
                return
        lam, nu, Zs = _rounded(duals)
        self.lam = lam
        c0: dict = {}
        _acc(c0, pep.objective.l.items(), ONE)
        for a, h in zip(lam, ineq):
            if a:
                _acc(c0, h.l.items(), -a)
        for a, e in zip(nu, eq):
            if a:
                _acc(c0, e.l.items(), -a)
        c1 = dict(pep.initial.l)  # the value part is c0 − t·c1
        self.d0 = self.d1 = {}
        if c0 or c1:
            self.d0, why0 = _balance(c0, lam, nu, ineq, eq) if c0 else ({}, "")
            self.d1, why1 = _balance(c1, lam, nu, ineq, eq) if c1 else ({}, "")
            if (c0 and not self.d0) or (c1 and not self.d1):
                self.why = why0 or why1
                return
        A: dict = {}
        _acc(A, pep.objective.q.items(), ONE)
        for a, h in zip(lam, ineq):
            if a:
                _acc(A, h.q.items(), -a)
        for a, e in zip(nu, eq):
            if a:
                _acc(A, e.q.items(), -a)
        for Z, T in zip(Zs, lmis):
            for i, row in enumerate(T):
                for j, e in enumerate(row):
                    if Z[i][j]:
                        _acc(A, e.q.items(), Z[i][j])
        self.A = {k: v.fraction() for k, v in A.items()}
        self.B = {k: v.fraction() for k, v in pep.initial.q.items()}
        # multipliers λ + d0 − t·d1: the remainder is A − t·B with A −= Σ d0_k q_k and B −= Σ d1_k q_k
        for delta, target in ((self.d0, self.A), (self.d1, self.B)):
            for (kind, k), d in delta.items():
                if d:
                    for key, v in (ineq[k] if kind == "i" else eq[k]).q.items():
                        target[key] = target.get(key, Fraction(0)) - d * v.fraction()

    def verify(self, t) -> tuple[bool, str]:
        if self.why:
            return False, self.why
        tf = q(t).fraction()
        for kind_k in set(self.d0) | set(self.d1):
            kind, k = kind_k
            if kind == "i":
                lam = self.lam[k].fraction() + self.d0.get(kind_k, 0) - tf * self.d1.get(kind_k, 0)
                if lam < 0:
                    return False, f"balancing the value terms made a multiplier negative ({float(lam):.3g})"
        R = dict(self.A)
        for k, v in self.B.items():
            R[k] = R.get(k, Fraction(0)) - tf * v
        return _gram_psd(self.pep, R)


def verify(pep: PEP, duals: dict, t) -> tuple[bool, str]:
    """Exact check that ``objective <= t·initial`` with the multipliers proposed by ``duals`` (module docstring)."""
    return _Identity(pep, duals).verify(t)


def _gram_psd(pep: PEP, Rf: dict) -> tuple[bool, str]:
    """``S_b = −(Gram part of the identity's remainder)`` on every block, checked PSD exactly."""
    blocks = [[] for _ in range(pep.blocks)]
    local = {}
    for i, b in enumerate(pep.block_of):
        local[i] = (b, len(blocks[b]))
        blocks[b].append(i)
    S = [[[Fraction(0)] * len(ids) for _ in ids] for ids in blocks]
    for (i, j), v in Rf.items():
        (bi, a), (bj, c) = local[i], local[j]
        if bi != bj or not v:
            continue
        if a == c:
            S[bi][a][a] -= v
        else:
            S[bi][a][c] -= v / 2
            S[bi][c][a] -= v / 2
    for bl, Sb in enumerate(S):
        ok, why = psd_verified(Sb)
        if not ok:
            return False, f"Gram block {bl}: {why}"
    return True, "verified"


def certify(pep: PEP, duals: dict, value: float, target: float | None) -> ExactResult:
    """Prove ``objective <= t·initial`` exactly for the smallest ``t`` of a ladder above the SDP's bound ``value``
    (relative steps :data:`LADDER`, then halfway to ``target`` and ``target`` itself when it is larger).

    ``target`` (e.g. ``ρ_thm^K``) is what the certificate must reach; ``None``: the ladder only."""
    t0 = time.perf_counter()
    if value is None or not math.isfinite(value):
        return ExactResult(False, None, "no finite SDP bound to certify", 0.0, 0)
    base = max(float(value), 0.0)
    ts = [base * (1 + r) for r in LADDER]
    if target is not None and math.isfinite(target):
        ts = [t for t in ts if t <= target] + ([0.5 * (base + target), float(target)] if target > base else [])
    why = "no candidate t"
    ident = _Identity(pep, duals)
    for n, t in enumerate(ts, 1):
        ok, why = ident.verify(t)
        if ok:
            return ExactResult(True, q(t).fraction(), f"verified at t = SDP bound × {t / max(base, SCALE_FLOOR):.10g}",
                               time.perf_counter() - t0, n)
    return ExactResult(False, None, f"no rounded certificate verified (last: {why})", time.perf_counter() - t0, len(ts))
