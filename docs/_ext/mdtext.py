"""Small helpers for the generated MyST Markdown pages (escaping, inline code, tables)."""

from __future__ import annotations

#: characters that MyST Markdown would read as markup in running text or a table cell
_MARKUP = "\\`*_[]<>|#"


def escape(text) -> str:
    """``text`` with every Markdown markup character backslash-escaped (ids and help strings hold ``*`` globs)."""
    return "".join("\\" + ch if ch in _MARKUP else ch for ch in str(text))


def code(text) -> str:
    """``text`` as inline code, safe inside a table cell (a ``|`` would end the cell even inside backticks)."""
    return "`" + str(text).replace("`", "'").replace("|", "\\|") + "`"


def table(headers, rows) -> list[str]:
    """A Markdown table; cells are taken as already formatted (escape or :func:`code` them first)."""
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c).replace("\n", " ") for c in row) + " |" for row in rows]
    return out + [""]
