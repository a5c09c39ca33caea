"""Error messages in the words of the command line: ``--kappa-W``, not the builder's keyword ``kappa_W``.

The instance builders (:mod:`mixbounds.instances.families`) are Python functions and say what is wrong in Python's
words: ``build() missing 2 required keyword-only arguments: 'kappa_W' and 'kappa_f'``, ``parameters ['graph'] do
not apply to this family``, ``d must be >= 1, got 0``.  A user of ``mixbounds instance`` typed options, so
:func:`optionize` rewrites such a message with the option of each keyword (read from the parser, so it cannot
drift from it); a keyword with no option of its own is named as ``--param KEY``, the way it can be given.
"""

from __future__ import annotations

import argparse
import re


def option_names(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Keyword (``dest``) → the long option that sets it, for every option of ``parser``."""
    out = {}
    for a in parser._actions:
        longs = [s for s in a.option_strings if s.startswith("--")]
        if longs and a.dest not in out and a.dest != "help":
            out[a.dest] = longs[0]
    return out


def _opt(kw: str, names: dict[str, str]) -> str:
    return names.get(kw) or f"--param {kw}"


def _listed(text: str) -> list[str]:
    return re.findall(r"'([A-Za-z_][A-Za-z0-9_]*)'", text)


def optionize(msg: str, names: dict[str, str]) -> str:
    """``msg`` with every builder keyword it names replaced by its option (module docstring)."""
    m = re.search(r"missing \d+ required (?:keyword-only |positional )?arguments?: (.*)$", msg)
    if m:
        opts = [_opt(k, names) for k in _listed(m.group(1))]
        head = msg[:msg.find(m.group(0))].rstrip()
        head = re.sub(r"\b\w+\(\)\s*$", "", head).rstrip(": ").rstrip()
        return f"{head}: needs {' and '.join(opts)}".lstrip(": ")
    m = re.search(r"unexpected keyword argument '([A-Za-z_][A-Za-z0-9_]*)'", msg)
    if m:
        head = msg[:msg.find(m.group(0))].rstrip()
        head = re.sub(r"\b\w+\(\)\s*(got an)?\s*$", "", head).rstrip(": ").rstrip()
        return f"{head}: {_opt(m.group(1), names)} does not apply to this family".lstrip(": ")
    m = re.search(r"(accepted (?:extra )?parameters: )([A-Za-z0-9_, ]+)$", msg)
    if m:  # a list of keywords: every one of them an option
        return msg[:m.start()] + m.group(1) + ", ".join(_opt(k.strip(), names) for k in m.group(2).split(",")
                                                         if k.strip())
    m = re.search(r"parameters? \[([^\]]*)\] do(?:es)? not apply", msg)
    if m:
        opts = [_opt(k, names) for k in _listed(m.group(1))]
        verb = "does" if len(opts) == 1 else "do"
        msg = msg.replace(m.group(0), f"{', '.join(opts)} {verb} not apply")
    # a keyword with an underscore is an identifier wherever it stands (kappa_W, er_p, out_dim) …
    ident = sorted((k for k in names if "_" in k), key=len, reverse=True)
    if ident:
        msg = re.sub(r"(?<![\w-])(" + "|".join(map(re.escape, ident)) + r")(?![\w])", lambda mm: names[mm.group(1)], msg)
    # … any other only as the subject of the message ("d must be >= 1", "family: seed must be …"), never in prose
    return re.sub(r"(^|: )([a-z]+)( must | = | should | is )",
                  lambda mm: mm.group(1) + names.get(mm.group(2), mm.group(2)) + mm.group(3), msg)
