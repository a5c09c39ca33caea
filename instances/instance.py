"""An instance: a problem plus what it claims to be and what it measurably is."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from mixbounds.instances.problem import MixedProblem


@dataclass(frozen=True, eq=False)
class Instance:
    """A :class:`MixedProblem` with its provenance.

    ``targets``: the parameters requested (e.g. ``{"kappa_W": 100, "kappa_f": 10}``);
    ``realized``: condition numbers computed from the matrices
    (:func:`mixbounds.instances.realized.realized_kappas`), never copied from ``targets``;
    ``closed_forms``: each closed form the construction relies on, as
    ``{name: {"printed": …, "computed": …, "holds": bool, "label": paper label}}``;
    ``findings``: disagreements between the paper and the numbers, as
    ``{"label", "statement", "printed", "measured", "detail"}``;
    ``params``: sizes and the rules that chose them (chain length, n, l, …);
    ``x_star``: the reference solution in the u-layout (``None`` until computed);
    ``spectra``: the ``"spectra"`` record an instance directory was loaded with (``None`` otherwise): the solver's
    spectral facts and the checksums of the files they were computed from (:mod:`mixbounds.instances.spectra`).
    """

    problem: MixedProblem
    family: str
    variant: str = "printed"
    targets: dict = field(default_factory=dict)
    realized: dict = field(default_factory=dict)
    closed_forms: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)
    params: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    x_star: np.ndarray | None = None
    seed: int | None = None
    spectra: dict | None = None

    def with_reference(self, x_star: np.ndarray) -> "Instance":
        return replace(self, x_star=np.asarray(x_star, dtype=float))
