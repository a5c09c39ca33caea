"""The parts of the paper's reformulations ``min G(w) s.t. K w = b'``, one module per role.

The one class the solvers build from them is :class:`mixbounds.solvers.reformulations.Reformulation`.

Variables ``w = (x, Y, X̃)`` (:mod:`~mixbounds.solvers.reformulation.variables`).  The constraint is block-diagonal,
``K = diag(x-block, X̃-block)`` (``app:upper_bound_coupled_plus_non_ident_local_constraints_prob``), with
``W' = P_W(W)`` and ``C' = P_C(CᵀC)`` the inner Chebyshev polynomials
(:mod:`~mixbounds.solvers.reformulation.inner`).  Per block, the raw ``B`` (normal operator ``N = BᵀB``) and the
paper's source:

* consensus (X̃): ``√W``, ``N = W``; ``P_W(W)`` is its Chebyshev (``prob:consensus_cons``);
* shared (X̃): ``B̃ = (C̃; γW')``, ``N = C̃ᵀC̃ + γ²W'²`` (``app:nonind_upper``, ``lem:coupled_spectrum`` on ``C̃ᵀ``);
* shared, identical: ``B̃ = (I⊗C̃'; W')`` (γ = 1), ``C̃' = P(C̃ᵀC̃)``, no outer Chebyshev (``thm:LI_upper_bound``,
  ``lem:local_spectrum``);
* coupled (x, Y): ``B = (A  αW')`` (``app:coupled_cons``, ``lem:coupled_spectrum``);
* coupled_local: ``B = [[A, αW'], [βC', 0]]`` (``sec:mixed_upper``, ``eq:block_scaling``);
* local (x): ``C``, ``N = CᵀC`` (the x-part of a mixed problem without A).

(:mod:`~mixbounds.solvers.reformulation.shared`, :mod:`~mixbounds.solvers.reformulation.coupled`,
:mod:`~mixbounds.solvers.reformulation.local`; the scalings α, β, γ, r:
:mod:`~mixbounds.solvers.reformulation.scalings`.)  Every block except the identical-C̃ one is then
Chebyshev-accelerated (``B → P_B(BᵀB)``) with the spectral interval its lemma gives, and APAPC reads ``P(KᵀK)``
and ``Kᵀb'`` (:mod:`~mixbounds.solvers.reformulation.normal`).  The objective is
``G(w) = F(x, X̃) + (r/2)‖A x + αW'Y − b‖²`` (:mod:`~mixbounds.solvers.reformulation.objective`), its constants
``μ_G``, ``L_G`` by mode (:mod:`~mixbounds.solvers.reformulation.constants_modes`).

Spectra: ``spectra="lemma"`` (default) uses the lemma bounds and the exact range ``[1 − 1/T_n, 1 + 1/T_n]`` of every
Chebyshev polynomial (what a decentralized method knows); ``spectra="exact"`` computes every interval fed to a
Chebyshev polynomial or to APAPC from the operators themselves (dense, small problems;
:mod:`~mixbounds.solvers.reformulation.exact`).  If a lemma's bound is wrong the solver shows it (slow or divergent
runs); it is never replaced by a measured value in ``"lemma"`` mode.

``method="apapc-nocheb"`` is the negative control: the same reformulation with ``W' = W``, ``C' = C``, ``C̃' = C̃``
and no outer polynomial, APAPC directly on ``BᵀB`` with the same lemmas' bounds.

All products go through :class:`mixbounds.solvers.oracles.CountedOracles`; set-up work that a decentralized method
would do (the right-hand side ``Bᵀb'``) is counted too and shows in row 0 of the history.  Products made to
*estimate* constants go through a second counted oracle object,
:attr:`~mixbounds.solvers.reformulations.Reformulation.setup_orc`, whose counts are
:attr:`~mixbounds.solvers.reformulations.Reformulation.setup_counts` (the solve summary's ``setup_counts``), never
mixed into the solve's.  The facts (``λ_max(W)``, ``λ_min+(W)``, ``L_A``, ``λ_min+(S_A)``, …) are the constants the
paper assumes known (:mod:`~mixbounds.solvers.reformulation.facts`).  Materialised polynomials are measured on a scratch oracle whose
counts are discarded, each application counted as its recurrence
(:mod:`~mixbounds.solvers.reformulation.materialized`).
"""
