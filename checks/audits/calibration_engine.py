"""Engine calibration: the lower-bound engine on three problems whose answers are known exactly.

The engine (:mod:`mixbounds.checks.lower.engine`, docs/design.md "The lower-bound engine") counts how many rounds
of one oracle any method of the class needs.  An engine that propagates supports two hops per
counted round halves every bound and moves no slope, and a weaker bound never trips the
one-sided solver-vs-bound consistency check — so every run calibrates it on:

* **path** (``app:example_graph``): ``n`` nodes on a path, one shared scalar, ``f_1(x) = ½x² − x``
  and ``f_i(x) = ½x²`` elsewhere, so ``x*`` is ``1/n`` at every node and only node 1 knows
  anything at the start.  ``k`` communication rounds reach nodes ``1 … k + 1``: the smallest
  error is exactly ``(n − 1 − k)/n``, and ``ε < 1/n`` needs exactly ``n − 1`` rounds;
* **Nesterov's chain** (``app:nonind_local_lower``): ``f(x) = ½xᵀ(M + μI)x − x_1`` with ``M`` the
  path Laplacian of the chain; every gradient reveals exactly one more index, so after ``k``
  gradient rounds the smallest error is the tail ``Σ_{j>k} x*_j²/‖x*‖²``, with ``x*`` solved
  directly;
* **the coupled chain** (``app:mixed_coupled_with_local_lower``'s bipartite structure): one
  node's ``A`` bidiagonal (``A_kk ≠ 0`` links ``x_k`` with ``y_k``, ``A_{k,k+1} ≠ 0`` links ``y_k``
  with ``x_{k+1}``), a diagonal objective with ``q = e_1``: each ``A`` round (``A`` or ``Aᵀ``)
  moves one hop along ``x_1, y_1, x_2, y_2, …``, so ``x_{k+1}`` is reached after exactly ``2k``
  rounds and the smallest error after ``r`` rounds is the tail beyond index ``⌊r/2⌋ + 1``.

The engine's whole error curve must equal the closed form (to rounding: :data:`CURVE_RTOL`)
and its count to ``ε`` must equal the known one exactly.  Negative control: an engine that
takes two hops per counted round (:class:`_TwoHopEngine`) on the path must come out ``fail``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.concepts import Oracle, Structure
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.checks.lower.engine import Engine
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.run.result import CheckResult
from mixbounds.instances.graphs import laplacian, path_adjacency
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem

#: the error curves are sums of the same squares in a different order: rounding only
CURVE_RTOL = 1e-12
#: path lengths and chain lengths calibrated
PATH_NODES = (5, 12)
CHAIN_LENGTH = 16
#: the chains' decay: x*_j ∝ ρ^j with ρ + 1/ρ = 2 + μ (Nesterov), μ = 0.5 → ρ ≈ 0.5
CHAIN_MU = 0.5
#: accuracy of the chain calibrations: reached well inside the chains (after 10 of 16 indices)
CHAIN_EPS = 1e-6


def _path_problem(n: int):
    lay = Layout(tuple(0 for _ in range(n)), 1)
    q = [np.array([1.0 if i == 0 else 0.0]) for i in range(n)]
    obj = QuadraticObjective([sp.identity(1, format="csr") for _ in range(n)], q, lay)
    P = MixedProblem(laplacian(path_adjacency(n)), obj, lay, name=f"calibration path n={n}")
    x_star = np.full(n, 1.0 / n)  # Σ_i f_i is minimised at x = 1/n, copied to every node
    closed = [(n - 1 - k) / n for k in range(n)]
    return P, x_star, closed, Oracle.COMM, n - 1


def _chain_problem(kind: str, K: int = CHAIN_LENGTH, mu: float = CHAIN_MU):
    n = 2  # node 2 holds x = 0 (q = 0): the chain lives at node 1, communication is free
    lay = Layout((K, K), 0)
    e1 = np.zeros(K)
    e1[0] = 1.0
    if kind == "nesterov":
        Q0 = (laplacian(path_adjacency(K)) + mu * sp.identity(K)).tocsr()
        x0 = np.linalg.solve(Q0.toarray(), e1)
        obj = QuadraticObjective([Q0, sp.identity(K, format="csr")], [e1, np.zeros(K)], lay)
        P = MixedProblem(laplacian(path_adjacency(n)), obj, lay, name="calibration Nesterov chain")
        w = x0 ** 2
        closed = [float(w[k:].sum() / w.sum()) for k in range(K + 1)]  # k gradients reveal indices 1 … k
        oracle = Oracle.GRAD
    else:
        # Σ A_i x_i = 0 with A_1 bidiagonal and A_2 = −I: x_2 = A_1 x_1, so x* lives on both nodes
        A0 = sp.diags([np.ones(K), np.full(K - 1, 0.5)], [0, 1], shape=(K, K), format="csr")
        obj = QuadraticObjective([sp.identity(K, format="csr")] * 2, [e1, np.zeros(K)], lay)
        P = MixedProblem(laplacian(path_adjacency(n)), obj, lay, A=[A0, -sp.identity(K, format="csr")],
                         b=[np.zeros(K), np.zeros(K)], name="calibration coupled chain")
        x0 = np.linalg.solve(np.eye(K) + (A0.T @ A0).toarray(), e1)  # min ½‖x‖² + ½‖A_1x‖² − x_1
        x1 = A0 @ x0
        w = x0 ** 2 + x1 ** 2
        # index j of x needs 2j rounds: x_j → y_j (A_1), y_j → x_{j+1} (A_1ᵀ); node 2's copy joins for free
        closed = [float(w[r // 2 + 1:].sum() / w.sum()) for r in range(2 * K)]
        oracle = Oracle.A
        return P, np.concatenate([x0, x1]), closed, oracle, None
    x_star = np.concatenate([x0, np.zeros(K)])
    return P, x_star, closed, oracle, None


def calibration_point(case: str, n: int = 0, two_hops: bool = False) -> dict:
    """The engine's error curve and count on one calibration problem, next to the closed form."""
    if case == "path":
        P, x_star, closed, oracle, known = _path_problem(n)
    else:
        P, x_star, closed, oracle, known = _chain_problem(case)
    eps = 0.5 * min(c for c in closed if c > 0) if known is not None else CHAIN_EPS
    if known is None:
        known = next(k for k, c in enumerate(closed) if c <= eps)
    eng = (_TwoHopEngine if two_hops else Engine)(P, x_star)
    lb = eng.lower_bound(oracle, eps)
    got = list(lb.errors)
    m = min(len(got), len(closed))
    dev = max((abs(a - b) / max(b, SCALE_FLOOR) for a, b in zip(got[:m], closed[:m]) if b > 0), default=0.0)
    return {"case": case, "n": P.n, "oracle": oracle, "eps": eps, "count": lb.count, "known": known,
            "errors": got, "closed_form": closed[: len(got)], "curve_rel_dev": dev, "reason": lb.reason}


def _two_hop_class():
    class TwoHopEngine(Engine):
        """Negative control: each counted round propagates the supports two hops."""

        def __init__(self, P, x_star):
            super().__init__(P, x_star)
            for k, A in list(self.adj.items()):
                A2 = ((A @ A + A) > 0).astype(np.float64)
                self.adj[k] = sp.csr_matrix(A2)

    return TwoHopEngine


def _TwoHopEngine(P, x_star):
    return _two_hop_class()(P, x_star)


#: the case on the coupled-constraint chain is named after its problem's structure
_COUPLED = Structure.COUPLED
_LABEL = {"path": "app:example_graph", "nesterov": "app:nonind_local_lower", _COUPLED: "app:mixed_coupled_with_local_lower"}
CASES = tuple(("path", n) for n in PATH_NODES) + (("nesterov", 0), (_COUPLED, 0))


def _task(case: str, n: int, two_hops: bool = False) -> Task:
    kw = {"case": case, "n": n}
    if two_hops:
        kw["two_hops"] = True
    label = f"engine calibration {case}{n or ''}{' two hops' if two_hops else ''}"
    return Task(calibration_point, kw, label=label)


def _rid(case: str, n: int) -> str:
    return f"calibration.engine.{case}" + (f".n{n}" if n else "")


def calibration_verdict(rid: str, p: dict, *, control: bool = False) -> CheckResult:
    """Exact count and the whole error curve against the closed form."""
    common = dict(kind="calibration", tolerance=CURVE_RTOL, control=control, expected="fail" if control else None,
                  label=_LABEL.get(p.get("case")))
    if "error" in p:
        return CheckResult(id=rid, status="fail" if control else "error", detail=p["error"], **common)
    why = []
    if p["count"] != p["known"]:
        why.append(f"{p['oracle']} rounds to ε = {p['eps']:.3g}: engine {p['count']}, known {p['known']}")
    if len(p["errors"]) != len(p["closed_form"]) or p["curve_rel_dev"] > CURVE_RTOL:
        why.append(f"error curve {[round(e, 6) for e in p['errors'][:8]]}… vs closed form "
                   f"{[round(e, 6) for e in p['closed_form'][:8]]}… "
                   f"(largest relative deviation {p['curve_rel_dev']:.3g})")
    status = ("fail" if why else "pass") if control else ("error" if why else "pass")
    detail = "; ".join(why) if why else (
        f"{p['oracle']} rounds to ε = {p['eps']:.3g}: {p['count']} = known {p['known']}; "
        f"curve equal to the closed form (largest relative deviation {p['curve_rel_dev']:.1e})")
    return CheckResult(id=rid, status=status, measured=p["count"], theory=p["known"], points=[p], detail=detail,
                       **common)


#: the calibration problem of each oracle's propagation: communication on the path, gradients on Nesterov's chain,
#: the block operators (A, and C, C̃, whose supports propagate through a block the same way) on the coupled chain
#: the calibration case that exercises each oracle (the ``coupled`` case is the coupled-constraint chain)
CASE_OF_ORACLE = {Oracle.COMM: "path", Oracle.GRAD: "nesterov", Oracle.A: _COUPLED, Oracle.C: _COUPLED, Oracle.CT: _COUPLED}


def _case_check(case: str) -> Check:
    """The calibration on one problem (a check of its own: a ``--claims`` subset runs the calibrations of the oracles
    it bounds only, :mod:`mixbounds.checks.audits.guards`)."""
    cases = [(c, n) for c, n in CASES if c == case]
    return Check(id=f"calibration.engine.{case}", family="selfcheck",
                 result_ids=lambda t: [_rid(c, n) for c, n in cases], tasks=lambda t: [_task(c, n) for c, n in cases],
                 finalize=lambda tier, points: [calibration_verdict(_rid(c, n), points[_task(c, n).key])
                                                for c, n in cases],
                 description=f"the lower-bound engine on {_LABEL[case]}'s problem (exact answers)")


def checks() -> list[Check]:

    rid_c = "control.calibration.engine.two-hops.path"

    def c_final(tier, points):
        return [calibration_verdict(rid_c, points[_task("path", PATH_NODES[-1], True).key], control=True)]

    return [_case_check(case) for case in dict.fromkeys(c for c, _ in CASES)] + [
            Check(id="control.calibration.engine", family="selfcheck", result_ids=lambda t: [rid_c],
                  tasks=lambda t: [_task("path", PATH_NODES[-1], True)], finalize=c_final,
                  description="an engine taking two hops per counted round must fail the calibration")]
