"""Solvers: counted oracles, Chebyshev acceleration, APAPC, reformulations, baselines."""

from .apapc import APAPCParameters, apapc
from .chebyshev import Chebyshev, chebyshev_degree, chebyshev_interval
from .oracles import ORACLES, CountedOracles
from .reformulations import Reformulation
from .result import SolveResult
from .solve import solve

__all__ = [
    "APAPCParameters", "Chebyshev", "CountedOracles", "ORACLES", "Reformulation", "SolveResult",
    "apapc", "chebyshev_degree", "chebyshev_interval", "solve",
]
