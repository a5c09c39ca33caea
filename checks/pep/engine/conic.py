"""The float image of an exact PEP as a conic program, solved by Clarabel; values, duals and accuracy.

``max objective s.t. initial <= 1``, the classes' inequalities, equalities and LMIs, and one PSD Gram
block per block of the partition.  Clarabel's standard form is ``min qᵀx s.t. Ax + s = b, s ∈ K``;
the variables are the upper-triangle Gram entries of each block (column-major, the order of
Clarabel's ``PSDTriangleConeT``, whose off-diagonal slacks carry a factor √2) followed by the function
values.  Cones in order: equalities (zero cone), inequalities and the initial condition (non-negative
cone), the Gram blocks, the LMIs.

The dual certificate (``q + Aᵀz = 0``, ``z ∈ K*``) gives ``objective <= z_initial`` on every feasible
point: :attr:`Solution.value` is ``z_initial`` (the dual bound), :attr:`Solution.primal_value` the
objective at the primal solution (a worst case); :attr:`Solution.accuracy` is the largest of the duality
gap, the primal and dual infeasibilities and the proof residual ``Σ|q + Aᵀz|``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import clarabel
import numpy as np
import scipy.sparse as sp
from mixbounds.checks.pep.engine.forms import Form
from mixbounds.checks.pep.engine.problem import PEP

#: Clarabel's static regularisation raised from its default 1e-8 (measured on the PEPit formulation of the coupled
#: class at κ_f = 10³, κ_W = 10: the default failed or stalled at a proof residual of 6e-5; 1e-7 solved it)
SETTINGS = {"static_regularization_constant": 1e-7, "max_iter": 400,
            # tolerances 100× below Clarabel's defaults: at the defaults the class PEP of 5 steps stopped with a proof
            # residual of 2e-6 (> PEP_ACCURACY) and a spurious second Gram eigenvalue of 6e-4 (rank 2 instead of 1)
            "tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10, "tol_ktratio": 1e-8}
#: Clarabel statuses and their names in the suite's records (cvxpy's names, which the earlier records used)
STATUS = {"Solved": "optimal", "AlmostSolved": "optimal_inaccurate", "DualInfeasible": "unbounded",
          "AlmostDualInfeasible": "unbounded_inaccurate", "PrimalInfeasible": "infeasible",
          "AlmostPrimalInfeasible": "infeasible_inaccurate"}
SQRT2 = math.sqrt(2.0)


@dataclass
class Layout:
    """Where every Gram entry and function value sits in the variable vector."""

    blocks: list            # per block: the global leaf ids, in order
    local: dict             # global leaf id -> (block, local index)
    offsets: list           # per block: first variable index of its Gram entries
    n_gram: int
    n_values: int

    @classmethod
    def of(cls, pep: PEP) -> "Layout":
        blocks = [[] for _ in range(pep.blocks)]
        local = {}
        for i, b in enumerate(pep.block_of):
            local[i] = (b, len(blocks[b]))
            blocks[b].append(i)
        offsets, n = [], 0
        for ids in blocks:
            offsets.append(n)
            n += len(ids) * (len(ids) + 1) // 2
        return cls(blocks, local, offsets, n, pep.n_values)

    @property
    def size(self) -> int:
        return self.n_gram + self.n_values

    def gram_index(self, i: int, j: int) -> int | None:
        """Variable index of ``G_ij`` (``None`` across blocks: that entry is zero by the partition)."""
        bi, a = self.local[i]
        bj, c = self.local[j]
        if bi != bj:
            return None
        a, c = min(a, c), max(a, c)
        return self.offsets[bi] + c * (c + 1) // 2 + a

    def row(self, form: Form) -> tuple[list, list]:
        idx, val = [], []
        for (i, j), v in form.q.items():
            k = self.gram_index(i, j)
            if k is not None:
                idx.append(k)
                val.append(float(v))
        for k, v in form.l.items():
            idx.append(self.n_gram + k)
            val.append(float(v))
        return idx, val


@dataclass
class Solution:
    """What the solver returned, in the PEP's terms (``value`` = the dual bound on ``max objective``)."""

    status: str
    value: float | None
    primal_value: float | None
    duality_gap: float = math.nan
    primal_infeasibility: float = math.nan
    dual_infeasibility: float = math.nan
    proof_residual: float = math.nan
    seconds: float = math.nan
    gram: list = field(default_factory=list)       # per block: the Gram matrix (numpy)
    values: np.ndarray | None = None
    duals: dict = field(default_factory=dict)       # "initial", "ineq", "eq", "lmi" (float)

    @property
    def accuracy(self) -> float:
        vals = [self.duality_gap, self.primal_infeasibility, self.dual_infeasibility, self.proof_residual]
        return max(vals) if all(np.isfinite(vals)) else math.nan


def _svec_pairs(m: int) -> list[tuple[int, int]]:
    return [(i, j) for j in range(m) for i in range(j + 1)]


def _smat(v: np.ndarray, m: int, scaled: bool) -> np.ndarray:
    M = np.zeros((m, m))
    for k, (i, j) in enumerate(_svec_pairs(m)):
        x = v[k] / SQRT2 if (scaled and i != j) else v[k]
        M[i, j] = M[j, i] = x
    return M


def _min_eig(M: np.ndarray) -> float:
    return float(np.linalg.eigvalsh(M)[0]) if M.size else 0.0


def solve(pep: PEP) -> Solution:
    """Assemble the float conic program of ``pep`` and solve it with Clarabel (module docstring)."""
    ineq, eq, lmis = pep.constraints()
    lay = Layout.of(pep)
    rows, cols, vals, b = [], [], [], []

    def add(form: Form, scale: float = 1.0, rhs: float = 0.0):
        r = len(b)
        idx, val = lay.row(form)
        rows.extend([r] * len(idx))
        cols.extend(idx)
        vals.extend(scale * v for v in val)
        b.append(rhs)

    for f in eq:
        add(f, 1.0, -float(f.c))
    for f in ineq:
        add(f, 1.0, -float(f.c))
    add(pep.initial, 1.0, 1.0 - float(pep.initial.c))
    cones = [clarabel.ZeroConeT(len(eq)), clarabel.NonnegativeConeT(len(ineq) + 1)]
    for bl, ids in enumerate(lay.blocks):
        m = len(ids)
        if not m:
            continue
        for k, (i, j) in enumerate(_svec_pairs(m)):
            r = len(b)
            rows.append(r)
            cols.append(lay.offsets[bl] + k)
            vals.append(-(1.0 if i == j else SQRT2))
            b.append(0.0)
        cones.append(clarabel.PSDTriangleConeT(m))
    for T in lmis:
        m = len(T)
        for i, j in _svec_pairs(m):
            w = 1.0 if i == j else SQRT2
            add(T[i][j], -w, w * float(T[i][j].c))
        cones.append(clarabel.PSDTriangleConeT(m))
    n = lay.size
    A = sp.csc_matrix((vals, (rows, cols)), shape=(len(b), n))
    qv = np.zeros(n)
    idx, val = lay.row(pep.objective)
    np.add.at(qv, idx, -np.asarray(val, dtype=float))
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    for k, v in SETTINGS.items():
        setattr(settings, k, v)
    t0 = time.perf_counter()
    try:
        sol = clarabel.DefaultSolver(sp.csc_matrix((n, n)), qv, A, np.asarray(b, dtype=float), cones, settings).solve()
    except Exception as exc:  # noqa: BLE001 - a solver that raised is a failed SDP, reported as such
        return Solution(status=f"solver error: {type(exc).__name__}: {exc}"[:200], value=None, primal_value=None,
                        seconds=time.perf_counter() - t0)
    secs = time.perf_counter() - t0
    status = STATUS.get(str(sol.status), str(sol.status))
    if status not in ("optimal", "optimal_inaccurate"):
        return Solution(status=status, value=None, primal_value=None, seconds=secs)
    return _measured(pep, lay, A, np.asarray(b), qv, cones, sol, status, secs, len(eq), len(ineq), lmis)


def _measured(pep, lay, A, b, qv, cones, sol, status, secs, n_eq, n_ineq, lmis) -> Solution:
    x, z = np.asarray(sol.x), np.asarray(sol.z)
    primal = float(-(qv @ x))
    dual_init = float(z[n_eq + n_ineq])
    resid = qv + A.T @ z
    r = A @ x - b
    prim = [float(np.abs(r[:n_eq]).max(initial=0.0)), float(np.max(r[n_eq:n_eq + n_ineq + 1], initial=0.0))]
    dual = [float(max(0.0, -z[n_eq:n_eq + n_ineq + 1].min(initial=0.0)))]
    gram, pos = [], n_eq + n_ineq + 1
    for bl, ids in enumerate(lay.blocks):
        m = len(ids)
        if not m:
            gram.append(np.zeros((0, 0)))
            continue
        k = m * (m + 1) // 2
        G = _smat(x[lay.offsets[bl]:lay.offsets[bl] + k], m, scaled=False)
        gram.append(G)
        prim.append(max(0.0, -_min_eig(G)))
        dual.append(max(0.0, -_min_eig(_smat(z[pos:pos + k], m, scaled=True))))
        pos += k
    lmi_duals = []
    for T in lmis:
        m = len(T)
        k = m * (m + 1) // 2
        prim.append(max(0.0, -_min_eig(_smat(-r[pos:pos + k], m, scaled=True))))
        Z = _smat(z[pos:pos + k], m, scaled=True)
        dual.append(max(0.0, -_min_eig(Z)))
        lmi_duals.append(Z)
        pos += k
    out = Solution(status=status, value=dual_init, primal_value=primal, duality_gap=abs(dual_init - primal),
                   primal_infeasibility=max(prim), dual_infeasibility=max(dual),
                   proof_residual=float(np.abs(resid).sum()), seconds=secs, gram=gram,
                   values=x[lay.n_gram:].copy(),
                   duals={"eq": z[:n_eq].copy(), "ineq": z[n_eq:n_eq + n_ineq].copy(), "initial": dual_init,
                          "lmi": lmi_duals})
    out.layout = lay
    return out
