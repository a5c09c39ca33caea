"""The expected durations of the README's two commands, stated where they are run, from a recorded measurement.

A newcomer who runs ``mixbounds verify`` or ``pytest`` needs to know how long it takes (27 minutes of ``pytest`` on a
loaded 2-core machine looks like a hang).  The numbers are measured, never written by hand: the lead times both
commands on an idle machine and records them with the machine's calibration (the seconds of the suite's fixed
reference workload on that machine: ``stats.calibration_seconds`` of a ``results.json``), which lets a reader scale
the range to a machine of their own::

    python docs/_ext/readme_durations.py --verify 70-85 --pytest 540-720 --calibration 1.02 \\
        --machine "2-core AMD EPYC, idle" --commit $(git rev-parse --short HEAD)

writes ``docs/data/readme-durations.json`` and puts the sentence into the README between the markers
``<!-- durations:start -->`` and ``<!-- durations:end -->`` (after the test command's block the first time).
``tests/test_docs.py`` checks that the README's sentence is the rendering of the recorded data, so neither can
change without the other.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "data" / "readme-durations.json"
README = ROOT / "README.md"
START, END = "<!-- durations:start -->", "<!-- durations:end -->"
#: where the block goes the first time: after the code block that follows this marker (the README's test command)
AFTER = "<!-- setup:test -->"


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def _range(r) -> str:
    lo, hi = r
    return _minutes(lo) if lo == hi else f"{_minutes(lo)} – {_minutes(hi)}"


def render(data: dict) -> str:
    """The README's sentence (between the markers) for recorded ``data``."""
    return (f"{START}\nExpected wall time, measured at commit {data['commit']} on {data['machine']} (calibration "
            f"{data['calibration_seconds']:.2f} s: on another machine, multiply by its `stats.calibration_seconds` / "
            f"{data['calibration_seconds']:.2f}): the main job {_range(data['verify_seconds'])}, the tests "
            f"{_range(data['pytest_seconds'])}.\n{END}")


def block_of(readme: str) -> str | None:
    """The README's durations block (markers included), ``None`` if it has none."""
    m = re.search(re.escape(START) + r".*?" + re.escape(END), readme, flags=re.S)
    return m.group(0) if m else None


def put(readme: str, block: str) -> str:
    """``readme`` with its durations block replaced by ``block`` (inserted after the test command the first time)."""
    if block_of(readme) is not None:
        return readme.replace(block_of(readme), block)
    i = readme.index(AFTER)
    fence_end = readme.index("```\n", readme.index("```", i) + 3) + 4
    return readme[:fence_end] + "\n" + block + "\n" + readme[fence_end:]


def _seconds_range(text: str) -> list[float]:
    lo, _, hi = text.partition("-")
    lo, hi = float(lo), float(hi or lo)
    if not 0 < lo <= hi:
        raise argparse.ArgumentTypeError(f"expected SECONDS or MIN-MAX seconds with 0 < MIN <= MAX, got {text!r}")
    return [lo, hi]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Record the measured durations of the README's commands and state them there.")
    p.add_argument("--verify", type=_seconds_range, required=True, metavar="MIN-MAX", help="mixbounds verify, seconds")
    p.add_argument("--pytest", type=_seconds_range, required=True, metavar="MIN-MAX", help="pytest, seconds")
    p.add_argument("--calibration", type=float, required=True, metavar="SECONDS",
                   help="the machine's calibration (stats.calibration_seconds of a results.json measured there)")
    p.add_argument("--machine", required=True, help="the machine, e.g. '2-core AMD EPYC, idle'")
    p.add_argument("--commit", required=True, help="the commit measured")
    a = p.parse_args(argv)
    data = {"verify_seconds": a.verify, "pytest_seconds": a.pytest, "calibration_seconds": a.calibration,
            "machine": a.machine, "commit": a.commit}
    DATA.write_text(json.dumps(data, indent=1) + "\n")
    README.write_text(put(README.read_text(), render(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
