"""Direct sums of worst-case constructions: one instance whose lower bound is the larger of its parts'.

The paper states the mixed lower bounds as a *combination* of lower bounds
(``sec:affine_constraints_methods``, after ``thm:upper_bound_coupled_plus_non_ident_local_constraints_prob``:
"optimal due to combination of lower bounds in thm:LN_upper_bound, thm:coupled_iclr … thm:LI_upper_bound,
thm:coupled_iclr"): the hard instances of two classes placed on disjoint variables of the same graph,
``f_i(x_i, x̃) = f^a_i(x_i) + f^b_i(x̃^b) + f^c_i(x̃^c)``.  A method for the sum solves every part, so every
part's lower bound holds for the sum; the engine, run on the whole instance, measures the largest.

Each part must be built on the same tuned path (same ``κ_W``) with Hessian spectrum ``[μ_f, κ_f μ_f]``,
``μ_f = 1``, so that the sum has exactly the requested ``κ_f``; the builders of :mod:`coupled`,
:mod:`shared`, :mod:`consensus` and :mod:`ident_chain` do.  Blocks absent in a part contribute zero
columns; the parts' own closed forms and findings are kept with a prefix.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.realized import realized_kappas


def _zero_cols(blocks, cols_before: int, cols_after: int, n: int):
    """``[0 | B_i | 0]`` per node (``None`` if no part has the block)."""
    return [sp.hstack([sp.csr_matrix((B.shape[0], cols_before)), sp.csr_matrix(B), sp.csr_matrix((B.shape[0], cols_after))],
                      format="csr") for B in blocks[:n]]


def direct_sum(x_part: Instance | None, xt_parts: list[Instance], *, family: str, variant: str, targets: dict,
               notes: list[str]) -> Instance:
    """``x_part`` (local variables, ``dt = 0``) ⊕ the ``xt_parts`` stacked on the shared variable ``x̃``."""
    parts = ([x_part] if x_part is not None else []) + list(xt_parts)
    n = parts[0].problem.n
    for p in parts:
        if p.problem.n != n or (p.problem.W != parts[0].problem.W).nnz:
            raise ValueError(f"{family}: the parts must live on the same graph (n = {n} vs {p.problem.n})")
        if p is not x_part and any(p.problem.layout.d):
            raise ValueError(f"{family}: part {p.family} has local variables; only the first part may")
    if x_part is not None and x_part.problem.layout.dt:
        raise ValueError(f"{family}: the x part {x_part.family} has a shared variable")
    dx = x_part.problem.layout.d[0] if x_part is not None else 0
    dts = [p.problem.layout.dt for p in xt_parts]
    dt = int(sum(dts))
    lay = Layout((dx,) * n, dt)
    Q, q = [], []
    for i in range(n):
        Q.append(sp.block_diag([p.problem.objective.Q_blocks[i] for p in parts], format="csr"))
        q.append(np.concatenate([p.problem.objective.q_blocks[i] for p in parts]))
    obj = QuadraticObjective(Q, q, lay)
    Px = x_part.problem if x_part is not None else None
    Ct = ct = None
    with_ct = [k for k, p in enumerate(xt_parts) if p.problem.Ct is not None]
    if with_ct:
        rows = []
        for i in range(n):
            blocks = []
            for k in with_ct:
                B = sp.csr_matrix(xt_parts[k].problem.Ct[i])
                blocks.append(_zero_cols([B], int(sum(dts[:k])), int(sum(dts[k + 1:])), 1)[0])
            rows.append(sp.vstack(blocks, format="csr"))
        Ct = rows
        ct = [np.concatenate([xt_parts[k].problem.ct[i] for k in with_ct]) for i in range(n)]
    kw = {}
    if Px is not None:
        kw = dict(A=Px.A, b=Px.b, C=Px.C, c=Px.c, C_kernels=getattr(Px, "C_kernels", None))
    P = MixedProblem(parts[0].problem.W, obj, lay, Ct=Ct, ct=ct, edges=parts[0].problem.edges,
                     name=f"{family}[{variant}](" + ", ".join(f"{k}={v:g}" for k, v in targets.items()) + ")", **kw)
    closed, findings = {}, []
    for p in parts:
        closed.update({f"{p.family}-part: {k}": v for k, v in p.closed_forms.items()})
        findings += [dict(f, part=p.family) for f in p.findings]
    params = {"n": n, "parts": [p.family for p in parts], "eps": parts[0].params.get("eps"),
              "chain_length": max(p.params["chain_length"] for p in parts),
              "k_eps": max(p.params["k_eps"] for p in parts), "groups": parts[0].params.get("groups"),
              "hop_distance": parts[0].params.get("hop_distance")}
    params.update({f"{p.family}_part": p.params for p in parts})
    return Instance(problem=P, family=family, variant=variant, targets=targets, realized=realized_kappas(P),
                    closed_forms=closed, findings=findings, params=params,
                    notes=notes + [f"direct sum of {', '.join(p.family for p in parts)} on one graph (direct_sum.py)"])
