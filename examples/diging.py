"""Gradient tracking (DIGing; Nedić, Olshevsky, Shi 2017) written only against the public contract.

``X⁺ = M X − α Y``, ``Y⁺ = M Y + ∇F(X⁺) − ∇F(X)`` with ``M = I − W/λ_max(W)`` and ``α = 1/(κ_W L_f)``; one ``grad``
and one ``comm`` (on the pair ``[X, Y]``) per iteration.  Consensus class only (declared in ``classes``).
Expected: ``κ_f·κ_W`` iterations — suboptimal in both ``κ_f`` and ``κ_W`` (Table 1: ``√κ_f·√κ_W``).
The method designer's guide (docs/guides/method-designer.md) shows this file's function as the complete example.
"""

import numpy as np


def diging(problem, oracles):
    n, a = problem.n, 1.0 / (problem.kappa_W * problem.L_f)
    X = np.zeros((n, problem.dt))
    G = oracles.grad(X.ravel()).reshape(n, -1)
    Y = G.copy()
    while True:
        XY = np.hstack([X, Y])
        XY = XY - oracles.comm(XY) / problem.lambda_max_W       # one round carries [X, Y]
        X_new = XY[:, :problem.dt] - a * Y
        G_new = oracles.grad(X_new.ravel()).reshape(n, -1)
        Y, X, G = XY[:, problem.dt:] + G_new - G, X_new, G_new
        yield X.ravel()


diging.classes = ("consensus",)
