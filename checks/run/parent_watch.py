"""Worker processes end with their parent.

A ``mixbounds verify --jobs 2`` run killed with ``SIGKILL`` cannot stop its joblib (loky) workers: they were
left running their sweep point for up to minutes, holding the cores.  Each worker and each child of
:mod:`mixbounds.isolation` calls :func:`watch_parent` (or :func:`die_with_parent`) with the pid of the
process that started it:

* ``PR_SET_PDEATHSIG`` (Linux) has the kernel kill the process when the thread that forked it ends — right
  for a child forked by the thread that waits for it (:mod:`mixbounds.isolation`);
* a daemon thread polls the parent's pid every :data:`POLL_S` seconds and ends the process once it has been
  re-parented — right for a pool worker, whose spawning thread may end long before the parent does.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import threading
import time

#: ``prctl`` option: the signal the kernel sends a process when the thread that created it ends (Linux)
PR_SET_PDEATHSIG = 1
#: seconds between two looks at the parent's pid (a worker outlives a killed parent by at most this)
POLL_S = 1.0
_WATCHED: int | None = None


def die_with_parent(parent: int) -> None:
    """Ask the kernel to kill this process when the thread that created it ends (Linux; elsewhere nothing), and end
    now if ``parent`` is already gone (it may have died between the fork and this call)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)


def watch_parent(parent: int) -> None:
    """End this process (exit status 1) within :data:`POLL_S` seconds of ``parent`` ending; once per process."""
    global _WATCHED
    if _WATCHED == parent or os.getpid() == parent:
        return
    _WATCHED = parent

    def poll():
        while os.getppid() == parent:
            time.sleep(POLL_S)
        os._exit(1)

    threading.Thread(target=poll, name="mixbounds-parent-watch", daemon=True).start()
