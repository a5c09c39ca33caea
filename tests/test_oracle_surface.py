"""The counted-oracle surface a method sees, declared once (solvers/oracles.py::OracleSurface), and the three
implementations that must satisfy it: the problem's own counters, a view's delegating counters
(solvers/regularized.py) and a user's method's (src/mixbounds/methods.py)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from mixbounds.checks.run.framework import instance_and_reference
from mixbounds.solvers.oracles import CountedOracles, OracleSurface
from mixbounds.solvers.regularized import DelegatingOracles, ProblemView

from mixbounds.methods import MethodOracles

#: the operators the surface declares (read from the protocol, not retyped)
MEMBERS = sorted(n for n, v in vars(OracleSurface).items() if not n.startswith("_") and callable(v))


def _positional(fn) -> list[str]:
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"]


def mismatches(cls) -> list[str]:
    """What ``cls`` lacks of the surface: a missing operator, or one whose positional parameters differ."""
    out = []
    for name in MEMBERS:
        impl = getattr(cls, name, None)
        if impl is None or not callable(impl):
            out.append(f"{name}: missing")
        elif _positional(impl) != _positional(getattr(OracleSurface, name)):
            out.append(f"{name}: takes {_positional(impl)}, the surface {_positional(getattr(OracleSurface, name))}")
    return out


@pytest.fixture(scope="module")
def implementations():
    inst, _ = instance_and_reference("random-mixed", {"seed": 0})
    P = inst.problem
    base = CountedOracles(P)
    return {"CountedOracles": base, "DelegatingOracles": DelegatingOracles(ProblemView(P, P.objective), base),
            "MethodOracles": MethodOracles(CountedOracles(P))}


def test_the_surface_is_the_eight_operators():
    assert MEMBERS == sorted(["grad", "A", "AT", "C", "CT", "Ct", "CtT", "comm"])


@pytest.mark.parametrize("name", ["CountedOracles", "DelegatingOracles", "MethodOracles"])
def test_every_implementation_satisfies_the_surface(implementations, name):
    orc = implementations[name]
    assert isinstance(orc, OracleSurface)
    assert mismatches(type(orc)) == []
    # and each operator answers on a real instance (one call each, the shapes of the surface)
    P = implementations["CountedOracles"].problem
    lay = P.layout
    x, Xt = np.zeros(lay.dx), np.zeros((P.n, lay.dt))
    assert orc.grad(np.zeros(lay.size)).shape == (lay.size,)
    assert orc.AT(orc.A(x)).shape == (lay.dx,) and orc.CT(orc.C(x)).shape == (lay.dx,)
    assert orc.CtT(orc.Ct(Xt)).shape == (P.n, lay.dt) and orc.comm(np.zeros((P.n, 2))).shape == (P.n, 2)


def test_an_implementation_missing_an_operator_fails_the_surface():
    """Negative controls: an implementation without ``CtT`` fails both checks; one whose ``comm`` takes no array
    passes ``isinstance`` (names only) and is caught by the signature check."""

    class NoCtT(MethodOracles):
        __slots__ = ()
        CtT = None

    class BadComm(MethodOracles):
        __slots__ = ()

        def comm(self):
            return None

    assert mismatches(NoCtT) == ["CtT: missing"]
    assert not isinstance(NoCtT(CountedOracles.__new__(CountedOracles)), OracleSurface)
    assert isinstance(BadComm(CountedOracles.__new__(CountedOracles)), OracleSurface)
    assert mismatches(BadComm) == ["comm: takes [], the surface ['Y']"]
