"""Refresh a run snapshot of the documentation: run ``mixbounds verify``, keep its ``results.json`` and provenance.

::

    python docs/_ext/snapshot.py quick        # mixbounds verify --tier quick   (minutes)
    python docs/_ext/snapshot.py bench-tiny   # mixbounds verify --tier tiny --claims 'bench.*' --no-plots
    python docs/_ext/snapshot.py full         # mixbounds verify --tier full    (an hour or more on 2 cores)

runs the command into a temporary directory from the repository root, then replaces ``docs/data/NAME/results.json``
and writes ``docs/data/NAME/snapshot.json``: the git commit of the checkout and whether its package source had
uncommitted changes, the command, the date, the number of cores and the 1-minute load average before and after the run (so
the timings page can say how loaded the machine was).  Commit both files; the next docs build regenerates the
results pages from them (:mod:`results_pages`).  A run that exits non-zero is kept all the same (the pages show
its verdict) but the script then exits 1 and says so; bad usage exits 2 and writes nothing.  The quick tier draws
its figures (into the temporary directory, not kept): the snapshot's wall time is what the command costs a user.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from mixbounds.bounds.layers import FOLDERS, TOP_SOURCE

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "data"
#: the folders whose uncommitted changes make a run's code differ from its commit (the package's source)
SOURCE = (TOP_SOURCE, *FOLDERS)
#: snapshot name → the ``mixbounds`` arguments that produce it (the names results_pages.SNAPSHOTS reads)
COMMANDS = {
    "quick": ["verify", "--tier", "quick"],
    "bench-tiny": ["verify", "--tier", "tiny", "--claims", "bench.*", "--no-plots"],
    "full": ["verify", "--tier", "full"],
}


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def _load() -> float:
    return round(os.getloadavg()[0], 1)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] not in COMMANDS:
        print(f"usage: python docs/_ext/snapshot.py {{{','.join(COMMANDS)}}}", file=sys.stderr)
        return 2
    name = argv[0]
    args = COMMANDS[name]
    commit = _git("rev-parse", "HEAD")
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no", "--", *SOURCE))
    with tempfile.TemporaryDirectory(prefix=f"mixbounds-snapshot-{name}-") as tmp:
        out = Path(tmp) / "run"
        before = _load()
        # the interpreter running this script, so that its environment's mixbounds runs (no PATH lookup)
        rc = subprocess.run([sys.executable, "-m", "mixbounds", *args, "--out", str(out)], cwd=ROOT).returncode
        after = _load()
        if not (out / "results.json").is_file():
            print(f"snapshot: mixbounds {' '.join(args)} wrote no results.json (exit {rc}); nothing replaced",
                  file=sys.stderr)
            return 1
        dest = DATA / name
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / "results.json", dest / "results.json")
    meta = {"commit": commit, "dirty": dirty, "command": shlex.join(["mixbounds", *args]),
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "cores": os.cpu_count(),
            "load_before": before, "load_after": after, "exit": rc}
    (dest / "snapshot.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"snapshot: {dest} from commit {commit[:12]}{' (uncommitted changes)' if dirty else ''}, exit {rc}")
    if rc != 0:
        print(f"snapshot: the run exited {rc}; its results are kept and the pages will show its verdict",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
