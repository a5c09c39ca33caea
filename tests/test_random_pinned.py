"""Random families are bit-identical for the same seed and parameters (instances/random/).

The SHA-256 fingerprints below were computed from the single-file ``instances/random.py`` (main at
9c2c72a) before it was split into one module per concept; a refactor, or a faster tuning path that
is meant to change nothing at these sizes, must reproduce every matrix, vector, realized κ and
parameter record exactly.  The cases cover every family of ``instances.random`` (stage 1 and stage 2
of the κ̂ tuning, tuned paths, Fiedler-cut weakening, ER graphs, Metropolis gossip, the logistic
objective) and the nonsmooth/convex families built from the same helpers.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
import scipy.sparse as sp

from mixbounds.instances.families import build

#: (family, parameters, fingerprint): hex SHA-256 of :func:`fingerprint` on main at 9c2c72a
PINNED = [
    ('random-consensus', {'kappa_W': 50.0, 'kappa_f': 30.0},
     '40c1ec7bcc38422cf8a3ccf7207c78e762456420096c70a1f715e947553e83ef'),
    ('random-consensus', {'kappa_f': 20.0, 'kappa_W': 40.0, 'objective': 'logistic', 'graph': 'ring',
                          'gossip': 'metropolis'},
     '05715f2ab3640abbf1f0ca474048740ba57dc6f1fd2bce37cbbfb2f676aea245'),
    ('random-coupled', {'kappa_f': 10.0, 'kappa_AC': 200.0, 'graph': 'er', 'seed': 3},
     '729189fec640e02d46220cb97c32aae50dd85f9f9abecbca1539f36b2c9d1b90'),
    ('random-coupled', {'kappa_f': 5.0, 'kappa_A': 2.5, 'graph': 'star', 'kappa_W': 30.0},
     'b94c2168b0fec3b876db1b895d7b16a01a333aa9a2ab1afcea323ae24bfe72d0'),
    ('random-coupled', {'n': 12, 'd': 7, 'm': 4, 'kappa_AC': 10000.0, 'seed': 5},
     '3309ecf3381da67d15b99d2399b9c358bf2c1c8b8e7823604b69f316c1aedff6'),
    ('random-coupled', {'n': 6},
     '6834a5d7792a4017cc17f5ef0615458725ac0a569efad7b45aef8a06f08ca16b'),
    ('random-shared', {'kappa_Ct': 50.0, 'kappa_W': 20.0, 'graph': 'ring'},
     'e042c235f5139c3180ff870f73e6f03ea7a245aff6fdde739bd7703645af2929'),
    ('random-shared', {'kappa_Ct': 12.0, 'graph': 'grid', 'n': 9, 'seed': 1},
     '96e52f8ba4c35319445b24ef9818cc351513382c629d076fccafb7d6e0161709'),
    ('random-shared-ident', {'kappa_Ct': 40.0, 'kappa_f': 100.0},
     'f2f5ad9ec0fb8b17287e79e549e159be17d24ec8755e591fb8d255b4a0326a18'),
    ('random-coupled-local', {'kappa_C': 20.0, 'kappa_AC': 3.0, 'graph': 'grid', 'n': 9},
     '0e634991ab7a10e3e9d5be4b169351151d010862aac632619127d1c827ae77e1'),
    ('random-coupled-local', {'kappa_C': 1.0, 'kappa_AC': 5000.0, 'kappa_W': 12.0},
     '9654eb2db61e99dee85d467bfd2e65a97d5368ad02f9d60e201f433b9ee72514'),
    ('random-mixed', {'kappa_C': 20.0, 'kappa_AC': 1000.0, 'kappa_Ct': 9.0, 'kappa_W': 40.0, 'graph': 'star',
                      'gossip': 'metropolis'},
     '4f7d76aba78c7489e477a2dc219a2c0a8ae680c9c3f60c1576a5f6a09868b910'),
    ('random-mixed', {'kappa_AC': 30.0, 'kappa_Ct': 25.0, 'objective': 'logistic', 'n': 5},
     '09655e6161a16226e5e788135297b11d2348168fc37690474742b4d1eb5c574a'),
    ('random-mixed-ident', {'kappa_C': 5.0, 'kappa_AC': 2.0, 'kappa_Ct': 9.0, 'graph': 'er', 'seed': 7},
     'a0cb8e195935ea056f27dfc1a12f0a030ce1885213585ba99912a67512b93111'),
    ('logistic-consensus', {'kappa_f': 100.0, 'kappa_W': 12.0},
     '03f0793e83be82a5bc681d4c3b87faa78b005e00d0807a2b9183343493df5471'),
    ('vertical-fl', {'kappa_f': 50.0, 'kappa_W': 25.0, 'graph': 'ring'},
     '16eb0666f3e3af938eea65715a3a35aaf650648b2edf5a8317aa30e11aba3623'),
    ('vertical-fl', {'kappa_f': 20.0, 'variant': 'logistic', 'n': 4},
     '6d17c514450bb422ab531565459d71bb219e9a69c07f6c2f4779dcdadbe72801'),
    ('vertical-fl', {'kappa_f': 8.0, 'out_dim': 2, 'samples': 3, 'features': 2, 'n': 5},
     '4ffbc3349ca09993f63916e5e35fa77e72abf73cd1306a4e22d947c54264eeae'),
    ('local-global', {'kappa_f': 100.0, 'kappa_W': 30.0, 'graph': 'ring'},
     '97de066e265982f1cb8523204e1c093f8acb916dba32286a44341c50063f0bf7'),
    ('local-global', {'kappa_f': 1000.0, 'n': 5, 'd': 3, 'lam': 1.0},
     '9520aebb0cd98a109d5403b41210bd433d7b9a296a4a7d50b418a01195806a60'),
    ('nonsmooth-mixed', {'kappa_AC': 20.0, 'kappa_Ct': 9.0, 'seed': 2},
     'e6ceaaf91e4ab95123462c1cba1dec01a9983bed6a8a0eb9bfe346ebd89b5346'),
    ('convex-coupled', {'kappa_AC': 50.0},
     '013274d472ada7aeb13adbde7a0d9c5f858e8f15146a0559c371789796427353'),
]


def _arrays(obj, prefix: str):
    """Yield ``(name, array)`` for a matrix/vector or a sequence of them, sparse in canonical CSR form."""
    if obj is None:
        return
    if isinstance(obj, (list, tuple)):
        for i, x in enumerate(obj):
            yield from _arrays(x, f"{prefix}[{i}]")
        return
    if sp.issparse(obj):
        M = sp.csr_matrix(obj, copy=True)
        M.sum_duplicates()
        M.sort_indices()
        yield f"{prefix}.shape", np.asarray(M.shape)
        yield f"{prefix}.data", M.data
        yield f"{prefix}.indices", M.indices.astype(np.int64)
        yield f"{prefix}.indptr", M.indptr.astype(np.int64)
        return
    yield prefix, np.asarray(obj)


def fingerprint(inst) -> str:
    """SHA-256 over every array of the problem and the JSON of the instance's records."""
    P = inst.problem
    h = hashlib.sha256()
    parts = [("W", P.W), ("edges", P.edges), ("A", P.A), ("b", P.b), ("C", P.C), ("c", P.c), ("Ct", P.Ct),
             ("ct", P.ct), ("C_kernels", P.C_kernels)]
    o = P.objective
    for attr in ("Q_blocks", "q_blocks", "features", "labels", "reg", "L", "mu"):
        if hasattr(o, attr):
            parts.append((f"objective.{attr}", getattr(o, attr)))
    for name, x in parts:
        for key, a in _arrays(x, name):
            h.update(key.encode())
            h.update(str(a.dtype).encode() + str(a.shape).encode())
            h.update(np.ascontiguousarray(a).tobytes())
    records = {"family": inst.family, "variant": inst.variant, "targets": inst.targets, "realized": inst.realized,
               "closed_forms": inst.closed_forms, "findings": inst.findings, "params": inst.params,
               "notes": inst.notes, "seed": inst.seed, "layout": [list(P.layout.d), P.layout.dt]}
    h.update(json.dumps(records, sort_keys=True, default=repr).encode())
    return h.hexdigest()


@pytest.mark.parametrize("family,params,pinned", PINNED, ids=[f"{f}-{i}" for i, (f, _, _) in enumerate(PINNED)])
def test_random_family_bit_identical(family, params, pinned):
    assert fingerprint(build(family, **params)) == pinned


def test_fingerprint_sees_one_ulp():
    """Negative control: changing one entry of one block by one ulp changes the fingerprint."""
    inst = build("random-coupled", n=6)
    before = fingerprint(inst)
    A0 = inst.problem.A[0]
    A0.data[0] = np.nextafter(A0.data[0], np.inf)
    assert fingerprint(inst) != before
