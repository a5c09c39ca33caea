"""JSON read from disk or from the command line: regular files only, bounded size and nesting depth.

Every JSON document the suite reads back (``instance.json``, ``results.json``, ``bench.json``, point-cache
entries, output manifests, lock files, install journals, ``solve`` summaries, ``--param`` values) goes
through :func:`read_json` or :func:`loads`, so that damaged or hostile input fails with one line naming the
file instead of blocking or crashing the reader:

* a FIFO, a device or a directory in place of a file is refused before it is read (opening a FIFO for
  reading blocks until a writer appears: the file is opened with ``O_NONBLOCK`` and checked with
  ``fstat``);
* a file larger than :data:`JSON_MAX_BYTES` is refused before it is read;
* a document nested deeper than :data:`JSON_MAX_DEPTH` is refused before it is parsed (Python's parser
  recurses once per level: ten thousand ``[`` raise ``RecursionError``);
* undecodable bytes and syntax errors are reported with their position.

Field types are the caller's business (each reader checks the fields it uses); this module only
guarantees that what it returns is a parsed JSON value of bounded depth.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

#: deepest nesting accepted: the suite's own documents are at most 8 levels deep (results.json:
#: claims → result → points → point → per_accuracy → …); 64 leaves room for a user's hand-written files
JSON_MAX_DEPTH = 64
#: largest JSON file read: a full-tier results.json is ~30 MB; an instance.json of 10⁶ variables lists
#: ~10⁴ files; 1 GiB is far above both and far below what would exhaust the machine's memory in parsing
JSON_MAX_BYTES = 1 << 30

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


class JSONFileError(ValueError):
    """A JSON file or text that cannot be read (one line, naming where)."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (strings are skipped; 0 for a scalar)."""
    depth = deepest = 0
    for ch in _STRING.sub("", text):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def loads(text: str, where: str, *, max_depth: int = JSON_MAX_DEPTH, parse_constant=None):
    """Parse JSON ``text`` (from ``where``, named in errors) after checking its nesting depth."""
    # brackets are counted only when there are enough of them to matter (the scan costs ~0.1 s per 10 MB)
    if text.count("[") + text.count("{") > max_depth:
        depth = nesting_depth(text)
        if depth > max_depth:
            raise JSONFileError(f"{where}: JSON nested {depth} levels deep (the limit is {max_depth})")
    try:
        kw = {} if parse_constant is None else {"parse_constant": parse_constant}
        return json.loads(text, **kw)
    except json.JSONDecodeError as exc:
        raise JSONFileError(f"{where}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:  # a depth the scan did not see (it cannot happen below max_depth; kept as a guard)
        raise JSONFileError(f"{where}: JSON nested too deeply to parse") from None


def read_text(path, what: str = "", *, max_bytes: int = JSON_MAX_BYTES) -> str:
    """The UTF-8 text of the *regular* file ``path``; :class:`JSONFileError` (one line) otherwise.

    ``FileNotFoundError`` is re-raised as is, so that callers can tell "absent" from "damaged".
    """
    path = Path(path)
    name = f"{what} {path}".strip()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise JSONFileError(f"{name}: is a directory, expected a file") from None
    except OSError as exc:
        raise JSONFileError(f"{name}: cannot open ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise JSONFileError(f"{name}: not a regular file ({_file_kind(st.st_mode)})")
        if st.st_size > max_bytes:
            raise JSONFileError(f"{name}: {st.st_size} bytes, more than the {max_bytes} this reader accepts")
        with os.fdopen(fd, "rb", closefd=True) as fh:
            fd = None
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise JSONFileError(f"{name}: cannot read ({exc.strerror})") from None
    finally:
        if fd is not None:
            os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONFileError(f"{name}: not UTF-8 text (byte {exc.start})") from None


def read_json(path, what: str = "", **kw):
    """:func:`read_text` then :func:`loads`: the parsed document of the regular JSON file ``path``."""
    name = f"{what} {Path(path)}".strip()
    return loads(read_text(path, what), name, **kw)


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return kind
    return "not a regular file"
