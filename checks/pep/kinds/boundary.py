"""Controls at the boundary of each certified property: each mis-setting is rejected *because of* the property.

* **Interval** (``control.pep.interval_2x``): the consensus network's Chebyshev polynomial built for an interval
  ``[λ_min+(W)/2, λ_max(W)]`` (degree and APAPC parameters of the correct one,
  :func:`mixbounds.checks.pep.controls.wide_chebyshev`): ``P``'s spectrum leaves the interval the parameters
  assume, so the network is no longer in the class of the class-level certificate, and ``ρ_network > ρ_class``
  says so.  At ``κ_f = 1.5`` (the dual state binds: the one-step worst case uses the network) the margin is
  ``ρ_network − ρ_class`` ≈ 0.045; at ``κ_f = 10`` the worst case is network-blind and no interval is seen.
* **θ threshold** (``control.pep.theta_threshold``): the class-level PEP with the step's ``θ`` multiplied by ``f``
  and the theorem's Lyapunov function; :func:`theta_threshold` bisects the smallest ``f > 1`` with
  ``ρ_PEP(f) > ρ_thm``.  The recorded value :data:`THETA_THRESHOLD` is checked at both sides, ``f*(1 ∓ s)``
  with ``s =`` :data:`THETA_STEP`: certified below, caught above (the control); the full tier re-bisects.
* **No dual terms** (``control.pep.no_dual``): ``max V'^K − ρ_thm^K V'⁰ s.t. V⁰ <= 1`` with ``V'`` without the
  dual terms (bounded: the full ``V⁰`` bounds the state), on the binding case (APAPC without Chebyshev): a
  positive value is a state from which ``V'`` does not contract at the theorem's factor; it is the margin.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

from mixbounds.solvers.apapc import APAPCParameters

if TYPE_CHECKING:
    from mixbounds.checks.pep.kinds.classlevel import ClassSpec

#: the smallest factor on θ at which the class-level ρ_PEP of the consensus class point (κ_f = 10, path of 3 at
#: κ_W = 100: κ = 10, χ = 1.7177) exceeds ρ_thm, measured by :func:`theta_threshold` (bisection on [1, 2] to
#: THETA_RTOL): ``python -c "from mixbounds.checks.pep.kinds.points import theta_point; print(theta_point(bisect=True))"``
THETA_THRESHOLD = 1.3379
#: relative step on each side of the threshold: certified at f*(1 − s), caught at f*(1 + s)
THETA_STEP = 0.02
#: relative width of the bisection's final bracket
THETA_RTOL = 1e-3


def theta_rho(spec: ClassSpec, factor: float, params: APAPCParameters | None = None) -> tuple[float, object]:
    """``ρ_PEP`` of the class PEP with the step's ``θ`` multiplied by ``factor`` (the rule's ``V``) and the solution."""
    p = params or spec.rule()
    # the check registry reads this module's constants on every install, with or without the extra
    from mixbounds.checks.pep.engine.conic import solve  # lazy: the optional [pep] extra
    from mixbounds.checks.pep.kinds.classlevel import build  # lazy: the optional [pep] extra

    sol = solve(build(spec, step_params=dataclasses.replace(p, theta=factor * p.theta)).pep)
    rho = max(sol.value, 0.0) if sol.value is not None else math.nan
    return rho, sol


def theta_threshold(spec: ClassSpec, rho_thm: float, lo: float = 1.0, hi: float = 2.0,
                    rtol: float = THETA_RTOL) -> tuple[float, list]:
    """Bisection for the smallest ``f`` in ``[lo, hi]`` with ``ρ_PEP(f) > ρ_thm`` (needs ``ρ(lo) <= ρ_thm < ρ(hi)``);
    returns the bracket's upper end and the evaluations ``(f, ρ)``."""
    evals = []
    for f in (lo, hi):
        evals.append((f, theta_rho(spec, f)[0]))
    if not (evals[0][1] <= rho_thm < evals[1][1]):
        raise ValueError(f"θ threshold: no crossing of ρ_thm = {rho_thm} on [{lo}, {hi}] (ρ = {evals[0][1]}, "
                         f"{evals[1][1]})")
    while hi - lo > rtol * lo:
        mid = 0.5 * (lo + hi)
        r = theta_rho(spec, mid)[0]
        evals.append((mid, r))
        if r > rho_thm:
            hi = mid
        else:
            lo = mid
    return hi, evals
