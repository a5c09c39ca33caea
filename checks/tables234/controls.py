"""Negative controls of the Tables 2-4 slope checks: methods that must fail a cell (``control=True``,
``expected="fail"``; caught when ``fail``).

``control.T2.coupled.comm.kappa_W.nocheb`` and ``control.T3.coupled.comm.kappa_W.nocheb``
(the same methods without Chebyshev polynomials: κ_W slope ≈ 1 instead of ½),
``control.T3.coupled.A.MR_eps.subgradient`` and ``control.T4.coupled.A.M_mu_eps.subgradient``
(projected subgradient method, :mod:`mixbounds.solvers.subgradient`: matrix-count ε-slope ≈ 2
instead of 1).  The controls of Table 2's factor reading are in
:mod:`mixbounds.checks.tables234.table2_factor_controls`.
"""

from __future__ import annotations

from mixbounds.bounds.concepts import Oracle
from mixbounds.bounds.concepts import ProblemClass as PC
from mixbounds.checks.run.framework import Check
from mixbounds.checks.sweeps import (
    geomspace,
)
from mixbounds.checks.tables234.points import cells, sweep_task, sweeps
from mixbounds.checks.tables234.rules import verdict


def method_controls() -> list[Check]:
    out = []
    specs = [
        # (id, table, cls, oracle, param, solver, method)
        ("control.T2.coupled.comm.kappa_W.nocheb", 2, PC.COUPLED, Oracle.COMM, "kappa_W", "regularized", "apapc-nocheb"),
        ("control.T3.coupled.comm.kappa_W.nocheb", 3, PC.COUPLED, Oracle.COMM, "kappa_W", "sliding", "apapc-nocheb"),
        ("control.T3.coupled.A.MR_eps.subgradient", 3, PC.COUPLED, Oracle.A, "MR_eps", "subgradient", "apapc"),
        ("control.T4.coupled.A.M_mu_eps.subgradient", 4, PC.COUPLED, Oracle.A, "M_mu_eps", "subgradient", "apapc"),
    ]
    for rid, table, cls, oracle, param, solver, method in specs:
        cell = next(c for c in cells(table, cls) if c.oracle == oracle)

        def pts_of(tier, table=table, cls=cls, param=param):
            sw = next(s for s in sweeps(tier, table, cls) if s[0] == param)
            if param.startswith("kappa"):  # controls run at a small accuracy parameter (the raw method is slow)
                return sw[2], [(q, tier.tables24.acc_range[table][0]) for q, _ in sw[3]]
            lo, hi = tier.tables24.acc_range[table]
            g = geomspace(lo, lo * 10 ** tier.tables24.quadratic_decades, tier.tables24.points)  # quadratic in x
            return g, [(sw[1], x) for x in g]

        def tasks(tier, pts_of=pts_of, table=table, cls=cls, solver=solver, method=method):
            return [sweep_task(table, cls, q, x, solver=solver, method=method, tier=tier) for q, x in pts_of(tier)[1]]

        def finalize(tier, points, pts_of=pts_of, table=table, cls=cls, solver=solver, method=method, cell=cell,
                     param=param, rid=rid):
            grid, pts = pts_of(tier)
            got = [points[sweep_task(table, cls, q, x, solver=solver, method=method, tier=tier).key] for q, x in pts]
            return [verdict(tier, table, cell, param, grid, got, control=True, rid=rid, method=method, solver=solver)]

        out.append(Check(id=rid, family="nonsmooth", result_ids=lambda tier, rid=rid: [rid], tasks=tasks, finalize=finalize,
                         description=f"negative control: {solver}/{method} must fail {cell.id} in {param}"))
    return out
