"""Problems: the model of problem (P), objectives, graphs and the paper's instances."""

from .layout import Layout
from .objectives import LogisticObjective, Objective, QuadraticObjective, block_diag_u
from .problem import PROBLEM_CLASSES, MixedProblem

__all__ = ["Layout", "LogisticObjective", "MixedProblem", "Objective", "PROBLEM_CLASSES", "QuadraticObjective", "block_diag_u"]
