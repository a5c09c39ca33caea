"""Adversarial search on the lemmas every upper bound rests on: the worst case a local optimiser can find.

The lemma checks evaluate each statement on seeded cases.  Here the same point functions (the same code for both
sides of the statement) are driven by a search that *minimises* the statement's ratio (oriented so that ``>= 1``
means "holds") over matrices and graphs inside the lemma's hypotheses: ``starts`` random parameter vectors, then
a Nelder–Mead local search (adaptive, ``maxfev`` evaluations) from the ``restarts`` worst of them.  Parameters map
to hypotheses by construction: a gossip matrix is the Laplacian of the complete graph with weights ``exp(θ)``
(every connected weighted graph is a limit of these; ``ass:W`` holds), blocks are the raw entries of ``θ``;
points whose zero/positive eigenvalue split is not clear-cut (:data:`mixbounds.checks.lemmas.cases.CLEAR_ZERO`) are outside the search
(penalised), and so are points with a condition number above :data:`COND_MAX` (the range the lemma checks' tolerances
are derived for), so rounding cannot fake a violation.

A :class:`Search` declares the statements of one lemma (:class:`Statement`): ``holds`` (must survive the search),
``printed-false`` (a printed statement the lemma check already reports as a finding: the search must reach a
violation too, or it is weaker than sampling and the result fails) and ``control`` (a deliberately false variant:
the search must find a violation; the control result is then ``fail``, i.e. caught).  Results:

``lemma.<name>.adversarial``
    ``pass`` when every ``holds`` statement survives; ``finding`` when a ``printed-false`` one is violated (expected,
    declared) or a ``holds`` one is (unexpected: a new finding, with the counterexample in the result's points as an
    explicit case :func:`mixbounds.checks.lemmas.cases.materialize` loads); ``fail`` when the search misses a ``printed-false`` violation.
    ``readings``: per statement the worst ratio of the lemma check's own seeded cases (``sampled``) and the worst the
    search found (``searched``), the budget and the seed.
``lemma.<name>.adversarial.control``
    the search on the false variant; caught (``fail``) when it finds a violation.

Budgets (:data:`SETTINGS`): a few hundred evaluations per statement in the quick tier, ~20 000 in the full tier.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from importlib import import_module
from typing import Callable

import numpy as np
from mixbounds.checks.lemmas.base import INEQ_RTOL, LemmaCheck, Point, Result
from mixbounds.checks.lemmas.cases import seeded_rng
from mixbounds.checks.run.result import CheckResult, Finding, reading
from mixbounds.checks.tiers import TIERS, Tier, per_tier, tier_by_name
from scipy.optimize import minimize

#: log-ratio given to a point outside the hypotheses (unclear split, infinite ratio): far above any real point
OUTSIDE = 50.0
#: Nelder–Mead stops earlier when the simplex is this small (θ and log-ratio): rounding level
NM_TOL = 1e-10
#: points whose condition number (``"cond"`` of an evaluation) exceeds this are outside the search: the lemma cases
#: stay below 1e8 (:mod:`mixbounds.checks.lemmas.cases`) and the tolerances (1e-7) assume a relative rounding error
#: ~1e-16·κ; a search drives straight to that edge (local_spectrum's corrected formula reached 1 − 4e-8 at κ ≈ 1e8),
#: so it stays an order of magnitude inside
COND_MAX = 1e7


@dataclass(frozen=True)
class Budget:
    """The search budget of one tier per lemma statement: ``(random starts, local restarts, evaluations per restart)``
    and ``cost``, the scheduling cost estimate of one search task."""

    budget: tuple
    cost: float


#: the budgets per tier
SETTINGS = per_tier(tiny=Budget(budget=(8, 1, 20), cost=0.5), quick=Budget(budget=(24, 2, 40), cost=1.0),
                    full=Budget(budget=(300, 8, 2400), cost=60.0))


@dataclass(frozen=True)
class Statement:
    """One inequality (or equality) of a lemma as a ratio ``>= 1``: ``key`` in the evaluation, ``role`` one of
    ``holds``, ``printed-false``, ``control``; ``tol``: ``holds`` means ``ratio >= 1 − tol``."""

    key: str
    text: str
    role: str = "holds"
    tol: float = INEQ_RTOL


@dataclass(frozen=True)
class Search:
    """The search on one lemma (module docstring).

    ``shapes``: sizes of the parameterisations (a start cycles through them); ``sample(rng, shape)``: a random
    parameter vector; ``case(θ, shape)``: the explicit case of :func:`mixbounds.checks.lemmas.cases.materialize` it stands for;
    ``evaluate(case)``: ratios by statement key (``None``: outside the hypotheses); ``lemma``: the lemma check
    whose seeded cases give the sampled worst, read by ``sampled(point)`` (ratios by key, missing keys skipped).
    """

    name: str
    label: str
    module: str
    statements: tuple[Statement, ...]
    shapes: tuple[dict, ...]
    sample: Callable
    case: Callable
    evaluate: Callable
    lemma: LemmaCheck
    sampled: Callable
    seed: int = 0
    finding: str | None = None

    @property
    def id(self) -> str:
        return f"lemma.{self.name}.adversarial"


def search_point(case: dict, _cost: float = 0.0) -> dict:
    """Run the search of ``case["module"]``'s ``SEARCH`` on statement ``case["key"]`` with the budget of
    ``case["tier"]`` (module docstring)."""
    spec: Search = import_module(case["module"]).SEARCH
    key, tier = case["key"], tier_by_name(case["tier"])
    starts, restarts, maxfev = SETTINGS[tier.name].budget
    rng = seeded_rng(spec.seed, f"adversarial-{spec.name}-{key}")
    best = {"ratio": math.inf, "theta": None, "shape": None}
    evals = [0]
    t0 = time.perf_counter()

    def ratio(theta: np.ndarray, shape: dict) -> float:
        evals[0] += 1
        try:
            r = spec.evaluate(spec.case(theta, shape))
        except (np.linalg.LinAlgError, ValueError, ZeroDivisionError, FloatingPointError):
            return math.inf
        if r is not None and r.get("cond", 1.0) > COND_MAX:
            return math.inf
        v = None if r is None else r.get(key)
        if v is None or not math.isfinite(v) or v <= 0:
            return math.inf
        if v < best["ratio"]:
            best.update(ratio=float(v), theta=np.array(theta, float), shape=shape)
        return float(v)

    cands = []
    for s in range(starts):
        shape = spec.shapes[s % len(spec.shapes)]
        th = spec.sample(rng, shape)
        cands.append((ratio(th, shape), s, th, shape))
    finite = [c for c in cands if math.isfinite(c[0])]
    sampled = min((c[0] for c in finite), default=math.inf)
    for r0, _, th0, shape in sorted(finite, key=lambda c: c[0])[:restarts]:
        minimize(lambda th, sh=shape: math.log(v) if math.isfinite(v := ratio(th, sh)) else OUTSIDE, th0,
                 method="Nelder-Mead", options={"maxfev": maxfev, "adaptive": True, "xatol": NM_TOL, "fatol": NM_TOL})
    out = {"key": key, "starts": starts, "restarts": restarts, "maxfev": maxfev, "evaluations": evals[0],
           "seed": spec.seed, "valid_starts": len(finite), "random_worst": sampled,
           "searched_worst": best["ratio"] if math.isfinite(best["ratio"]) else None,
           "search_seconds": time.perf_counter() - t0}
    if best["theta"] is not None:
        case = spec.case(best["theta"], best["shape"])
        out["worst_case"] = dict(case, label=f"{spec.name} {key}: worst of the search (ratio {best['ratio']:.6g})")
        out["worst_shape"] = best["shape"]
    return out


def _sampled_worst(spec: Search, pts: list[dict]) -> dict:
    worst: dict = {}
    for p in pts:
        for k, v in (spec.sampled(p) or {}).items():
            if v is not None and math.isfinite(v):
                worst[k] = min(worst.get(k, math.inf), v)
    return worst


def _finalize(spec: Search, tier: Tier, pts: list[dict], ids: tuple) -> list[CheckResult]:
    n_lemma = len(spec.lemma.cases(tier))
    sampled = _sampled_worst(spec, pts[:n_lemma])
    found = {p["key"]: p for p in pts[n_lemma:]}
    starts, restarts, maxfev = SETTINGS[tier.name].budget
    rd, bad, known, missed = {}, [], [], []
    for st in spec.statements:
        p = found[st.key]
        sw = p["searched_worst"]
        rd[f"{st.key}: sampled worst"] = sampled.get(st.key)
        rd[f"{st.key}: searched worst"] = sw
        violated = sw is not None and sw < 1 - st.tol
        if st.role == "holds" and violated:
            bad.append(st)
        elif st.role == "printed-false":
            (known if violated else missed).append(st)
    rd.update({"budget (evaluations per statement)": starts + restarts * maxfev, "random starts": starts,
               "local restarts": restarts, "evaluations per restart": maxfev, "seed": spec.seed})
    holds = [st for st in spec.statements if st.role == "holds"]
    primary = min((found[st.key]["searched_worst"] for st in holds if found[st.key]["searched_worst"] is not None),
                  default=float("nan"))
    rd["worst searched ratio of the statements that hold"] = primary
    if missed:
        status = "fail"
    else:
        status = "finding" if bad or known else "pass"
    findings = () if missed else tuple(Finding(
        id=f"finding:{spec.id}.{st.key}", label=spec.label, statement=st.text, printed=">= 1",
        measured=found[st.key]["searched_worst"], source=spec.id,
        detail=(("a statement the lemma check reports as printed-false, violated by the search too" if st in known
                 else "a NEW violation: the statement holds on the lemma check's cases")
                + f" ({found[st.key]['evaluations']} evaluations, seed {spec.seed}; ratio "
                  f"{found[st.key]['searched_worst']:.6g} < 1); worst case (explicit, loadable by "
                  f"mixbounds.checks.lemmas.cases.materialize): {found[st.key].get('worst_case')}"))
        for st in bad + known)
    lines = [f"{st.key} ({st.role}): sampled {_fmt(sampled.get(st.key))}, searched {_fmt(found[st.key]['searched_worst'])}"
             for st in spec.statements if st.role != "control"]
    res = CheckResult(
        id=ids[0], kind="lemma", status=status, label=spec.label, findings=findings,
        theory="; ".join(f"{st.text} (ratio >= 1)" for st in spec.statements if st.role != "control"),
        **reading("worst searched ratio of the statements that hold", rd), tolerance=INEQ_RTOL,
        points=[{k: v for k, v in p.items()} for p in pts[n_lemma:] if p["key"] in {s.key for s in spec.statements
                                                                                  if s.role != "control"}],
        instance={"budget": [starts, restarts, maxfev], "seed": spec.seed, "shapes": list(spec.shapes)},
        detail=(f"Search: {starts} random starts within the hypotheses, Nelder–Mead from the {restarts} worst "
                f"({maxfev} evaluations each), seed {spec.seed}; sampled = the worst of the lemma check's "
                f"{n_lemma} seeded cases. " + "; ".join(lines) + "."
                + (f" Printed statements violated as the lemma check reports: {[s.key for s in known]}." if known else "")
                + (f" The search MISSED the known violation of {[s.key for s in missed]}." if missed else "")
                + (f" NEW violation of {[s.key for s in bad]} (counterexamples in the points)." if bad else "")))
    out = [res]
    for st in (s for s in spec.statements if s.role == "control"):
        p = found[st.key]
        caught = p["searched_worst"] is not None and p["searched_worst"] < 1 - st.tol
        out.append(CheckResult(
            id=ids[1], kind="lemma", status="fail" if caught else "pass", label=spec.label, control=True, expected="fail",
            theory=f"{st.text} (a deliberately false variant; the search must violate it)",
            **reading("searched worst ratio", {"searched worst ratio": p["searched_worst"] if p["searched_worst"] is not None
                                               else float("nan"), "sampled worst ratio": sampled.get(st.key),
                                               "worst of the random starts": p["random_worst"],
                                               "evaluations": p["evaluations"], "seed": spec.seed}),
            tolerance=st.tol, points=[p],
            detail=(f"the search {'violates' if caught else 'does NOT violate'} the false variant: worst ratio "
                    f"{_fmt(p['searched_worst'])} after {p['evaluations']} evaluations (random starts alone: "
                    f"{_fmt(p['random_worst'])}).")))
    return out


def _fmt(v) -> str:
    return "—" if v is None else f"{v:.6g}"


def adversarial_check(spec: Search) -> LemmaCheck:
    """The :class:`LemmaCheck` of a search: the lemma check's own cases (shared tasks: computed once per run) for the
    sampled worst, then one search task per statement."""
    ctrl = [s for s in spec.statements if s.role == "control"]
    if len(ctrl) != 1:
        raise ValueError(f"{spec.name}: a search declares exactly one control statement, got {len(ctrl)}")

    def cases(tier: Tier) -> list:
        own = [c if isinstance(c, Point) else Point(spec.lemma.point, c) for c in spec.lemma.cases(tier)]
        return own + [Point(search_point, {"module": spec.module, "key": st.key, "tier": tier.name},
                            f"adversarial {spec.name}: {st.key}", cost=SETTINGS[tier.name].cost)
                      for st in spec.statements]

    return LemmaCheck(
        id=spec.id, label=spec.label, description=f"adversarial search on {spec.label}",
        results=(Result(spec.id, finding=spec.finding), Result(f"{spec.id}.control", control=True)),
        cases=cases, finalize=lambda tier, pts, ids: _finalize(spec, tier, pts, ids), tiers=TIERS)


# ----------------------------------------------------------------------------- parameterisation helpers
def complete_laplacian(theta: np.ndarray, n: int) -> np.ndarray:
    """Laplacian of the complete graph on ``n`` nodes with edge weights ``exp(θ)`` (``θ`` clipped to ``[−8, 8]``)."""
    w = np.exp(np.clip(theta, -8.0, 8.0))
    Wm = np.zeros((n, n))
    iu = np.triu_indices(n, 1)
    Wm[iu] = -w
    Wm = Wm + Wm.T
    Wm[np.diag_indices(n)] = -Wm.sum(axis=1)
    return Wm


def n_edges(n: int) -> int:
    return n * (n - 1) // 2


def take(theta: np.ndarray, pos: int, count: int, shape: tuple) -> tuple[np.ndarray, int]:
    """``theta[pos:pos+count]`` reshaped, and the next position."""
    return np.asarray(theta[pos:pos + count], float).reshape(shape), pos + count
