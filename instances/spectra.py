"""The spectral facts a solver needs of a problem, computed once and stored with the instance.

The reformulations of :mod:`mixbounds.solvers.reformulations` (``app:coupled_cons``, ``lem:coupled_spectrum``,
``eq:block_scaling``, ``lem:local_spectrum``) need, besides ``L_f`` and ``μ_f``, the extreme eigenvalues of the
gossip matrix and of the constraint groups: :func:`solver_facts` computes them with the functions of
:mod:`mixbounds.bounds.condition` (the same calls, so the same numbers, as :func:`mixbounds.instances.realized.realized_kappas`).

An instance directory stores them in ``instance.json`` under ``"spectra"`` (:func:`spectra_record`): the facts,
how each was computed, the objective's ``L_f`` and ``μ_f``, and the CRC-32 of the files they were computed from.
:func:`trusted_facts` accepts them on loading only when those files are the ones read:

* binary form (``--format npz``): the CRC-32 of each archive member, as the archive's directory records it, equals
  the stored one, and :mod:`zipfile` checked every byte read against it (a mismatch is a read error): no extra read;
* Matrix Market: the CRC-32 of the files' bytes is computed again (from the page cache, right after parsing them).

So the stored facts are the build's own computation on exactly these matrices (both forms round-trip the values
bit for bit); an edited or rebuilt file, or a directory from another tool, has its facts computed again.  CRC-32
detects accidental changes (any burst of up to 32 bits, all but 2⁻³² of random ones); it is not a signature
against a deliberate forger who also edits ``instance.json``.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

from mixbounds.bounds.concepts import BlockKind, Matrix
from mixbounds.bounds.condition import gossip_spectrum, group_spectrum, interaction_extremes, projected_kappa
from mixbounds.bounds.spectral import sv_extremes

#: version of the "spectra" record of instance.json (a reader ignores other versions)
SPECTRA_VERSION = 1
#: the archives (block groups) each fact depends on; the objective's constants depend on its own group
DEPENDS = {"lambda_max_W": ("W",), "lambda_min_W": ("W",), "kappa_W": ("W",), "L_A": (Matrix.A,),
           "lambda_min_S_A": (Matrix.A,), "L_S": (Matrix.A,), "L_C": (Matrix.C, "Nker"), "mu_C": (Matrix.C, "Nker"),
           "kappa_C": (Matrix.C, "Nker"), "mu_tilde_AC": (Matrix.A, Matrix.C, "Nker"), "kappa_tilde_AC": (Matrix.A, Matrix.C, "Nker"),
           "L_Ct": (Matrix.CT,), "lambda_min_S_Ct": (Matrix.CT,), "mu_Ct": (Matrix.CT,)}


def shared_kind(problem) -> BlockKind | None:
    """How the shared variable is constrained: ``None`` (no x̃), ``CONSENSUS``, ``SHARED`` or ``SHARED_IDENTICAL``
    (the t-block of :class:`mixbounds.solvers.reformulations.Reformulation`)."""
    if problem.layout.dt == 0:
        return None
    if problem.Ct is None:
        return BlockKind.CONSENSUS
    return BlockKind.SHARED_IDENTICAL if problem.identical_shared else BlockKind.SHARED


def solver_facts(problem) -> tuple[dict, dict]:
    """``(facts, how)``: the spectral facts of ``problem`` used by the reformulations, and how each was computed.

    ``lambda_max_W``, ``lambda_min_W`` (λ_min+), ``kappa_W``; with A: ``L_A`` (max_i σ_max²(A_i)),
    ``lambda_min_S_A``, ``L_S`` (extremes of S_A, eq. ``eq:interaction_matrix``); with C: ``L_C``, ``mu_C``,
    ``kappa_C``; with A and C: ``mu_tilde_AC``, ``kappa_tilde_AC`` (``def:projected_condition_number``); with
    C̃: ``L_Ct`` and ``lambda_min_S_Ct`` (different C̃_i) or ``L_Ct``, ``mu_Ct`` (identical C̃_i).
    """
    P = problem
    f: dict = {}
    how: dict = {}
    gs = gossip_spectrum(P.W)
    f["lambda_max_W"], f["lambda_min_W"], f["kappa_W"] = gs.lmax, gs.lmin_pos, gs.kappa
    for k in ("lambda_max_W", "lambda_min_W", "kappa_W"):
        how[k] = f"mixbounds.bounds.condition.gossip_spectrum ({gs.method})"
    if P.A is not None:
        f["L_A"] = group_spectrum(P.A, name=Matrix.A).L
        how["L_A"] = "mixbounds.bounds.condition.group_spectrum (per distinct block)"
        SA = interaction_extremes(P.A)
        f["lambda_min_S_A"], f["L_S"] = SA.lmin_pos, SA.lmax
        how["lambda_min_S_A"] = how["L_S"] = f"mixbounds.bounds.condition.interaction_extremes ({SA.method})"
    if P.C is not None:
        gc = group_spectrum(P.C, kernels=P.C_kernels, name=Matrix.C)
        f["L_C"], f["mu_C"], f["kappa_C"] = gc.L, gc.mu, gc.kappa
        how["L_C"] = how["mu_C"] = how["kappa_C"] = "mixbounds.bounds.condition.group_spectrum (per distinct block)"
    if P.A is not None and P.C is not None:
        pk = projected_kappa(P.A, P.C, D_kernels=P.C_kernels)
        f["mu_tilde_AC"], f["kappa_tilde_AC"] = pk.mu, pk.kappa
        how["mu_tilde_AC"] = how["kappa_tilde_AC"] = "mixbounds.bounds.condition.projected_kappa"
    kind = shared_kind(P)
    if kind == BlockKind.SHARED:
        f["L_Ct"] = group_spectrum(P.Ct, name="C̃").L
        e = interaction_extremes(P.Ct, transpose=True)
        f["lambda_min_S_Ct"] = e.lmin_pos
        how["L_Ct"] = "mixbounds.bounds.condition.group_spectrum (per distinct block)"
        how["lambda_min_S_Ct"] = f"mixbounds.bounds.condition.interaction_extremes ({e.method})"
    elif kind == BlockKind.SHARED_IDENTICAL:
        e = sv_extremes(P.Ct[0], name="C̃")
        f["L_Ct"], f["mu_Ct"] = e.lmax, e.lmin_pos
        how["L_Ct"] = how["mu_Ct"] = f"mixbounds.bounds.spectral.sv_extremes of C̃_0 ({e.method})"
    return {k: float(v) for k, v in f.items()}, how


def fact_keys(problem) -> set[str]:
    """The keys :func:`solver_facts` returns for a problem of this structure."""
    keys = {"lambda_max_W", "lambda_min_W", "kappa_W"}
    if problem.A is not None:
        keys |= {"L_A", "lambda_min_S_A", "L_S"}
    if problem.C is not None:
        keys |= {"L_C", "mu_C", "kappa_C"}
    if problem.A is not None and problem.C is not None:
        keys |= {"mu_tilde_AC", "kappa_tilde_AC"}
    kind = shared_kind(problem)
    if kind == BlockKind.SHARED:
        keys |= {"L_Ct", "lambda_min_S_Ct"}
    elif kind == BlockKind.SHARED_IDENTICAL:
        keys |= {"L_Ct", "mu_Ct"}
    return keys


def _crc_of_files(d: Path, names) -> int:
    crc = 0
    for name in names:
        with open(d / name, "rb") as fh:
            while chunk := fh.read(1 << 24):
                crc = zlib.crc32(chunk, crc)
    return crc


def checksum(d: Path, spec: dict):
    """The CRC-32 of the files ``spec`` names in the directory ``d``: ``{"file": "A.npz"}`` (a NumPy archive: each
    member's CRC-32 from the archive's directory, no data read), ``{"file": "W.mtx"}`` or ``{"pattern": "A_{i}.mtx",
    "count": n}`` (the CRC-32 of the files' bytes, in node order)."""
    if "file" in spec and str(spec["file"]).endswith(".npz"):
        with zipfile.ZipFile(d / spec["file"]) as z:
            return {i.filename: int(i.CRC) for i in z.infolist()}
    if "file" in spec:
        return _crc_of_files(d, [spec["file"]])
    return _crc_of_files(d, [spec["pattern"].format(i=i) for i in range(int(spec["count"]))])


def spectra_record(problem, d: Path, groups: dict[str, dict]) -> dict:
    """The ``"spectra"`` record of ``instance.json`` for ``problem``, whose files were just written to ``d``.

    ``groups``: block group (``W``, ``A``, ``C``, ``Ct``, ``Nker``, ``objective``) → the :func:`checksum` spec of its
    files.
    """
    facts, how = solver_facts(problem)
    obj = problem.objective
    return {"version": SPECTRA_VERSION, "facts": facts, "how": how,
            "objective": {"L_f": None if obj.L is None else float(obj.L), "mu_f": float(obj.mu),
                          "how": f"{type(obj).__name__} (computed from its blocks at build time)"},
            "archives": {g: dict(spec, crc32=checksum(d, spec)) for g, spec in groups.items()}}


def _unchanged(d: Path, rec: dict) -> bool:
    try:
        spec = {k: v for k, v in rec.items() if k != "crc32"}
        got, want = checksum(d, spec), rec["crc32"]
        return got == ({k: int(v) for k, v in want.items()} if isinstance(got, dict) else int(want))
    except (OSError, KeyError, TypeError, ValueError, AttributeError, zipfile.BadZipFile):
        return False


def trusted_facts(record, d: Path, problem) -> tuple[dict | None, str]:
    """``(facts, note)``: the stored facts of an instance directory's ``"spectra"`` record when their archives are
    the ones loaded (module docstring), else ``(None, why not)``.

    Call it after the archives were read (:mod:`zipfile` has then checked every byte against the CRC-32 compared
    here).  The facts must be those :func:`solver_facts` gives for this structure: no more, no fewer.
    """
    if not isinstance(record, dict) or record.get("version") != SPECTRA_VERSION:
        return None, "no stored spectra (instance.json has no 'spectra' record of this version)"
    facts, archives = record.get("facts"), record.get("archives")
    if not isinstance(facts, dict) or not isinstance(archives, dict):
        return None, "malformed 'spectra' record"
    if set(facts) != fact_keys(problem):
        return None, "the stored spectra are not those of this problem's structure"
    needed = {g for k in facts for g in DEPENDS[k]}
    if problem.C_kernels is None:
        needed.discard("Nker")
    missing = sorted(g for g in needed if g not in archives)
    if missing:
        return None, f"no archive checksum for {', '.join(missing)}"
    changed = sorted(g for g in needed if not _unchanged(d, archives[g]))
    if changed:
        return None, f"the {', '.join(changed)} files changed since the spectra were stored"
    try:
        out = {k: float(v) for k, v in facts.items()}
    except (TypeError, ValueError):
        return None, "non-numeric stored spectra"
    return out, "stored in instance.json, files unchanged (CRC-32)"


def trusted_objective_constants(record, d: Path) -> tuple[float, float] | None:
    """``(L_f, μ_f)`` stored at build time when the objective's archive is unchanged, else ``None``."""
    if not isinstance(record, dict) or record.get("version") != SPECTRA_VERSION:
        return None
    arch = (record.get("archives") or {}).get("objective")
    obj = record.get("objective") or {}
    if not isinstance(arch, dict) or not isinstance(obj, dict) or not _unchanged(d, arch):
        return None
    try:
        return float(obj["L_f"]), float(obj["mu_f"])
    except (KeyError, TypeError, ValueError):
        return None
