"""Error messages name options, never the Python keywords behind them (issue 44, item 5): a sweep of bad invocations
over the subcommands, each a one-line error, exit 2, in the words the user typed."""

import re

import pytest

from mixbounds.cli.command import build_parser, main
from mixbounds.cli.instance import OPTION_NAMES
from mixbounds.cli.option_names import option_names, optionize

EXIT_USAGE = 2


@pytest.mark.parametrize("argv, needles", [
    (["instance", "coupled", "--variant", "nosuch"], ["coupled: needs --kappa-W and --kappa-f"]),
    (["instance", "coupled", "--kappa-W", "10"], ["needs --kappa-f"]),
    (["instance", "coupled", "--kappa-W", "10", "--kappa-f", "10", "--variant", "nosuch"], ["unknown variant 'nosuch'"]),
    (["instance", "coupled", "--kappa-W", "10", "--kappa-f", "10", "--d", "3"], ["--d does not apply"]),
    (["instance", "coupled", "--kappa-W", "10", "--kappa-f", "-3"], ["--kappa-f = -3.0 is impossible: a condition number"]),
    (["instance", "random-coupled", "--kappa-W", "nan"], ["--kappa-W"]),
    (["instance", "random-coupled", "--param", "kappa_W=0.5"], ["--kappa-W = 0.5"]),
    (["instance", "random-coupled", "--d", "0"], ["--d must be >= 1"]),
    (["instance", "random-consensus", "--seed", "-1"], ["--seed must be"]),
    (["instance", "random-consensus", "--param", "foo=1"], ["accepted extra parameters: --dt, --er-p"]),
    (["instance", "random-consensus", "--graph", "er", "--er-p", "2"], ["--er-p must be in (0, 1]"]),
    (["solve", "/nonexistent", "--out", "x"], ["mixbounds solve: error: unrecognized arguments: --out x"]),
    (["nosuch"], ["argument COMMAND: invalid choice: 'nosuch'"]),
    (["verify", "--jobs", "0"], ["argument --jobs"]),
    (["bench", "--method", "examples.apapc:apapc", "--classes", "nosuch"], ["--classes 'nosuch'"]),
])
def test_error_messages_name_options(tmp_path, capsys, argv, needles):
    if argv[0] == "instance":
        argv = [*argv, "--out", str(tmp_path / "i")]
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own errors (one line, exit 2: mixbounds.cli.parsing.Parser)
        code = e.code
    assert code == EXIT_USAGE
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    # no keyword of the instance builders in its Python spelling, no Python call syntax
    bare = [k for k in OPTION_NAMES if "_" in k and re.search(rf"(?<![\w.-]){re.escape(k)}(?![\w])", lines[0])]
    assert bare == [] and "build()" not in lines[0] and "argument cmd" not in lines[0], lines[0]


def test_negative_control_the_builders_words_are_what_optionize_rewrites():
    """The builder messages the CLI receives name keywords; without the rewrite they would reach the user as such."""
    names = option_names(build_parser()._subparsers._group_actions[0].choices["instance"])
    raw = "coupled: build() missing 2 required keyword-only arguments: 'kappa_W' and 'kappa_f'"
    assert optionize(raw, names) == "coupled: needs --kappa-W and --kappa-f"
    assert optionize("random-coupled: kappa_W must be finite, got nan", names) == \
        "random-coupled: --kappa-W must be finite, got nan"
    assert optionize("unknown graph 'nosuch' (known: path, ring)", names) == "unknown graph 'nosuch' (known: path, ring)"
    assert optionize("nosuchkw must be 1", names) == "nosuchkw must be 1"
