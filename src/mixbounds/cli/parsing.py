"""Argument parsing shared by every ``mixbounds`` subcommand: the parser class and the argument types.

Every subcommand module registers its parser on :class:`Parser` subparsers (:mod:`mixbounds.cli.command`), so a
usage error is always one line naming the subcommand, with exit code 2.
"""

from __future__ import annotations

import argparse
import os
import sys

from mixbounds.checks.tiers import TIER_NAMES, Tier, tier_by_name

#: exit code of a usage error (argparse's own, kept)
EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line on stderr and exit :data:`EXIT_USAGE`."""

    def error(self, message):  # argparse exits with 2 as well; one line, naming the sub-command
        print(f"{self.prog}: error: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def default_jobs() -> int:
    """Worker processes by default: the cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def positive_int(s: str) -> int:
    """``--jobs``-style argument: an integer >= 1 (``ArgumentTypeError`` otherwise)."""
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {s!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {s!r}")
    return v


def jobs_option(s: str) -> int:
    """``--jobs N``: a positive integer, capped at the available cores (:func:`default_jobs`) with a one-line note:
    more worker processes than cores only slow every point down (each worker is one BLAS thread)."""
    v = positive_int(s)
    cores = default_jobs()
    if v > cores:
        print(f"mixbounds: note: --jobs {v} capped at the {cores} available core{'s' if cores > 1 else ''}",
              file=sys.stderr)
        return cores
    return v


def tier_arg(s: str) -> Tier:
    """``--tier`` argument: the :class:`~mixbounds.checks.tiers.Tier` of that name (``ArgumentTypeError`` naming the
    known ones otherwise: a one-line usage error, exit 2)."""
    try:
        return tier_by_name(s)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: ``metavar`` of a ``--tier`` option
TIER_METAVAR = "{" + ",".join(TIER_NAMES) + "}"


def set_mode_options(p, what: str, *, merge: bool) -> None:
    """``--merge``/``--replace`` (one at most): what a command does when its ``--out`` holds the set of another
    selection (:mod:`mixbounds.selection`: refused by default, exit 2); ``args.mode`` is ``refuse``, ``merge`` or
    ``replace``."""
    g = p.add_mutually_exclusive_group()
    if merge:
        g.add_argument("--merge", dest="mode", action="store_const", const="merge",
                       help=f"when --out holds the set of another selection: update the {what} this run selects, keep "
                            f"the others, and rebuild the report and figures from the union (the exit code is the "
                            f"union's verdict)")
    g.add_argument("--replace", dest="mode", action="store_const", const="replace",
                   help="when --out holds the set of another selection: replace it (by default such a set is never "
                        "replaced: exit 2, nothing touched)")
    p.set_defaults(mode="refuse")
