"""The private key that signs the point cache: the cache trusts only what this user's runs wrote.

The point cache (``OUT/.cache/<code version>/<task key>.json``) lives inside an output directory, which a reviewer
may have received from someone else, or which someone else may write to.  A digest of the point catches an entry
damaged by accident, but not one written on purpose: anyone can compute a public digest over a point of their
choice, and a point whose numbers are wrong but well formed changes the verdicts of the next run.  So each entry
carries a *keyed* digest (BLAKE2b with a key, :func:`sign`) over its task key and its point, the key being a random
secret of this user kept outside every output directory, by default in ``$XDG_CACHE_HOME/mixbounds/point-cache.key``
(``~/.cache/…``), or where ``$MIXBOUNDS_CACHE_KEY`` points.  An entry signed with another key — forged, copied from
another user's or another machine's run, written before keys — is recomputed and counted, like a damaged one.

When the key can neither be read nor created (a read-only home), :func:`load_key` raises :class:`CacheKeyError` and
the run goes on without the cache, saying why: a cache that cannot tell its own entries from anyone else's is not
read.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import tempfile
from pathlib import Path

#: environment variable naming the key file (default :func:`key_path`)
KEY_ENV = "MIXBOUNDS_CACHE_KEY"
#: bytes of the key (BLAKE2b accepts up to 64)
KEY_BYTES = 32


class CacheKeyError(OSError):
    """The cache key can neither be read nor created (the message says where and why)."""


def key_path() -> Path:
    """Where the key is kept: ``$MIXBOUNDS_CACHE_KEY``, else ``$XDG_CACHE_HOME/mixbounds/point-cache.key`` (default
    ``~/.cache/mixbounds/point-cache.key``)."""
    if os.environ.get(KEY_ENV):
        return Path(os.environ[KEY_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mixbounds" / "point-cache.key"


_KEYS: dict[str, bytes] = {}


def load_key() -> bytes:
    """This user's cache key, created on first use (owner-only permissions; an existing key of the wrong size, or a
    path that is not a regular file, is refused rather than replaced)."""
    path = key_path()
    cached = _KEYS.get(str(path))
    if cached is not None:
        return cached
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not os.path.lexists(path):
            _publish_new_key(path)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            key = f.read(KEY_BYTES + 1)
    except OSError as exc:
        raise CacheKeyError(exc.errno, f"cache key {path}: cannot be read or created ({exc.strerror})") from None
    if len(key) != KEY_BYTES:
        raise CacheKeyError(0, f"cache key {path}: {len(key)} bytes, expected {KEY_BYTES} (remove it: a new key is "
                               f"made, and the cache entries signed with the old one are recomputed)")
    _KEYS[str(path)] = key
    return key


def _publish_new_key(path: Path) -> None:
    """Write a new key to a temporary file beside ``path`` (owner-only), then link it to ``path``: the link is the
    creation, atomic and exclusive, so a second run starting at the same instant either links first (this one's link
    fails and its key is dropped) or reads a complete key — never an empty file created but not yet written (as
    ``O_CREAT | O_EXCL`` followed by a write allowed)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".point-cache-key-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(KEY_BYTES))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another run made the key first: read theirs
    finally:
        os.unlink(tmp)


def sign(key: bytes, task: str, blob: str) -> str:
    """The keyed digest of a cache entry: task key and the point's canonical JSON ``blob``."""
    h = hashlib.blake2b(key=key, digest_size=16)
    h.update(task.encode())
    h.update(b"\0")
    h.update(blob.encode())
    return h.hexdigest()
