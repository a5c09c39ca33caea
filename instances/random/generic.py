"""The generic random family: any subset of the constraint groups of problem (P), each tuned.

One builder, :func:`_build_random`, serves the eight families of :data:`_RANDOM` (a
:class:`_Structure` says which blocks exist and the default sizes).  Right-hand sides are generated
from a random point (``b_i = A_i x⁰_i``, ``c_i = C_i x⁰_i``, ``c̃_i = C̃_i x̃⁰``), so every instance
is feasible.  The κ's are tuned by :mod:`.gossip` (κ_W), :mod:`mixbounds.instances.random.objectives` (κ_f),
:mod:`.tuning` (κ̃_AC, κ̂_{C̃ᵀ}) and :mod:`.constraint_blocks` (κ_C, κ_C̃).
"""

from __future__ import annotations

from dataclasses import dataclass

from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import Objective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.random.common import (
    COMMON_KW,
    OBJECTIVES,
    check_int,
    check_kappa,
    check_seed,
    check_variant,
    kappa_A_alias,
    reject_targets,
    reject_unknown,
    seeded_rng,
)
from mixbounds.instances.random.constraint_blocks import local_blocks
from mixbounds.instances.random.constraint_groups import coupled_group, shared_group
from mixbounds.instances.random.finish import finish_instance
from mixbounds.instances.random.gossip import make_gossip
from mixbounds.instances.random.objectives import logcosh_objective, logistic_objective, quadratic_objective


@dataclass(frozen=True)
class _Structure:
    x: bool          # local variables x_i
    t: bool          # shared variable x̃
    A: bool          # coupled constraint
    C: bool          # local constraints
    Ct: bool         # shared-variable constraints
    ident: bool      # identical C̃
    defaults: dict
    objective: str | None = None  # forced objective type (None: the `objective` keyword)


_RANDOM = {
    "random-consensus": _Structure(False, True, False, False, False, False, dict(n=8, dt=5)),
    "random-coupled": _Structure(True, False, True, False, False, False, dict(n=8, d=6, m=3)),
    # n·pt < dt: the stacked C̃ leaves free directions of x̃, so the objective matters there
    "random-shared": _Structure(False, True, False, False, True, False, dict(n=8, dt=12, pt=1)),
    "random-shared-ident": _Structure(False, True, False, False, True, True, dict(n=8, dt=6, pt=3)),
    "random-coupled-local": _Structure(True, False, True, True, False, False, dict(n=8, d=6, m=3, p=2)),
    "random-mixed": _Structure(True, True, True, True, True, False, dict(n=8, d=6, dt=10, m=3, p=2, pt=1)),
    "random-mixed-ident": _Structure(True, True, True, True, True, True, dict(n=8, d=6, dt=4, m=3, p=2, pt=2)),
    "logistic-consensus": _Structure(False, True, False, False, False, False, dict(n=8, dt=5, samples=20), objective="logistic"),
}



@dataclass
class _Targets:
    """Validated targets of one build (``None``: not tuned)."""

    kappa_f: float
    kappa_W: float | None
    kappa_AC: float | None
    kappa_C: float | None
    kappa_Ct: float | None
    objective: str


def _parse_targets(family: str, st: _Structure, kw: dict, kappa_f, kappa_W, kappa_AC, kappa_C, kappa_Ct) -> _Targets:
    """Accepted keywords, the ``kappa_A`` alias, targets the structure cannot have, and every κ's range."""
    size_kw = [k for k in ("d", "dt", "m", "p", "pt") if k in st.defaults]
    allowed = list(COMMON_KW) + size_kw + (["objective"] if st.objective is None else []) + ["samples"]
    if st.A and not st.C:
        allowed.append("kappa_A")
    reject_unknown(family, kw, allowed)
    kappa_AC = kappa_A_alias(family, kw, kappa_AC)
    objective = st.objective or kw.get("objective", "quadratic")
    if objective not in OBJECTIVES:
        raise ValueError(f"{family}: unknown objective {objective!r} (known: {', '.join(OBJECTIVES)})")
    reject_targets(family, {
        "kappa_AC": (kappa_AC, "the problem has no coupled constraint Σ A_i x_i = Σ b_i") if not st.A else (None, ""),
        "kappa_C": (kappa_C, "the problem has no local constraints C_i x_i = c_i") if not st.C else (None, ""),
        "kappa_Ct": (kappa_Ct, "the problem has no shared-variable constraints C̃_i x̃ = c̃_i") if not st.Ct else (None, ""),
    })
    kappa_f = check_kappa("kappa_f", kappa_f, allow_one=objective == "quadratic")
    if kappa_f is None:
        raise ValueError(f"{family}: kappa_f is required (a strongly convex objective needs a finite κ_f)")
    return _Targets(kappa_f, check_kappa("kappa_W", kappa_W), check_kappa("kappa_AC", kappa_AC),
                    check_kappa("kappa_C", kappa_C), check_kappa("kappa_Ct", kappa_Ct), objective)


def _sizes(family: str, st: _Structure, kw: dict, tg: _Targets) -> dict:
    """``d, dt, m, p, pt, samples`` from the keywords or the structure's defaults, range-checked."""
    d = check_int("d", kw.get("d", st.defaults.get("d", 0)), 1) if st.x else 0
    dt = check_int("dt", kw.get("dt", st.defaults.get("dt", 0)), 1) if st.t else 0
    m = check_int("m", kw.get("m", st.defaults.get("m")), 2) if st.A else 0
    p = check_int("p", kw.get("p", st.defaults.get("p")), 1, d - 1) if st.C else 0
    pt = check_int("pt", kw.get("pt", st.defaults.get("pt")), 1, dt - 1) if st.Ct else 0
    samples = check_int("samples", kw.get("samples", st.defaults.get("samples", 20)), 1)
    if st.ident and tg.kappa_Ct is not None and tg.kappa_Ct > 1 and pt < 2:
        raise ValueError(f"{family}: kappa_Ct = {tg.kappa_Ct:g} > 1 needs pt >= 2 rows in C̃ (one row has κ_C̃ = 1)")
    if st.Ct and not st.ident and dt < 2 and tg.kappa_Ct is not None:
        raise ValueError(f"{family}: tuning kappa_Ct needs dt >= 2")
    return dict(d=d, dt=dt, m=m, p=p, pt=pt, samples=samples)


def _local_group(n: int, sz: dict, tg: _Targets, seed: int, x0, kw_p: dict, targets: dict, tuning: dict):
    """``C_i``, ``c_i`` and the kernel bases (κ_C exact by singular values); returns the kernels."""
    d, p = sz["d"], sz["p"]
    C, kernels = local_blocks([d] * n, [p] * n, tg.kappa_C, seeded_rng(seed, "local-C"))
    kw_p.update(C=C, c=[C[i] @ x0[i] for i in range(n)], C_kernels=kernels)
    if tg.kappa_C is not None:
        targets["kappa_C"] = tg.kappa_C
    tuning["kappa_C"] = "singular values in [1, sqrt(kappa_C)], both ends attained" if tg.kappa_C else "none (Gaussian singular values)"
    return kernels


def _coupled_group(st: _Structure, n: int, sz: dict, tg: _Targets, seed: int, x0, kernels, kw_p: dict, targets: dict,
                   tuning: dict) -> None:
    """``A_i``, ``b_i`` with κ̃_AC (or κ̂_A) tuned (:func:`.constraint_groups.coupled_group`)."""
    A, b, t, info = coupled_group(seed=seed, n=n, d=sz["d"], p=sz["p"], m=sz["m"], kernels=kernels, x0=x0,
                                  kappa_AC=tg.kappa_AC, with_C=st.C)
    kw_p.update(A=A, b=b)
    targets.update(t)
    tuning["kappa_AC"] = info


def _shared_group(st: _Structure, n: int, sz: dict, tg: _Targets, seed: int, xt0, kw_p: dict, targets: dict,
                  tuning: dict) -> None:
    """``C̃_i``, ``c̃_i``: identical (κ_C̃ exact by singular values) or tuned κ̂_{C̃ᵀ}
    (:func:`.constraint_groups.shared_group`)."""
    Ct, ct, t, info = shared_group(seed=seed, n=n, dt=sz["dt"], pt=sz["pt"], xt0=xt0, kappa_Ct=tg.kappa_Ct,
                                   identical=st.ident)
    kw_p.update(Ct=Ct, ct=ct)
    targets.update(t)
    tuning["kappa_Ct"] = info


def _build_random(family: str, *, n=None, seed=0, kappa_W=None, kappa_f=10.0, kappa_AC=None, kappa_C=None,
                  kappa_Ct=None, eps=None, variant="default", graph=None, **kw) -> Instance:
    """An instance of the family ``family`` of :data:`_RANDOM` (keywords: the package docstring)."""
    st = _RANDOM[family]
    seed = check_seed(seed)
    check_variant(family, variant, ("default",))
    tg = _parse_targets(family, st, kw, kappa_f, kappa_W, kappa_AC, kappa_C, kappa_Ct)
    gs = make_gossip(graph, None if n is None else check_int("n", n, 2), default_n=st.defaults["n"],
                     kappa_W=tg.kappa_W, gossip=kw.get("gossip", "laplacian"), seed=seed, er_p=kw.get("er_p"))
    n = gs.n
    sz = _sizes(family, st, kw, tg)
    d, dt = sz["d"], sz["dt"]
    lay = Layout((d,) * n, dt)

    targets: dict[str, float] = {"kappa_f": tg.kappa_f}
    if tg.kappa_W is not None:
        targets["kappa_W"] = tg.kappa_W
    notes = [f"{family}: random instance for upper-bound checks (instances/random/)."]
    params: dict = {"n": n, "d": d, "dt": dt, "m": sz["m"], "p": sz["p"], "pt": sz["pt"], "eps": eps,
                    "graph": gs.info, "objective": tg.objective, "tuning": {}}
    tuning = params["tuning"]

    obj: Objective
    if tg.objective == "quadratic":
        obj, oinfo = quadratic_objective(lay, tg.kappa_f, seeded_rng(seed, "objective"))
    elif tg.objective == "logcosh":
        obj, oinfo = logcosh_objective(lay, tg.kappa_f, seeded_rng(seed, "objective"))
    else:
        params["samples"] = sz["samples"]
        obj, oinfo = logistic_objective(lay, tg.kappa_f, seeded_rng(seed, "objective"), sz["samples"])
    tuning["kappa_f"] = oinfo

    rng_x = seeded_rng(seed, "feasible-point")
    x0 = [rng_x.standard_normal(d) for _ in range(n)] if st.x else []
    xt0 = rng_x.standard_normal(dt) if st.t else None

    kw_p: dict = {}
    kernels = _local_group(n, sz, tg, seed, x0, kw_p, targets, tuning) if st.C else None
    if st.A:
        _coupled_group(st, n, sz, tg, seed, x0, kernels, kw_p, targets, tuning)
    if st.Ct:
        _shared_group(st, n, sz, tg, seed, xt0, kw_p, targets, tuning)
    if tg.kappa_W is not None:
        tuning["kappa_W"] = gs.info.get("tuning")

    problem = MixedProblem(gs.W, obj, lay, edges=gs.adjacency, name=f"{family}(n={n}, seed={seed})",
                           meta={"family": family, "seed": seed}, **kw_p)
    return finish_instance(family, variant, problem, targets, seed=seed, params=params, notes=notes,
                   closed_forms=gs.closed_forms)


def random_consensus(**kw) -> Instance:
    """``random-consensus``: consensus optimization (``prob:consensus_cons``), only the shared x̃.

    ``f_i(x̃) = ½ x̃ᵀQ_i x̃ − q_iᵀx̃`` with random ``Q_i`` (or logistic with
    ``objective="logistic"``, or the same quadratic plus log-cosh terms with ``objective="logcosh"``: every random
    family takes these three, :mod:`mixbounds.instances.random.objectives`).  Targets: ``kappa_f`` (default 10), ``kappa_W``.
    Sizes: ``n`` (8), ``dt`` (5); ``samples`` (20, logistic only); ``gossip``, ``er_p``.
    Tolerance :data:`TARGET_RTOL` on every target.
    """
    return _build_random("random-consensus", **kw)


def random_coupled(**kw) -> Instance:
    """``random-coupled``: coupled constraints only (``eq:coupled_constraints_org``).

    Targets: ``kappa_f``, ``kappa_W``, ``kappa_AC`` (alias ``kappa_A``) = κ̂_A of
    Definition ``def:mixed_condition_number`` (tuned by the two-stage family;
    reachable: ``[1, KAPPA_MAX]`` when ``m <= d``).  Sizes ``n`` (8), ``d`` (6), ``m`` (3, >= 2).
    """
    return _build_random("random-coupled", **kw)


def random_shared(**kw) -> Instance:
    """``random-shared``: shared variable with non-identical constraints (``prob:shared_var_constraints``).

    Targets: ``kappa_f``, ``kappa_W``, ``kappa_Ct`` = κ̂_{C̃ᵀ} (two-stage family on
    ``X_i = C̃_iᵀ``).  Each node has ``pt < dt`` rows, so in general
    κ̂_{C̃ᵀ} >= dt/pt; the frame base reaches ``n/⌊n·pt/dt⌋`` when ``n·pt >= dt``
    (4 for the defaults n = 8, dt = 6, pt = 2), the floor of this family.
    Sizes ``n`` (8), ``dt`` (6), ``pt`` (2, < dt).
    """
    return _build_random("random-shared", **kw)


def random_shared_ident(**kw) -> Instance:
    """``random-shared-ident``: identical shared-variable constraints (``sub:ident_local``).

    ``C̃_i = C̃``, ``c̃_i = c̃``; ``kappa_Ct`` targets κ_C̃ = σ_max²(C̃)/σ_min+²(C̃)
    (realized keys ``kappa_Ct_id`` and ``kappa_Ct``, equal for identical blocks).
    Sizes ``n`` (8), ``dt`` (6), ``pt`` (3, >= 2 for κ_C̃ > 1).
    """
    return _build_random("random-shared-ident", **kw)


def random_coupled_local(**kw) -> Instance:
    """``random-coupled-local``: coupled and local constraints (``prob:coupled_with_local``).

    Targets: ``kappa_f``, ``kappa_W``, ``kappa_C`` (group κ_C, exact by singular
    values), ``kappa_AC`` = κ̃_AC (Definition ``def:projected_condition_number``,
    two-stage family on the projected interaction matrix; reachable from 1 when
    ``m <= d − p``).  ``C_kernels`` (orthonormal bases of ker C_i) are attached.
    Sizes ``n`` (8), ``d`` (6), ``m`` (3), ``p`` (2).
    """
    return _build_random("random-coupled-local", **kw)


def random_mixed(**kw) -> Instance:
    """``random-mixed``: all constraint types (problem ``prob:opt_mixed_constraints_intro``).

    ``f_i(x_i, x̃)`` quadratic (or logistic) on ``z_i = (x_i, x̃)``; targets
    ``kappa_f``, ``kappa_W``, ``kappa_C``, ``kappa_AC`` (κ̃_AC), ``kappa_Ct`` (κ̂_{C̃ᵀ}).
    Sizes ``n`` (8), ``d`` (6), ``dt`` (4), ``m`` (3), ``p`` (2), ``pt`` (2).
    """
    return _build_random("random-mixed", **kw)


def random_mixed_ident(**kw) -> Instance:
    """``random-mixed-ident``: as ``random-mixed`` with identical ``C̃_i`` (second case of
    ``thm:upper_bound_coupled_plus_non_ident_local_constraints_prob``); ``kappa_Ct`` targets κ_C̃.
    """
    return _build_random("random-mixed-ident", **kw)


def logistic_consensus(**kw) -> Instance:
    """``logistic-consensus``: horizontal federated learning (introduction, ``prob:consensus_cons``).

    Each node holds ``samples`` (20) rows of synthetic data ``F_i ∈ R^{N×dt}``
    with labels ``±1`` from a noisy random linear model; ``f_i`` is regularised
    logistic regression with ``λ = max_i ‖F_i‖²/(4N_i)/(κ_f − 1)`` so ``L_f/μ_f = κ_f``
    exactly (``L_f`` is the bound used by :class:`LogisticObjective`, not the
    Hessian's actual maximum).  Targets ``kappa_f`` (> 1), ``kappa_W``.
    """
    return _build_random("logistic-consensus", **kw)



#: the families of this module (collected by :func:`mixbounds.instances.families.families`)
FAMILIES = {
    "random-consensus": random_consensus,
    "random-coupled": random_coupled,
    "random-shared": random_shared,
    "random-shared-ident": random_shared_ident,
    "random-coupled-local": random_coupled_local,
    "random-mixed": random_mixed,
    "random-mixed-ident": random_mixed_ident,
    "logistic-consensus": logistic_consensus,
}
