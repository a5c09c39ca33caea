"""The binary instance directory (instances/io_npz.py, save_instance(matrix_format="npz")): exact round trips,
the same problem as the Matrix Market form, and one-line errors for every damaged archive (no pickles)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from mixbounds.instances import io_npz
from mixbounds.instances.families import build
from mixbounds.instances.io import load_instance, save_instance
from test_io import ROUND_TRIP, _with_reference, assert_identical


@pytest.mark.parametrize("family,params", ROUND_TRIP, ids=[f"{f}-{i}" for i, (f, _) in enumerate(ROUND_TRIP)])
def test_npz_round_trip_is_exact_and_equals_the_mtx_form(tmp_path, family, params):
    inst = _with_reference(build(family, **params))
    b = save_instance(inst, tmp_path / "b", matrix_format="npz")
    back = load_instance(b)
    assert_identical(inst, back)
    assert_identical(load_instance(save_instance(inst, tmp_path / "m")), back)
    doc = json.loads((b / "instance.json").read_text())
    assert doc["matrix_format"] == "npz" and doc["format_version"] == 2
    assert not any(name.endswith(".mtx") for name in os.listdir(b))
    assert set(doc["files"]) | {"instance.json"} == set(os.listdir(b))
    # saving the loaded instance again gives the same files, byte for byte
    again = save_instance(back, tmp_path / "again", matrix_format="npz")
    for name in os.listdir(b):
        assert (b / name).read_bytes() == (again / name).read_bytes(), name


def test_one_archive_per_group_readable_with_numpy_only(tmp_path):
    inst = build("random-mixed", kappa_AC=40.0, kappa_C=5.0, kappa_Ct=9.0, n=5)
    out = save_instance(inst, tmp_path / "mixed", matrix_format="npz")
    assert set(os.listdir(out)) == {"instance.json", "W.npz", "edges.npz", "A.npz", "b.npz", "C.npz", "c.npz",
                                    "Ct.npz", "ct.npz", "Nker.npz", "Q.npz", "q.npz"}
    with np.load(out / "A.npz", allow_pickle=False) as z:  # the documented layout, read without this package
        shape, indptr, indices, data = z["shape"], z["indptr"], z["indices"], z["data"]
    P = inst.problem
    r0, c0 = shape[0]
    A0 = sp.csr_matrix((data[:indptr[r0]], indices[:indptr[r0]], indptr[:r0 + 1]), shape=(r0, c0))
    assert np.array_equal(A0.toarray(), sp.csr_matrix(P.A[0]).toarray())
    with np.load(out / "b.npz", allow_pickle=False) as z:
        assert np.array_equal(z["data"][z["ptr"][2]:z["ptr"][3]], P.b[2])


def test_old_reader_refuses_npz_directory(tmp_path, monkeypatch):
    import mixbounds.instances.io as iio

    out = save_instance(build("random-consensus", n=4), tmp_path / "c", matrix_format="npz")
    monkeypatch.setattr(iio, "FORMAT_VERSION", 1)
    with pytest.raises(ValueError, match="format_version 2 is newer"):
        load_instance(out)


def test_unknown_matrix_format(tmp_path):
    inst = build("random-consensus", n=4)
    with pytest.raises(ValueError, match="unknown matrix format 'hdf5'"):
        save_instance(inst, tmp_path / "x", matrix_format="hdf5")
    assert not (tmp_path / "x").exists()
    out = save_instance(inst, tmp_path / "c", matrix_format="npz")
    doc = json.loads((out / "instance.json").read_text())
    doc["matrix_format"] = "hdf5"
    (out / "instance.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="unknown matrix_format 'hdf5'"):
        load_instance(out)


@pytest.fixture
def saved(tmp_path):
    inst = build("random-coupled-local", n=4)
    return save_instance(inst, tmp_path / "cl", matrix_format="npz")


def _rewrite(path, **members):
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays.update(members)
    for k in [k for k, v in arrays.items() if v is None]:
        del arrays[k]
    np.savez(path, **arrays)


def _one_line_error(saved, match):
    with pytest.raises(ValueError) as err:
        load_instance(saved)
    msg = str(err.value)
    assert "\n" not in msg and match in msg, msg
    return msg


def _csr(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k].copy() for k in z.files}


@pytest.mark.parametrize("damage,match", [
    (lambda a: dict(indices=a["indices"] + 10_000), "column index outside"),
    (lambda a: dict(indices=-a["indices"] - 1), "column index outside"),
    (lambda a: dict(data=np.where(np.arange(a["data"].size) == 3, np.nan, a["data"])), "non-finite"),
    (lambda a: dict(data=np.full(a["data"].size, np.inf)), "non-finite"),
    (lambda a: dict(shape=a["shape"][:-1]), "expected (4, 2)"),
    (lambda a: dict(shape=-a["shape"]), "non-negative"),
    (lambda a: dict(indptr=a["indptr"][:-1]), "'indptr' has"),
    (lambda a: dict(indptr=a["indptr"][::-1].copy()), "row pointer"),
    (lambda a: dict(data=a["data"][:-1]), "values and"),
    (lambda a: dict(indices=a["indices"].astype(float)), "integer array"),
    (lambda a: dict(data=a["data"].astype(complex)), "real array"),
    (lambda a: dict(extra=np.zeros(1)), "members"),
    (lambda a: dict(data=None), "members"),
])
def test_damaged_matrix_archive(saved, damage, match):
    path = saved / "A.npz"
    _rewrite(path, **damage(_csr(path)))
    msg = _one_line_error(saved, match)
    assert "A.npz" in msg


@pytest.mark.parametrize("damage,match", [
    (lambda a: dict(ptr=a["ptr"][:-1]), "'ptr' must hold 5"),
    (lambda a: dict(ptr=a["ptr"] + 1), "'ptr' must hold"),
    (lambda a: dict(data=np.append(a["data"], 1.0), ptr=np.append(a["ptr"][:-1], a["ptr"][-1] + 1)), "vector 3: length"),
    (lambda a: dict(data=a["data"] * np.nan), "non-finite"),
])
def test_damaged_vector_archive(saved, damage, match):
    path = saved / "c.npz"
    _rewrite(path, **damage(_csr(path)))
    msg = _one_line_error(saved, match)
    assert "c.npz" in msg


def test_pickled_member_is_refused_not_loaded(saved):
    path = saved / "Q.npz"
    arrays = _csr(path)
    arrays["data"] = np.array([{"x": 1}] * 3, dtype=object)  # would need pickle to load
    np.savez(path, **arrays)
    _one_line_error(saved, "Q.npz")


@pytest.mark.parametrize("content", [b"", b"not a zip archive", b"PK\x03\x04 truncated"])
def test_unreadable_archive(saved, content):
    (saved / "W.npz").write_bytes(content)
    _one_line_error(saved, "W.npz")


def test_missing_archive(saved):
    os.unlink(saved / "Nker.npz")
    _one_line_error(saved, "missing file Nker.npz")


def test_block_shapes_still_checked(saved):
    path = saved / "C.npz"
    a = _csr(path)
    a["shape"] = a["shape"].copy()
    a["shape"][2, 1] += 1  # one more column than d_2; indices stay valid
    _rewrite(path, **a)
    _one_line_error(saved, "C.npz[2]")


def test_write_and_read_empty_blocks(tmp_path):
    blocks = [sp.csr_matrix((0, 3)), np.zeros((2, 0)), sp.csr_matrix(np.eye(2))]
    io_npz.write_matrices(tmp_path / "G.npz", blocks)
    back = io_npz.read_matrices(tmp_path / "G.npz", 3)
    assert [B.shape for B in back] == [(0, 3), (2, 0), (2, 2)] and np.array_equal(back[2].toarray(), np.eye(2))
    io_npz.write_vectors(tmp_path / "v.npz", [np.zeros(0), np.ones(2)])
    v = io_npz.read_vectors(tmp_path / "v.npz", [0, 2], ["", ""])
    assert v[0].size == 0 and np.array_equal(v[1], np.ones(2))


def test_cli_format_npz_and_solve(tmp_path):
    out = tmp_path / "inst"
    r = subprocess.run([sys.executable, "-P", "-m", "mixbounds", "instance", "random-coupled", "--n", "5", "--format", "npz",
                        "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (out / "A.npz").is_file() and not (out / "A_0.mtx").exists()
    inst = load_instance(out)
    assert inst.problem.n == 5 and inst.x_star is not None
    bad = subprocess.run([sys.executable, "-P", "-m", "mixbounds", "instance", "random-coupled", "--format", "hdf5",
                          "--out", str(tmp_path / "x")], capture_output=True, text=True)
    assert bad.returncode == 2 and "--format" in bad.stderr and not (tmp_path / "x").exists()


#: the realized κ's of an instance read with sparse kernel bases against the dense ones
KERNEL_FORM_RTOL = 1e-9


def test_large_kernel_bases_are_read_sparse_with_the_same_kappas(tmp_path, monkeypatch):
    """A kernel basis above KERNEL_DENSE_MAX entries stays sparse on reading (the printed coupled-local case at
    10⁷ variables ran `mixbounds solve` out of memory densifying 64200 × 21400 bases); the κ's are unchanged."""
    import mixbounds.instances.io as iio
    from mixbounds.instances.realized import realized_kappas

    inst = build("coupled-local", kappa_W=10, kappa_C=10, kappa_AC=20, kappa_f=10)
    save_instance(inst, tmp_path / "i", matrix_format="npz")
    dense = load_instance(tmp_path / "i")
    monkeypatch.setattr(iio, "KERNEL_DENSE_MAX", 0)
    sparse = load_instance(tmp_path / "i")
    assert all(isinstance(N, np.ndarray) for N in dense.problem.C_kernels)
    assert all(sp.issparse(N) for N in sparse.problem.C_kernels)
    kd, ks = realized_kappas(dense.problem), realized_kappas(sparse.problem)
    assert kd.keys() == ks.keys()
    for k in kd:
        assert ks[k] == pytest.approx(kd[k], rel=KERNEL_FORM_RTOL), k
