"""Read the complexity tables out of the paper's LaTeX source.

Used by the tests (the registry must reproduce every cell) and by the report (to
quote the printed formula).  The parser knows the paper's handful of symbols;
anything it does not understand raises ``ValueError`` rather than being skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

from mixbounds.bounds.claims import TABLES

PAPER_NAME = "mixed-affine-constraints.tex"


def find_paper() -> Path:
    """Locate the paper's source.

    Order: ``$MIXBOUNDS_PAPER``; ``shared/paper/`` beside any parent of the working
    directory (a checkout sits next to ``shared/``); the same beside this package's
    source tree.  ``FileNotFoundError`` names what was tried.
    """
    import os

    tried = []
    env = os.environ.get("MIXBOUNDS_PAPER")
    if env:
        p = Path(env)
        if p.is_file():
            return p
        tried.append(str(p))
    for base in [Path.cwd(), *Path.cwd().parents, Path(__file__).resolve().parent.parent, *Path(__file__).resolve().parents]:
        for cand in (base / "shared" / "paper" / PAPER_NAME, base / "paper" / PAPER_NAME):
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

_CLASS_WORDS = [("Consensus", "consensus"), ("Coupled", "coupled"), ("Shared", "shared"), ("Local", "coupled_local"),
                ("Mixed", "mixed")]


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
        from fractions import Fraction

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


def _oracle(label: str, cls: str) -> str | None:
    lab = re.sub(r"\s+", "", label).replace("$", "")
    if lab.startswith("Paper"):
        return None
    if lab.startswith("Grad"):
        return "grad"
    if lab.startswith("Comm"):
        return "comm"
    if lab.startswith("Mat."):
        rest = lab[4:]
        if "widetilde" in rest:
            return "Ct"
        if rest in ("C",):
            return "C"
        if rest in ("A", ""):
            return "A"
    raise ValueError(f"unknown oracle label {label!r} in class {cls}")


def parse_tables(path: str | Path | None = None) -> dict[str, tuple]:
    """``{cell id: monomials}`` for every cell of the four complexity tables."""
    text = Path(path if path is not None else find_paper()).read_text(encoding="utf-8")
    label_to_no = {v[0]: k for k, v in TABLES.items()}
    out: dict[str, tuple] = {}
    for m in re.finditer(r"\\begin\{table\}(.*?)\\end\{table\}", text, flags=re.S):
        body = m.group(1)
        lab = re.search(r"\\label\{(table:[^}]*)\}", body)
        if not lab or lab.group(1) not in label_to_no:
            continue
        t = label_to_no[lab.group(1)]
        tab = re.search(r"\\midrule(.*)\\bottomrule", body, flags=re.S).group(1)
        cls = None
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
            cid = f"T{t}.{cls}.{oracle}"
            if cid in out:
                raise ValueError(f"duplicate cell {cid} in the paper's tables")
            out[cid] = parse_complexity(formula)
    return out
