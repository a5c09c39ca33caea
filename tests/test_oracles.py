"""Counted oracles: values and counts against an independent count.

The independent count wraps the raw matrices and the objective in proxies that
count every product actually performed; it does not use the oracle's counters.
"""

import numpy as np
import pytest
from helpers import random_problem, wrap_oracles
from mixbounds.solvers import CountedOracles


def test_counts_equal_independent_count(rng):
    P = random_problem(rng, n=6, d=3, dt=2, m=2)
    orc = CountedOracles(P)
    tally = wrap_oracles(orc)
    lay = P.layout
    x = rng.standard_normal(lay.dx)
    Xt = rng.standard_normal((P.n, lay.dt))
    ops = [
        lambda: orc.grad(rng.standard_normal(lay.size)),
        lambda: orc.A(x), lambda: orc.AT(rng.standard_normal((P.n, P.m))),
        lambda: orc.C(x), lambda: orc.CT(rng.standard_normal(sum(Ci.shape[0] for Ci in P.C))),
        lambda: orc.Ct(Xt), lambda: orc.CtT(rng.standard_normal(sum(Ci.shape[0] for Ci in P.Ct))),
        lambda: orc.comm(Xt), lambda: orc.comm(rng.standard_normal(P.n)),
    ]
    for k in rng.integers(0, len(ops), size=300):
        ops[k]()
    assert orc.snapshot() == tally
    assert all(v > 0 for v in tally.values())


def test_oracle_values(rng):
    P = random_problem(rng, n=5, d=3, dt=2, m=2)
    orc = CountedOracles(P)
    lay = P.layout
    x = rng.standard_normal(lay.dx)
    Y = orc.A(x)
    for i in range(P.n):
        xi = x[lay.x_offsets[i]:lay.x_offsets[i + 1]]
        assert np.allclose(Y[i], P.A[i] @ xi)
    Yr = rng.standard_normal((P.n, P.m))
    xt = orc.AT(Yr)
    for i in range(P.n):
        assert np.allclose(xt[lay.x_offsets[i]:lay.x_offsets[i + 1]], P.A[i].T @ Yr[i])
    Xt = rng.standard_normal((P.n, lay.dt))
    assert np.allclose(orc.comm(Xt), P.W.toarray() @ Xt)
    v = orc.Ct(Xt)
    assert np.allclose(v, np.concatenate([P.Ct[i] @ Xt[i] for i in range(P.n)]))
    assert np.allclose(orc.CtT(v), np.stack([P.Ct[i].T @ P.Ct[i] @ Xt[i] for i in range(P.n)]))


def test_missing_oracle_is_an_error(rng):
    P = random_problem(rng, coupled=False, local=False)
    orc = CountedOracles(P)
    with pytest.raises(ValueError, match="no coupled constraint"):
        orc.A(np.zeros(P.layout.dx))
    with pytest.raises(ValueError, match="node axis"):
        orc.comm(np.zeros((P.n + 1, 2)))
