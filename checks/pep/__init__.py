"""Performance-estimation (PEP) certificates of APAPC's rate (issues 35 and 46).

One concept per module: :mod:`~mixbounds.checks.pep.networks` (small tuned networks), :mod:`~mixbounds.checks.pep.model`
(a reformulation as fixed matrices, read off :class:`~mixbounds.solvers.reformulations.Reformulation`),
:mod:`~mixbounds.checks.pep.lyapunov` (the Lyapunov function with its dual terms, and its derivation),
:mod:`~mixbounds.checks.pep.factor` (the theorem's and the derived per-step factors), :mod:`~mixbounds.checks.pep.step`
(one APAPC iteration on PEP points), :mod:`~mixbounds.checks.pep.performance` (the fixed-network PEP),
:mod:`~mixbounds.checks.pep.controls` (mis-set methods), :mod:`~mixbounds.checks.pep.extract` (worst case → suite
instance → the suite's APAPC), :mod:`~mixbounds.checks.pep.series` (the worst cases as the third Table 1 series),
:mod:`~mixbounds.checks.pep.points` / :mod:`~mixbounds.checks.pep.registry` (the ``pep.*`` and ``control.pep.*``
results), :mod:`~mixbounds.checks.pep.availability` (the ``[pep]`` extra), :mod:`~mixbounds.checks.pep.pepit_reference`
(the same PEPs written with PEPit: the engine's test reference).  Sub-packages by role:
:mod:`~mixbounds.checks.pep.engine` (exact forms, the conic program solved by Clarabel, the exact check of dual
certificates, the worst case's rank and shares) and :mod:`~mixbounds.checks.pep.kinds` (class-level certificates,
several-slot blocks, binding certificates, controls at the boundary, their tasks and results).
Only ``availability``, ``networks``, ``model``, ``lyapunov``, ``factor``, ``step``, ``points``, ``registry`` and
``kinds.points``/``kinds.results`` import without the extra.

Formulated (fixed network): consensus (``prob:consensus_cons``), coupled (``app:coupled_cons``, the penalty of
``eq:coupled_constraints_reg_form``) and shared (``app:nonind_upper``) with scalar blocks ``a_i I_D``, ``c̃_i I_D``; with
several coordinates per node (:mod:`~mixbounds.checks.pep.kinds.blocks`): coupled with ``A_i ∈ R^{1×2}``, coupled + local
with ``C_i ∈ R^{1×2}`` and mixed with ``f_i(x_i, x̃_i)``.  Class level (:mod:`~mixbounds.checks.pep.kinds.classlevel`):
every ``G ∈ F(μ_G, L_G)`` and every symmetric ``P`` with spectrum in ``{0} ∪ [lo, hi]``, at the constants of each
class (consensus, coupled, shared, coupled + local, mixed, and the identical-``C̃`` classes of ``thm:LI_upper_bound``
and of the identical case of ``thm:upper_bound_coupled_plus_non_ident_local_constraints_prob``, whose step applies
``B̃ = (I ⊗ C̃'; W')`` without an outer polynomial: :mod:`~mixbounds.checks.pep.kinds.identical`), with and without
Chebyshev acceleration.

Not formulated, and why:

* ``A`` (or ``C``, ``C̃``) ranging over all matrices with given singular values *together with* the network at the
  level of nodes: the class-level PEP covers them only through the constants ``μ_G, L_G, [lo, hi]`` the lemmas give
  (a relaxation: every instance with those constants is in it); a node-level class of networks in the style of
  Colla & Hendrickx (agents explicit, ``W`` with a spectral range) is not built.
* Non-quadratic worst cases (the shared class): the interpolating non-quadratic ``f_i`` (Taylor, Hendrickx & Glineur
  2017) is not built; ``pep.shared.worst_case`` uses the worst case over quadratics and says so.

The extracted worst cases as a third instance family: :func:`mixbounds.checks.pep.extract.build_instance`
returns an :class:`~mixbounds.instances.instance.Instance` (family ``"pep-worst"``, ``x* = 0``: the cross-check
of ``V^K``); :mod:`mixbounds.checks.pep.series` builds, at every sweep point, the worst case as an instance with a
non-zero solution placed where the solvers' start is the worst-case state (as far as ``u⁰ = 0``, ``z⁰ = 0`` can
be) and measures the paper's method on it: the third series of the Table 1 sweeps (``T1.…@pep-worst``,
:mod:`mixbounds.checks.rates`).  Both live in the checks layer because building them solves a PEP.
"""
