"""Small random problems for unit tests (the seeded families proper live in mixbounds.instances.random), and a
copy of the package in its installed layout for the tests that change the suite (mutants, contributing recipes)."""

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.layers import FOLDERS
from mixbounds.instances import Layout, MixedProblem, QuadraticObjective

ROOT = Path(__file__).resolve().parent.parent
#: the folders setuptools maps to mixbounds.<folder> (pyproject.toml, package-dir; declared in mixbounds.bounds.layers)
MAPPED_FOLDERS = FOLDERS


def installed_copy(dst: Path) -> Path:
    """The installed layout of the package under ``dst`` (importable with ``PYTHONPATH=dst``); returns the package."""
    pkg = dst / "mixbounds"
    shutil.copytree(ROOT / "src" / "mixbounds", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    for sub in MAPPED_FOLDERS:
        shutil.copytree(ROOT / sub, pkg / sub, ignore=shutil.ignore_patterns("__pycache__"))
    return pkg


def path_laplacian(n: int) -> sp.csr_matrix:
    main = np.full(n, 2.0)
    main[0] = main[-1] = 1.0
    return sp.diags([main, -np.ones(n - 1), -np.ones(n - 1)], [0, -1, 1], format="csr")


def ring_laplacian(n: int) -> sp.csr_matrix:
    A = sp.diags([np.ones(n - 1), np.ones(n - 1)], [-1, 1], shape=(n, n), format="lil")
    A[0, n - 1] = A[n - 1, 0] = 1
    A = sp.csr_matrix(A)
    return sp.csr_matrix(sp.diags(np.asarray(A.sum(axis=1)).ravel()) - A)


def random_problem(rng, *, n=5, d=3, dt=2, m=2, p=1, pt=1, coupled=True, local=True, shared=True, mu=0.5):
    """A random strongly convex quadratic mixed problem with feasible constraints."""
    ds = tuple(int(d) for _ in range(n)) if d else tuple(0 for _ in range(n))
    lay = Layout(ds, dt)
    Q, q = [], []
    for i in range(n):
        k = ds[i] + dt
        G = rng.standard_normal((k, k))
        Q.append(G @ G.T / k + mu * np.eye(k))
        q.append(rng.standard_normal(k))
    obj = QuadraticObjective(Q, q, lay)
    x0 = [rng.standard_normal(di) for di in ds]
    xt0 = rng.standard_normal(dt)
    kw = {}
    if coupled and d:
        A = [rng.standard_normal((m, di)) for di in ds]
        kw["A"] = A
        kw["b"] = [A[i] @ x0[i] for i in range(n)]
    if local and d:
        C = [rng.standard_normal((p, di)) for di in ds]
        kw["C"] = C
        kw["c"] = [C[i] @ x0[i] for i in range(n)]
    if shared and dt:
        Ct = [rng.standard_normal((pt, dt)) for _ in range(n)]
        kw["Ct"] = Ct
        kw["ct"] = [Ci @ xt0 for Ci in Ct]
    return MixedProblem(ring_laplacian(n) if n > 2 else path_laplacian(n), obj, lay, **kw)


# ---------------------------------------------------------------------- independent oracle count
class CountingProxy:
    """A raw matrix that counts every product taken with it."""

    def __init__(self, M, tally, key):
        self.M, self.tally, self.key = M, tally, key

    def __matmul__(self, v):
        self.tally[self.key] += 1
        return self.M @ v


class CountingObjective:
    """A raw objective that counts every gradient call."""

    def __init__(self, obj, tally):
        self.obj, self.tally = obj, tally

    def grad(self, u):
        self.tally["grad"] += 1
        return self.obj.grad(u)


def wrap_oracles(orc):
    """Replace the internals of a CountedOracles by counting proxies; returns the independent tally."""
    from mixbounds.solvers import ORACLES

    tally = {k: 0 for k in ORACLES}
    orc._W = CountingProxy(orc._W, tally, "comm")
    orc._obj = CountingObjective(orc._obj, tally)
    for attr, key in (("_bA", "A"), ("_bAT", "A"), ("_bC", "C"), ("_bCT", "C"), ("_bCt", "Ct"), ("_bCtT", "Ct")):
        if hasattr(orc, attr):
            setattr(orc, attr, CountingProxy(getattr(orc, attr), tally, key))
    return tally


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (read from /proc: a test of processes outliving a parent)."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stall_first_quadratic_scaling(monkeypatch, module) -> None:
    """Make ``module.solve_pep`` report every PEP over quadratics in a scaling with ``L_f ≠ 1`` as unsolved (its
    proof residual set to 1e-3), so that :func:`mixbounds.checks.pep.series.quadratic_worst_case` must take the
    rescaled PEP (``L_f = 1``); other solves are left as they are."""
    real = module.solve_pep

    def first_scaling_stalls(model, K, function_class="smooth_strongly_convex", **kw):
        out = real(model, K=K, function_class=function_class, **kw)
        stall = function_class == "quadratic" and model.data.L_f != 1.0
        return dataclasses.replace(out, proof_residual=1e-3) if stall else out

    monkeypatch.setattr(module, "solve_pep", first_scaling_stalls)
