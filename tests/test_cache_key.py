"""The point cache's key is created once, whole, even when several runs start at the same instant
(:mod:`mixbounds.checks.run.cache_key`)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from mixbounds.checks.run import cache_key

#: runs started together on one fresh key path; each starts with a barrier on a shared file so they race
RACERS = 8
#: the race attempts per test (each on a new path)
ROUNDS = 6

_RACER = r"""
import os, sys, time
from pathlib import Path
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.0005)
os.environ["MIXBOUNDS_CACHE_KEY"] = sys.argv[1]
from mixbounds.checks.run import cache_key
if sys.argv[3] == "old":  # the creation before the fix: O_EXCL create, then write (a window with an empty file)
    def old(path):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return
        time.sleep(0.05)  # widen the window between the creation and the write
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(cache_key.KEY_BYTES))
    cache_key._publish_new_key = old
try:
    print(cache_key.load_key().hex())
except cache_key.CacheKeyError as exc:
    print("ERROR", exc)
"""


def _race(tmp_path: Path, how: str) -> list[list[str]]:
    outs = []
    for r in range(ROUNDS):
        key, go = tmp_path / f"k{r}" / "point-cache.key", tmp_path / f"go{r}"
        procs = [subprocess.Popen([sys.executable, "-c", _RACER, str(key), str(go), how], stdout=subprocess.PIPE,
                                  text=True) for _ in range(RACERS)]
        go.touch()
        outs.append([p.communicate(timeout=60)[0].strip() for p in procs])
    return outs


def test_runs_starting_together_read_one_whole_key(tmp_path):
    for outs in _race(tmp_path, "new"):
        assert not any(o.startswith("ERROR") for o in outs), outs
        assert len(set(outs)) == 1 and len(bytes.fromhex(outs[0])) == cache_key.KEY_BYTES
    assert not [p for p in tmp_path.rglob(".point-cache-key-*")], "a temporary key file was left behind"


def test_negative_control_create_then_write_lets_a_run_read_an_empty_key(tmp_path):
    """The old creation (exclusive create, then write) is caught by the same race: some run reads the key while it
    is still empty (an error naming its size)."""
    outs = [o for r in _race(tmp_path, "old") for o in r]
    assert any(o.startswith("ERROR") and "0 bytes" in o for o in outs), outs


def test_an_existing_key_is_kept(tmp_path, monkeypatch):
    path = tmp_path / "point-cache.key"
    mine = secrets.token_bytes(cache_key.KEY_BYTES)
    path.write_bytes(mine)
    os.chmod(path, 0o600)
    monkeypatch.setenv(cache_key.KEY_ENV, str(path))
    monkeypatch.setattr(cache_key, "_KEYS", {})
    assert cache_key.load_key() == mine


@pytest.mark.parametrize("size", [0, 5])
def test_a_key_of_the_wrong_size_is_refused_not_replaced(tmp_path, monkeypatch, size):
    path = tmp_path / "point-cache.key"
    path.write_bytes(b"x" * size)
    monkeypatch.setenv(cache_key.KEY_ENV, str(path))
    monkeypatch.setattr(cache_key, "_KEYS", {})
    with pytest.raises(cache_key.CacheKeyError, match=f"{size} bytes"):
        cache_key.load_key()
    assert path.read_bytes() == b"x" * size
