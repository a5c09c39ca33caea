"""The command-line reference of the documentation, generated from the ``mixbounds`` argparse parsers.

The docs build (:mod:`mixbounds_docs`) writes ``docs/reference/cli.md`` from
:func:`mixbounds.cli.command.build_parser` at every build, so the page lists exactly the options the installed
command accepts: one section per subcommand with its usage line, its description and one row per argument
(option strings or positional name, value name, default, choices, help).  ``tests/test_docs.py`` checks that
every option string and positional of every subcommand appears in its section.

Run by hand (writes Markdown to stdout or to FILE)::

    python docs/_ext/cli_reference.py [FILE]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mdtext import code as _code
from mdtext import escape

from mixbounds.cli.command import build_parser


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Subcommand name → its parser, in the order they were added (none for a parser without subcommands)."""
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out.update(action.choices)
    return out


def _help_of(parser: argparse.ArgumentParser, name: str) -> str:
    """The one-line ``help=`` a subcommand was registered with (argparse keeps it on the choices action)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if choice.dest == name:
                    return choice.help or ""
    return ""


def arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The arguments a user can give (``--help`` and the subcommand selector left out)."""
    return [a for a in parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def names(action: argparse.Action) -> list[str]:
    """How an argument is written on the command line: its option strings, or its metavar for a positional."""
    return list(action.option_strings) or [action.metavar or action.dest]


def _default(action: argparse.Action, help_text: str) -> str:
    if action.option_strings and action.nargs == 0:  # a flag: its default is "not given"
        return ""
    if action.default in (None, argparse.SUPPRESS) or "default" in help_text:
        return ""
    return _code(action.default)


def _row(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    help_text = parser._get_formatter()._expand_help(action) if action.help else ""
    written = ", ".join(_code(n) for n in names(action))
    takes_value = action.option_strings and action.nargs != 0 and not action.choices
    value = _code(action.metavar or action.dest.upper()) if takes_value else ""
    choices = ", ".join(_code(c) for c in action.choices) if action.choices else ""
    cells = [written, value, _default(action, help_text), choices, escape(" ".join(help_text.split()))]
    return "| " + " | ".join(cells) + " |"


def section(name: str, parser: argparse.ArgumentParser, help_line: str) -> list[str]:
    """One subcommand: heading, usage, description, the table of its arguments."""
    lines = [f"(cli-{name})=", f"## `mixbounds {name}`", ""]
    if help_line:
        lines += [escape(help_line[0].upper() + help_line[1:]) + ".", ""]
    lines += ["```text", parser.format_usage().strip(), "```", ""]
    if parser.description and parser.description != help_line:
        lines += [escape(" ".join(parser.description.split())), ""]
    args = arguments(parser)
    if args:
        lines += ["| argument | value | default | choices | meaning |", "|---|---|---|---|---|"]
        lines += [_row(parser, a) for a in args]
        lines.append("")
    return lines


def render(parser: argparse.ArgumentParser | None = None) -> str:
    """The whole reference page (MyST Markdown) of ``parser`` (default: the installed ``mixbounds`` command)."""
    parser = build_parser() if parser is None else parser
    subs = subcommands(parser)
    lines = ["# Command-line reference", "",
             "Generated at every docs build from the argparse parsers of the installed `mixbounds` command "
             "(`docs/_ext/cli_reference.py`), so it lists exactly the options this version accepts. "
             "`mixbounds SUBCOMMAND --help` prints the same.", "",
             escape(parser.description or ""), "",
             "Exit codes of every subcommand: 0 success, 1 a check failed (or a negative control was not caught, "
             "a solver did not converge), 2 bad usage or bad input (one line on stderr, nothing written), "
             "130 interrupted.", "",
             "| subcommand | what it does |", "|---|---|"]
    lines += [f"| {{ref}}`{n} <cli-{n}>` | {escape(_help_of(parser, n))} |" for n in subs]
    lines.append("")
    for n, p in subs.items():
        lines += section(n, p, _help_of(parser, n))
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = render()
    if argv:
        Path(argv[0]).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
