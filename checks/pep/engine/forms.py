"""Exact linear and quadratic forms in the points of a performance-estimation problem (PEP).

A PEP's unknowns are the Gram matrix ``G`` of a few *leaf* vectors (points of an arbitrary ``R^D``: the
starting state, the gradients the method asks for, the outputs of a linear operator) and the *values*
``f_k`` of the functions at the points where they are asked.  Every point the method computes is a
linear combination of leaves (:class:`Vec`); every quantity it is judged on (a Lyapunov function, an
interpolation inequality) is a :class:`Form`: ``Σ_{i<=j} q_ij G_ij + Σ_k l_k f_k + c``.

Coefficients are exact dyadic rationals (:class:`D`, ``m·2^e``): a float entering (a step size, an entry of
a network's operator) is converted exactly (its binary value), and every sum and product after that is
exact.  The PEP handed to the SDP solver is the float image of these forms; the
dual certificate is checked against the forms themselves (:mod:`mixbounds.checks.pep.engine.exact`),
so a certificate proves the inequality for the method whose parameters are exactly the float64 values
the suite runs with.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable


class D:
    """An exact dyadic rational ``m · 2^e`` (``m`` odd or 0): every float is one, and sums and products of
    dyadic numbers stay dyadic, so the forms need no gcd (``Fraction`` arithmetic spent most of its time there)."""

    __slots__ = ("m", "e")

    def __init__(self, m: int = 0, e: int = 0):
        if m:
            tz = (m & -m).bit_length() - 1
            if tz:
                m >>= tz
                e += tz
        else:
            e = 0
        self.m, self.e = m, e

    def __add__(self, o) -> "D":
        if isinstance(o, int):
            o = D(o)
        elif not isinstance(o, D):
            return NotImplemented
        if not o.m:
            return self
        if not self.m:
            return o
        if self.e <= o.e:
            return D(self.m + (o.m << (o.e - self.e)), self.e)
        return D((self.m << (self.e - o.e)) + o.m, o.e)

    def __sub__(self, o) -> "D":
        return self + (-q(o))

    def __rsub__(self, o) -> "D":
        return q(o) + (-self)

    def __neg__(self) -> "D":
        return D(-self.m, self.e)

    def __mul__(self, o):
        if isinstance(o, int):
            o = D(o)
        elif not isinstance(o, D):
            return NotImplemented
        if not (self.m and o.m):
            return ZERO
        out = D.__new__(D)
        out.m, out.e = self.m * o.m, self.e + o.e
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def __bool__(self) -> bool:
        return self.m != 0

    def __eq__(self, o) -> bool:
        return isinstance(o, D) and self.m == o.m and self.e == o.e

    def __hash__(self) -> int:
        return hash((self.m, self.e))

    def __lt__(self, o: "D") -> bool:
        return (self - o).m < 0

    def __float__(self) -> float:
        return math.ldexp(float(self.m), self.e) if abs(self.m) < (1 << 1000) else float(self.fraction())

    def fraction(self) -> Fraction:
        return Fraction(self.m * (1 << self.e)) if self.e >= 0 else Fraction(self.m, 1 << -self.e)

    def __repr__(self) -> str:
        return f"D({float(self)!r})"


ZERO = D(0)
ONE = D(1)
HALF = D(1, -1)


def q(x) -> D:
    """``x`` as an exact dyadic rational (a float's binary value); ``ValueError`` on NaN, infinity or a
    non-dyadic fraction."""
    if isinstance(x, D):
        return x
    if isinstance(x, int):
        return D(x)
    if isinstance(x, Fraction):
        d = x.denominator
        if d & (d - 1):
            raise ValueError(f"PEP forms: {x} is not dyadic")
        return D(x.numerator, -(d.bit_length() - 1))
    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"PEP forms: coefficient {x} is not finite")
    n, d = x.as_integer_ratio()
    return D(n, -(d.bit_length() - 1))


class Vec:
    """``Σ_l c_l e_l`` over leaf vectors ``e_l`` (leaf ids are ints); immutable by convention."""

    __slots__ = ("c",)

    def __init__(self, c: dict | None = None):
        self.c = c or {}

    @classmethod
    def leaf(cls, i: int) -> "Vec":
        return cls({i: ONE})

    def __add__(self, other: "Vec") -> "Vec":
        out = dict(self.c)
        for k, v in other.c.items():
            s = out.get(k, ZERO) + v
            if s:
                out[k] = s
            else:
                out.pop(k, None)
        return Vec(out)

    def __neg__(self) -> "Vec":
        return Vec({k: -v for k, v in self.c.items()})

    def __sub__(self, other: "Vec") -> "Vec":
        return self + (-other)

    def scale(self, a) -> "Vec":
        a = q(a)
        if not a:
            return Vec()
        return Vec({k: a * v for k, v in self.c.items()})

    def __rmul__(self, a):
        return self.scale(a)

    def __mul__(self, other):
        """A number: the scaled vector; a :class:`Vec`: the inner product (a :class:`Form`), as PEPit's points."""
        if isinstance(other, Vec):
            return dot(self, other)
        return self.scale(other)

    def is_zero(self) -> bool:
        return not self.c

    def key(self) -> frozenset:
        """A hashable identity of the combination (the same point asked twice gets the same gradient)."""
        return frozenset(self.c.items())


class Form:
    """``Σ_{i<=j} q_ij G_ij + Σ_k l_k f_k + c`` (``G_ij = ⟨e_i, e_j⟩``, ``f_k`` function-value unknowns)."""

    __slots__ = ("q", "l", "c")

    def __init__(self, q_: dict | None = None, l_: dict | None = None, c=ZERO):
        self.q = q_ or {}
        self.l = l_ or {}
        self.c = q(c)

    @classmethod
    def value(cls, k: int) -> "Form":
        return cls(l_={k: ONE})

    @classmethod
    def const(cls, c) -> "Form":
        return cls(c=c)

    def __add__(self, other) -> "Form":
        if not isinstance(other, Form):
            other = Form.const(other)
        return Form(_add(self.q, other.q), _add(self.l, other.l), self.c + other.c)

    __radd__ = __add__

    def __neg__(self) -> "Form":
        return Form({k: -v for k, v in self.q.items()}, {k: -v for k, v in self.l.items()}, -self.c)

    def __sub__(self, other) -> "Form":
        if not isinstance(other, Form):
            other = Form.const(other)
        return self + (-other)

    def __rsub__(self, other) -> "Form":
        return (-self) + other

    def scale(self, a) -> "Form":
        a = q(a)
        if not a:
            return Form()
        return Form({k: a * v for k, v in self.q.items()}, {k: a * v for k, v in self.l.items()}, a * self.c)

    def __mul__(self, a) -> "Form":
        return self.scale(a)

    __rmul__ = __mul__

    def evaluate(self, gram, values) -> float:
        """The float value at a Gram matrix (``gram[i][j]``, indexable by leaf ids) and function values."""
        s = float(self.c)
        for (i, j), v in self.q.items():
            s += float(v) * float(gram[i][j])
        for k, v in self.l.items():
            s += float(v) * float(values[k])
        return s


def _add(a: dict, b: dict) -> dict:
    if not b:
        return dict(a)
    out = dict(a)
    for k, v in b.items():
        s = out.get(k, ZERO) + v
        if s:
            out[k] = s
        else:
            out.pop(k, None)
    return out


def dot(a: Vec, b: Vec) -> Form:
    """``⟨a, b⟩`` as a form in the Gram entries (``i <= j`` keys)."""
    out: dict = {}
    for i, x in a.c.items():
        for j, y in b.c.items():
            k = (i, j) if i <= j else (j, i)
            s = out.get(k, ZERO) + x * y
            if s:
                out[k] = s
            else:
                out.pop(k, None)
    return Form(out)


def sq(a: Vec) -> Form:
    """``‖a‖²``."""
    return dot(a, a)


def combine(terms: Iterable[tuple[object, Vec]]) -> Vec:
    """``Σ_k c_k v_k`` (exact)."""
    out = Vec()
    for c, v in terms:
        if q(c):
            out = out + v.scale(c)
    return out


def dots(a: tuple, b: tuple) -> Form:
    """``Σ_s ⟨a_s, b_s⟩`` of two tuples of slots (the inner product of a node's several coordinates)."""
    out = Form()
    for x, y in zip(a, b):
        out = out + dot(x, y)
    return out
