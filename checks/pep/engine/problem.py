"""A performance-estimation problem written with exact forms: leaves, functions, operators, constraints.

The objects mirror PEPit's (``PEP``, a function class's ``gradient``/``value``, ``SymmetricLinearOperator``,
``BlockPartition``) with three differences the certificates of :mod:`mixbounds.checks.pep` need:

* coefficients are exact rationals (:mod:`mixbounds.checks.pep.engine.forms`), so that a dual certificate can
  be checked exactly (:mod:`mixbounds.checks.pep.engine.exact`);
* a function may act on a *tuple* of slots (a node with several coordinates, ``f_i(x_i, x̃_i)``): its
  interpolation conditions use ``Σ_s ⟨a_s, b_s⟩``;
* a block partition is structural: every leaf belongs to one block and the Gram matrix is block diagonal
  (one PSD cone per block) instead of PEPit's orthogonality equalities (same feasible set, smaller SDP).

Function classes (Taylor, Hendrickx & Glineur 2017; Bousselmi, Hendrickx & Glineur 2023):

* ``F(μ, L)`` (``"smooth_strongly_convex"``): for every ordered pair of points, multiplied by ``2(L − μ) > 0``,
  ``2(L−μ)(f_j − f_i + ⟨g_j, x_i − x_j⟩) + ‖g_i − g_j‖² + μL‖x_i − x_j‖² − 2μ⟨g_i − g_j, x_i − x_j⟩ <= 0``;
* quadratics ``½xᵀQx`` with ``μI ⪯ Q ⪯ LI`` (``"quadratic"``, stationary point 0): ``f_i = ½⟨x_i, g_i⟩``,
  ``⟨x_i, g_j⟩ = ⟨x_j, g_i⟩`` and ``[(L+μ)⟨g_i, x_j⟩ − ⟨g_i, g_j⟩ − μL⟨x_i, x_j⟩]_ij ⪰ 0``;
* symmetric linear operators with spectrum in ``[lo, hi]`` (:class:`SymmetricOperator`): ``⟨x_i, y_j⟩ =
  ⟨x_j, y_i⟩`` and ``[hi⟨y_i, x_j⟩ − ⟨y_i, y_j⟩ − lo·hi⟨x_i, x_j⟩ + lo⟨x_i, y_j⟩]_ij ⪰ 0`` (symmetrised).
"""

from __future__ import annotations

from mixbounds.checks.pep.engine.forms import HALF, Form, Vec, dot, dots, q

FUNCTION_CLASSES = ("smooth_strongly_convex", "quadratic")


class Function:
    """A function of ``slots`` coordinates in ``F(μ, L)`` or its quadratics; points are ``(x, g, f)`` triplets."""

    def __init__(self, pep: "PEP", mu, L, kind: str, slots: int):
        if kind not in FUNCTION_CLASSES:
            raise ValueError(f"PEP: unknown function class {kind!r}; expected one of {FUNCTION_CLASSES}")
        if not (0 <= float(mu) < float(L)):
            raise ValueError(f"PEP: need 0 <= μ < L for a function class, got μ={mu}, L={L}")
        self.pep, self.mu, self.L, self.kind, self.slots = pep, q(mu), q(L), kind, slots
        self.points: list[tuple[tuple, tuple, Form]] = []
        self._seen: dict = {}

    def _tuple(self, x) -> tuple:
        x = (x,) if isinstance(x, Vec) else tuple(x)
        if len(x) != self.slots:
            raise ValueError(f"PEP: function of {self.slots} slots called with {len(x)}")
        return x

    def add_point(self, x, g, f: Form) -> None:
        """A known triplet (e.g. the pinned solution ``(0, 0, 0)``)."""
        x, g = self._tuple(x), self._tuple(g)
        self.points.append((x, g, f))
        self._seen[tuple(v.key() for v in x)] = (g, f)

    def oracle(self, x) -> tuple[tuple, Form]:
        """``(∇f(x), f(x))``: new leaves the first time ``x`` is asked, the same ones after."""
        x = self._tuple(x)
        key = tuple(v.key() for v in x)
        if key not in self._seen:
            g = tuple(self.pep.point() for _ in range(self.slots))
            f = self.pep.new_value()
            self.points.append((x, g, f))
            self._seen[key] = (g, f)
        return self._seen[key]

    def gradient(self, x):
        g = self.oracle(x)[0]
        return g[0] if self.slots == 1 and isinstance(x, Vec) else g

    def value(self, x) -> Form:
        return self.oracle(x)[1]

    def constraints(self) -> tuple[list, list, list]:
        """``(inequalities <= 0, equalities = 0, LMIs ⪰ 0)`` of the class on the points asked."""
        mu, L = self.mu, self.L
        ineq, eq, lmi = [], [], []
        pts = self.points
        if self.kind == "smooth_strongly_convex":
            n = len(pts)
            xx = [[None] * n for _ in range(n)]
            gg = [[None] * n for _ in range(n)]
            gx = [[dots(pts[i][1], pts[j][0]) for j in range(n)] for i in range(n)]  # ⟨g_i, x_j⟩
            for i in range(n):
                for j in range(i, n):
                    xx[i][j] = xx[j][i] = dots(pts[i][0], pts[j][0])
                    gg[i][j] = gg[j][i] = dots(pts[i][1], pts[j][1])
            for i in range(n):
                for j in range(n):
                    if i == j:
                        continue
                    fi, fj = pts[i][2], pts[j][2]
                    # ‖Δg‖², ‖Δx‖², ⟨Δg, Δx⟩ and ⟨g_j, Δx⟩ with Δ = (·)_i − (·)_j, from the pairwise products
                    dgg = gg[i][i] + gg[j][j] - 2 * gg[i][j]
                    dxx = xx[i][i] + xx[j][j] - 2 * xx[i][j]
                    dgx = gx[i][i] - gx[i][j] - gx[j][i] + gx[j][j]
                    ineq.append(2 * (L - mu) * (fj - fi + gx[j][i] - gx[j][j]) + dgg + mu * L * dxx - 2 * mu * dgx)
            return ineq, eq, lmi
        live = [(x, g, f) for x, g, f in pts if not all(v.is_zero() for v in x)]
        for x, g, f in pts:
            eq.append(f - HALF * dots(x, g))
        for i in range(len(live)):
            for j in range(i + 1, len(live)):
                eq.append(dots(live[i][0], live[j][1]) - dots(live[j][0], live[i][1]))
        if live:
            T = [[None] * len(live) for _ in live]
            for i, (xi, gi, _) in enumerate(live):
                for j, (xj, gj, _) in enumerate(live):
                    if j < i:
                        T[i][j] = T[j][i]
                        continue
                    tij = (L + mu) * dots(gi, xj) - dots(gi, gj) - mu * L * dots(xi, xj)
                    tji = (L + mu) * dots(gj, xi) - dots(gj, gi) - mu * L * dots(xj, xi)
                    T[i][j] = HALF * (tij + tji)
            lmi.append(T)
        return ineq, eq, lmi


class SymmetricOperator:
    """A symmetric linear operator with spectrum in ``[lo, hi]`` acting on one block; pairs ``(x, y = Mx)``."""

    def __init__(self, pep: "PEP", lo, hi, block: int):
        if not (0 <= float(lo) <= float(hi)):
            raise ValueError(f"PEP: need 0 <= lo <= hi for an operator's spectrum, got [{lo}, {hi}]")
        self.pep, self.lo, self.hi, self.block = pep, q(lo), q(hi), block
        self.pairs: list[tuple[Vec, Vec]] = []
        self._seen: dict = {}

    def apply(self, x: Vec) -> Vec:
        """``M x`` (``x`` must lie in the operator's block; a new leaf there the first time)."""
        if any(self.pep.block_of[i] != self.block for i in x.c):
            raise ValueError("PEP: a symmetric operator applied to a point outside its block")
        if x.is_zero():
            return Vec()
        k = x.key()
        if k not in self._seen:
            y = self.pep.leaf(self.block)
            self.pairs.append((x, y))
            self._seen[k] = y
        return self._seen[k]

    def constraints(self) -> tuple[list, list, list]:
        lo, hi = self.lo, self.hi
        P = self.pairs
        eq = [dot(P[i][0], P[j][1]) - dot(P[j][0], P[i][1]) for i in range(len(P)) for j in range(i + 1, len(P))]
        T = [[None] * len(P) for _ in P]
        for i, (xi, yi) in enumerate(P):
            for j, (xj, yj) in enumerate(P):
                if j < i:
                    T[i][j] = T[j][i]
                    continue
                tij = hi * dot(yi, xj) - dot(yi, yj) - lo * hi * dot(xi, xj) + lo * dot(xi, yj)
                tji = hi * dot(yj, xi) - dot(yj, yi) - lo * hi * dot(xj, xi) + lo * dot(xj, yi)
                T[i][j] = HALF * (tij + tji)
        return [], eq, ([T] if P else [])


class PEP:
    """Leaves (each in one of ``blocks`` orthogonal blocks), function values, classes and the problem
    ``max objective s.t. initial <= 1`` and the class constraints."""

    def __init__(self, blocks: int = 1):
        self.blocks = blocks
        self.block_of: list[int] = []
        self.n_values = 0
        self.functions: list[Function] = []
        self.operators: list[SymmetricOperator] = []
        self.extra_ineq: list[Form] = []
        self.extra_eq: list[Form] = []
        self.objective: Form | None = None
        self.initial: Form | None = None

    def leaf(self, block: int = 0) -> Vec:
        if not (0 <= block < self.blocks):
            raise ValueError(f"PEP: block {block} outside 0..{self.blocks - 1}")
        self.block_of.append(block)
        return Vec.leaf(len(self.block_of) - 1)

    def point(self) -> Vec:
        """A free point of the whole space: one new leaf in every block."""
        out = Vec()
        for b in range(self.blocks):
            out = out + self.leaf(b)
        return out

    def new_value(self) -> Form:
        self.n_values += 1
        return Form.value(self.n_values - 1)

    def function(self, mu, L, kind: str = "smooth_strongly_convex", slots: int = 1) -> Function:
        f = Function(self, mu, L, kind, slots)
        self.functions.append(f)
        return f

    def operator(self, lo, hi, block: int = 0) -> SymmetricOperator:
        op = SymmetricOperator(self, lo, hi, block)
        self.operators.append(op)
        return op

    def constraints(self) -> tuple[list, list, list]:
        """Every inequality (``<= 0``), equality and LMI of the problem, the classes' first (built once: call it
        when the problem is complete)."""
        if getattr(self, "_constraints", None) is not None:
            return self._constraints
        ineq, eq, lmi = [], [], []
        for c in self.functions + self.operators:
            a, b, m = c.constraints()
            ineq += a
            eq += b
            lmi += m
        self._constraints = (ineq + self.extra_ineq, eq + self.extra_eq, lmi)
        return self._constraints
