"""The command's standard streams and its last line of defence against I/O errors: one line, never a traceback.

* **Encodings.** The suite prints the paper's symbols (κ, ε, —, …).  A stream whose encoding cannot show them
  (``PYTHONIOENCODING=ascii``, a Latin-1 terminal) would raise ``UnicodeEncodeError`` on the first one:
  :func:`prepare_streams` makes it write what it cannot show as ``\\uXXXX`` escapes instead (nothing is lost, the
  output stays one character per escape), and says so once on stderr.
* **I/O errors nobody expected.** Every output path is checked before the work and every writer reports its own
  failures; what is left reaches :func:`io_error` from ``mixbounds.cli.command.main``: standard output on a full
  device (``mixbounds table > /dev/full``) or closed, a path the system cannot look up (a name longer than
  ``NAME_MAX``), a disk that fills while a set is written.  One line naming what failed, and the documented exit
  code: 2 for a path that cannot be used (bad usage: nothing was written), 1 for an output that could not be
  written.  When standard output itself failed, it is pointed at ``/dev/null`` first, so that the interpreter's
  final flush does not print a second error.
"""

from __future__ import annotations

import errno
import os
import sys
from contextlib import contextmanager

EXIT_FAIL, EXIT_USAGE = 1, 2
#: errors of a path that cannot be used as given (bad usage: exit 2); any other I/O error is exit 1
PATH_ERRNOS = (errno.ENAMETOOLONG, errno.ENOTDIR, errno.ELOOP, errno.EISDIR, errno.ENOENT)
#: a sample of what the suite prints, to tell whether a stream's encoding can show it
SYMBOLS = "κεμ—√≤≥…→×·²"


def _can_show(stream) -> bool:
    enc = getattr(stream, "encoding", None) or "utf-8"
    try:
        SYMBOLS.encode(enc)
        return True
    except (UnicodeEncodeError, LookupError):
        return False


def prepare_streams() -> None:
    """Make stdout and stderr write what their encoding cannot show as escapes (module docstring)."""
    weak = []
    for name in ("stdout", "stderr"):
        s = getattr(sys, name)
        if s is not None and not _can_show(s) and hasattr(s, "reconfigure"):
            try:
                s.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream: nothing to prepare
                continue
            weak.append(f"{name} ({s.encoding})")
    if weak:
        print(f"mixbounds: note: {' and '.join(weak)} cannot show the suite's symbols: they are written as \\uXXXX "
              f"escapes (PYTHONIOENCODING=utf-8 shows them)", file=sys.stderr)


class StdoutError(OSError):
    """Writing standard output failed (raised by :class:`GuardedStdout` in place of the bare ``OSError``)."""


class GuardedStdout:
    """Standard output with its write errors told apart from the others: a file's ``write`` failing on a full disk
    raises the same ``OSError(ENOSPC)`` with no file name as a ``print`` to ``/dev/full``.  Everything else is the
    wrapped stream's."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, s):
        try:
            return self._stream.write(s)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StdoutError(exc.errno, exc.strerror) from exc

    def flush(self):
        try:
            return self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StdoutError(exc.errno, exc.strerror) from exc

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextmanager
def guarded_stdout():
    """``sys.stdout`` as a :class:`GuardedStdout` for the duration of a command (restored after it)."""
    old = sys.stdout
    sys.stdout = GuardedStdout(old) if old is not None else old
    try:
        yield
    finally:
        sys.stdout = old


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def io_error(cmd: str, exc: OSError) -> int:
    """One line on stderr for an I/O error no writer caught (module docstring); the exit code."""
    why = exc.strerror or str(exc)
    if isinstance(exc, (BrokenPipeError, StdoutError)):
        _silence_stdout()
        what = "closed before the output was written (broken pipe)" if isinstance(exc, BrokenPipeError) else \
            f"cannot be written ({why})"
        _say(f"{cmd}: error: standard output {what}")
        return EXIT_FAIL
    where = f"{exc.filename}: " if exc.filename is not None else ""
    if len(where) > 120:
        where = f"{where[:80]}…(+{len(where) - 80} characters): "
    _say(f"{cmd}: error: {where}{why}")
    return EXIT_USAGE if exc.errno in PATH_ERRNOS and exc.filename is not None else EXIT_FAIL


def _say(line: str) -> None:
    try:
        print(line, file=sys.stderr)
    except (OSError, ValueError):  # stderr is gone too: the exit code is all that is left
        pass
