"""Sweep points on a Dask cluster: ``--scheduler tcp://HOST:PORT | HOST:PORT | FILE.json | local:N``.

:func:`mixbounds.checks.run.framework.run_checks` runs task groups (the tasks of one sweep point on one
instance) serially or with joblib/loky on this machine; given an executor from this module it
sends every group to a Dask cluster instead (``distributed.Client.map``).  Each group is the
same pure call (:func:`mixbounds.checks.run.framework.run_group`) on the same arguments, so a point's
counts and measured values do not depend on where it ran.  The points come back to the client,
which alone reads and writes the cache: the cache works whether or not the workers share its
file system.

Addresses: ``tcp://HOST:PORT`` (also ``tls://``, ``ws://``, ``wss://``, ``ucx://`` or a bare
``HOST:PORT``) of a running ``dask scheduler``; a scheduler file (``*.json``, as written by
``dask scheduler --scheduler-file``); or ``local:N``, a ``distributed.LocalCluster`` of N worker
processes with one thread each, started and closed here.  The scheduler is reached (and a local
cluster started) before any work, so a bad address fails at once with one line.

Every worker checks that it runs the client's code version (the cache key,
:func:`mixbounds.checks.run.framework.code_version`) before running a group: a cluster with another version of
the suite installed would otherwise return points that are cached under the wrong version.

Dask is an optional dependency (``pip install ".[dask]"``); without it a scheduler is refused
with one line naming the extra.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from mixbounds.checks.run.framework import code_version, run_group
from mixbounds.instances.json_file import JSONFileError, read_json
from threadpoolctl import threadpool_limits

#: seconds to reach a remote scheduler before giving up (a cluster on the same network answers in
#: well under a second; longer means a wrong address or a firewall)
CONNECT_TIMEOUT_S = 10.0
#: largest N of ``local:N`` (a worker process per core is the useful range; this only catches typos)
MAX_LOCAL_WORKERS = 512

_REMOTE = re.compile(r"^(tcp|tls|ws|wss|ucx)://[^\s/]+:\d+/?$|^[A-Za-z0-9_.\-\[\]:]+:\d+$")


class SchedulerError(ValueError):
    """A ``--scheduler`` that cannot be used: bad spelling, Dask not installed, unreachable, wrong code version."""


@dataclass(frozen=True)
class SchedulerSpec:
    """A parsed ``--scheduler`` value: ``kind`` is ``"local"`` (``workers`` processes), ``"address"`` or ``"file"``."""

    kind: str
    target: str
    workers: int = 0

    def __str__(self) -> str:
        return f"local:{self.workers}" if self.kind == "local" else self.target


def parse_scheduler(spec: str) -> SchedulerSpec:
    """Parse a ``--scheduler`` value; ``SchedulerError`` (one line) when it is none of the accepted forms."""
    s = str(spec).strip()
    if s.startswith("local:"):
        n = s[len("local:"):]
        if not n.isdigit() or not 1 <= int(n) <= MAX_LOCAL_WORKERS:
            raise SchedulerError(f"--scheduler {spec!r}: local:N needs a worker count N in 1..{MAX_LOCAL_WORKERS}")
        return SchedulerSpec("local", s, int(n))
    if s.endswith(".json"):
        if not Path(s).is_file():
            raise SchedulerError(f"--scheduler {spec!r}: scheduler file not found")
        read_scheduler_file(s)
        return SchedulerSpec("file", s)
    if _REMOTE.match(s):
        return SchedulerSpec("address", s)
    raise SchedulerError(f"--scheduler {spec!r}: expected tcp://HOST:PORT, HOST:PORT, a scheduler file (*.json) "
                         f"or local:N")


#: what every Dask comm (scheduler, worker) sends first on a TCP connection: a frame whose 8-byte little-endian
#: length is small, holding a msgpack map of its handshake keys (``compression``, ``python``, ``pickle-protocol``)
HANDSHAKE_KEYS = (b"compression", b"pickle-protocol")
HANDSHAKE_MAX_BYTES = 1 << 20


def read_scheduler_file(path: str) -> str:
    """The address a Dask scheduler file names; :class:`SchedulerError` (one line) when the file is not one."""
    try:
        doc = read_json(path)
    except (OSError, JSONFileError) as exc:
        raise SchedulerError(f"--scheduler {path}: not a Dask scheduler file ({str(exc).removeprefix(f'{path}: ')})") \
            from None
    addr = doc.get("address") if isinstance(doc, dict) else None
    if not isinstance(addr, str) or not _REMOTE.match(addr):
        raise SchedulerError(f"--scheduler {path}: not a Dask scheduler file (no 'address' of the form "
                             f"tcp://HOST:PORT; found {str(addr)[:60]!r})")
    return addr


def probe_dask(address: str, timeout: float) -> None:
    """Connect to a ``tcp://`` (or bare ``HOST:PORT``) address and read the handshake a Dask scheduler sends first;
    :class:`SchedulerError` naming what answered instead.  Dask itself would read an HTTP server's
    ``HTTP/1.1 …`` as a frame length of exabytes (``MemoryError``), or wait forever on a server that waits for
    a request.  Other schemes (tls, ws, ucx) are left to Dask."""
    target = address[len("tcp://"):] if address.startswith("tcp://") else address
    if "://" in target:
        return
    host, _, port = target.rstrip("/").rpartition(":")
    data = b""
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as sock:
            sock.settimeout(timeout)
            while len(data) < 64:  # the handshake's frame header and keys; whatever arrived in time otherwise
                chunk = sock.recv(64 - len(data))
                if not chunk:
                    break
                data += chunk
    except socket.timeout:
        if not data:
            raise SchedulerError(f"--scheduler {address}: something listens there but sent no Dask handshake within "
                                 f"{timeout:g} s: not a Dask scheduler") from None
    except (OSError, ValueError) as exc:
        raise SchedulerError(f"--scheduler {address}: cannot reach the Dask scheduler "
                             f"({' '.join(str(exc).split())})") from None
    length = int.from_bytes(data[:8], "little") if len(data) >= 8 else None
    if length is None or not 0 < length <= HANDSHAKE_MAX_BYTES or not any(k in data for k in HANDSHAKE_KEYS):
        shown = data[:40].decode("latin-1").encode("unicode_escape").decode()
        raise SchedulerError(f"--scheduler {address}: not a Dask scheduler (it answered {shown!r}, not a Dask "
                             f"handshake)")


def _import_distributed():
    try:
        import distributed  # lazy: optional dependency (the dask extra), absent from a core install
    except ImportError as exc:
        raise SchedulerError(f"--scheduler needs Dask's distributed scheduler, which is not installed "
                             f"({' '.join(str(exc).split())}); install the extra: pip install \".[dask]\"") from None
    return distributed


_WORKER_VERSION: str | None = None

#: glibc ``mallopt`` parameters and the values every Dask worker sets before its first group: a freed array of up to
#: 32 MiB stays in the heap for the next one, and the heap is trimmed only above 256 MiB of free space
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
WORKER_MMAP_THRESHOLD = 32 * 1024 * 1024
WORKER_TRIM_THRESHOLD = 256 * 1024 * 1024
_MALLOC_TUNED: bool | None = None


def tune_worker_malloc() -> bool:
    """Give this process glibc's large-array reuse back; ``False`` where there is no glibc ``mallopt``.

    Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536`` (its default
    ``distributed.nanny.pre-spawn-environ``). Setting it switches off glibc's dynamic mmap threshold, so
    every temporary array above 128 KiB is mmap'ed, unmapped when freed, and page-faulted in again:
    on the full tier a worker spent more time in the kernel than in the suite (775 million minor page
    faults; points 4.6× slower than on joblib, up to 12× on the communication-heavy ones).  Set here,
    in the worker itself, it holds however the worker was started (LocalCluster, ``dask worker``, SLURM).
    """

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, WORKER_MMAP_THRESHOLD) == 1
                and mallopt(M_TRIM_THRESHOLD, WORKER_TRIM_THRESHOLD) == 1)


def run_group_on_worker(version: str, calls: list[tuple[str, Callable, dict]]) -> list[tuple[str, dict]]:
    """:func:`mixbounds.checks.run.framework.run_group` on a Dask worker, after checking the worker's code version.

    One BLAS thread, as the local paths use (oversubscribed BLAS threads made LAPACK calls far slower), and
    glibc's large-array reuse restored (:func:`tune_worker_malloc`).
    """
    global _WORKER_VERSION, _MALLOC_TUNED

    if _MALLOC_TUNED is None:
        _MALLOC_TUNED = tune_worker_malloc()
    if _WORKER_VERSION is None:
        _WORKER_VERSION = code_version()
    if _WORKER_VERSION != version:

        raise RuntimeError(f"worker on {socket.gethostname()} runs mixbounds code version {_WORKER_VERSION}, the client "
                           f"{version}: install the same version of the suite on every worker")
    with threadpool_limits(limits=1):
        return run_group(calls)


class DaskExecutor:
    """Runs task groups on a Dask cluster; a context manager that owns the client (and a local cluster).

    ``executor(version, payloads)`` yields each group's ``[(task key, point)]`` as it completes.
    """

    def __init__(self, spec: SchedulerSpec, *, timeout: float | None = None):
        self.spec = spec
        self.timeout = CONNECT_TIMEOUT_S if timeout is None else timeout
        self.client: Any = None  # a distributed.Client once entered (the dask extra is optional: no import here)
        self.cluster: Any = None

    def __enter__(self) -> "DaskExecutor":
        return self.open()

    def open(self) -> "DaskExecutor":
        """Reach the scheduler (start the local cluster); ``SchedulerError`` with the reason when that fails."""
        distributed = _import_distributed()

        if self.spec.kind != "local":
            probe_dask(read_scheduler_file(self.spec.target) if self.spec.kind == "file" else self.spec.target,
                       self.timeout)
        try:
            if self.spec.kind == "local":
                # loopback only; the dashboard on a free port (":0"), never the fixed 8787 another cluster may hold
                self.cluster = distributed.LocalCluster(n_workers=self.spec.workers, threads_per_worker=1,
                                                        processes=True, host="127.0.0.1", dashboard_address=":0",
                                                        silence_logs=logging.ERROR)
                self.client = distributed.Client(self.cluster, timeout=self.timeout)
            elif self.spec.kind == "file":
                self.client = distributed.Client(scheduler_file=self.spec.target, timeout=self.timeout)
            else:
                self.client = distributed.Client(self.spec.target, timeout=self.timeout)
        except Exception as exc:  # noqa: BLE001 - Dask raises many types here (OSError, TimeoutError, TypeError, …)
            self.close()
            raise SchedulerError(f"--scheduler {self.spec}: cannot reach the Dask scheduler "
                                 f"({type(exc).__name__}: {' '.join(str(exc).split())})") from None
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None

    def describe(self) -> str:
        """The scheduler and the workers it has now, e.g. ``local:2 (2 workers)``."""
        n = len(self.client.scheduler_info().get("workers", {})) if self.client is not None else 0
        return f"{self.spec} ({n} worker{'s' if n != 1 else ''})"

    def __call__(self, version: str, payloads: Iterable[list]) -> Iterator[list[tuple[str, dict]]]:
        from distributed import as_completed  # lazy: optional dependency (the dask extra), absent from a core install

        payloads = list(payloads)
        futures = self.client.map(run_group_on_worker, [version] * len(payloads), payloads, pure=False)
        try:
            for fut in as_completed(futures):
                try:
                    yield fut.result()
                except Exception as exc:  # noqa: BLE001 - a worker-side failure ends the run with its reason
                    raise SchedulerError(f"--scheduler {self.spec}: a task group failed on the cluster: "
                                         f"{type(exc).__name__}: {' '.join(str(exc).split())}") from None
        finally:
            self.client.cancel(futures)


def open_executor(spec: SchedulerSpec | None) -> DaskExecutor | None:
    """The executor of a ``--scheduler`` spec, opened (the scheduler reached, the local cluster started) so that a
    wrong address fails before any work or output; ``None`` without a spec.  ``SchedulerError`` says why."""
    if spec is None:
        return None
    return DaskExecutor(spec).open()
