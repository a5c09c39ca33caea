"""Which K-step PEP worst cases from APAPC's actual start use the network (issue 46): rank, dual share, single modes.

For every configuration (class scope, or a fixed network: path/ring of 3–6 nodes; with or without Chebyshev; K steps
from the algorithm's start ``u_f⁰ = u⁰``) prints ``ρ_PEP``, the class value, the worst case's rank and leading Gram
eigenvalues, the dual share of ``V⁰``, the network share of ``u⁰`` and the worst single mode ``ρ_mode``
(:mod:`mixbounds.checks.pep.kinds.modes`) with its ``(h, λ)``.  The consensus class (``prob:consensus_cons``), ``L_f =
κ_f``, ``μ_f = 1``.  Output: one JSON line per configuration, then a Markdown table (``docs/records/pep-rank.md``
records one run).

Usage: ``python benchmarks/pep_rank_survey.py [scope,kind,n,κ_f,κ_W,method,K ...]`` (default: the survey of the
record; ``scope`` is ``class`` or ``network``; ``method`` is ``apapc`` or ``apapc-nocheb``).
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
from mixbounds.checks.pep.kinds.modes import mode_bound
from mixbounds.checks.pep.kinds.points import class_point, network_point
from mixbounds.checks.pep.model import ClassData, linear_model
from mixbounds.checks.pep.networks import network

C, N = "apapc", "apapc-nocheb"
#: the record's survey: the paths and rings of 3–6 nodes with and without Chebyshev (odd degree ⌈√81⌉ = 9: P is not a
#: scaled projector), K = 5 and 8, the regimes χ < κ, χ = κ and χ > κ
SURVEY = [("class", "path", 3, 10.0, 1000.0, N, 5), ("network", "path", 3, 10.0, 1000.0, N, 5),
          ("network", "path", 3, 1.5, 1000.0, N, 5), ("network", "path", 3, 1.5, 10.5, N, 5),
          ("network", "path", 3, 10.0, 10.5, N, 5), ("network", "path", 5, 1.5, 100.0, N, 5),
          ("network", "ring", 6, 1.5, 30.0, N, 5), ("network", "path", 4, 10.0, 81.0, C, 5),
          ("network", "path", 4, 1.5, 81.0, C, 5), ("network", "ring", 5, 10.0, 81.0, C, 5),
          ("network", "ring", 5, 1.5, 81.0, C, 5), ("class", "path", 3, 30.0, 100.0, N, 5),
          ("class", "path", 3, 90.0, 100.0, N, 5), ("class", "path", 3, 100.0, 100.0, N, 5),
          ("network", "path", 3, 100.0, 100.0, N, 5), ("class", "path", 3, 110.0, 100.0, N, 5),
          ("class", "path", 3, 300.0, 100.0, N, 5), ("class", "path", 3, 100.0, 100.0, N, 8),
          ("class", "path", 3, 10.0, 10.0, N, 5), ("class", "path", 3, 30.0, 30.0, N, 5)]


def survey_point(scope: str, kind: str, n: int, kappa_f: float, kappa_W: float, method: str, K: int) -> dict:
    """One configuration (module docstring)."""
    model = linear_model(ClassData("consensus", network(kind, n, kappa_W), float(kappa_f), 1.0, (), method))
    t0 = time.process_time()
    if scope == "class":
        p, lams = class_point("consensus", kappa_f, kappa_W, method, K=K, start="algorithm"), None
    else:
        p, lams = network_point(model, K=K, start="algorithm"), np.linalg.eigvalsh(model.P)
    mb = mode_bound(model.params, K, "algorithm", lams)
    keys = ("rho_pep", "rho_class", "rho_theorem", "rank", "gram_eigs", "dual_share_V0", "network_share_u0",
            "gram_size", "accuracy", "solved", "exact", "kappa_G", "chi")
    return {"scope": scope, "network": f"{kind} {n}", "kappa_f": kappa_f, "kappa_W": kappa_W, "method": method, "K": K,
            "degree": model.degree, **{k: p.get(k) for k in keys}, **mb.record(), "cpu": time.process_time() - t0}


def _row(r: dict) -> str:
    f = lambda v, d=7: "—" if v is None else f"{v:.{d}f}"  # noqa: E731
    eig2 = r["gram_eigs"][1] if r.get("gram_eigs") and len(r["gram_eigs"]) > 1 else None
    beyond = None if r.get("rho_pep") is None else r["rho_pep"] ** r["K"] - r["rho_mode"] ** r["K"]
    return (f"| {r['scope']} | {r['network'] if r['scope'] == 'network' else '—'} | {r['method']} (deg {r['degree']}) | "
            f"{r['kappa_f']:g} | {r['kappa_W']:g} | {r['chi']:.4g} | {r['K']} | {f(r.get('rho_pep'))} | "
            f"{f(r.get('rho_class')) if r['scope'] == 'network' else '—'} | {r.get('rank')} | "
            f"{'—' if eig2 is None else f'{eig2:.1e}'} | {f(r.get('dual_share_V0'), 3)} | "
            f"{f(r.get('network_share_u0'), 3) if r['scope'] == 'network' else '—'} | {f(r['rho_mode'])} | "
            f"{r['mode_h']:.3g}, {r['mode_lambda']:.3g} | {'—' if beyond is None else f'{beyond:.1e}'} |")


def main(argv: list[str]) -> int:
    pts = SURVEY if not argv else [(a[0], a[1], int(a[2]), float(a[3]), float(a[4]), a[5], int(a[6]))
                                   for a in (s.split(",") for s in argv)]
    rows = []
    for pt in pts:
        r = survey_point(*pt)
        rows.append(r)
        print(json.dumps(r), flush=True)
    print("| scope | network | method | κ_f | κ_W | χ | K | ρ_PEP | ρ_class | rank | 2nd Gram eig. | dual share V⁰ | "
          "network share u⁰ | ρ_mode | mode (h, λ) | ρ_PEP^K − ρ_mode^K |")
    print("|" + "---|" * 16)
    for r in rows:
        print(_row(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
