"""The report's building blocks and their two renderings: Markdown (``report.md``) and HTML (``report.html``).

The report is built once as a list of :class:`Block` s (:mod:`mixbounds.report.verify`) and rendered twice.
Inline text uses a small Markdown subset in both renderings: ```code```, ``**bold**``, ``*italic*``
and links ``[text](#anchor)`` / ``[text](https://…)`` (link text is plain text).  The text comes in part from
the results document, which anyone can edit, so both renderings are safe against it: a link becomes a link
only when its target is an in-document anchor or an ``http(s)`` address (:func:`safe_href`; anything else,
``javascript:`` included, is shown as text), and ``report.md`` escapes ``&``, ``<`` and ``>`` outside code
(:func:`md_text`) — a Markdown viewer passes raw HTML through — while code blocks are fenced by more
backticks than they contain.

The HTML is one file that opens from the file system without a server: figures are *linked* files
with their pixel size, never inlined, fetched only when they near the viewport (``data-src``, set by a
few lines of script; ``<noscript>`` falls back to ``loading="lazy"``), every heading, result, finding and
paper label carries an ``id``, a table of contents and a filter by status / problem class / oracle
(a few lines of plain JavaScript) sit at the top, and the print style sheet expands everything.
A ``window`` error hook records script errors in ``<html data-js-errors>`` so a headless browser
can check the page (:mod:`mixbounds.report.browser`).
"""

from __future__ import annotations

import html
import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path


# ----------------------------------------------------------------------------- blocks
@dataclass
class V:
    """A verdict cell (coloured in HTML, emphasised in Markdown when bad)."""

    status: str
    text: str = ""

    def md(self) -> str:
        t = self.text or self.status
        return f"**{t}**" if self.status in ("fail", "error", "not caught") else t


@dataclass
class Row:
    """A table row with an optional anchor and filter attributes (``s`` status, ``c`` class, ``o`` oracle)."""

    cells: list
    anchor: str | None = None
    data: dict = field(default_factory=dict)


@dataclass
class Block:
    kind: str  # h, p, table, img, details, list, pre, group, html
    a: object = None
    b: object = None
    anchor: str | None = None
    data: dict = field(default_factory=dict)


def H(level: int, text: str, anchor: str | None = None) -> Block:
    return Block("h", level, text, anchor)


def P(text: str) -> Block:
    return Block("p", text)


def T(headers, rows) -> Block:
    return Block("table", headers, rows)


def IMG(path, caption: str, anchor: str | None = None) -> Block:
    return Block("img", path, caption, anchor)


def DETAILS(summary: str, blocks: list) -> Block:
    return Block("details", summary, blocks)


def LIST(items) -> Block:
    return Block("list", items)


def PRE(text: str) -> Block:
    return Block("pre", text)


def GROUP(blocks: list, anchor: str | None = None, data: dict | None = None) -> Block:
    """A section of related blocks (HTML ``<section class="grp">``; hidden by the filter when no row in it matches)."""
    return Block("group", blocks, None, anchor, data or {})


def HTML_ONLY(text: str) -> Block:
    return Block("html", text)


def anchor_id(prefix: str, key: str) -> str:
    """A stable fragment id: ``prefix-key`` with characters outside ``[A-Za-z0-9._:@-]`` replaced by ``_``."""
    return f"{prefix}-" + re.sub(r"[^A-Za-z0-9._:@-]", "_", str(key))


def link(text: str, target: str) -> str:
    """Inline link markup; ``target`` is an anchor id (``#`` added) or a relative path."""
    text = str(text).replace("[", "(").replace("]", ")")
    href = target if ("/" in target or target.startswith("#")) else "#" + target
    return f"[{text}]({href})"


def png_size(path) -> tuple[int, int] | None:
    """Width and height of a PNG from its header (``None`` if it is not a readable PNG)."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def rel(path, base) -> str:
    p = Path(path)
    r = os.path.relpath(p, base) if base is not None else str(p)
    return Path(r).as_posix()


# ----------------------------------------------------------------------------- safety
_SAFE_HREF = re.compile(r"^(#[^\s]*|https?://[^\s]+)$", re.IGNORECASE)
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def safe_href(href: str) -> str | None:
    """``href`` when it is an in-document anchor (``#…``) or an ``http(s)`` address, else ``None``."""
    h = str(href).strip()
    return h if _SAFE_HREF.match(h) else None


def _md_plain(s: str) -> str:
    """Markdown text outside code: HTML characters as entities, links with an unsafe target as literal text."""
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _LINK.sub(lambda m: m.group(0) if safe_href(m.group(2)) else f"\\[{m.group(1)}\\]({m.group(2)})", s)


#: characters of a code span that are written as numeric character references when it holds HTML (:func:`_md_code`)
_MD_CODE_SPECIAL = re.compile(r"[<>&*_`\[\]\\|~]")


def _md_code(p: str) -> str:
    """A ```code``` span of Markdown text: as it is, unless its text holds ``<``, ``>`` or ``&`` — then an HTML
    ``<code>`` element whose text is written as character references (a code span would show ``<script>`` as
    text in a viewer, but the file itself would carry it raw, for any other reader of the file to interpret)."""
    inner = p[1:-1]
    if not re.search(r"[<>&]", inner):
        return p
    return "<code>" + _MD_CODE_SPECIAL.sub(lambda m: f"&#{ord(m.group(0))};", inner) + "</code>"


def md_text(s) -> str:
    """:func:`_md_plain` on the text outside ```code``` spans, :func:`_md_code` on them: nothing the results document
    holds reaches ``report.md`` as raw HTML."""
    parts = re.split(r"(`[^`]+`)", str(s))
    return "".join(_md_code(p) if p.startswith("`") and p.endswith("`") and len(p) > 1 else _md_plain(p)
                   for p in parts)


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text`` (text cannot close it early)."""
    longest = max((len(r) for r in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


# ----------------------------------------------------------------------------- Markdown
def _md_cell(v) -> str:
    s = v.md() if isinstance(v, V) else md_text(v)
    return s.replace("|", "\\|").replace("\n", "<br>")


def render_md(blocks: list[Block], base, out: list[str]) -> None:
    for b in blocks:
        if b.kind == "h":
            out += ([f'<a id="{_attr(b.anchor)}"></a>', ""] if b.anchor else []) + ["#" * b.a + " " + md_text(b.b), ""]
        elif b.kind == "p":
            out += [md_text(b.a), ""]
        elif b.kind == "list":
            out += [f"- {md_text(x)}" for x in b.a] + [""]
        elif b.kind == "pre":
            fence = _fence(str(b.a))
            out += [fence, b.a, fence, ""]
        elif b.kind == "table":
            out.append("| " + " | ".join(md_text(h) for h in b.a) + " |")
            out.append("|" + "---|" * len(b.a))
            for row in b.b:
                cells = row.cells if isinstance(row, Row) else row
                cells = [_md_cell(x) for x in cells]
                if isinstance(row, Row) and row.anchor and cells:
                    cells[0] = f'<a id="{_attr(row.anchor)}"></a>' + cells[0]
                out.append("| " + " | ".join(cells) + " |")
            out.append("")
        elif b.kind == "img":
            if b.a is None:
                continue
            a = f'<a id="{_attr(b.anchor)}"></a>' if b.anchor else ""
            out += [f"{a}![{md_text(b.b)}]({rel(b.a, base)})", "", f"*{md_text(b.b)}*", ""]
        elif b.kind == "details":
            out += [f"<details><summary>{html.escape(b.a)}</summary>", ""]
            render_md(b.b, base, out)
            out += ["</details>", ""]
        elif b.kind == "group":
            if b.anchor:
                out += [f'<a id="{_attr(b.anchor)}"></a>', ""]
            render_md(b.a, base, out)


def _attr(value) -> str:
    """An HTML attribute value (ids are built from result ids, which a results document may carry in any form)."""
    return html.escape(str(value))


# ----------------------------------------------------------------------------- HTML
def _inline_plain(s: str) -> str:
    s = html.escape(s, quote=False)
    s = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)
    return re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", s)


def _inline_text(s: str) -> str:
    out, pos = [], 0
    for m in _LINK.finditer(s):
        href = safe_href(m.group(2))
        if href is None:  # shown as it is written, not followed
            continue
        out.append(_inline_plain(s[pos:m.start()]))
        out.append(f'<a href="{html.escape(href)}">{html.escape(m.group(1), quote=False)}</a>')
        pos = m.end()
    out.append(_inline_plain(s[pos:]))
    return "".join(out)


def inline(s) -> str:
    """Escape, then turn ```code```, ``**bold**``, ``*italic*`` and ``[text](href)`` into tags (not inside code)."""
    parts = re.split(r"(`[^`]+`)", str(s))
    return "".join(f"<code>{html.escape(p[1:-1], quote=False)}</code>"
                   if p.startswith("`") and p.endswith("`") and len(p) > 1 else _inline_text(p) for p in parts)


def _cell(v) -> str:
    if isinstance(v, V):
        cls = v.status.replace(" ", "-")
        return f'<span class="v {cls}">{html.escape(v.text or v.status)}</span>'
    return inline(v)


def _attrs(anchor: str | None, data: dict, cls: str | None = None) -> str:
    s = f' id="{html.escape(anchor)}"' if anchor else ""
    if cls:
        s += f' class="{cls}"'
    for k, v in (data or {}).items():
        s += f' data-{k}="{html.escape(str(v))}"'
    return s


def render_html_blocks(blocks: list[Block], base, out: list[str]) -> None:
    for b in blocks:
        if b.kind == "h":
            out.append(f"<h{b.a}{_attrs(b.anchor, {})}>{inline(b.b)}</h{b.a}>")
        elif b.kind == "p":
            out.append(f"<p>{inline(b.a)}</p>")
        elif b.kind == "list":
            out.append("<ul>" + "".join(f"<li>{inline(x)}</li>" for x in b.a) + "</ul>")
        elif b.kind == "pre":
            out.append(f"<pre>{html.escape(b.a)}</pre>")
        elif b.kind == "html":
            out.append(b.a)
        elif b.kind == "table":
            head = "".join(f"<th>{inline(h)}</th>" for h in b.a)
            body = []
            for row in b.b:
                if isinstance(row, Row):
                    tr = f"<tr{_attrs(row.anchor, row.data, 'r' if row.data else None)}>"
                    cells = row.cells
                else:
                    tr, cells = "<tr>", row
                body.append(tr + "".join(f"<td>{_cell(x)}</td>" for x in cells) + "</tr>")
            out.append(f'<div class="tw"><table><thead><tr>{head}</tr></thead>'
                       f'<tbody>{"".join(body)}</tbody></table></div>')
        elif b.kind == "img":
            if b.a is None or not Path(b.a).is_file():
                continue
            src = html.escape(rel(b.a, base))
            wh = png_size(b.a)
            size = f' width="{wh[0]}" height="{wh[1]}"' if wh else ""
            alt = html.escape(b.b)
            # the file is fetched only when the figure nears the viewport (SCRIPT); headless Chromium loads every
            # loading="lazy" image before the load event (measured: all 290 of the quick tier), so src waits in data-src
            out.append(f'<figure{_attrs(b.anchor, {})}><a href="{src}"><img class="lz" loading="lazy" alt="{alt}" '
                       f'data-src="{src}"{size}><noscript><img loading="lazy" alt="{alt}" src="{src}"{size}></noscript>'
                       f'</a><figcaption>{inline(b.b)}</figcaption></figure>')
        elif b.kind == "details":
            out.append(f"<details><summary>{inline(b.a)}</summary>")
            render_html_blocks(b.b, base, out)
            out.append("</details>")
        elif b.kind == "group":
            out.append(f"<section{_attrs(b.anchor, b.data, 'grp')}>")
            render_html_blocks(b.a, base, out)
            out.append("</section>")


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1250px;margin:1.5em auto;padding:0 1em;
color:#222;line-height:1.4}
.tw{overflow-x:auto;content-visibility:auto;contain-intrinsic-size:auto 300px}
table{border-collapse:collapse;margin:.5em 0 1.2em;font-size:.84em}
th,td{border:1px solid #ccc;padding:.2em .45em;vertical-align:top;text-align:left}
th{background:#f2f2f2}
code{background:#f4f4f4;padding:0 .2em;border-radius:3px;font-size:.92em;overflow-wrap:anywhere}
pre{background:#f6f6f6;padding:.5em;overflow-x:auto}
.v{font-weight:600;white-space:nowrap}
.pass{color:#1e7b34}.finding{color:#a86400}.fail,.error,.not-caught{color:#b00020}.skipped{color:#777}
figure{margin:.8em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}
details{margin:.5em 0}summary{cursor:pointer;font-weight:600}
section.grp{border-top:1px solid #ddd;margin-top:1em;content-visibility:auto;contain-intrinsic-size:auto 500px}
.hide{display:none}
:target{background:#fff6d5}
#filterbar{position:sticky;top:0;background:#fff;border-bottom:1px solid #ccc;padding:.4em 0;z-index:2;font-size:.9em}
#filterbar select{margin-right:.8em}
nav.toc ol{columns:2;font-size:.92em}
@media print{#filterbar{display:none}nav.toc{display:none}body{max-width:none;margin:0;font-size:10pt}
a{color:inherit;text-decoration:none}section.grp{break-inside:avoid-page}table{font-size:8pt}
figure{break-inside:avoid}.hide{display:revert}.tw,section.grp{content-visibility:visible}}
"""

#: first script of the page: records uncaught errors and the load time where a headless browser's DOM dump shows them
ERROR_HOOK = ("window.addEventListener('error',function(e){var h=document.documentElement;"
              "h.setAttribute('data-js-errors',(h.getAttribute('data-js-errors')||'')+(e.message||'error')+';');});"
              "window.addEventListener('load',function(){document.documentElement.setAttribute('data-load-ms',"
              "Math.round(performance.now()));});")

#: the figure loader: a figure's file is fetched when it nears the viewport, every figure before printing
SCRIPT_LAZY = """
(function(){
function show(i){if(!i.getAttribute('src')){i.setAttribute('src',i.dataset.src);}}
var lz=document.querySelectorAll('img.lz');
if('IntersectionObserver' in window){
  var io=new IntersectionObserver(function(es){es.forEach(function(e){
    if(e.isIntersecting){show(e.target);io.unobserve(e.target);}});},{rootMargin:'600px'});
  lz.forEach(function(i){io.observe(i);});
}else{lz.forEach(show);}
window.addEventListener('beforeprint',function(){lz.forEach(show);});
})();
"""


#: the filter (status / class / oracle), opening of collapsed sections around a link target, print expansion; then
#: the figure loader
SCRIPT = """
(function(){
var $=function(i){return document.getElementById(i);};
function filter(){
  var s=$('flt-s').value,c=$('flt-c').value,o=$('flt-o').value,n=0;
  document.querySelectorAll('.r').forEach(function(e){
    var ok=(!s||e.dataset.s===s)&&(!c||e.dataset.c===c)&&(!o||e.dataset.o===o);
    e.classList.toggle('hide',!ok); if(ok){n++;}
  });
  document.querySelectorAll('section.grp').forEach(function(g){
    var rs=g.querySelectorAll('.r'); if(!rs.length){return;}
    var any=false; rs.forEach(function(r){if(!r.classList.contains('hide')){any=true;}});
    g.classList.toggle('hide',!any);
  });
  $('flt-n').textContent=(s||c||o)?n+' matching results':'';
}
function reveal(){
  var id=decodeURIComponent(location.hash.slice(1)); var t=id&&$(id); if(!t){return;}
  if(t.closest('.hide')){['flt-s','flt-c','flt-o'].forEach(function(k){$(k).value='';}); filter();}
  for(var p=t.parentElement;p;p=p.parentElement){if(p.tagName==='DETAILS'){p.open=true;}}
  t.scrollIntoView();
}
['flt-s','flt-c','flt-o'].forEach(function(k){$(k).addEventListener('change',filter);});
window.addEventListener('hashchange',reveal);
window.addEventListener('beforeprint',function(){
  document.querySelectorAll('details').forEach(function(d){d.open=true;});
});
if(location.hash){reveal();}
})();
""" + SCRIPT_LAZY



def controls_html(statuses, classes, oracles) -> str:
    """The filter bar: one ``<select>`` per attribute, options from what the report contains."""
    def sel(i, label, opts):
        o = "".join(f'<option value="{html.escape(v)}">{html.escape(t)}</option>' for v, t in opts)
        return f'<label>{label} <select id="{i}"><option value="">all</option>{o}</select></label>'

    return ('<div id="filterbar">Filter results: ' + sel("flt-s", "status", [(s, s) for s in statuses])
            + sel("flt-c", "class", classes) + sel("flt-o", "oracle", oracles) + ' <span id="flt-n"></span></div>')
