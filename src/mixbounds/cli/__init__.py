"""The ``mixbounds`` command line: the parser and dispatch (:mod:`mixbounds.cli.command`) and one module per subcommand."""

from mixbounds.cli.command import main

__all__ = ["main"]
