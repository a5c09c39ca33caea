"""Problems: the model of problem (P), objectives, graphs and the paper's instances."""

from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import LogisticObjective, Objective, QuadraticObjective, block_diag_u
from mixbounds.instances.problem import PROBLEM_CLASSES, MixedProblem

__all__ = ["Layout", "LogisticObjective", "MixedProblem", "Objective", "PROBLEM_CLASSES", "QuadraticObjective", "block_diag_u"]
