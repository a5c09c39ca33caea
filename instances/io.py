"""Portable export / import of instances (docs/design.md, "Instance directory").

An instance directory holds only Matrix Market (``.mtx``, ``scipy.io.mmwrite``),
NumPy (``.npy``, ``numpy.save`` without pickling) and JSON files, so other tools
read it without this package.  Node indices ``i`` are **0-based** (node 0 is the
paper's node 1), as in every error message of :mod:`mixbounds.instances.problem`.

==================  ==============================================================
file                content
==================  ==============================================================
``instance.json``   metadata (below)
``W.mtx``           gossip matrix ``W`` (n × n)
``edges.mtx``       adjacency pattern of the network (only if the problem carries one)
``A_{i}.mtx``       ``A_i`` (m × d_i) and ``b_{i}.npy`` (m,): coupled constraint Σ(A_i x_i − b_i) = 0
``C_{i}.mtx``       ``C_i`` (p_i × d_i) and ``c_{i}.npy``: local constraints C_i x_i = c_i
``Ct_{i}.mtx``      ``C̃_i`` (p̃_i × d̃) and ``ct_{i}.npy``: shared-variable constraints C̃_i x̃ = c̃_i
``Nker_{i}.mtx``    orthonormal basis of ker C_i (d_i × r_i; only if the problem carries ``C_kernels``)
``Q_{i}.mtx``       quadratic objective ``f_i(z) = ½ zᵀQ_i z − q_iᵀz`` with ``q_{i}.npy``, ``z = (x_i, x̃)``
``F_{i}.mtx``       logistic objective: features ``F_i`` (N_i × (d_i + d̃)) and labels ``y_{i}.npy`` (±1);
                    ``f_i(z) = (1/N_i) Σ_j log(1 + exp(−y_ij F_i[j]·z)) + reg/2 ‖z‖²``, ``reg`` in instance.json;
                    or the nonsmooth absolute-deviation objective (``mixbounds.instances.nonsmooth``): features ``F_i``
                    and real targets ``y_{i}.npy``, ``f_i(z) = (1/N_i) Σ_j |F_i[j]·z − y_ij| + mu/2 ‖z‖²`` on
                    the box ``[−rho, rho]`` of every coordinate, ``mu`` and ``rho`` in instance.json
``x_star.npy``      reference solution in the z-layout: node blocks in node order, each ``x_i`` then its copy of x̃
==================  ==============================================================

Absent blocks are omitted (a problem without local constraints has no ``C_*``
files).

Binary variant (``save_instance(…, matrix_format="npz")``, ``mixbounds instance … --format npz``):
each group is one NumPy archive instead of a file per node — ``W.npz``, ``edges.npz``, ``A.npz``
(every A_i) with ``b.npz``, ``C.npz``/``c.npz``, ``Ct.npz``/``ct.npz``, ``Nker.npz``,
``Q.npz``/``q.npz`` or ``F.npz``/``y.npz`` (layout in :mod:`mixbounds.instances.io_npz`); ``instance.json``
then says ``"matrix_format": "npz"`` and ``format_version`` 2 (a reader of version 1 refuses it
with a clear error).  Both forms are read by :func:`load_instance` with the same checks; Matrix
Market stays the portable default.  ``instance.json`` holds ``format`` (``"mixbounds-instance"``),
``format_version``, ``family``, ``variant``, ``name``, ``seed``, ``n``,
``layout`` (``{"d": [d_0, …], "dt": d̃}``), ``sizes`` (``MixedProblem.summary()``),
``blocks`` (which groups are present), ``objective`` (``type``, ``form``,
``L_f``, ``mu_f`` and, for logistic, ``reg``; for abs-deviation ``mu``, ``rho``, ``M_f``), ``x_star`` (file and layout, or
``null``), ``targets``, ``realized``, ``closed_forms``, ``findings``, ``params``,
``notes``, ``meta``, ``spectra`` (the spectral facts a solver needs, how they were computed and the CRC-32 of
the files they come from: :mod:`mixbounds.instances.spectra`; ``mixbounds solve`` uses them when the files are unchanged)
and ``files`` (every data file of the directory).  Without
``layout`` (a hand-written directory) the sizes are inferred from the blocks'
Matrix Market headers (:func:`infer_layout`) and then validated like a given one.  JSON is
strict: non-finite floats are written as the strings ``"Infinity"``,
``"-Infinity"``, ``"NaN"`` and read back as floats.

Writes are atomic: everything goes to a hidden temporary sibling directory that
is renamed onto the target only when complete, so the target path never holds
a half-written instance.  An existing target is replaced only if it is an
instance directory (has ``instance.json``) or empty.  Loading validates through
:class:`mixbounds.instances.problem.MixedProblem` and reports problems as one-line
``ValueError``\\ s naming the directory and file.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import scipy.io as sio
import scipy.sparse as sp
from mixbounds.bounds.concepts import Matrix
from mixbounds.instances import io_npz
from mixbounds.instances.abs_deviation import AbsDeviationObjective
from mixbounds.instances.instance import Instance
from mixbounds.instances.json_file import JSONFileError, read_json
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import LogisticObjective, QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.spectra import spectra_record, trusted_objective_constants

FORMAT = "mixbounds-instance"
FORMAT_VERSION = 2  # 2: the binary "npz" matrix format; a Matrix Market directory is still written as version 1
MATRIX_FORMATS = ("mtx", "npz")
OBJECTIVE_TYPES = ("quadratic", "logistic", "abs-deviation")

#: a kernel basis ``Nker_i`` is read as a dense array up to this many entries, else kept sparse as stored
KERNEL_DENSE_MAX = 10_000_000
_NONFINITE = {"Infinity": float("inf"), "-Infinity": float("-inf"), "NaN": float("nan")}


# ============================================================== JSON helpers
def _jsonable(obj: Any) -> Any:
    """Recursively convert to strict-JSON types (numpy scalars/arrays, tuples, Paths, non-finite floats)."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        if np.isnan(f):
            return "NaN"
        if np.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        return f
    if obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, Path):
        return str(obj)
    return str(obj)


def _unjson(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _unjson(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_unjson(v) for v in obj]
    if isinstance(obj, str) and obj in _NONFINITE:
        return _NONFINITE[obj]
    return obj


def _one_line(text: Any) -> str:
    return " ".join(str(text).split())


# ============================================================== writing
def _write_mtx(path: Path, M, comment: str) -> None:
    if sp.issparse(M):
        A = sp.coo_matrix(M, dtype=float)
    else:
        D = np.asarray(M, dtype=float)
        # dense "array" format only when non-empty: mmread/mmwrite of empty dense arrays can crash (SIGFPE)
        A = D if D.size else sp.coo_matrix(D)
    # symmetry="general": the automatic symmetry detection costs ~40 ms per matrix
    sio.mmwrite(str(path), A, comment=comment, symmetry="general")


def _write_npy(path: Path, v) -> None:
    np.save(str(path), np.asarray(v, dtype=float), allow_pickle=False)


def _objective_files(obj) -> tuple[dict, list]:
    if isinstance(obj, QuadraticObjective):
        return {"type": "quadratic", "form": "f_i(z) = 1/2 z^T Q_i z - q_i^T z, z = (x_i, x~)",
                "files": ["Q_{i}.mtx", "q_{i}.npy"], "L_f": obj.L, "mu_f": obj.mu}, []
    if isinstance(obj, LogisticObjective):
        return {"type": "logistic", "form": "f_i(z) = mean_j log(1 + exp(-y_ij F_i[j] z)) + reg/2 |z|^2, z = (x_i, x~)",
                "files": ["F_{i}.mtx", "y_{i}.npy"], "reg": obj.reg, "L_f": obj.L, "mu_f": obj.mu}, []
    if isinstance(obj, AbsDeviationObjective):
        return {"type": "abs-deviation", "form": "f_i(z) = mean_j |F_i[j] z - y_ij| + mu/2 |z|^2 on the box [-rho, rho], "
                "z = (x_i, x~)", "files": ["F_{i}.mtx", "y_{i}.npy"], "mu": obj.mu, "rho": obj.rho, "L_f": None,
                "mu_f": obj.mu, "M_f": obj.M}, []
    raise ValueError(f"save_instance: cannot export an objective of type {type(obj).__name__} "
                     f"(known: {', '.join(OBJECTIVE_TYPES)})")


class _Writer:
    """Writes the files of one instance directory and remembers their names (``instance.json`` lists them)."""

    def __init__(self, d: Path, matrix_format: str):
        self.d, self.npz, self.files = d, matrix_format == "npz", []
        self.groups: dict[str, dict] = {}  # matrix group → its files (a spectra_record checksum spec)

    def mtx(self, name: str, M, comment: str) -> None:
        _write_mtx(self.d / name, M, comment)
        self.files.append(name)

    def npy(self, name: str, v) -> None:
        _write_npy(self.d / name, v)
        self.files.append(name)

    def group(self, g: str, blocks, comment: str, vg: str | None = None, vectors=None) -> None:
        """Matrix group ``g`` (and its right-hand sides ``vg``): a file per node, or one archive each (npz)."""
        if self.npz:
            io_npz.write_matrices(self.d / f"{g}.npz", blocks)
            self.files.append(f"{g}.npz")
            self.groups[g] = {"file": f"{g}.npz"}
            if vg is not None:
                io_npz.write_vectors(self.d / f"{vg}.npz", vectors)
                self.files.append(f"{vg}.npz")
            return
        for i in range(len(blocks)):
            self.mtx(f"{g}_{i}.mtx", blocks[i], comment.format(i=i))
            if vg is not None:
                self.npy(f"{vg}_{i}.npy", vectors[i])
        self.groups[g] = {"pattern": f"{g}_{{i}}.mtx", "count": len(blocks)}

    def single(self, g: str, M, comment: str) -> None:
        """One matrix of the whole network (``W``, the adjacency): ``g.mtx``, or a one-block ``g.npz``."""
        if self.npz:
            self.group(g, [M], "")
        else:
            self.mtx(f"{g}.mtx", M, comment)
            self.groups[g] = {"file": f"{g}.mtx"}


def _write_problem(P, w: _Writer) -> dict:
    """The graph, constraint and objective blocks of ``P``; returns the objective's description."""
    w.single("W", P.W, f"W: gossip matrix ({P.n} x {P.n})")
    if P.edges is not None:
        w.single("edges", sp.csr_matrix(P.edges, dtype=bool).astype(float), "edges: adjacency pattern of the network")
    if P.A is not None:
        w.group(Matrix.A, P.A, "A_{i}: coupled constraint block of node {i} (m x d_{i})", "b", P.b)
    if P.C is not None:
        w.group(Matrix.C, P.C, "C_{i}: local constraint block of node {i} (p_{i} x d_{i})", "c", P.c)
    if P.Ct is not None:
        w.group(Matrix.CT, P.Ct, "Ct_{i}: shared-variable constraint block of node {i} (pt_{i} x dt)", "ct", P.ct)
    if P.C_kernels is not None:
        w.group("Nker", P.C_kernels, "Nker_{i}: orthonormal basis of ker C_{i}")
    obj = P.objective
    odesc, _ = _objective_files(obj)
    if odesc["type"] == "quadratic":
        w.group("Q", obj.Q_blocks, "Q_{i}: f_{i}(z) = 1/2 z^T Q_{i} z - q_{i}^T z, z = (x_{i}, x~)", "q", obj.q_blocks)
    elif odesc["type"] == "logistic":
        w.group("F", obj.features, "F_{i}: logistic features of node {i} (N_{i} x (d_{i} + dt))", "y", obj.labels)
    else:
        w.group("F", obj.features, "F_{i}: absolute-deviation features of node {i} (N_{i} x (d_{i} + dt))", "y",
                obj.targets)
    if w.npz:
        odesc = dict(odesc, files=[f.replace("_{i}.mtx", ".npz").replace("_{i}.npy", ".npz") for f in odesc["files"]])
    return odesc


def _write_all(instance: Instance, d: Path, matrix_format: str = "mtx") -> list[str]:
    """Every file of the instance directory ``d`` and its ``instance.json``; returns the file names."""
    P = instance.problem
    lay = P.layout
    w = _Writer(d, matrix_format)
    odesc = _write_problem(P, w)
    spectra = _spectra(P, d, w)
    xs = None
    if instance.x_star is not None:
        u = np.asarray(instance.x_star, dtype=float)
        if u.shape != (lay.size,):
            raise ValueError(f"save_instance: x_star has shape {u.shape}, expected ({lay.size},) (u-layout)")
        w.npy("x_star.npy", lay.to_z(u))
        xs = {"file": "x_star.npy", "layout": "z",
              "description": "node blocks in node order, each node's x_i then its copy of x~"}
    doc = {
        "format": FORMAT,
        "format_version": 2 if w.npz else 1,
        "matrix_format": matrix_format,
        "node_index_base": 0,
        "family": instance.family,
        "variant": instance.variant,
        "name": P.name,
        "seed": instance.seed,
        "n": P.n,
        "layout": {"d": list(lay.d), "dt": lay.dt},
        "sizes": P.summary(),
        "blocks": {Matrix.A: P.A is not None, Matrix.C: P.C is not None, Matrix.CT: P.Ct is not None,
                   "C_kernels": P.C_kernels is not None, "edges": P.edges is not None},
        "objective": odesc,
        "x_star": xs,
        "targets": instance.targets,
        "realized": instance.realized,
        "closed_forms": instance.closed_forms,
        "findings": instance.findings,
        "params": instance.params,
        "notes": instance.notes,
        "meta": P.meta,
        "spectra": spectra,
        "files": sorted(w.files),
    }
    with open(d / "instance.json", "w", encoding="utf-8") as fh:
        json.dump(_jsonable(doc), fh, indent=1, ensure_ascii=False, allow_nan=False)
        fh.write("\n")
    return w.files


def _spectra(P, d: Path, w: _Writer) -> dict | None:
    """The solver's spectral facts with the checksums of the files just written (:func:`mixbounds.instances.spectra.spectra_record`),
    so that ``mixbounds solve`` need not compute them again; ``None`` for a problem they do not apply to."""
    obj_group = "Q" if isinstance(P.objective, QuadraticObjective) else "F"
    groups = {("objective" if g == obj_group else g): spec for g, spec in w.groups.items() if g != "edges"}
    try:
        return spectra_record(P, d, groups)
    except ValueError:  # e.g. a gossip matrix a kernel check refuses: the facts are then computed where needed
        return None


def save_instance(instance: Instance, out_dir, *, matrix_format: str = "mtx") -> Path:
    """Write ``instance`` to the directory ``out_dir`` atomically; return its path.

    ``matrix_format``: ``"mtx"`` (Matrix Market and ``.npy``, a file per node and block; the portable
    default) or ``"npz"`` (one NumPy archive per block group; much faster to read and write).

    The files are written into a hidden temporary sibling directory which is
    renamed onto ``out_dir`` once complete; on any error the temporary directory
    is removed and ``out_dir`` is left as it was.  An existing ``out_dir`` is
    replaced only if it is an instance directory or empty (``ValueError``
    otherwise); missing parent directories are created.
    """
    out = Path(out_dir).absolute()
    if matrix_format not in MATRIX_FORMATS:
        raise ValueError(f"save_instance: unknown matrix format {matrix_format!r} (known: {', '.join(MATRIX_FORMATS)})")
    if out.exists() or out.is_symlink():
        if not out.is_dir() or out.is_symlink():
            raise ValueError(f"{out}: exists and is not a directory; refusing to replace it")
        if any(out.iterdir()) and not (out / "instance.json").is_file():
            raise ValueError(f"{out}: exists, is not empty and is not an instance directory (no instance.json); refusing to replace it")
    _objective_files(instance.problem.objective)  # fail before touching the disk
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=parent))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp creates 0700: the instance directory is an ordinary one
        _write_all(instance, tmp, matrix_format)
        if out.exists():
            backup = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=parent))
            os.rmdir(backup)
            os.rename(out, backup)
            try:
                os.rename(tmp, out)
            except BaseException:
                os.rename(backup, out)
                raise
            shutil.rmtree(backup, ignore_errors=True)
        else:
            os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


# ============================================================== reading
def _mm_header(path: Path) -> tuple[str, str, tuple[int, ...]]:
    """(format, field, size line) of a Matrix Market file, checked before scipy parses it."""
    try:
        with open(path, "r", encoding="ascii", errors="replace") as fh:
            banner = fh.readline()
            line = fh.readline()
            while line and (line.startswith("%") or not line.strip()):
                line = fh.readline()
    except OSError as exc:
        raise ValueError(f"{path}: cannot read ({_one_line(exc)})") from None
    parts = banner.lower().split()
    if len(parts) < 5 or parts[0] != "%%matrixmarket" or parts[1] != "matrix":
        raise ValueError(f"{path}: not a Matrix Market file (missing '%%MatrixMarket matrix' banner)")
    fmt, field = parts[2], parts[3]
    if fmt not in ("coordinate", "array"):
        raise ValueError(f"{path}: unknown Matrix Market format {fmt!r}")
    if field not in ("real", "integer", "pattern", "double"):
        raise ValueError(f"{path}: Matrix Market field {field!r} not supported (need real, integer or pattern)")
    try:
        size = tuple(int(t) for t in line.split())
    except ValueError:
        raise ValueError(f"{path}: malformed Matrix Market size line {line.strip()!r}") from None
    if len(size) != (3 if fmt == "coordinate" else 2) or min(size) < 0:
        raise ValueError(f"{path}: malformed Matrix Market size line {line.strip()!r}")
    return fmt, field, size


def _read_mtx(d: Path, name: str, *, dense: bool = False):
    path = d / name
    if not path.is_file():
        raise ValueError(f"{d}: missing file {name}")
    fmt, _, size = _mm_header(path)
    if fmt == "array" and size[0] * size[1] == 0:
        M = np.zeros(size[:2])
    else:
        try:
            M = sio.mmread(str(path))
        except Exception as exc:  # noqa: BLE001 - scipy raises several types
            raise ValueError(f"{path}: unreadable Matrix Market file ({_one_line(exc)})") from None
    if dense:
        return M.toarray() if sp.issparse(M) else np.asarray(M, dtype=float)
    return sp.csr_matrix(M, dtype=float)


def _read_npy(d: Path, name: str, length: int | None = None, what: str = "") -> np.ndarray:
    path = d / name
    if not path.is_file():
        raise ValueError(f"{d}: missing file {name}")
    try:
        v = np.load(str(path), allow_pickle=False)
    except Exception as exc:  # noqa: BLE001
        raise ValueError(f"{path}: unreadable NumPy file ({_one_line(exc)})") from None
    if v.dtype.kind not in "biuf":
        raise ValueError(f"{path}: expected a real vector, got dtype {v.dtype}")
    v = np.asarray(v, dtype=float)
    if v.ndim != 1:
        raise ValueError(f"{path}: expected a 1-D vector, got shape {v.shape}")
    if length is not None and v.shape[0] != length:
        raise ValueError(f"{path}: length {v.shape[0]}, expected {length}{' (' + what + ')' if what else ''}")
    return v


def _expect_shape(d: Path, name: str, M, rows: int | None, cols: int | None, what: str) -> None:
    r, c = M.shape
    if (rows is not None and r != rows) or (cols is not None and c != cols):
        exp = f"({'?' if rows is None else rows}, {'?' if cols is None else cols})"
        raise ValueError(f"{d / name}: shape {M.shape}, expected {exp} ({what})")


def _read_json(d: Path) -> dict:
    path = d / "instance.json"
    if not (path.exists() or path.is_symlink()):
        raise ValueError(f"{d}: missing instance.json (not an instance directory)")
    try:
        doc = read_json(path)
    except (OSError, JSONFileError) as exc:
        raise ValueError(f"{path}: unreadable JSON ({_one_line(exc)})") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: expected a JSON object at top level")
    return _unjson(doc)


class _Groups:
    """The block groups of an instance directory in its matrix format: a file per node and block
    (Matrix Market and ``.npy``) or one archive per group (``.npz``, :mod:`mixbounds.instances.io_npz`)."""

    def __init__(self, d: Path, matrix_format: str, n: int):
        self.d, self.npz, self.n = d, matrix_format == "npz", n

    def label(self, g: str, i: int | None = None) -> str:
        """How messages name block ``i`` of group ``g``: ``A_3.mtx`` or ``A.npz[3]``."""
        if self.npz:
            return f"{g}.npz" if i is None else f"{g}.npz[{i}]"
        return f"{g}.mtx" if i is None else f"{g}_{i}.mtx"

    def present(self, g: str) -> bool:
        return (self.d / (f"{g}.npz" if self.npz else f"{g}_0.mtx")).is_file()

    def matrix(self, g: str):
        """The single matrix of group ``g`` (``W``, ``edges``)."""
        return io_npz.read_matrices(self.d / f"{g}.npz", 1)[0] if self.npz else _read_mtx(self.d, f"{g}.mtx")

    def blocks(self, g: str, *, dense: bool = False) -> list:
        if self.npz:
            return io_npz.read_matrices(self.d / f"{g}.npz", self.n, dense=dense)
        return [_read_mtx(self.d, f"{g}_{i}.mtx", dense=dense) for i in range(self.n)]

    def vectors(self, g: str, lengths, what) -> list[np.ndarray]:
        if self.npz:
            return io_npz.read_vectors(self.d / f"{g}.npz", lengths, what)
        return [_read_npy(self.d, f"{g}_{i}.npy", lengths[i], what[i]) for i in range(self.n)]


def infer_layout(d: Path, doc: dict, blocks: dict) -> Layout:
    """Sizes ``d_i``, ``d̃`` of an instance directory without ``layout``, from the Matrix Market headers.

    ``n`` is ``W.mtx``'s order; ``d_i`` the columns of ``A_i`` or ``C_i`` (rows of ``Nker_i``); ``d̃`` the
    columns of ``C̃_i``; the objective's blocks (``Q_i``: (d_i + d̃)², ``F_i``: N_i × (d_i + d̃)) give the other
    one.  Without any constraint block the split of z_i = (x_i, x̃) is ambiguous: a one-line ``ValueError``
    asks for ``layout``.  The result is validated by the same shape checks as a given layout.
    """
    jpath = d / "instance.json"

    def cols(name: str, axis: int = 1) -> int | None:
        return _mm_header(d / name)[2][axis] if (d / name).is_file() else None

    if not (d / "W.mtx").is_file():
        raise ValueError(f"{d}: missing file W.mtx")
    n = _mm_header(d / "W.mtx")[2][0]
    if n < 1:
        raise ValueError(f"{d / 'W.mtx'}: empty gossip matrix, cannot infer the layout")
    otype = (doc.get("objective") or {}).get("type") if isinstance(doc.get("objective"), dict) else None
    obj_file = {"quadratic": "Q_{i}.mtx", "logistic": "F_{i}.mtx", "abs-deviation": "F_{i}.mtx"}.get(otype)
    dt = cols("Ct_0.mtx") if blocks.get(Matrix.CT) else None
    ds: list[int] = []
    for i in range(n):
        di = cols(f"A_{i}.mtx") if blocks.get(Matrix.A) else None
        di = cols(f"C_{i}.mtx") if di is None and blocks.get(Matrix.C) else di
        di = cols(f"Nker_{i}.mtx", 0) if di is None and blocks.get("C_kernels") else di
        k = cols(obj_file.format(i=i)) if obj_file else None
        if di is None and dt is not None and k is not None:
            di = k - dt
        if dt is None and di is not None and k is not None:
            dt = k - di
        if di is None:
            raise ValueError(f"{jpath}: no 'layout' and node {i}'s sizes cannot be inferred from its blocks "
                             f"(no A_{i}, C_{i} or Ct_{i} to split z_{i} = (x_{i}, x~)); add \"layout\": "
                             f"{{\"d\": [d_0, ...], \"dt\": d~}}")
        if di < 0 or (dt is not None and dt < 0):
            raise ValueError(f"{jpath}: no 'layout', and the blocks of node {i} give negative sizes (d_{i} = {di}, "
                             f"d~ = {dt}): the objective's blocks do not match the constraint blocks")
        ds.append(int(di))
    return Layout(tuple(ds), int(dt or 0))


def load_instance(path) -> Instance:
    """Read an instance directory written by :func:`save_instance` (or by another tool in the same format).

    Returns an :class:`Instance` whose ``x_star`` is in the u-layout (``None``
    when there is no ``x_star.npy``).  Raises one-line ``ValueError`` for a
    missing directory or file, unreadable files, shape mismatches, an unknown
    objective type, or a problem that fails :class:`MixedProblem` validation.
    """
    d = Path(path)
    if not d.is_dir():
        raise ValueError(f"{d}: not an instance directory (does not exist or is not a directory)")
    doc = _read_json(d)
    mfmt, blocks, lay = _read_header(d, doc)
    gr = _Groups(d, mfmt, lay.n)
    _check_listed_files(d, doc)
    W, edges = _read_graph(d, gr, lay.n, blocks)
    kw = _read_constraints(d, gr, lay, blocks)
    obj = _read_objective(d, gr, lay, doc)
    try:
        problem = MixedProblem(W, obj, lay, edges=edges, name=str(doc.get("name", "problem")),
                               meta=dict(doc.get("meta") or {}), **kw)
    except ValueError as exc:
        raise ValueError(f"{d}: invalid problem: {_one_line(exc)}") from None

    x_star = None
    # a directory without x_star.npy is a valid instance (a user's own, or one whose reference
    # was removed): x_star is then None and callers compute it
    if (d / "x_star.npy").is_file():
        z = _read_npy(d, "x_star.npy", lay.size, "x_star in the z-layout")
        x_star = lay.from_z(z)
    seed = doc.get("seed")
    return Instance(
        problem=problem,
        family=str(doc.get("family", "unknown")),
        variant=str(doc.get("variant", "printed")),
        targets=dict(doc.get("targets") or {}),
        realized=dict(doc.get("realized") or {}),
        closed_forms=dict(doc.get("closed_forms") or {}),
        findings=list(doc.get("findings") or []),
        params=dict(doc.get("params") or {}),
        notes=list(doc.get("notes") or []),
        x_star=x_star,
        seed=None if seed is None else int(seed),
        spectra=doc.get("spectra") if isinstance(doc.get("spectra"), dict) else None,
    )


#: the type of every field of ``instance.json`` this reader uses (``int`` excludes ``bool``); a field of another type is
#: a one-line error naming it, never a conversion that fails later
FIELD_TYPES = {"format": (str,), "format_version": (int,), "matrix_format": (str,), "family": (str,),
               "variant": (str,), "name": (str,), "seed": (int, type(None)), "n": (int,), "targets": (dict,),
               "realized": (dict,), "closed_forms": (dict,), "findings": (list,), "params": (dict,), "notes": (list,),
               "meta": (dict,), "files": (list,), "blocks": (dict,), "layout": (dict,), "objective": (dict,)}


def _check_field_types(jpath: Path, doc: dict) -> None:
    """Every field of :data:`FIELD_TYPES` present in ``doc`` has its type (``ValueError`` naming the first that has not)."""
    for key, types in FIELD_TYPES.items():
        if key in doc and (not isinstance(doc[key], types) or (isinstance(doc[key], bool) and bool not in types)):
            want = " or ".join("null" if t is type(None) else {"str": "a string", "int": "an integer", "dict": "an object",
                                                                 "list": "a list"}[t.__name__] for t in types)
            raise ValueError(f"{jpath}: '{key}' = {str(doc[key])[:40]!r} must be {want}")


def _layout(jpath: Path, lay_doc: dict) -> Layout:
    """The ``layout`` of ``instance.json``: non-negative integer sizes whose vectors fit this machine's memory."""
    ds, dt = lay_doc.get("d"), lay_doc.get("dt")
    ok = isinstance(ds, list) and all(isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in ds) \
        and isinstance(dt, int) and not isinstance(dt, bool) and dt >= 0
    if not ok:
        raise ValueError(f"{jpath}: malformed 'layout' (expected {{\"d\": [d_0, ...], \"dt\": d~}} with non-negative "
                         f"integer sizes)")
    check_dense_size(jpath, f"a vector of the declared layout (n = {len(ds)}, {sum(ds) + len(ds) * dt} variables)",
                     sum(ds) + len(ds) * dt)
    return Layout(tuple(ds), dt)


def _read_header(d: Path, doc: dict) -> tuple[str, dict, Layout]:
    """The matrix format, the block groups present and the layout named (or implied) by ``instance.json``."""
    jpath = d / "instance.json"
    _check_field_types(jpath, doc)
    if doc.get("format", FORMAT) != FORMAT:
        raise ValueError(f"{jpath}: format {doc.get('format')!r} is not {FORMAT!r}")
    if int(doc.get("format_version", FORMAT_VERSION)) > FORMAT_VERSION:
        raise ValueError(f"{jpath}: format_version {doc.get('format_version')} is newer than this reader ({FORMAT_VERSION})")
    mfmt = doc.get("matrix_format", "mtx")
    if mfmt not in MATRIX_FORMATS:
        raise ValueError(f"{jpath}: unknown matrix_format {mfmt!r} (known: {', '.join(MATRIX_FORMATS)})")
    blocks = doc.get("blocks")
    if blocks is None:  # written by another tool: infer the groups from the files present
        first = "{g}.npz" if mfmt == "npz" else "{g}_0.mtx"
        blocks = {k: (d / f).is_file() for k, f in
                  (("edges", f"edges.{mfmt}"), (Matrix.A, first.format(g=Matrix.A)), (Matrix.C, first.format(g=Matrix.C)),
                   (Matrix.CT, first.format(g=Matrix.CT)), ("C_kernels", first.format(g="Nker")))}
    if not isinstance(blocks, dict):
        raise ValueError(f"{jpath}: 'blocks' must be an object")
    if "layout" not in doc and mfmt == "npz":
        raise ValueError(f"{jpath}: no 'layout' (the npz matrix format needs it: "
                         f"\"layout\": {{\"d\": [d_0, ...], \"dt\": d~}})")
    lay = infer_layout(d, doc, blocks) if "layout" not in doc else _layout(jpath, doc["layout"])
    n = lay.n
    if "n" in doc and doc["n"] != n:
        raise ValueError(f"{jpath}: n = {doc['n']} but layout lists {n} local dimensions")
    return mfmt, blocks, lay


def _check_listed_files(d: Path, doc: dict) -> None:
    """Every file that ``instance.json`` lists exists (the reference solution ``x_star.npy`` is optional)."""
    jpath = d / "instance.json"
    files = doc.get("files", [])
    if not isinstance(files, list):
        raise ValueError(f"{jpath}: 'files' must be a list")
    for name in files:
        if not isinstance(name, str) or "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"{jpath}: bad file name {name!r} in 'files'")
        if not (d / name).is_file() and name != "x_star.npy":  # the reference solution is optional
            raise ValueError(f"{d}: missing file {name} (listed in instance.json)")


def _read_graph(d: Path, gr: "_Groups", n: int, blocks: dict):
    """The gossip matrix ``W`` and, when stored, the adjacency of the graph."""
    W = gr.matrix("W")
    _expect_shape(d, gr.label("W"), W, n, n, f"gossip matrix of {n} nodes")
    edges = None
    if blocks.get("edges"):
        edges = gr.matrix("edges").astype(bool)
        _expect_shape(d, gr.label("edges"), edges, n, n, f"adjacency of {n} nodes")
    return W, edges


def _read_constraints(d: Path, gr: "_Groups", lay: Layout, blocks: dict) -> dict:
    """The constraint blocks present (``A, b``; ``C, c``; ``Ct, ct``; kernels of ``C_i``) as MixedProblem keywords."""
    jpath, n = d / "instance.json", lay.n
    kw: dict = {}
    if blocks.get(Matrix.A):
        A = gr.blocks(Matrix.A)
        m = A[0].shape[0]
        for i in range(n):
            _expect_shape(d, gr.label(Matrix.A, i), A[i], m, lay.d[i], f"node {i}: m rows as A_0, d_{i} columns")
        kw[Matrix.A] = A
        kw["b"] = gr.vectors("b", [m] * n, [f"node {i}: m = {m}" for i in range(n)])
    if blocks.get(Matrix.C):
        C = gr.blocks(Matrix.C)
        for i in range(n):
            _expect_shape(d, gr.label(Matrix.C, i), C[i], None, lay.d[i], f"node {i}: d_{i} columns")
        kw[Matrix.C] = C
        kw["c"] = gr.vectors("c", [B.shape[0] for B in C], [f"node {i}: rows of C_{i}" for i in range(n)])
    if blocks.get(Matrix.CT):
        Ct = gr.blocks(Matrix.CT)
        for i in range(n):
            _expect_shape(d, gr.label(Matrix.CT, i), Ct[i], None, lay.dt, f"node {i}: d~ = {lay.dt} columns")
        kw[Matrix.CT] = Ct
        kw["ct"] = gr.vectors("ct", [B.shape[0] for B in Ct], [f"node {i}: rows of Ct_{i}" for i in range(n)])
    if blocks.get("C_kernels"):
        if not blocks.get(Matrix.C):
            raise ValueError(f"{jpath}: 'C_kernels' present without local constraints C")
        # dense as written for ordinary sizes; a basis whose dense form would exceed KERNEL_DENSE_MAX entries stays
        # sparse (the printed coupled-local case at 10⁷ variables: 64200 × 21400 per node, 10.2 GiB each)
        Nk = [B.toarray() if B.shape[0] * B.shape[1] <= KERNEL_DENSE_MAX else sp.csr_matrix(B) for B in gr.blocks("Nker")]
        for i in range(n):
            _expect_shape(d, gr.label("Nker", i), Nk[i], lay.d[i], None, f"node {i}: d_{i} rows")
        kw["C_kernels"] = Nk
    return kw


def _features(d: Path, gr: "_Groups", k: list[int], what: str) -> tuple[list, list]:
    """The dense feature blocks ``F_i`` (``k[i]`` columns each) and their vectors ``y_i`` (one ``what`` per row).

    Read sparse as stored; their shapes are checked against the layout and their dense size against the
    machine's memory (:func:`check_dense_size`) before they are made dense."""
    F = gr.blocks("F")
    for i in range(len(k)):
        _expect_shape(d, gr.label("F", i), F[i], None, k[i], f"node {i}: z_{i} = (x_{i}, x~) has {k[i]} entries")
    check_dense_size(d / gr.label("F"), "the dense feature blocks", sum(B.shape[0] * B.shape[1] for B in F))
    F = [B.toarray() for B in F]
    y = gr.vectors("y", [B.shape[0] for B in F], [f"node {i}: one {what} per row of F_{i}" for i in range(len(k))])
    return F, y


def memory_bytes() -> int | None:
    """Physical memory of this machine in bytes (``None`` where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_dense_size(where, what: str, entries: int) -> None:
    """``ValueError`` (one line, naming ``where``) when ``entries`` float64 numbers exceed this machine's memory: a
    size declaration (a layout, a block's shape) the files cannot back is refused instead of allocated."""
    mem = memory_bytes()
    if mem is not None and entries * 8 > mem:
        raise ValueError(f"{where}: {what} would take {entries:.3g} numbers ({entries * 8 / 2 ** 30:.3g} GiB), more "
                         f"than this machine's {mem / 2 ** 30:.3g} GiB of memory: a size declaration the data does "
                         f"not hold")


def _read_objective(d: Path, gr: "_Groups", lay: Layout, doc: dict):
    """The objective named by ``instance.json`` (quadratic, logistic or abs-deviation) with its per-node blocks."""
    jpath, n = d / "instance.json", lay.n
    odoc = doc.get("objective")
    if not isinstance(odoc, dict) or "type" not in odoc:
        raise ValueError(f"{jpath}: missing 'objective' description with a 'type'")
    otype = odoc["type"]
    k = [lay.d[i] + lay.dt for i in range(n)]
    try:
        if otype == "quadratic":
            Q = gr.blocks("Q")
            for i in range(n):
                _expect_shape(d, gr.label("Q", i), Q[i], k[i], k[i], f"node {i}: z_{i} = (x_{i}, x~) has {k[i]} entries")
            q = gr.vectors("q", k, [f"node {i}: z_{i} = (x_{i}, x~)" for i in range(n)])
            # L_f, μ_f stored at build time, when the Q files read are unchanged (mixbounds.instances.spectra), else computed
            stored = trusted_objective_constants(doc.get("spectra"), d)
            obj = QuadraticObjective(Q, q, lay) if stored is None else QuadraticObjective(Q, q, lay, L=stored[0],
                                                                                             mu=stored[1])
        elif otype == "logistic":
            if "reg" not in odoc:
                raise ValueError(f"{jpath}: logistic objective without 'reg'")
            F, y = _features(d, gr, k, "label")
            obj = LogisticObjective(F, y, float(odoc["reg"]), lay)
        elif otype == "abs-deviation":
            for key in ("mu", "rho"):
                if not isinstance(odoc.get(key), (int, float)) or isinstance(odoc.get(key), bool):
                    raise ValueError(f"{jpath}: abs-deviation objective without a number {key!r}")
            F, y = _features(d, gr, k, "target")
            obj = AbsDeviationObjective(F, y, lay, mu=float(odoc["mu"]), box=float(odoc["rho"]))
        else:
            raise ValueError(f"{jpath}: unknown objective type {otype!r} (known: {', '.join(OBJECTIVE_TYPES)})")
    except ValueError as exc:
        msg = _one_line(exc)
        raise ValueError(msg if msg.startswith(str(d)) else f"{d}: {msg}") from None
    return obj
