"""Random families are bit-identical for the same seed and parameters (instances/random/).

The SHA-256 fingerprints below were computed from the single-file ``instances/random.py`` (main at
9c2c72a) before it was split into one module per concept; a refactor, or a faster tuning path that
is meant to change nothing at these sizes, must reproduce every matrix, vector, realized κ and
parameter record exactly.  The cases cover every family of ``mixbounds.instances.random`` (stage 1 and stage 2
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
     '60e6ca5a7f3ada8b59361f966caaaf5ce0b4abd7402e141d26ffeca43968d56c'),
    ('random-consensus', {'kappa_f': 20.0, 'kappa_W': 40.0, 'objective': 'logistic', 'graph': 'ring',
                          'gossip': 'metropolis'},
     '3e61a76f4f433bcc2855ed977d23c9f1c7c9ded339ce6ea2e01ac58cb50164df'),
    ('random-coupled', {'kappa_f': 10.0, 'kappa_AC': 200.0, 'graph': 'er', 'seed': 3},
     'f46a714046084d355944e3ea03653a508ddf13f7e3ece66b4f86bd00cf806698'),
    ('random-coupled', {'kappa_f': 5.0, 'kappa_A': 2.5, 'graph': 'star', 'kappa_W': 30.0},
     '867b267c23bd48ea34fae8f4681023a9afc3d66e4c655afd2c2a2a5c0935b0a7'),
    ('random-coupled', {'n': 12, 'd': 7, 'm': 4, 'kappa_AC': 10000.0, 'seed': 5},
     '31d45749a77a2849e77ae4845804e5fdc5907724dd19bfc08716ac8a497954bf'),
    ('random-coupled', {'n': 6},
     'bb7861290fa866a12fad0a13c06fd59de70c0c7e6cba1c7a6d6f948fe27d4ef5'),
    ('random-shared', {'kappa_Ct': 50.0, 'kappa_W': 20.0, 'graph': 'ring'},
     '7cfa95623272ab671f0a6cc86da08eb867f3b094d42cc824001f9cdafa05781e'),
    ('random-shared', {'kappa_Ct': 12.0, 'graph': 'grid', 'n': 9, 'seed': 1},
     'c867b9c360a722017c9186f56d23e28b52b553185f674bc0492197487ffadd30'),
    ('random-shared-ident', {'kappa_Ct': 40.0, 'kappa_f': 100.0},
     '7d6ab7cbcbe48af5c11664379832045716ab1089ee96d0613711285d3210fa26'),
    ('random-coupled-local', {'kappa_C': 20.0, 'kappa_AC': 3.0, 'graph': 'grid', 'n': 9},
     'ff1e8477fb305f9f5132f0e4cd41867ae8f3ebd08f8801c0c91b125453f93e11'),
    ('random-coupled-local', {'kappa_C': 1.0, 'kappa_AC': 5000.0, 'kappa_W': 12.0},
     'd9bb80d06042961a239a999db38c7dc483c39c957b974faffc340d47d93e6891'),
    ('random-mixed', {'kappa_C': 20.0, 'kappa_AC': 1000.0, 'kappa_Ct': 9.0, 'kappa_W': 40.0, 'graph': 'star',
                      'gossip': 'metropolis'},
     '8e82f481c6daf44d4b03b6c94c79fb835a94d569baa090cddbd59923c24350ae'),
    ('random-mixed', {'kappa_AC': 30.0, 'kappa_Ct': 25.0, 'objective': 'logistic', 'n': 5},
     'c0876ff56cbff30df7405799b6bb64f5907a9d26459a40c59a8437f40ae5e18a'),
    ('random-mixed-ident', {'kappa_C': 5.0, 'kappa_AC': 2.0, 'kappa_Ct': 9.0, 'graph': 'er', 'seed': 7},
     '266355314835ab948186fd54ffabe01595e7900594d2b5f0b5c5c58043e05989'),
    ('logistic-consensus', {'kappa_f': 100.0, 'kappa_W': 12.0},
     'edec40e1856841c95b4bbcc8445ac3f768f7a1186f2749a17539d3522c8b9ee6'),
    ('vertical-fl', {'kappa_f': 50.0, 'kappa_W': 25.0, 'graph': 'ring'},
     '80eaa69a00a1e58306b8cd11effdb90dce51c8ade8c14e032871d0977e96dfb7'),
    ('vertical-fl', {'kappa_f': 20.0, 'variant': 'logistic', 'n': 4},
     'e740aca12fd3639fd403e00ecdaac534270013ce244f8457fdd538e16f5260fc'),
    ('vertical-fl', {'kappa_f': 8.0, 'out_dim': 2, 'samples': 3, 'features': 2, 'n': 5},
     'efd482782756e346986dde66a45f3c740fde3a86d1f423a4837716289083969f'),
    ('local-global', {'kappa_f': 100.0, 'kappa_W': 30.0, 'graph': 'ring'},
     '22ddd5f820ca7778c881cce879fab78e2c35935c7637b8a71d2d9af422640267'),
    ('local-global', {'kappa_f': 1000.0, 'n': 5, 'd': 3, 'lam': 1.0},
     'b16bdd53a17f1b01e5bb67890cb954f03564c8798a89c6500e1b2c900e6a5ead'),
    ('nonsmooth-mixed', {'kappa_AC': 20.0, 'kappa_Ct': 9.0, 'seed': 2},
     'ecca1364482719ca2d22f519eb1cef1d72769aaa803918df3d431f87a35ba52c'),
    ('convex-coupled', {'kappa_AC': 50.0},
     '5f45a924148b7cf30fc76eac149cd5aebf7a832038e18986cdaadce52c282666'),
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
    """SHA-256 over every array of the problem and the JSON of the instance's records.

    ``notes`` (free text that names source files) are left out; everything else of the instance is in.
    """
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
               "seed": inst.seed, "layout": [list(P.layout.d), P.layout.dt]}
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
