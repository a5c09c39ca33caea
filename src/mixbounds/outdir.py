"""Output directories the suite owns: a manifest, a lock, a staged install (never overwrite what is not ours).

``mixbounds verify --out DIR``, ``mixbounds plot --out DIR`` and ``mixbounds bench --out DIR`` write a *set*
of files (results, CSV, report, figures) that only makes sense complete.  This module makes three promises about DIR:

* **Ownership.** A directory the suite wrote carries a manifest, :data:`MANIFEST`
  (``{"format": "mixbounds-out", "tool": …, "kind": …, "files": [names]}``), naming the command that
  created it, the kind of set it holds (:data:`KINDS`) and the files written there.  A non-empty
  directory without one is refused (:class:`OutputError`, the CLI exits 2 and touches nothing), and so is
  a directory holding a kind of set the command does not write (:data:`WRITES`: ``plot`` never writes
  into a ``verify`` result set, ``bench`` and ``verify`` never into each other's, ``report`` only rewrites
  the report of a ``verify`` set or its own directory).  Only files a manifest lists are ever replaced or
  deleted; anything else a user put into an owned directory is left alone.  A directory written by a
  version of the suite before manifests (its ``results.json`` is a mixbounds results document, or its
  ``bench.json`` a bench document, and every entry has one of the suite's names) is adopted, with the same
  guarantee; a manifest of a version before kinds gets its kind from its tool.
* **One selection.** The manifest records the selection that made the set (:mod:`mixbounds.selection`); a run of
  another selection is refused before the lock is taken, unless its ``mode`` is ``merge`` or ``replace``
  (:attr:`OutputDir.previous` then names the set found).
* **One writer.** :class:`OutputDir` holds an exclusive ``flock`` on :data:`LOCK` inside DIR for the
  whole run; the file records the holder's pid, host, start time and command.  A second run on the
  same DIR is refused at once naming the holder the kernel lists (:mod:`mixbounds.lock_holder`).  The kernel
  drops the lock when its holder dies, so a lock file left by a killed run is taken over (with a message naming
  the dead run).
* **All or nothing.** The new set is written into a staging directory inside DIR (same file system),
  then installed: a journal (:data:`JOURNAL`) listing every move and removal is written atomically —
  the commit point — then the files are moved in with ``os.replace`` and the journal deleted.  A run
  killed before the commit point leaves the previous set untouched (its staging directory is removed
  by the next run); one killed after it is rolled forward by the next run that takes the lock, so
  DIR only ever holds one complete set (apart from the milliseconds of the install itself).  The journal is
  never trusted beyond the manifests: a roll-forward removes or replaces only files the manifest in place lists,
  through no symbolic link, whatever the journal says; an install refuses, before its commit point, to replace
  a file the manifest does not list.

The point cache (``DIR/.cache``) is not part of the set: it is written during the run and kept.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import socket
import stat
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from mixbounds import lock_holder, selection
from mixbounds.instances.json_file import JSONFileError, loads, read_json

#: where ``mixbounds verify`` and ``mixbounds bench`` write when no ``--out`` is given (relative to the current
#: directory)
VERIFY_OUT = "mixbounds-results"
BENCH_OUT = "mixbounds-bench"
#: default output directory of ``mixbounds bench`` without ``--method`` (the suite's own methods, a verify-kind set)
SUITE_BENCH_OUT = "mixbounds-bench-suite"

MANIFEST = ".mixbounds-out.json"
LOCK = ".mixbounds-lock"
JOURNAL = ".mixbounds-install.json"
STAGING_PREFIX = ".mixbounds-staging-"
#: entries of an owned directory that belong to the machinery, never to a result set
INTERNAL = (MANIFEST, LOCK, JOURNAL, ".cache")
#: names the suite wrote before manifests existed (adoption of an older output directory)
LEGACY_TOP = ("results.json", "results.csv", "report.md", "report.html", "plots", ".cache")
LEGACY_FIGURE_PREFIXES = ("cell_", "class_", "bench_", "heatmap.", "bench.method.")
#: the same for a ``mixbounds bench`` output directory (``bench.json``, its report and ``plots/``)
LEGACY_BENCH_TOP = ("bench.json", "report.md", "report.html", "plots")
MANIFEST_FORMAT = "mixbounds-out"
#: the kinds of set an output directory holds, as the refusal names them
KINDS = {"verify": "the result set of 'mixbounds verify'", "bench": "the result set of 'mixbounds bench'",
         "figures": "figures of 'mixbounds plot'", "verify-figures": "the figures of a 'mixbounds verify' result set",
         "bench-figures": "the figures of a 'mixbounds bench' result set",
         "report": "a report of 'mixbounds report'"}
#: the kind of set each command creates in a new directory
NEW_KIND = {"verify": "verify", "bench": "bench", "plot": "figures", "report": "report"}
#: the kind of the figure subdirectory (``plots/``) of a set
FIGURES_OF = {"verify": "verify-figures", "bench": "bench-figures"}
#: the kinds of existing directory each command may write into: its own, and for ``plot``/``report`` the
#: figures and the report of a ``verify`` set (their documented redraw); nothing else.  A figure subdirectory
#: (``subdirs``) must be the one of the set above it (:data:`FIGURES_OF`)
WRITES = {"verify": ("verify",), "bench": ("bench",), "plot": ("figures", "verify-figures"),
          "report": ("report", "verify")}
#: prefix of the temporary file that proves a directory writable (created and removed at once)
PROBE_PREFIX = ".mixbounds-probe-"


class OutputError(Exception):
    """An output path cannot be used (one-line message; the CLI exits 2 and writes nothing)."""


# ----------------------------------------------------------------------------- path checks
#: the limits of a path when the file system does not say (Linux: ``NAME_MAX`` and ``PATH_MAX``)
NAME_MAX, PATH_MAX = 255, 4096


def check_name(path, what: str) -> Path:
    """:class:`OutputError` when a component of ``path`` is longer than the file system's ``NAME_MAX`` or the whole
    longer than ``PATH_MAX`` (bytes): every later ``stat`` of it would fail with "File name too long"."""
    raw = os.fspath(path)
    path = Path(path).absolute()
    try:
        limit = os.pathconf(_existing_ancestor(path.parent), "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = NAME_MAX
    for part in path.parts:
        if len(os.fsencode(part)) > limit:
            raise OutputError(f"{what} {_shown(raw)}: the name {_shown(part, 40)} is {len(os.fsencode(part))} bytes "
                              f"long, more than the {limit} the file system allows for one component")
    if len(os.fsencode(str(path))) >= PATH_MAX:
        raise OutputError(f"{what} {_shown(raw)}: the path is {len(os.fsencode(str(path)))} bytes long, more than "
                          f"the {PATH_MAX - 1} the system allows")
    return path


def _shown(s: str, n: int = 80) -> str:
    """A long name shortened for a one-line message (its start, the count of the rest)."""
    return s if len(s) <= n else f"{s[:n]}…(+{len(s) - n} characters)"


def _existing_ancestor(path: Path) -> Path:
    anc = path
    while not _lexists(anc):
        if anc.parent == anc:
            break
        anc = anc.parent
    return anc


def _lexists(p: Path) -> bool:
    """``os.path.lexists`` that answers no, instead of raising, for a name the system cannot look up."""
    try:
        os.lstat(p)
        return True
    except (OSError, ValueError):
        return False


def prove_writable(d: Path, what: str, path: Path | None = None) -> None:
    """Create and remove a temporary file in directory ``d``: the only proof that files can be created there
    (``os.access`` answers yes to root on a read-only file system, and knows nothing of ``/proc``)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=PROBE_PREFIX)
    except OSError as exc:
        raise OutputError(f"{what} {path or d}: cannot create files in {d} ({exc.strerror})") from None
    os.close(fd)
    os.unlink(tmp)


def _creatable(path: Path, what: str) -> None:
    """``path`` does not exist: its nearest existing ancestor must be a directory where files can be created."""
    anc = _existing_ancestor(path.parent)
    if anc.is_symlink() and not anc.exists():
        raise OutputError(f"{what} {path}: {anc} is a dangling symbolic link")
    if not anc.is_dir():
        raise OutputError(f"{what} {path}: {anc} is not a directory")
    prove_writable(anc, what, path)


def check_file(path, what: str, *, ours=None, ours_desc: str = "file this command wrote") -> Path:
    """Check an output *file* before any work: creatable or a replaceable regular file, not a directory.

    ``ours(path) -> bool`` says whether an existing file is one this command wrote (so may be
    replaced); without it any existing file may be replaced.  A name ending in ``/`` names a directory and
    is refused (``Path`` drops the slash, so the raw argument is looked at).  Returns the absolute path.
    """
    raw = os.fspath(path)
    path = check_name(path, what)
    if raw.endswith(("/", os.sep)) or path.is_dir():
        raise OutputError(f"{what} {raw}: is a directory, expected a file name")
    if path.exists() or path.is_symlink():
        if path.is_symlink() and not path.exists():
            raise OutputError(f"{what} {path}: is a dangling symbolic link")
        if not path.is_file():
            raise OutputError(f"{what} {path}: exists and is not a regular file")
        if ours is not None and not ours(path):
            raise OutputError(f"{what} {path}: exists and is not a {ours_desc}; refusing to overwrite it "
                              f"(move it away or choose another name)")
        prove_writable(path.parent, what, path)  # replaced by a rename in its directory (atomic_write)
        return path
    _creatable(path, what)
    return path


def read_manifest(d: Path) -> dict | None:
    """The manifest of directory ``d`` (``None`` if absent); :class:`OutputError` if it is damaged."""
    f = Path(d) / MANIFEST
    try:
        m = read_json(f)
    except FileNotFoundError:
        return None
    except JSONFileError as exc:
        raise OutputError(f"damaged manifest {exc}; remove the directory or choose another --out") from None
    if not (isinstance(m, dict) and m.get("format") == MANIFEST_FORMAT and isinstance(m.get("files"), list)
            and all(isinstance(x, str) and x and "/" not in x and x not in ("..", ".") for x in m["files"])
            and isinstance(m.get("tool", ""), str) and m.get("kind", "verify") in KINDS):
        raise OutputError(f"{f}: not a mixbounds output manifest (expected format {MANIFEST_FORMAT!r}, a list of "
                          f"file names and a known kind); remove the directory or choose another --out")
    return m


def manifest_kind(d: Path, m: dict) -> str | None:
    """The kind of set (:data:`KINDS`) a manifest describes; a manifest of a version before kinds gets it from its
    tool (the figure subdirectory of a set was written by the set's tool)."""
    if "kind" in m:
        return m["kind"]
    tool = m.get("tool")
    if Path(d).name == "plots" and tool in FIGURES_OF:
        return FIGURES_OF[tool]
    if tool == "plot":
        parent = _manifest_or_none(Path(d).parent)
        return "verify-figures" if Path(d).name == "plots" and parent is not None and \
            manifest_kind(Path(d).parent, parent) == "verify" else "figures"
    return NEW_KIND.get(tool) if tool in ("verify", "bench") else None


def _manifest_or_none(d: Path) -> dict | None:
    try:
        return read_manifest(d)
    except OutputError:
        return None


def _legacy_files(d: Path) -> tuple[str, list[str]] | None:
    """``(kind, files)`` of an output directory written before manifests, or ``None`` if ``d`` is not one."""
    names = {p.name for p in d.iterdir()}
    if "results.json" in names and names <= set(LEGACY_TOP) | set(INTERNAL):
        doc = _json_or_none(d / "results.json")
        kind = "verify"
        ok = (isinstance(doc, dict) and "schema" in doc and isinstance(doc.get("claims"), list)
              and isinstance(doc.get("versions"), dict) and "code_version" in doc["versions"])
    elif "bench.json" in names and names <= set(LEGACY_BENCH_TOP) | set(INTERNAL):
        doc = _json_or_none(d / "bench.json")
        kind = "bench"
        ok = (isinstance(doc, dict) and isinstance(doc.get("method"), str) and isinstance(doc.get("results"), list)
              and isinstance(doc.get("summary"), dict))
    else:
        ok = False
    if not ok:
        return None
    return kind, sorted(n for n in names if n not in INTERNAL and (d / n).is_file())


def _json_or_none(f: Path):
    try:
        return read_json(f)
    except (OSError, JSONFileError):
        return None


def _legacy_figures(d: Path) -> tuple[str, list[str]] | None:
    """``(kind, figures)`` of ``plots/`` in an output directory written before manifests (its parent holds the
    results), or ``None``."""
    if not (d.name == "plots" and read_manifest(d.parent) is None and _legacy_files(d.parent) is not None):
        return None  # an owned directory's plots/ has its own manifest: figures without one are a user's
    names = [p.name for p in d.iterdir() if p.name not in INTERNAL]
    if all(n.startswith(LEGACY_FIGURE_PREFIXES) and n.endswith((".png", ".svg")) and (d / n).is_file() for n in names):
        return FIGURES_OF[_legacy_files(d.parent)[0]], sorted(names)
    return None


def owned_set(d: Path, what: str, *, figures: bool = False) -> tuple[str, list[str]] | None:
    """``(kind, files)`` of the set the suite owns in directory ``d`` (``None``: ``d`` is new or empty);
    :class:`OutputError` if ``d`` is not a directory or holds something the suite did not write."""
    d = Path(d)
    if not (d.exists() or d.is_symlink()):
        return None
    if not d.is_dir():
        raise OutputError(f"{what} {d}: exists and is not a directory")
    m = read_manifest(d)
    if m is not None:
        kind = manifest_kind(d, m)
        if kind is None:
            raise OutputError(f"{what} {d}: its manifest names an unknown tool {m.get('tool')!r}; "
                              f"refusing to touch it: choose a new or empty directory")
        return kind, list(m["files"])
    entries = [p.name for p in d.iterdir() if p.name not in (LOCK,)]
    if not entries:
        return None
    legacy = _legacy_figures(d) if figures else _legacy_files(d)
    if legacy is not None:
        return legacy
    shown = ", ".join(sorted(entries)[:3]) + (", …" if len(entries) > 3 else "")
    raise OutputError(f"{what} {d}: not empty ({shown}) and not written by mixbounds (no {MANIFEST}); "
                      f"refusing to touch it: choose a new or empty directory")


def owned_files(d: Path, what: str, *, figures: bool = False) -> list[str] | None:
    """Files the suite owns in directory ``d`` (``None``: ``d`` is new or empty); :class:`OutputError` if foreign."""
    s = owned_set(d, what, figures=figures)
    return None if s is None else s[1]


def refuse_kind(d: Path, what: str, tool: str, kind: str, accepted) -> None:
    """:class:`OutputError` unless a directory holding a set of ``kind`` is one ``tool`` may write (``accepted``)."""
    if kind not in accepted:
        raise OutputError(f"{what} {d}: holds {KINDS.get(kind, kind)}; mixbounds {tool} does not write into it "
                          f"(nothing touched): choose another directory")


def check_dir(path, what: str, *, figures: bool = False, subdirs: tuple = (), tool: str | None = None,
              accepted=None) -> Path:
    """Check an output *directory* before any work: new (creatable) or owned by the suite with a kind of set
    ``tool`` writes (``accepted``, default :data:`WRITES`), and writable (a temporary file is created there).

    ``subdirs`` (e.g. ``("plots",)``) are checked the same way, as the figure directory of the set above them.
    """
    path = check_name(path, what)
    if path.exists() or path.is_symlink():
        own = owned_set(path, what, figures=figures)
        if own is not None and tool is not None:
            refuse_kind(path, what, tool, own[0], WRITES[tool] if accepted is None else accepted)
        prove_writable(path, what)
        for s in subdirs:
            sub = path / s
            sub_own = owned_set(sub, what, figures=True)
            if sub_own is not None and tool is not None and own is not None:
                refuse_kind(sub, what, tool, sub_own[0], (FIGURES_OF.get(own[0]),))
            if sub.is_dir():
                prove_writable(sub, what)
    else:
        _creatable(path, what)
    return path


def check_cache_dir(path, what: str = "point cache") -> Path:
    """The point cache directory (``OUT/.cache`` or one code version's directory in it): new, or a directory where
    files can be created; :class:`OutputError` naming it otherwise (a file, a FIFO, a read-only directory)."""
    path = check_name(path, what)
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise OutputError(f"{what} {path}: exists and is not a directory; remove it or run with --no-cache")
        prove_writable(path, what)
    return path


# ----------------------------------------------------------------------------- writing helpers
def atomic_write(path: Path, write) -> None:
    """Create ``path`` through ``write(tmp)`` on a temporary file in the same directory, then ``os.replace``:
    a reader never sees a half-written file, and a failed write leaves nothing behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".tmp-{path.name}-", suffix=path.suffix)
    os.close(fd)
    try:
        write(tmp)
        m = os.umask(0o022)
        os.umask(m)
        os.chmod(tmp, 0o666 & ~m)  # mkstemp creates 0600; outputs are ordinary files
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, newlines as given) to ``path`` atomically (:func:`atomic_write`)."""

    def write(tmp):
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)

    atomic_write(path, write)


def manifest_text(tool: str, files, kind: str | None = None, selection: dict | None = None) -> str:
    m = {"format": MANIFEST_FORMAT, "tool": tool, "kind": kind or NEW_KIND[tool], "files": sorted(set(files)),
         "written": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if selection is not None:
        m["selection"] = selection
    return json.dumps(m, indent=1) + "\n"


def _proc_start(pid: int) -> str | None:
    """Start time of process ``pid`` in clock ticks since boot (Linux), to tell a reused pid apart."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def figures_kind(path) -> str:
    """The kind of a new figure directory: the figures of the ``verify`` set it sits in (``RES/plots``), else
    a stand-alone figure directory of ``mixbounds plot``."""
    path = Path(path).absolute()
    parent = _manifest_or_none(path.parent)
    if path.name == "plots" and parent is not None and manifest_kind(path.parent, parent) == "verify":
        return "verify-figures"
    return "figures"


# ----------------------------------------------------------------------------- the owned directory
class OutputDir:
    """An output directory held for one run: ``with OutputDir(path, "verify", …) as od:``.

    On entry: checks that the directory is new, empty or holds a kind of set ``tool`` writes
    (:data:`WRITES`; ``kind`` is the kind a new directory gets, default :data:`NEW_KIND`), creates it, takes
    the lock (:class:`OutputError` naming the holder if another run has it), rolls forward an install a
    killed run had committed, removes staging directories of dead runs, and writes an empty manifest if the
    directory is new (so the cache of an interrupted first run is recognised as ours).  ``stage()`` gives a
    fresh staging directory; ``install(stage, files)`` moves the set in (module docstring).  On exit: the
    staging directory is removed if the run did not install it, and the lock released.
    """

    def __init__(self, path, tool: str, *, what: str = "--out", command: str = "", subdirs: tuple = (),
                 log=None, kind: str | None = None, selection: dict | None = None, mode: str = "refuse"):
        self.path = Path(path).absolute()
        self.tool, self.what, self.command, self.subdirs = tool, what, command, tuple(subdirs)
        self.kind = kind or NEW_KIND[tool]
        #: the selection of the set this run writes (:mod:`mixbounds.selection`), recorded in the manifests, and what
        #: to do when the directory holds another one: ``refuse`` (:class:`OutputError`), ``merge`` or ``replace``
        self.selection, self.mode = selection, mode
        #: the selection of the set found in the directory when it differs from this run's (``--merge``/``--replace``)
        self.previous: dict | None = None
        self.log = log or (lambda msg: print(msg, file=sys.stderr))
        self._fd = None
        self._stages: list[Path] = []

    @property
    def _figures(self) -> bool:
        return self.kind.endswith("figures")

    # -- lock
    def _lock(self) -> None:
        f = self.path / LOCK
        flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(f, flags, 0o644)
        except IsADirectoryError:
            raise OutputError(f"{self.what} {self.path}: the lock path {f} is a directory, expected the lock "
                              f"file of mixbounds; remove it") from None
        except OSError as exc:
            why = "is a symbolic link" if exc.errno == errno.ELOOP else f"cannot be opened ({exc.strerror}" + (
                f"; owned by uid {f.lstat().st_uid}" if f.exists() else "") + ")"
            raise OutputError(f"{self.what} {self.path}: the lock file {f} {why}; remove it") from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise OutputError(f"{self.what} {self.path}: the lock path {f} is not a regular file; remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise OutputError(f"{self.what} {self.path}: cannot lock {f}: {exc.strerror}") from None
            raise OutputError(f"{self.what} {self.path}: in use by another run ({self._describe(f)}); "
                              f"wait for it or choose another directory") from None
        prev = self._holder(fd)
        if prev:
            self.log(f"mixbounds {self.tool}: taking over the lock of {self.path} from a run that is no longer "
                     f"running (pid {prev.get('pid')}, started {prev.get('started')}: {prev.get('command') or '?'})")
        info = {"pid": os.getpid(), "proc_start": _proc_start(os.getpid()), "host": socket.gethostname(),
                "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "command": self.command or self.tool}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        except OSError as exc:
            os.close(fd)
            raise OutputError(f"{self.what} {self.path}: cannot write the lock file {f} ({exc.strerror})") from None
        self._fd = fd

    @staticmethod
    def _holder(fd) -> dict | None:
        data = os.pread(fd, 4096, 0)
        if not data.strip():
            return None
        try:
            info = loads(data.decode("utf-8"), "lock file")
            return info if isinstance(info, dict) else {"pid": "?"}
        except (UnicodeDecodeError, JSONFileError):
            return {"pid": "?", "command": "unreadable lock file"}

    @staticmethod
    def _describe(f: Path) -> str:
        """The holder of the lock file ``f``: the kernel's pid with the file's words (:mod:`mixbounds.lock_holder`)."""
        return lock_holder.describe(f, _json_or_none(f))

    def _unlock(self) -> None:
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, 0)  # an empty lock file: released cleanly (not removed: no unlink race)
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None

    # -- context
    def _owned(self) -> tuple[str, list[str] | None, dict]:
        """The kind and files of the directory (refused unless this tool writes that kind) and of its subdirs."""
        own = owned_set(self.path, self.what, figures=self._figures)
        if own is not None:
            refuse_kind(self.path, self.what, self.tool, own[0], WRITES[self.tool])
        kind, files = own if own is not None else (self.kind, None)
        subs = {}
        for s in self.subdirs:
            sub = owned_set(self.path / s, self.what, figures=True)
            if sub is not None:
                refuse_kind(self.path / s, self.what, self.tool, sub[0], (FIGURES_OF.get(kind),))
            subs[s] = None if sub is None else sub[1]
        return kind, files, subs

    def __enter__(self) -> "OutputDir":
        check_dir(self.path, self.what, figures=self._figures, subdirs=self.subdirs, tool=self.tool)
        new = not self.path.exists()
        if not new:  # a set of another selection is refused before the lock file is created (nothing touched) …
            own = owned_set(self.path, self.what, figures=self._figures)
            self._check_selection(None if own is None else own[1])
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"{self.what} {self.path}: cannot create it ({exc.strerror})") from None
        self._lock()
        try:
            # checked again under the lock: another run may have changed the directory in between
            self.kind, files, subs = self._owned()
            self.recover()
            self._check_selection(files)  # … and again under the lock
            # adopt (write the manifests of) an output directory of a version before manifests: subdirectories
            # first, their legacy test looks at the parent's manifest
            for s, sub_files in subs.items():
                if (self.path / s).is_dir() and read_manifest(self.path / s) is None:
                    atomic_write_text(self.path / s / MANIFEST,
                                      manifest_text(self.tool, sub_files or [], FIGURES_OF[self.kind]))
            if new or read_manifest(self.path) is None:
                atomic_write_text(self.path / MANIFEST, manifest_text(self.tool, files or [], self.kind))
        except BaseException:
            self._unlock()
            raise
        return self

    def _check_selection(self, files) -> None:
        """Refuse a set of another selection (:mod:`mixbounds.selection`) unless ``mode`` says merge or replace.

        The figures of a ``verify`` set (``RES/plots``) have the selection of the set above them."""
        if self.selection is None:
            return
        d, kind = (self.path.parent, "verify") if self.kind == "verify-figures" else (self.path, self.kind)
        m = _manifest_or_none(d)
        if not (files or (m or {}).get("files")):
            return  # nothing there yet (a new directory, or the cache of an interrupted first run)
        old = (m or {}).get("selection")
        if not isinstance(old, dict):
            old = selection.legacy_selection(d, kind)
        if selection.same(old, self.selection):
            return
        if self.mode == "refuse":
            raise OutputError(selection.refusal(self.what, self.path, self.tool, old, self.selection,
                                                merge=self.tool != "report"))
        self.previous = old

    def __exit__(self, *exc) -> None:
        try:
            for s in self._stages:
                shutil.rmtree(s, ignore_errors=True)
        finally:
            self._unlock()

    def stage(self) -> Path:
        """A fresh, empty staging directory inside the output directory (same file system)."""
        s = Path(tempfile.mkdtemp(dir=self.path, prefix=f"{STAGING_PREFIX}{os.getpid()}-"))
        os.chmod(s, 0o755)
        self._stages.append(s)
        return s

    # -- install
    def install(self, stage: Path, files: list[str], *, last: str | None = None, keep_others: bool = False) -> None:
        """Move ``files`` (paths relative to ``stage``, e.g. ``report.md``, ``plots/heatmap.png``) into the directory.

        Every directory touched gets a manifest listing its new files; files the old manifests listed and
        the new set lacks are removed — unless ``keep_others`` (``mixbounds report`` rewriting the report of a
        ``verify`` set: the other files of the set stay, listed); ``last`` (e.g. ``results.json``) is moved last.
        An existing file the old manifest does not list is never replaced: :class:`OutputError` before the commit
        point (nothing touched).
        """
        dirs: dict[str, list[str]] = {}
        for rel in files:
            parent, _, name = rel.rpartition("/")
            dirs.setdefault(parent, []).append(name)
        moves = [rel for rel in files if rel != last]
        removes, manifests = [], []
        dirs.setdefault("", [])
        for parent, names in dirs.items():
            old = read_manifest(self.path / parent) if parent else read_manifest(self.path)
            old_files = (old or {}).get("files", [])
            for n in names:
                dst = self.path / parent / n
                if n not in old_files and (dst.exists() or dst.is_symlink()):
                    raise OutputError(f"{self.what} {self.path}: {dst} exists and is not listed in "
                                      f"{self.path / parent / MANIFEST}: refusing to replace a file mixbounds did not "
                                      f"write (move it away)")
            # the top level also lists its owned subdirectories: new ones and old ones still present (--no-plots)
            keep_dirs = set() if parent else ({d.split("/")[0] for d in dirs if d}
                                              | {n for n in old_files if (self.path / n).is_dir()})
            if keep_others:
                keep_dirs |= {n for n in old_files if n not in names}
            else:
                removes += [f"{parent}/{n}" if parent else n for n in old_files
                            if n not in names and n not in keep_dirs]
            kind = FIGURES_OF[self.kind] if parent else self.kind
            atomic_write_text(stage / parent / MANIFEST, manifest_text(self.tool, names + sorted(keep_dirs), kind,
                                                                       self.selection))
            manifests.append(f"{parent}/{MANIFEST}" if parent else MANIFEST)
        journal = {"stage": stage.name, "moves": moves, "removes": removes, "manifests": manifests,
                   "last": [] if last is None else [last]}
        atomic_write_text(self.path / JOURNAL, json.dumps(journal))  # the commit point
        self._roll_forward(journal)
        if stage in self._stages:
            self._stages.remove(stage)

    def _roll_forward(self, journal: dict) -> None:
        """Carry out a committed install: the set's files, then the removals, then the manifests, then ``last``.

        The journal is never trusted beyond the manifests: a file is removed only if the manifest in place for its
        directory lists it, an existing file is replaced only if that manifest lists it, a move's source must be a
        regular file of the staging directory, and no path goes through a symbolic link.  The removals come before
        the new manifests, so the manifests in place are the old ones whenever a removal is judged.
        """
        stage = self.path / journal["stage"]
        moves = [m for m in journal["moves"] if m.rpartition("/")[2] != MANIFEST]
        manifests = journal.get("manifests", [m for m in journal["moves"] if m.rpartition("/")[2] == MANIFEST])
        listed: dict[str, list] = {}

        def old(parent: str) -> list:
            if parent not in listed:
                m = _manifest_or_none(self.path / parent) if _real_dirs(self.path, parent) else None
                listed[parent] = [n for n in (m or {}).get("files", []) if n not in INTERNAL]
            return listed[parent]

        def move(rel: str, *, manifest: bool = False) -> None:
            parent, _, name = rel.rpartition("/")
            src, dst = stage / rel, self.path / rel
            if not (_real_dirs(stage, parent) and src.is_file() and not src.is_symlink()):
                return  # moved already (a roll-forward of a roll-forward), or not a file of the stage
            if not _real_dirs(self.path, parent, create=True):
                self.log(f"mixbounds {self.tool}: left {dst}: a path component is not a directory of {self.path}")
                return
            if not manifest and (dst.exists() or dst.is_symlink()) and name not in old(parent):
                self.log(f"mixbounds {self.tool}: left {dst} in place: it is not listed in the manifest")
                return
            os.replace(src, dst)

        for rel in moves:
            if rel not in journal.get("last", []):
                move(rel)
        for rel in journal["removes"]:
            parent, _, name = rel.rpartition("/")
            p = self.path / rel
            if name in old(parent) and _real_dirs(self.path, parent) and (p.is_file() or p.is_symlink()):
                p.unlink()
            elif p.exists() or p.is_symlink():
                self.log(f"mixbounds {self.tool}: left {p} in place: the install journal names it, the manifest "
                         f"does not")
        for rel in manifests:
            move(rel, manifest=True)
        for rel in journal.get("last", []):
            move(rel)
        shutil.rmtree(stage, ignore_errors=True)
        (self.path / JOURNAL).unlink(missing_ok=True)

    def recover(self) -> None:
        """Finish an install a killed run had committed; remove staging directories of dead runs (under the lock)."""
        j = self.path / JOURNAL
        if j.exists() or j.is_symlink():
            journal = _json_or_none(j) if not j.is_symlink() else None
            ok = isinstance(journal, dict) and isinstance(journal.get("stage"), str) \
                and journal["stage"].startswith(STAGING_PREFIX) and "/" not in journal["stage"] \
                and all(isinstance(journal.get(k), list) and all(_inside(r) for r in journal[k])
                        for k in ("moves", "removes")) \
                and all(isinstance(journal.get(k, []), list) and all(_inside(r) for r in journal.get(k, []))
                        for k in ("manifests", "last"))
            if not ok:
                raise OutputError(f"{j}: damaged install journal; remove the directory or choose another --out")
            self.log(f"mixbounds {self.tool}: completing the install of the output set an interrupted run had "
                     f"committed in {self.path}")
            self._roll_forward(journal)
        for p in self.path.iterdir():
            if p.name.startswith(STAGING_PREFIX) and p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)


def _real_dirs(base: Path, parent: str, *, create: bool = False) -> bool:
    """Whether every component of the relative directory ``parent`` below ``base`` is a directory and not a symbolic
    link (``create``: missing ones are created), so that no path of an install leaves ``base``."""
    d = base
    for part in [x for x in parent.split("/") if x]:
        d = d / part
        if d.is_symlink():
            return False
        if not d.exists() and create:
            d.mkdir()
        if not d.is_dir():
            return False
    return True


def _inside(rel) -> bool:
    """A relative path that stays inside its directory (journal entries are never trusted blindly)."""
    return isinstance(rel, str) and bool(rel) and not rel.startswith("/") and ".." not in rel.split("/")


def relative_files(stage: Path) -> list[str]:
    """Every file under ``stage`` as a path relative to it (``plots/heatmap.png``), manifests excluded."""
    return sorted(str(p.relative_to(stage)) for p in stage.rglob("*") if p.is_file() and p.name != MANIFEST
                  and not p.name.startswith(".tmp-"))

