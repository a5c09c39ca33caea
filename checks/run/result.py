"""Check results: the records every check family returns and ``results.json`` holds.

Statuses
--------
* ``pass``: the numbers agree with the claim within the stated tolerance;
* ``fail``: they do not, and the suite cannot name a reason in the paper: a bug in the suite, or a claim
  contradicted by the numbers;
* ``finding``: the paper's statement and the numbers disagree in a way the suite can name (a constant, a
  construction, a formula); both are recorded;
* ``error``: the check could not be run (an exception, a non-converged solver);
* ``skipped``: not run in this tier.

A *negative control* (``control=True``) is a check built to fail (a solver
without acceleration, a perturbed exponent, a mis-tuned instance…); it is
*caught* when its status is ``fail``.  A control that passes means the check
family cannot fail, and fails the run.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from mixbounds.bounds.result_id import with_variant  # noqa: F401  (re-exported: the checks build their ids from here)

STATUSES = ("pass", "fail", "finding", "error", "skipped")


def json_clean(x: Any) -> Any:
    """JSON-safe copy: numpy scalars to Python, NaN/inf to strings.

    Parameters
    ----------
    x : Any
        A value of a result or a point: nested dicts, lists, tuples, numpy arrays and scalars.

    Returns
    -------
    Any
        The same structure with string keys, lists for tuples and arrays, Python scalars, and ``"nan"``/``"inf"``
        for non-finite floats.
    """
    if isinstance(x, dict):
        return {str(k): json_clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_clean(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, np.ndarray):
        return [json_clean(v) for v in x.tolist()]
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


@dataclass(frozen=True)
class Finding:
    """A named disagreement between the paper and the numbers (``results.json``: ``findings[]``).

    Attributes
    ----------
    id : str
        ``finding:<result id>`` or a name of its own.
    label : str
        The paper label of the statement (``lem:local_spectrum``, ``table:…``).
    statement : str
        What the paper states, in words.
    printed, measured : object
        The paper's value and the suite's, side by side.
    detail : str
        How it was measured, with the numbers.
    source : str
        The id of the result that found it.
    """

    id: str
    label: str
    statement: str
    printed: object
    measured: object
    detail: str
    source: str  # id of the check that found it

    def to_json(self) -> dict[str, Any]:
        """The finding as ``results.json`` holds it.

        Returns
        -------
        dict
            The finding's fields, JSON-safe.
        """
        out: dict[str, Any] = json_clean(asdict(self))
        return out


def reading(key: str, readings: dict[str, Any]) -> dict[str, Any]:
    """``measured`` and ``readings`` of a result with several numbers: ``measured = readings[key]``, the one the
    verdict compares (named by ``key``), and all of them by name.

    Use as ``CheckResult(..., **reading(key, {...}))``.

    Parameters
    ----------
    key : str
        The reading the verdict compares.
    readings : dict
        Every reading by name.

    Returns
    -------
    dict
        ``{"measured": readings[key], "readings": readings}``.
    """
    value = readings[key]
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"reading {key!r} is {value!r}, not a number")
    return {"measured": value, "readings": dict(readings)}


@dataclass(frozen=True)
class CheckResult:
    """One verdict: a row of the console table and a record of ``results.json`` (``claims[]``).

    Attributes
    ----------
    id : str
        Stable identifier (``T1.coupled.comm.kappa_W.upper``, ``lemma.coupled_spectrum``, ``control.…``).
    kind : str
        ``upper`` / ``tight`` / ``absent`` (slope checks against a table cell), ``lower`` (lower-bound engine),
        ``lemma``, ``closed-form``, ``bench``, ``tightness``, …
    status : str
        One of :data:`STATUSES`.
    theory : object
        The claimed exponent or value.
    measured : float or None
        The one number the verdict compares (a slope, a worst ratio of the two sides of a lemma, a count of
        violating cases); never a dict.
    readings : dict
        Every number behind ``measured`` by name when there are several (:func:`reading`).
    ci : tuple or None
        The 95% confidence interval of ``measured``.
    tolerance : float or None
        What was allowed; why it is that number lives in the module that produced it.
    points : list
        The raw sweep points (realized κ's, counts, seeds), so anyone can re-fit.
    detail : str
        The verdict's rule with its numbers, in words.
    label, cell, param : str or None
        The paper label checked, the table cell and the swept parameter.
    instance : dict
        The instance the result was measured on (non-swept κ's, sizes).
    control : bool
        A negative control: built to fail; *caught* when its status is ``fail``.
    expected : str or None
        For a control, the status it must come out with.
    findings : tuple of Finding
        The findings this result produced.
    variant : str or None
        The series a sweep result belongs to: the construction variant (``None`` for the construction as
        printed) or, for a random-family sweep, the family; the id carries it as its ``@variant`` suffix
        (:func:`with_variant`).
    r2, seconds, extra
        The fit's R², the time taken, and anything else a family records.
    verdict_label : str or None
        What a ``pass`` means when it means less or more than the bare status: ``upper holds, not exercised``
        (:data:`mixbounds.checks.verdict.NOT_EXERCISED`), ``certified (PEP)``, and, set on the tight results by
        :func:`mixbounds.checks.lower.certificates.certify`, ``tight`` or ``upper matches, lower not certified``.
    """

    id: str
    kind: str
    status: str
    theory: object = None
    measured: object = None
    ci: tuple[Any, ...] | None = None
    tolerance: float | None = None
    points: list[Any] = field(default_factory=list)
    detail: str = ""
    label: str | None = None
    cell: str | None = None
    param: str | None = None
    instance: dict[str, Any] = field(default_factory=dict)
    control: bool = False
    expected: str | None = None
    r2: float | None = None
    seconds: float = 0.0
    findings: tuple[Any, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    variant: str | None = None
    readings: dict[str, Any] = field(default_factory=dict)
    verdict_label: str | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"CheckResult {self.id}: unknown status {self.status!r}")
        m = self.measured
        if m is not None and (isinstance(m, bool) or not isinstance(m, numbers.Real)):
            raise ValueError(f"CheckResult {self.id}: measured must be a number or None, got "
                             f"{type(self.measured).__name__} (several numbers go to readings)")

    @property
    def caught(self) -> bool | None:
        """For a negative control: whether it came out ``fail`` (``None`` for ordinary checks)."""
        if not self.control:
            return None
        return self.status == "fail"

    def to_json(self) -> dict[str, Any]:
        """The result as ``results.json`` holds it.

        Returns
        -------
        dict
            The result's fields, its findings and ``caught``, JSON-safe (one claim of ``results.json``).
        """
        d = asdict(self)
        d["findings"] = [f.to_json() if isinstance(f, Finding) else f for f in self.findings]
        d["caught"] = self.caught
        out: dict[str, Any] = json_clean(d)
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "CheckResult":
        """The record of a ``results.json`` claim (schema 2; a schema-1 claim whose ``measured`` is not a number
        reads as ``measured=None`` with that value in ``readings``).

        Parameters
        ----------
        d : dict
            One claim of ``results.json``, as :meth:`to_json` writes it.

        Returns
        -------
        CheckResult
            The record.
        """
        d = dict(d)
        d.pop("caught", None)
        m = d.get("measured")
        if isinstance(m, str):
            try:
                d["measured"] = m = float(m)  # "nan"/"inf" as json_clean writes them
            except ValueError:
                pass
        if m is not None and (isinstance(m, bool) or not isinstance(m, (int, float))):
            d["readings"], d["measured"] = (m if isinstance(m, dict) else {"measured": m}), None
        fs = tuple(Finding(**f) for f in d.get("findings", ()))
        d["findings"] = fs
        if d.get("ci") is not None:
            d["ci"] = tuple(float(v) for v in d["ci"])
        return cls(**d)
