"""Read the complexity tables out of the paper's LaTeX source.

Used by the tests: the registry must reproduce every cell.  The four tables' LaTeX ships with the package
(:data:`VENDORED`, cut verbatim from the paper by :func:`table_spans`), so the registry is checked anywhere; the
whole paper, when it is found (:func:`find_paper`), is compared with that copy.  The parser knows the paper's
handful of symbols; anything it does not understand raises ``ValueError`` rather than being skipped.

Refresh the copy from a newer source of the paper::

    python -m mixbounds.bounds.texparse PATH/TO/mixed-affine-constraints.tex > bounds/paper_tables.tex
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from fractions import Fraction
from pathlib import Path

from mixbounds.bounds.claims import TABLES
from mixbounds.bounds.concepts import Oracle, ProblemClass
from mixbounds.bounds.result_id import cell_id

PAPER_NAME = "mixed-affine-constraints.tex"
#: the four tables' LaTeX, package data beside this module
VENDORED = "paper_tables.tex"
_TABLE_ENV = re.compile(r"\\begin\{table\}(.*?)\\end\{table\}", flags=re.S)


def find_paper() -> Path:
    """Locate the paper's source.

    Order: ``$MIXBOUNDS_PAPER``; ``shared/paper/`` (or ``paper/``) beside the working directory or any of its
    parents (a checkout sits next to ``shared/``).  ``FileNotFoundError`` names what was tried.
    """
    tried = []
    env = os.environ.get("MIXBOUNDS_PAPER")
    if env:
        p = Path(env)
        if p.is_file():
            return p
        tried.append(str(p))
    for base in [Path.cwd(), *Path.cwd().parents]:
        for cand in (base / "shared/paper" / PAPER_NAME, base / "paper" / PAPER_NAME):
            if cand.is_file():
                return cand
            tried.append(str(cand))
    raise FileNotFoundError(
        f"cannot find {PAPER_NAME}; set MIXBOUNDS_PAPER to its path (tried {len(tried)} places, e.g. {tried[:2]})"
    )

# (normalised LaTeX, token); applied in order after removing white space
_SYMBOLS = [
    (r"\frac{L_fR^2}{\eps}", "LR2_eps"),
    (r"\frac{M_f^2R^2}{\eps^2}", "MR_eps^2"),
    (r"\frac{M_fR}{\eps}", "MR_eps"),
    (r"\frac{M_f^2}{\mu_f\eps}", "M_mu_eps^2"),
    (r"\frac{M_f}{\sqrt{\mu_f\eps}}", "M_mu_eps"),
    (r"\hat\kappa_{\widetildeC^\top}", "kappa_Ct"),
    (r"\hat\kappa_{\widetilde{C}^\top}", "kappa_Ct"),
    (r"\hat{\kappa}_{\widetilde{C}^\top}", "kappa_Ct"),
    (r"\hkappa_{\widetilde{C}^\top}", "kappa_Ct"),
    (r"\hkappa_{\widetildeC^\top}", "kappa_Ct"),
    (r"\hat\kappa_{A}", "kappa_A"),
    (r"\hat\kappa_A", "kappa_A"),
    (r"\hkappa_A", "kappa_A"),
    (r"\kappaproj", "kappa_AC"),
    (r"\widetilde\kappa_{AC}", "kappa_AC"),
    (r"\kappa_{\widetildeC}", "kappa_Ct_id"),
    (r"\kappa_{W}", "kappa_W"),
    (r"\kappa_W", "kappa_W"),
    (r"\kappa_{C}", "kappa_C"),
    (r"\kappa_C", "kappa_C"),
    (r"\kappa_f", "kappa_f"),
]

_CLASS_WORDS = [("Consensus", ProblemClass.CONSENSUS), ("Coupled", ProblemClass.COUPLED), ("Shared", ProblemClass.SHARED),
                ("Local", ProblemClass.COUPLED_LOCAL), ("Mixed", ProblemClass.MIXED)]


def _normalise(tex: str) -> str:
    s = re.sub(r"\s+", "", tex.strip().strip("$"))
    s = s.replace(r"\varepsilon", r"\eps").replace(r"\left", "").replace(r"\right", "")
    for pat, tok in _SYMBOLS:
        s = s.replace(pat, f"<{tok}>")
    return s


class _Parser:
    """expr := term ('+' term)* ; term := factor+ ; factor := \\sqrt{expr} | (expr) | <atom>(^n)?"""

    def __init__(self, s: str, raw: str):
        self.s, self.i, self.raw = s, 0, raw

    def err(self, msg):
        raise ValueError(f"cannot parse complexity {self.raw!r}: {msg} at {self.s[self.i:]!r}")

    def expr(self):
        terms = self.term()
        while self.i < len(self.s) and self.s[self.i] == "+":
            self.i += 1
            terms = terms + self.term()
        return terms

    def term(self):
        acc = [dict()]
        got = False
        while self.i < len(self.s) and self.s[self.i] not in "+)}":
            f = self.factor()
            acc = [_mul(a, b) for a in acc for b in f]
            got = True
        if not got:
            self.err("empty term")
        return acc

    def power(self) -> float:
        m = re.match(r"\^\{([0-9/.]+)\}|\^([0-9])", self.s[self.i:])
        if not m:
            return 1.0
        self.i += m.end()
        return float(Fraction(m.group(1) or m.group(2)))

    def factor(self):
        s = self.s
        if s.startswith(r"\sqrt{", self.i):
            self.i += 6
            inner = self.expr()
            if self.i >= len(s) or s[self.i] != "}":
                self.err("unclosed sqrt")
            self.i += 1
            if len(inner) != 1:
                self.err("square root of a sum")
            return [{k: v / 2 for k, v in inner[0].items()}]
        if s[self.i] == "(":
            self.i += 1
            inner = self.expr()
            if self.i >= len(s) or s[self.i] != ")":
                self.err("unclosed parenthesis")
            self.i += 1
            e = self.power()
            if e != 1.0:
                if len(inner) != 1:
                    self.err("power of a sum")
                return [{k: v * e for k, v in inner[0].items()}]
            return inner
        if s[self.i] == "<":
            j = s.index(">", self.i)
            tok = s[self.i + 1 : j]
            self.i = j + 1
            name, _, exp = tok.partition("^")
            return [{name: float(exp) if exp else 1.0}]
        self.err("unknown symbol")


def _mul(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0.0) + v
    return out


def parse_complexity(tex: str) -> tuple[tuple[tuple[str, float], ...], ...]:
    """LaTeX formula of a cell → sorted tuple of monomials ``((param, exponent), …)``."""
    s = _normalise(tex)
    p = _Parser(s, tex)
    terms = p.expr()
    if p.i != len(s):
        p.err("trailing input")
    return tuple(sorted(tuple(sorted(t.items())) for t in terms))


def _oracle(label: str, cls: str | None) -> str | None:
    lab = re.sub(r"\s+", "", label).replace("$", "")
    if lab.startswith("Paper"):
        return None
    if lab.startswith("Grad"):
        return Oracle.GRAD
    if lab.startswith("Comm"):
        return Oracle.COMM
    if lab.startswith("Mat."):
        rest = lab[4:]
        if "widetilde" in rest:
            return Oracle.CT
        if rest in (Oracle.C,):
            return Oracle.C
        if rest in (Oracle.A, ""):
            return Oracle.A
    raise ValueError(f"unknown oracle label {label!r} in class {cls}")


def vendored_tables() -> Path:
    """The four tables' LaTeX that ships with the package (:data:`VENDORED`)."""
    return Path(__file__).with_name(VENDORED)


def table_spans(text: str) -> list[str]:
    """The table environments of ``text`` (the whole paper, or :data:`VENDORED`) labelled as one of the four
    complexity tables (:data:`mixbounds.bounds.claims.TABLES`), verbatim, in table order; ``ValueError`` unless
    each is there exactly once."""
    found: dict[int, list[str]] = {}
    label_to_no = {v[0]: k for k, v in TABLES.items()}
    for m in _TABLE_ENV.finditer(text):
        lab = re.search(r"\\label\{(table:[^}]*)\}", m.group(1))
        if lab and lab.group(1) in label_to_no:
            found.setdefault(label_to_no[lab.group(1)], []).append(m.group(0))
    bad = {TABLES[t][0]: len(found.get(t, [])) for t in TABLES if len(found.get(t, [])) != 1}
    if bad:
        raise ValueError(f"expected each complexity table once; found {bad}")
    return [found[t][0] for t in sorted(TABLES)]


def vendored_text(paper_text: str, source: str) -> str:
    """The content of :data:`VENDORED` cut from ``paper_text`` (the paper's source, file name ``source``)."""
    digest = hashlib.sha256(paper_text.encode("utf-8")).hexdigest()
    labels = ", ".join(TABLES[t][0] for t in sorted(TABLES))
    head = [
        "% The four complexity tables of \"Complexity of Decentralized Optimization with Mixed Affine Constraints\"",
        "% (Yarmoshik, Nguyen, Rogozin, Gasnikov), cut verbatim from the paper's LaTeX source",
        f"% {source} (sha256 {digest}):",
        f"% its table environments labelled {labels}, in that order.",
        "% The claims registry (mixbounds.bounds.claims) is checked against them (tests/test_claims.py), which also",
        "% compares this copy with the whole paper when it is found ($MIXBOUNDS_PAPER or shared/paper/).",
        "% Refresh: python -m mixbounds.bounds.texparse PATH/TO/mixed-affine-constraints.tex > bounds/paper_tables.tex",
    ]
    return "\n".join(head) + "\n\n" + "\n\n".join(table_spans(paper_text)) + "\n"


def parse_tables(path: str | Path | None = None) -> dict[str, tuple]:
    """``{cell id: monomials}`` for every cell of the four complexity tables of ``path`` (the whole paper or
    :data:`VENDORED`; default: the copy that ships with the package)."""
    text = Path(path if path is not None else vendored_tables()).read_text(encoding="utf-8")
    label_to_no = {v[0]: k for k, v in TABLES.items()}
    out: dict[str, tuple] = {}
    for m in _TABLE_ENV.finditer(text):
        body = m.group(1)
        lab = re.search(r"\\label\{(table:[^}]*)\}", body)
        if not lab or lab.group(1) not in label_to_no:
            continue
        t = label_to_no[lab.group(1)]
        rows = re.search(r"\\midrule(.*)\\bottomrule", body, flags=re.S)
        if rows is None:
            raise ValueError(f"Table {t}: no \\midrule … \\bottomrule rows")
        tab = rows.group(1)
        cls: str | None = None
        for line in tab.splitlines():
            line = line.strip()
            if not line or line.startswith("\\midrule") or line.startswith("%"):
                continue
            if line.startswith(r"\multirow"):
                for word, key in _CLASS_WORDS:
                    if word in line:
                        cls = key
                        break
                else:
                    raise ValueError(f"Table {t}: unknown problem class in {line!r}")
                continue
            if not line.startswith("&"):
                continue
            parts = [p.strip() for p in line.rstrip("\\").strip().rstrip("\\").split("&")]
            _, label, formula = parts[0], parts[1], "&".join(parts[2:]).strip()
            formula = formula.rstrip("\\").strip()
            oracle = _oracle(label, cls)
            if oracle is None:
                continue
            if cls is None:
                raise ValueError(f"Table {t}: a row before the first class (\\multirow): {line!r}")
            cid = cell_id(t, cls, oracle)
            if cid in out:
                raise ValueError(f"duplicate cell {cid} in the paper's tables")
            out[cid] = parse_complexity(formula)
    return out


if __name__ == "__main__":  # pragma: no cover - the refresh command of the module docstring
    if len(sys.argv) != 2:
        sys.exit("usage: python -m mixbounds.bounds.texparse PATH/TO/mixed-affine-constraints.tex")
    src = Path(sys.argv[1])
    sys.stdout.write(vendored_text(src.read_text(encoding="utf-8"), src.name))
