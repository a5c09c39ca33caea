"""User-style methods written only against the public contract of :mod:`mixbounds.methods`.

``apapc`` (optimal: APAPC with Chebyshev acceleration), ``papc`` (the same primal-dual iteration without
acceleration: suboptimal in κ_f), ``diging`` (gradient tracking, consensus only: suboptimal in κ_f and κ_W),
``pdgd`` (a primal–dual gradient method for the coupled class with explicit per-node multipliers, no momentum: the
method designer's guide's coupled example, suboptimal in κ_f).
Run from the repository root: ``mixbounds bench --method examples.apapc:apapc --classes consensus,coupled``.
"""
