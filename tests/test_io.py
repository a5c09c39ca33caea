"""Instance directories (instances/io.py): exact round trips, atomic writes, clear errors on bad input."""

import json
import os

import mixbounds.instances.io as iio
import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from mixbounds.instances.families import build
from mixbounds.instances.io import load_instance, save_instance
from mixbounds.instances.reference.kkt import reference_solution

#: constraint residual of x* read back with numpy/scipy only (no package code)
RAW_FEAS_RTOL = 1e-9

ROUND_TRIP = [
    ("random-mixed", dict(kappa_AC=40.0, kappa_C=5.0, kappa_Ct=9.0, kappa_W=20.0, graph="ring")),
    ("random-mixed-ident", dict(kappa_Ct=9.0, objective="logistic", n=5)),
    ("random-shared-ident", dict(kappa_Ct=4.0)),
    ("logistic-consensus", dict(kappa_f=30.0)),
    ("vertical-fl", dict(variant="logistic", n=4)),
    ("vertical-fl", dict(out_dim=2, n=3)),
    ("local-global", dict(kappa_f=50.0, n=5)),
    ("random-coupled", dict(kappa_A=20.0, kappa_W=12.0)),
    ("nonsmooth-mixed", dict(variant="strongly-convex")),
    ("nonsmooth-coupled-local", dict(kappa_W=12.0)),
    ("convex-coupled", dict(rank=1)),
]


def _with_reference(inst):
    """The instance with its reference: the family's own (convex, nonsmooth), else the sparse KKT solve."""
    return inst if inst.x_star is not None else inst.with_reference(reference_solution(inst.problem).u)


def _same_matrix(a, b):
    A = a.toarray() if sp.issparse(a) else np.asarray(a)
    B = b.toarray() if sp.issparse(b) else np.asarray(b)
    return A.shape == B.shape and np.array_equal(A, B)


def assert_identical(a, b):
    P, Q = a.problem, b.problem
    assert P.layout == Q.layout
    assert _same_matrix(P.W, Q.W)
    assert (P.edges is None) == (Q.edges is None)
    if P.edges is not None:
        assert _same_matrix(sp.csr_matrix(P.edges, dtype=bool), Q.edges)
    for g, v in (("A", "b"), ("C", "c"), ("Ct", "ct")):
        assert (getattr(P, g) is None) == (getattr(Q, g) is None)
        if getattr(P, g) is not None:
            assert all(_same_matrix(x, y) for x, y in zip(getattr(P, g), getattr(Q, g)))
            assert all(np.array_equal(x, y) for x, y in zip(getattr(P, v), getattr(Q, v)))
    assert (P.C_kernels is None) == (Q.C_kernels is None)
    if P.C_kernels is not None:
        assert all(_same_matrix(x, y) for x, y in zip(P.C_kernels, Q.C_kernels))
    fo, go = P.objective, Q.objective
    assert type(fo) is type(go)
    assert fo.describe() == go.describe()
    if hasattr(fo, "Q_blocks"):
        assert all(_same_matrix(x, y) for x, y in zip(fo.Q_blocks, go.Q_blocks))
        assert all(np.array_equal(x, y) for x, y in zip(fo.q_blocks, go.q_blocks))
    elif hasattr(fo, "labels"):
        assert fo.reg == go.reg
        assert all(np.array_equal(x, y) for x, y in zip(fo.features, go.features))
        assert all(np.array_equal(x, y) for x, y in zip(fo.labels, go.labels))
    else:  # absolute deviations (nonsmooth families): features, targets, μ_f and the box
        assert (fo.mu, fo.rho, fo.M, fo.M_total) == (go.mu, go.rho, go.M, go.M_total)
        assert all(np.array_equal(x, y) for x, y in zip(fo.features, go.features))
        assert all(np.array_equal(x, y) for x, y in zip(fo.targets, go.targets))
    assert (a.x_star is None) == (b.x_star is None)
    if a.x_star is not None:
        assert np.array_equal(a.x_star, b.x_star)
    assert P.name == Q.name and P.meta == Q.meta and P.problem_class == Q.problem_class
    for f in ("family", "variant", "targets", "realized", "closed_forms", "findings", "params", "notes", "seed"):
        assert getattr(a, f) == getattr(b, f), f


@pytest.mark.parametrize("family,params", ROUND_TRIP, ids=[f"{f}-{i}" for i, (f, _) in enumerate(ROUND_TRIP)])
def test_round_trip_is_exact(tmp_path, family, params):
    inst = _with_reference(build(family, **params))
    out = save_instance(inst, tmp_path / "inst")
    assert out == (tmp_path / "inst").absolute()
    back = load_instance(out)
    assert_identical(inst, back)
    # saving the loaded instance gives the same files, byte for byte
    out2 = save_instance(back, tmp_path / "again")
    for name in os.listdir(out):
        assert (out / name).read_bytes() == (out2 / name).read_bytes(), name


def test_directory_layout_and_raw_readability(tmp_path):
    """Other tools read the files with numpy/scipy only: x_star (z-layout) satisfies the raw constraints."""
    inst = _with_reference(build("random-mixed", kappa_AC=40.0, kappa_C=5.0, kappa_Ct=9.0))
    out = save_instance(inst, tmp_path / "mixed")
    doc = json.loads((out / "instance.json").read_text(), parse_constant=lambda c: pytest.fail(f"non-strict JSON {c}"))
    n = doc["n"]
    expected = {"W.mtx", "edges.mtx", "x_star.npy"} | {f"{p}_{i}.{e}" for i in range(n) for p, e in
                                                      (("A", "mtx"), ("b", "npy"), ("C", "mtx"), ("c", "npy"), ("Ct", "mtx"),
                                                       ("ct", "npy"), ("Nker", "mtx"), ("Q", "mtx"), ("q", "npy"))}
    assert set(doc["files"]) == expected
    assert set(os.listdir(out)) == expected | {"instance.json"}
    for key in ("family", "variant", "targets", "realized", "n", "sizes", "objective", "files", "closed_forms",
                "findings", "params", "notes", "seed"):
        assert key in doc
    d, dt = doc["layout"]["d"], doc["layout"]["dt"]
    z = np.load(out / "x_star.npy")
    assert z.shape == (sum(d) + n * dt,)
    off = np.concatenate([[0], np.cumsum([di + dt for di in d])])
    xs = [z[off[i]:off[i] + d[i]] for i in range(n)]
    xts = [z[off[i] + d[i]:off[i + 1]] for i in range(n)]
    A = [sio.mmread(out / f"A_{i}.mtx") for i in range(n)]
    b = [np.load(out / f"b_{i}.npy") for i in range(n)]
    r = sum(A[i] @ xs[i] - b[i] for i in range(n))
    assert np.linalg.norm(r) <= RAW_FEAS_RTOL * (1 + sum(np.linalg.norm(bi) for bi in b))
    for i in range(n):
        C, c = sio.mmread(out / f"C_{i}.mtx"), np.load(out / f"c_{i}.npy")
        Ct, ct = sio.mmread(out / f"Ct_{i}.mtx"), np.load(out / f"ct_{i}.npy")
        assert np.linalg.norm(C @ xs[i] - c) <= RAW_FEAS_RTOL * (1 + np.linalg.norm(c))
        assert np.linalg.norm(Ct @ xts[i] - ct) <= RAW_FEAS_RTOL * (1 + np.linalg.norm(ct))
        assert np.array_equal(xts[i], xts[0])  # every node's copy of x̃
    # the objective files define f_i(z) = ½zᵀQz − qᵀz on z_i = (x_i, x̃)
    Q0, q0 = sio.mmread(out / "Q_0.mtx").toarray(), np.load(out / "q_0.npy")
    assert Q0.shape == (d[0] + dt, d[0] + dt) and q0.shape == (d[0] + dt,)


def test_absent_blocks_are_omitted_and_missing_x_star_loads(tmp_path):
    inst = build("random-consensus")
    out = save_instance(inst, tmp_path / "c")
    names = set(os.listdir(out))
    assert not any(n.startswith(("A_", "C_", "Ct_", "Nker_", "b_", "c_", "ct_")) for n in names)
    assert "x_star.npy" not in names
    back = load_instance(out)
    assert back.x_star is None
    assert_identical(inst, back)


def test_nonfinite_floats_round_trip_in_strict_json(tmp_path):
    from dataclasses import replace

    inst = replace(build("random-consensus"), realized={"kappa_f": 10.0, "kappa_x": float("inf")},
                   params={"nan": float("nan"), "neg": float("-inf"), "tuple": (1, 2)})
    out = save_instance(inst, tmp_path / "nf")
    json.loads((out / "instance.json").read_text(), parse_constant=lambda c: pytest.fail("non-strict JSON"))
    back = load_instance(out)
    assert back.realized["kappa_x"] == float("inf")
    assert np.isnan(back.params["nan"]) and back.params["neg"] == float("-inf") and back.params["tuple"] == [1, 2]


# ------------------------------------------------------------------ atomic writes
@pytest.mark.parametrize("fail_after", [0, 5, 30])
def test_failure_mid_write_leaves_nothing(tmp_path, monkeypatch, fail_after):
    inst = _with_reference(build("random-mixed"))
    calls = {"n": 0}
    real = iio._write_npy

    def flaky(path, v):
        if calls["n"] >= fail_after:
            raise OSError("disk full (simulated)")
        calls["n"] += 1
        real(path, v)

    monkeypatch.setattr(iio, "_write_npy", flaky)
    target = tmp_path / "out"
    with pytest.raises(OSError, match="simulated"):
        save_instance(inst, target)
    assert not target.exists()
    assert os.listdir(tmp_path) == []  # no temporary directory left behind


def test_failure_while_replacing_keeps_the_old_instance(tmp_path, monkeypatch):
    old = build("random-consensus", seed=1)
    target = save_instance(old, tmp_path / "out")
    before = {n: (target / n).read_bytes() for n in os.listdir(target)}
    monkeypatch.setattr(iio, "_write_mtx", lambda *a, **k: (_ for _ in ()).throw(OSError("simulated")))
    with pytest.raises(OSError):
        save_instance(build("random-consensus", seed=2), target)
    assert {n: (target / n).read_bytes() for n in os.listdir(target)} == before
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_replace_rules(tmp_path):
    inst = build("random-consensus")
    save_instance(inst, tmp_path / "a")
    save_instance(build("random-consensus", seed=3), tmp_path / "a")  # an instance directory is replaced
    assert load_instance(tmp_path / "a").seed == 3
    (tmp_path / "empty").mkdir()
    save_instance(inst, tmp_path / "empty")  # an empty directory too
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "precious.txt").write_text("keep")
    with pytest.raises(ValueError, match="not an instance directory"):
        save_instance(inst, tmp_path / "other")
    assert (tmp_path / "other" / "precious.txt").read_text() == "keep"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        save_instance(inst, tmp_path / "file")
    save_instance(inst, tmp_path / "new" / "nested")  # parents are created
    assert (tmp_path / "new" / "nested" / "instance.json").is_file()


# ------------------------------------------------------------------ malformed directories
@pytest.fixture
def saved(tmp_path):
    inst = _with_reference(build("random-mixed", n=4, kappa_AC=10.0))
    return save_instance(inst, tmp_path / "inst")


def _edit_json(d, fn):
    p = d / "instance.json"
    doc = json.loads(p.read_text())
    fn(doc)
    p.write_text(json.dumps(doc))


def _one_line_error(d, match):
    with pytest.raises(ValueError, match=match) as e:
        load_instance(d)
    assert "\n" not in str(e.value)
    return str(e.value)


def test_missing_directory_and_json(tmp_path):
    _one_line_error(tmp_path / "nope", "not an instance directory")
    (tmp_path / "empty").mkdir()
    _one_line_error(tmp_path / "empty", "missing instance.json")


def test_bad_json(saved):
    (saved / "instance.json").write_text("{not json")
    _one_line_error(saved, "unreadable JSON")


@pytest.mark.parametrize("name", ["W.mtx", "A_2.mtx", "b_1.npy", "Ct_3.mtx", "Q_0.mtx", "q_3.npy", "Nker_1.mtx", "x_star.npy"])
def test_missing_file(saved, name):
    (saved / name).unlink()
    if name == "x_star.npy":
        # the reference solution is optional: a directory without it loads with x_star None
        assert load_instance(saved).x_star is None
        return
    msg = _one_line_error(saved, "missing file")
    assert name in msg


def test_unreadable_files(saved):
    (saved / "C_1.mtx").write_text("garbage\n")
    _one_line_error(saved, r"C_1.mtx: not a Matrix Market file")
    (saved / "C_1.mtx").write_text("%%MatrixMarket matrix coordinate real general\n2 6 3\n1 1 1.0\n")
    _one_line_error(saved, r"C_1.mtx: unreadable Matrix Market file")
    (saved / "C_1.mtx").write_text("%%MatrixMarket matrix coordinate complex general\n2 6 1\n1 1 1.0 0.0\n")
    _one_line_error(saved, "not supported")
    (saved / "b_0.npy").write_bytes(b"\x93NUMPY garbage")
    (saved / "C_1.mtx").unlink()
    sio.mmwrite(saved / "C_1.mtx", sp.random(2, 6, density=1.0, random_state=0))
    _one_line_error(saved, r"b_0.npy: unreadable NumPy file")


def test_shape_mismatches(saved):
    sio.mmwrite(saved / "A_1.mtx", sp.csr_matrix(np.ones((3, 5))))
    msg = _one_line_error(saved, r"A_1.mtx: shape \(3, 5\), expected \(3, 6\)")
    assert "node 1" in msg
    sio.mmwrite(saved / "A_1.mtx", sp.csr_matrix(np.ones((3, 6))))
    np.save(saved / "b_2.npy", np.zeros(4))
    _one_line_error(saved, r"b_2.npy: length 4, expected 3")
    np.save(saved / "b_2.npy", np.zeros(3))
    sio.mmwrite(saved / "Q_2.mtx", sp.identity(9, format="csr"))
    _one_line_error(saved, r"Q_2.mtx: shape \(9, 9\), expected \(16, 16\)")
    sio.mmwrite(saved / "Q_2.mtx", sp.identity(16, format="csr"))
    np.save(saved / "x_star.npy", np.zeros(7))
    _one_line_error(saved, r"x_star.npy: length 7")


def test_abs_deviation_objective_needs_mu_and_rho(tmp_path):
    out = save_instance(build("nonsmooth-shared", variant="strongly-convex"), tmp_path / "ns")
    assert load_instance(out).problem.objective.rho > 0
    _edit_json(out, lambda doc: doc["objective"].pop("rho"))
    _one_line_error(out, "abs-deviation objective without a number 'rho'")


def test_unknown_objective_and_invalid_problem(saved):
    _edit_json(saved, lambda doc: doc["objective"].update(type="hinge"))
    _one_line_error(saved, "unknown objective type 'hinge'")
    _edit_json(saved, lambda doc: doc["objective"].update(type="quadratic"))
    W = sio.mmread(saved / "W.mtx").toarray()
    W[0, 1] += 0.5
    sio.mmwrite(saved / "W.mtx", sp.csr_matrix(W))
    _one_line_error(saved, r"invalid problem: W \(gossip matrix\): not symmetric")


def test_infeasible_constraint_is_rejected(saved):
    np.save(saved / "c_0.npy", np.load(saved / "c_0.npy") + 0.0)  # still feasible (C_i full row rank) ...
    load_instance(saved)
    sio.mmwrite(saved / "C_0.mtx", sp.csr_matrix(np.vstack([np.ones(6), np.ones(6)])))
    _one_line_error(saved, r"node 0: c_0 is not in the range of C_0")


def test_empty_dense_matrix_market_file_does_not_crash(tmp_path):
    """``scipy.io.mmread`` aborts the process (SIGFPE) on an empty dense array; the reader handles it."""
    (tmp_path / "E.mtx").write_text("%%MatrixMarket matrix array real general\n0 3\n")
    M = iio._read_mtx(tmp_path, "E.mtx", dense=True)
    assert M.shape == (0, 3)
    iio._write_mtx(tmp_path / "E2.mtx", np.zeros((0, 4)), "empty")
    assert iio._read_mtx(tmp_path, "E2.mtx").shape == (0, 4)


def test_directory_written_by_another_tool_without_blocks_key(saved):
    """``blocks`` may be omitted: the groups are inferred from the files present."""
    ref = load_instance(saved)
    _edit_json(saved, lambda doc: doc.pop("blocks"))
    back = load_instance(saved)
    assert_identical(ref, back)


@settings(max_examples=10)
@given(family=st.sampled_from(["random-consensus", "random-coupled-local", "random-mixed", "random-mixed-ident",
                               "logistic-consensus", "vertical-fl"]),
       seed=st.integers(0, 1000), n=st.integers(3, 9), reference=st.booleans())
def test_property_round_trip(tmp_path_factory, family, seed, n, reference):
    inst = build(family, seed=seed, n=n)
    if reference:
        inst = _with_reference(inst)
    out = save_instance(inst, tmp_path_factory.mktemp("rt") / "inst")
    assert_identical(inst, load_instance(out))
