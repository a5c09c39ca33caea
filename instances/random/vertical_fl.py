"""``vertical-fl``: the decentralized vertical federated learning reformulation of the introduction.

Coupled constraint (the parties' feature slices sum to the shared activations) plus consensus on the
top model; κ̂_A is fixed by the data and reported, not tuned.  Details in :func:`vertical_fl`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import LogisticObjective, QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.random.common import (
    COMMON_KW,
    check_int,
    check_kappa,
    check_seed,
    check_variant,
    reject_targets,
    reject_unknown,
    rel_gap,
    seeded_rng,
)
from mixbounds.instances.random.finish import finish_instance
from mixbounds.instances.random.gossip import make_gossip


def vertical_fl(*, n=None, seed=0, kappa_W=None, kappa_f=10.0, kappa_AC=None, kappa_C=None, kappa_Ct=None, eps=None,
                variant="default", graph=None, **kw) -> Instance:
    """``vertical-fl``: the decentralized VFL reformulation of the introduction (coupled + consensus).

    Data: ``N = n·samples`` samples split into ``n`` sample blocks of ``samples``
    rows; party ``i`` owns ``features`` columns ``F_i ∈ R^{N×features}`` (its
    vertical slice), row blocks ``F_{i,j}``.  Node ``i`` is party ``i`` *and* the
    holder of sample block ``i`` (the paper's "p" in ``H_i = col(F_{i,1}X_i, …,
    F_{i,p}X_i)`` is read as ``n``).  Variables at node ``i``:
    ``x_i = (vec X_i, vec Z_i)`` with ``X_i ∈ R^{features×c}`` (row-major vec) and
    ``Z_i ∈ R^{samples×c}`` (``c = out_dim``, default 1); shared ``x̃ ∈ R^c``
    (top model, consensus ``X̃_1 = … = X̃_n``).  Coupled constraint
    ``Σ_i F_{i,j} X_i = Z_j`` for every ``j``, i.e. ``Σ_i A_i x_i = 0`` with
    ``A_i = [F_i ⊗ I_c, −E_i ⊗ I_c]`` (``E_i`` places block ``i``), ``b_i = 0``.

    Top model: the paper's ``g(Z, X̃)`` is generic; a bilinear ``Z X̃`` would
    make ``f_i`` nonconvex, so ``g(Z, x̃) = Z + 1 x̃ᵀ`` (identity head with a
    shared learned offset) keeps the problem convex.  Variants:

    * ``default`` (squared loss): ``f_i = ½‖Z_i + 1x̃ᵀ − Y_i‖² + ρ/2 (‖X_i‖² + ‖Z_i‖² + ‖x̃‖²)``;
      the spectrum of ``Q_i`` is ``{ρ, 1+ρ, samples+1+ρ}``, so ``ρ = (samples+1)/(κ_f − 1)``
      gives ``κ_f`` exactly.  ``ρ/2‖x̃‖²`` per node is the paper's ``(1/n) r(X̃_i)`` with
      ``r = nρ/2‖·‖²``; the ridge on ``Z_i`` is added (not in the paper) so that ``f_i``
      is strongly convex.
    * ``logistic`` (``c = 1``): labels ``±1``, ``f_i`` = mean logistic loss of the margin
      ``y_s (Z_i[s] + x̃)`` plus ``λ/2‖z_i‖²`` with ``λ`` set from ``κ_f`` exactly.

    κ̂_A is fixed by the data and reported (``realized``), not tunable.
    Keywords: ``samples`` (5), ``features`` (4), ``out_dim`` (1), ``noise`` (0.1), ``gossip``, ``er_p``.
    """
    family = "vertical-fl"
    seed = check_seed(seed)
    check_variant(family, variant, ("default", "logistic"))
    reject_unknown(family, kw, list(COMMON_KW) + ["samples", "features", "out_dim", "noise", "kappa_A"])
    reject_targets(family, {
        "kappa_AC": (kappa_AC if kappa_AC is not None else kw.get("kappa_A"),
                     "κ̂_A of the VFL constraint is fixed by the features and the −I blocks of Z; it is reported, not tuned"),
        "kappa_C": (kappa_C, "the VFL problem has no local constraints"),
        "kappa_Ct": (kappa_Ct, "the VFL problem has no shared-variable constraints (only consensus)"),
    })
    kappa_f = check_kappa("kappa_f", kappa_f, allow_one=False)
    kappa_W = check_kappa("kappa_W", kappa_W)
    samples = check_int("samples", kw.get("samples", 5), 1)
    features = check_int("features", kw.get("features", 4), 1)
    c = check_int("out_dim", kw.get("out_dim", 1), 1)
    noise = float(kw.get("noise", 0.1))
    if variant == "logistic" and c != 1:
        raise ValueError(f"{family}: variant 'logistic' needs out_dim = 1, got {c}")
    gs = make_gossip(graph, None if n is None else check_int("n", n, 2), default_n=6, kappa_W=kappa_W,
                     gossip=kw.get("gossip", "laplacian"), seed=seed, er_p=kw.get("er_p"))
    n = gs.n
    F, Y = _vfl_data(n, samples, features, c, noise, variant, seeded_rng(seed, "vfl-data"))
    A = _vfl_coupling(F, samples, c)
    N = n * samples
    d_i = (features + samples) * c
    lay = Layout((d_i,) * n, c)
    if variant == "default":
        obj, oinfo, closed = _vfl_squared(Y, n, samples, features, c, kappa_f, lay)
    else:
        obj, oinfo, closed = _vfl_logistic(Y, n, samples, features, kappa_f, lay)
    targets = {"kappa_f": kappa_f}
    if kappa_W is not None:
        targets["kappa_W"] = kappa_W
    problem = MixedProblem(gs.W, obj, lay, A=A, b=[np.zeros(N * c) for _ in range(n)], edges=gs.adjacency,
                           name=f"{family}(n={n}, seed={seed})", meta={"family": family, "seed": seed})
    params = {"n": n, "samples_per_block": samples, "features_per_party": features, "out_dim": c, "N": N,
              "m": N * c, "d": d_i, "dt": c, "eps": eps, "graph": gs.info, "objective": oinfo["type"],
              "tuning": {"kappa_f": oinfo, "kappa_W": gs.info.get("tuning"), "kappa_A": "not tunable (data)"}}
    notes = [
        "vertical-fl: decentralized VFL of the introduction; node i = party i = holder of sample block i "
        "(the paper's 'p' sample blocks read as n).",
        "top model g(Z, x~) = Z + 1 x~^T (the bilinear Z X~ would be nonconvex); ridge on Z_i added for strong convexity.",
        "x_i = (vec X_i row-major (features x out_dim), vec Z_i row-major (samples x out_dim)).",
    ]
    closed.update(gs.closed_forms)
    return finish_instance(family, variant, problem, targets, seed=seed, params=params, notes=notes, closed_forms=closed)


def _vfl_data(n: int, samples: int, features: int, c: int, noise: float, variant: str, rng: np.random.Generator):
    """Party features ``F_i`` (``N × features``) and targets ``Y`` (``N × c``) of a noisy linear model."""
    N = n * samples
    F = [rng.standard_normal((N, features)) / np.sqrt(features) for _ in range(n)]
    Wtrue = [rng.standard_normal((features, c)) for _ in range(n)]
    bias = rng.standard_normal(c)
    score = sum(F[i] @ Wtrue[i] for i in range(n)) + bias
    if variant == "default":
        Y = score + noise * rng.standard_normal((N, c))
    else:
        Y = np.sign(score + noise * rng.standard_normal((N, c)))
        Y[Y == 0] = 1.0
    return F, Y


def _vfl_coupling(F: list, samples: int, c: int) -> list:
    """``A_i = [F_i ⊗ I_c, −E_i ⊗ I_c]`` (``E_i`` places sample block ``i``)."""
    n = len(F)
    N = n * samples
    Ic = sp.identity(c, format="csr")
    A = []
    for i in range(n):
        E = sp.csr_matrix((np.ones(samples), (np.arange(i * samples, (i + 1) * samples), np.arange(samples))), shape=(N, samples))
        A.append(sp.hstack([sp.kron(sp.csr_matrix(F[i]), Ic), -sp.kron(E, Ic)], format="csr"))
    return A


def _vfl_squared(Y, n: int, samples: int, features: int, c: int, kappa_f: float, lay: Layout):
    """Variant ``default``: squared loss with ridge ``ρ = (samples+1)/(κ_f − 1)``; returns (objective, info, closed forms)."""
    rho = (samples + 1.0) / (kappa_f - 1.0)
    Qs, qs = [], []
    ones = np.ones((samples, 1))
    for i in range(n):
        Yi = Y[i * samples:(i + 1) * samples]
        H = np.block([[np.eye(samples), ones], [ones.T, samples * np.eye(1)]])
        Hc = np.kron(H, np.eye(c))  # (Z row-major (samples × c), x̃) ordering
        Q = sp.block_diag([rho * sp.identity(features * c), sp.csr_matrix(Hc) + rho * sp.identity((samples + 1) * c)], format="csr")
        q = np.concatenate([np.zeros(features * c), Yi.ravel(), Yi.sum(axis=0)])
        Qs.append(Q)
        qs.append(q)
    obj = QuadraticObjective(Qs, qs, lay)
    oinfo = {"type": "quadratic", "rho": rho, "tuning": "rho = (samples + 1)/(kappa_f - 1): spectrum {rho, 1+rho, samples+1+rho}"}
    closed = {"Q_i spectrum {ρ, 1+ρ, samples+1+ρ} ⇒ κ_f": {
        "printed": (samples + 1 + rho) / rho, "computed": obj.kappa,
        "holds": bool(rel_gap(obj.kappa, (samples + 1 + rho) / rho) <= 1e-10), "label": "ass:smooth_and_str_convex_of_f_i"}}
    return obj, oinfo, closed


def _vfl_logistic(Y, n: int, samples: int, features: int, kappa_f: float, lay: Layout):
    """Variant ``logistic`` (``c = 1``): margin ``y_s (Z_i[s] + x̃)``, ridge ``λ`` from κ_f exactly."""
    feats, labs = [], []
    for i in range(n):
        Fl = np.hstack([np.zeros((samples, features)), np.eye(samples), np.ones((samples, 1))])
        feats.append(Fl)
        labs.append(Y[i * samples:(i + 1) * samples, 0])
    L_loss = max(float(np.linalg.norm(Fl, 2) ** 2) / (4 * samples) for Fl in feats)
    reg = L_loss / (kappa_f - 1.0)
    obj = LogisticObjective(feats, labs, reg, lay)
    return obj, {"type": "logistic", "reg": reg, "L_loss": L_loss, "tuning": "reg = L_loss/(kappa_f - 1)"}, {}


#: the family of this module (collected by :func:`mixbounds.instances.families.families`)
FAMILIES = {"vertical-fl": vertical_fl}
