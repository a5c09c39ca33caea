"""Figure style: the paper's symbols on the axes, paper-size fonts, off-screen drawing.

Every figure is a :class:`matplotlib.figure.Figure` drawn with the Agg canvas
(no display, no pyplot global state).  Axis symbols follow the paper's notation
(``mixbounds.bounds.claims.PARAMS``), written in matplotlib mathtext: ``κ_W`` is
``$\\kappa_W$``, ``κ̂_C̃ᵀ`` is ``$\\hat\\kappa_{\\widetilde C^\\top}$``, oracle counts are
``N_∇f, N_A, N_C, N_C̃, N_W``.
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg", force=False)  # no display; a no-op if pyplot already chose a backend

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.mathtext import MathTextParser  # noqa: E402
from mixbounds.bounds.claims import PARAMS  # noqa: E402
from mixbounds.bounds.concepts import Oracle
from mixbounds.bounds.statements import STATEMENT_PARAMS  # noqa: E402

#: mathtext of each registry parameter (the LaTeX symbols of mixbounds.bounds.claims.PARAMS), and of the parameters
#: only the statements outside the tables have (mixbounds.bounds.statements.STATEMENT_PARAMS: κ_B, L/μ)
PARAM_TEX = {**{k: v[1] for k, v in STATEMENT_PARAMS.items()}, **{k: v[1] for k, v in PARAMS.items()}}
#: oracle → mathtext of its count (Definition def:foda: one round at every node)
ORACLE_TEX = {Oracle.GRAD: r"N_{\nabla f}", Oracle.A: r"N_A", Oracle.C: r"N_C", Oracle.CT: r"N_{\widetilde C}", Oracle.COMM: r"N_W"}
ORACLE_WORD = {Oracle.GRAD: "gradient rounds", Oracle.A: "mult. by A", Oracle.C: "mult. by C", Oracle.CT: r"mult. by $\widetilde C$",
               Oracle.COMM: "communication rounds"}

#: paper-size text (a one-column figure is ~3.4 in wide)
RC = {
    "font.size": 8, "axes.labelsize": 8, "axes.titlesize": 8, "legend.fontsize": 7, "xtick.labelsize": 7,
    "ytick.labelsize": 7, "lines.linewidth": 1.2, "lines.markersize": 4.5, "axes.grid": True, "grid.alpha": 0.3,
    "grid.linewidth": 0.5, "svg.fonttype": "path", "savefig.dpi": 150,
}

#: series styles (colour, marker)
UPPER_STYLE = {"color": "#1f5fa8", "marker": "o"}
LOWER_STYLES = [{"color": "#c0392b", "marker": "s"}, {"color": "#e67e22", "marker": "D"}, {"color": "#8e44ad", "marker": "^"},
                {"color": "#16a085", "marker": "v"}]
UPPER_EXTRA_STYLES = [{"color": "#1f5fa8", "marker": "o"}, {"color": "#2e86c1", "marker": "P"}, {"color": "#17a589", "marker": "X"}]
THEORY_STYLE = {"color": "0.35", "ls": (0, (4, 2)), "lw": 1.0}


#: parsed mathtext kept across figures (the suite's figures repeat a few hundred strings: axis symbols, oracle
#: counts, tick labels); matplotlib's own cache holds 50 parses per renderer, and every figure has a new renderer
MATHTEXT_CACHE = 4096


def _share_mathtext_parses() -> bool:
    """Make matplotlib's mathtext parses one cache for every figure of the process (drawing only, same output).

    ``MathTextParser._parse_cached`` is an ``lru_cache(50)`` keyed on the parser object, and each renderer makes its
    own parser: the ~290 figures of a verify run parsed the same strings again (29% of the drawing time of a cell
    figure's SVG).  The parse depends only on the output type, the string, dpi, font properties, antialiasing and
    glyph flags, so it is cached on those.  Returns ``False`` (and changes nothing) on a matplotlib whose parser
    does not have that form.
    """
    method = getattr(MathTextParser, "_parse_cached", None)
    raw = getattr(method, "__wrapped__", None)
    if raw is None or getattr(method, "_mixbounds_shared", False):
        return bool(getattr(method, "_mixbounds_shared", False))
    parsers: dict = {}

    @functools.lru_cache(MATHTEXT_CACHE)
    def parse(output_type, s, dpi, prop, antialiased, load_glyph_flags):
        parser = parsers.setdefault(output_type, MathTextParser("path" if output_type == "vector" else "agg"))
        return raw(parser, s, dpi, prop, antialiased, load_glyph_flags)

    def _parse_cached(self, s, dpi, prop, antialiased, load_glyph_flags):
        return parse(self._output_type, s, dpi, prop, antialiased, load_glyph_flags)

    _parse_cached._mixbounds_shared = True
    _parse_cached._mixbounds_original = method
    MathTextParser._parse_cached = _parse_cached
    return True


MATHTEXT_SHARED = _share_mathtext_parses()


def param_tex(param: str) -> str:
    """``$\\kappa_W$``-style mathtext of a parameter (the raw name if unknown)."""
    sym = PARAM_TEX.get(param)
    return f"${sym}$" if sym else param.replace("_", " ")


def oracle_tex(oracle: str | None) -> str:
    sym = ORACLE_TEX.get(oracle or "")
    return f"${sym}$" if sym else (oracle or "count")


def x_label(param: str) -> str:
    return f"realized {param_tex(param)}"


def y_label(oracle: str | None) -> str:
    word = ORACLE_WORD.get(oracle or "")
    # two lines: on a one-column figure the one-line label is longer than the axes and leaves the figure
    return f"{oracle_tex(oracle)} per accuracy" + (f"\n({word})" if word else "")


def new_figure(width: float, height: float, *, layout: str = "constrained") -> Figure:
    """A figure on the Agg canvas with the suite's style (rcParams applied at creation)."""
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(width, height), layout=layout)
        FigureCanvasAgg(fig)
    return fig


def style_context():
    """Context manager: the suite's rcParams while drawing."""
    return matplotlib.rc_context(RC)


def _umask() -> int:
    m = os.umask(0o022)
    os.umask(m)
    return m


def save(fig: Figure, stem: Path, formats=("png", "svg")) -> list[Path]:
    """Write ``stem.png`` / ``stem.svg`` atomically (temporary file in the same directory, then rename)."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for fmt in formats:
        path = stem.parent / f"{stem.name}.{fmt}"  # not with_suffix: stems contain dots (T1.coupled.comm)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=f".{fmt}")
        os.close(fd)
        try:
            with style_context():
                fig.savefig(tmp, format=fmt)
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; figures are ordinary files
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        out.append(path)
    return out
