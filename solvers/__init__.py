"""Solvers: counted oracles, Chebyshev acceleration, APAPC, reformulations, baselines."""

from .apapc import APAPCParameters, apapc
from .chebyshev import Chebyshev, chebyshev_degree, chebyshev_interval
from .oracles import ORACLES, CountedOracles
from .reformulations import Reformulation
from .regularized import regularized_apapc
from .result import SolveResult
from .sliding import gradient_sliding, restarted_gradient_sliding
from .solve import solve
from .subgradient import projected_subgradient

__all__ = [
    "APAPCParameters", "Chebyshev", "CountedOracles", "ORACLES", "Reformulation", "SolveResult",
    "apapc", "chebyshev_degree", "chebyshev_interval", "gradient_sliding", "projected_subgradient",
    "regularized_apapc", "restarted_gradient_sliding", "solve",
]
