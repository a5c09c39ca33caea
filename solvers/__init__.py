"""Solvers: counted oracles, Chebyshev acceleration, APAPC, reformulations, baselines."""

from .oracles import ORACLES, CountedOracles

__all__ = ["ORACLES", "CountedOracles"]
