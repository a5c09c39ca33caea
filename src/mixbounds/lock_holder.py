"""Who holds the lock of an output directory: the kernel's word first, the lock file's second.

:class:`mixbounds.outdir.OutputDir` refuses a second run on a directory whose ``.mixbounds-lock`` another process
holds (``flock``), and the refusal must name the holder: its command, pid and start time.  The lock file records
them, but it is only what the holder wrote: empty in the instant between taking the lock and writing it, empty or
garbage when the holder is not mixbounds (``flock DIR/.mixbounds-lock sleep 600``) or wrote it in another format.
On Linux the kernel lists every ``flock`` in ``/proc/locks`` with the pid of its holder and the device and inode of
the file, so the holder is found there and its command line and start time read from ``/proc/PID``; the lock file
adds the host and the command as mixbounds recorded them when its pid agrees.  Elsewhere (no ``/proc``, a lock
held from another host of a network file system) the lock file is all there is, and the refusal says so.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

PROC = Path("/proc")
#: longest command line shown in a refusal (one line of a terminal or two)
COMMAND_CHARS = 240


def _lock_pids(path: Path) -> list[int]:
    """Pids holding a ``flock`` on the file ``path``, from ``/proc/locks`` (empty when unknown)."""
    try:
        st = os.stat(path)
        lines = (PROC / "locks").read_text().splitlines()
    except OSError:
        return []
    dev = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    pids = []
    for ln in lines:
        f = ln.split()
        # "1: FLOCK  ADVISORY  WRITE 12345 08:01:123456 0 EOF" (a blocked waiter has "->" after the number)
        if "->" in f:
            continue
        if len(f) >= 6 and f[1] == "FLOCK" and f[5] == dev and f[4].isdigit():
            pids.append(int(f[4]))
    return pids


def _boot_time() -> float | None:
    try:
        for ln in (PROC / "stat").read_text().splitlines():
            if ln.startswith("btime "):
                return float(ln.split()[1])
    except OSError:
        return None
    return None


def process(pid: int) -> dict | None:
    """``{"pid", "command", "started"}`` of a live process from ``/proc/PID`` (``None`` if it cannot be read)."""
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    argv = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    # a console script runs as "python .../bin/mixbounds verify …": show it as "mixbounds verify …"
    for i, a in enumerate(argv[:2]):
        if Path(a).name == "mixbounds":
            argv = ["mixbounds"] + argv[i + 1:]
            break
    started = None
    try:
        ticks = int(stat.rsplit(")", 1)[1].split()[19])
        boot = _boot_time()
        if boot is not None:
            started = datetime.fromtimestamp(boot + ticks / os.sysconf("SC_CLK_TCK"), timezone.utc)
            started = started.isoformat(timespec="seconds")
    except (IndexError, ValueError, OSError):
        pass
    command = " ".join(" ".join(argv).split())  # one line, whatever the arguments hold
    if len(command) > COMMAND_CHARS:
        command = command[:COMMAND_CHARS] + f"…(+{len(command) - COMMAND_CHARS} characters)"
    return {"pid": pid, "command": command or "?", "started": started}


def describe(lock_file: Path, recorded: dict | None) -> str:
    """The holder of ``lock_file`` for a refusal: ``pid 123 on host, started 2024-…: mixbounds verify …``.

    ``recorded`` is what the lock file says (``None`` or ``{}`` when empty or unreadable)."""
    rec = {k: " ".join(str(v).split())[:COMMAND_CHARS] for k, v in recorded.items()} \
        if isinstance(recorded, dict) else {}
    pids = _lock_pids(lock_file)
    if pids:
        live = process(pids[0])
        if live is not None:
            if str(rec.get("pid")) == str(pids[0]):  # the kernel and the file agree: the file's words are richer
                return (f"pid {pids[0]} on {rec.get('host')}, started {rec.get('started') or live['started']}: "
                        f"{rec.get('command') or live['command']}")
            return f"pid {pids[0]}, started {live['started'] or '?'}: {live['command']}"
        return f"pid {pids[0]}"
    if rec.get("pid") is not None:
        return (f"pid {rec.get('pid')} on {rec.get('host')}, started {rec.get('started')}: {rec.get('command')} "
                f"(as its lock file says)")
    return "holder unknown: the lock file names none and the kernel lists no holder on this host"
