"""Solvers: counted oracles, Chebyshev acceleration, APAPC, reformulations, baselines."""

from mixbounds.solvers.apapc import APAPCParameters, apapc
from mixbounds.solvers.chebyshev import Chebyshev, chebyshev_degree, chebyshev_interval
from mixbounds.solvers.oracles import ORACLES, CountedOracles
from mixbounds.solvers.reformulations import Reformulation
from mixbounds.solvers.regularized import regularized_apapc
from mixbounds.solvers.result import SolveResult
from mixbounds.solvers.sliding import gradient_sliding, restarted_gradient_sliding
from mixbounds.solvers.solve import solve
from mixbounds.solvers.subgradient import projected_subgradient

__all__ = [
    "APAPCParameters", "Chebyshev", "CountedOracles", "ORACLES", "Reformulation", "SolveResult",
    "apapc", "chebyshev_degree", "chebyshev_interval", "gradient_sliding", "projected_subgradient",
    "regularized_apapc", "restarted_gradient_sliding", "solve",
]
