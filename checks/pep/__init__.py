"""Performance-estimation (PEP) certificates of APAPC's rate over the whole function class (issue 35, items 1–2).

One concept per module: :mod:`~mixbounds.checks.pep.networks` (small tuned networks), :mod:`~mixbounds.checks.pep.model` (the
reformulation as fixed scalar matrices, read off :class:`~mixbounds.solvers.reformulations.Reformulation`),
:mod:`~mixbounds.checks.pep.lyapunov` (the Lyapunov function with its dual terms, and its derivation),
:mod:`~mixbounds.checks.pep.factor` (the theorem's and the derived per-step factors), :mod:`~mixbounds.checks.pep.step` (one
APAPC iteration on PEP points), :mod:`~mixbounds.checks.pep.performance` (the PEP, solved by PEPit + Clarabel),
:mod:`~mixbounds.checks.pep.controls` (mis-set methods), :mod:`~mixbounds.checks.pep.extract` (worst case → suite instance →
the suite's APAPC), :mod:`~mixbounds.checks.pep.series` (the worst cases as the third Table 1 series),
:mod:`~mixbounds.checks.pep.points` / :mod:`~mixbounds.checks.pep.registry` (the ``pep.*`` and
``control.pep.*`` results of ``mixbounds verify``), :mod:`~mixbounds.checks.pep.availability` (the ``[pep]`` extra).
Only ``availability``, ``networks``, ``model``, ``lyapunov``, ``factor``, ``step``, ``points`` and
``registry`` import without the extra.

Formulated: the consensus class (``prob:consensus_cons``, ``P_W(W)``), the coupled class
(``app:coupled_cons``: ``B = (A αW')``, the penalty of ``eq:coupled_constraints_reg_form``, Chebyshev on
``BᵀB``) with fixed scalar ``A_i = a_i I_D``, and the shared class (``app:nonind_upper``: ``B̃ = (C̃; γW')``)
with fixed scalar ``C̃_i = c̃_i I_D`` — for every dimension ``D`` of the node variables, every
``f_i ∈ F(μ_f, L_f)`` (one PEPit function per node), fixed ``W`` on path, ring and star graphs of 3–5 nodes.

Not formulated, and why:

* ``A`` ranging over all matrices with singular values in ``[σ_min, σ_max]``: PEPit's
  ``LinearOperator`` class interpolates operators with singular values ``<= L`` only (no lower
  bound), and APAPC's parameters and Lyapunov function need ``λ_min+(S_A)``, the lemma's interval
  of ``BᵀB`` and ``P(BᵀB)⁺`` of the actual operator — none of which is a fixed quantity of an
  interpolated operator.  ``A`` is fixed instead.
* Diagonal (non-scalar) blocks ``A_i``, ``C̃_i``: every map must act on node vectors as ``M ⊗ I_D``; a
  diagonal block acts differently on coordinates, which needs PEPit's ``BlockPartition`` with the
  reformulation's matrices per coordinate block.  Not built.
* ``coupled_local`` and ``mixed`` (local constraints ``C_i x_i = c_i``): with one scalar slot per node a
  non-zero ``C_i`` fixes ``x_i`` (the class degenerates), and a non-trivial ``C_i`` needs ``d_i >= 2``
  with a map that is not ``c I_D`` — the same block-partition extension as above.  Mixed also needs
  ``f_i`` on the pair ``(x_i, x̃_i)`` (two slots of one node).
* The shared class with scalar ``C̃_i`` has the single feasible point ``x̃ = 0``: its certificate is the
  contraction of APAPC on that reformulation (non-trivial: ``B̃`` and ``γ`` are those of
  ``lem:coupled_spectrum``), not of a shared problem with a large feasible set.
* Non-quadratic worst cases (the shared class): the interpolating non-quadratic ``f_i`` (Taylor,
  Hendrickx & Glineur 2017) is not built; ``pep.shared.worst_case`` uses the worst case over
  quadratics and says so.

The extracted worst cases as a third instance family: :func:`mixbounds.checks.pep.extract.build_instance`
returns an :class:`~mixbounds.instances.instance.Instance` (family ``"pep-worst"``, ``x* = 0``: the cross-check
of ``V^K``); :mod:`mixbounds.checks.pep.series` builds, at every sweep point, the worst case as an instance with a
non-zero solution placed where the solvers' start is the worst-case state (as far as ``u⁰ = 0``, ``z⁰ = 0`` can
be) and measures the paper's method on it: the third series of the Table 1 sweeps (``T1.…@pep-worst``,
:mod:`mixbounds.checks.rates`).  Both live in the checks layer because building them solves a PEP (PEPit is not
an instances-layer dependency).
"""
