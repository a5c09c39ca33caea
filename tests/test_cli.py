"""The mixbounds command line (foundation sub-commands)."""

import json
import subprocess
import sys

import pytest

from mixbounds.cli.command import main


def test_table_prints_all_tables(capsys):
    assert main(["table"]) == 0
    out = capsys.readouterr().out
    for t in (1, 2, 3, 4):
        assert f"Table {t}" in out
    assert main(["table", "--markdown"]) == 0
    assert "| Problem | Oracle |" in capsys.readouterr().out


def test_bad_usage_exits_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["no-such-command"])
    assert e.value.code == 2


def test_console_script_entry_point():
    r = subprocess.run([sys.executable, "-P", "-m", "mixbounds", "table"], capture_output=True, text=True)
    assert r.returncode == 0 and "Table 1" in r.stdout


def test_out_of_memory_is_one_line_and_exit_1(capsys, monkeypatch):
    """A MemoryError (an instance too large for the machine) is reported in one line, not a traceback."""
    import mixbounds.cli.command as cli

    def boom(args):
        raise MemoryError("Unable to allocate 74.5 GiB")

    monkeypatch.setattr(cli, "_cmd_table", boom)
    assert main(["table"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mixbounds table: out of memory (Unable to allocate 74.5 GiB)" in err


#: modules that only verify, plot, report, bench and table need (matplotlib, scipy.stats via the fits, the checks'
#: registry); `mixbounds solve` and `mixbounds instance` must not pay for them at start-up
HEAVY_MODULES = ("matplotlib", "scipy.stats", "mixbounds.checks.sweeps", "mixbounds.verify", "mixbounds.bench_method")


def test_the_command_line_starts_without_the_checks_machinery(tmp_path):
    prog = ("import sys, mixbounds.cli.command as c; c.build_parser(); "
            f"print([m for m in {HEAVY_MODULES!r} if m in sys.modules])")
    r = subprocess.run([sys.executable, "-P", "-c", prog], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


#: what ``mixbounds --help`` and ``mixbounds <cmd> --help`` may load: the standard library, numpy (the tiers' grids) and
#: these modules of the suite (the parsers and the light modules whose constants they show); nothing that runs a
#: command (scipy, matplotlib, the instance builders, the solvers, the checks' machinery)
HELP_MODULES = frozenset({"mixbounds", "mixbounds.bounds", "mixbounds.bounds.concepts", "mixbounds.checks", "mixbounds.checks.run", "mixbounds.checks.run.parent_watch",
                          "mixbounds.checks.run.globs", "mixbounds.checks.tiers", "mixbounds.cli",
                          "mixbounds.cli.command", "mixbounds.cli.option_names", "mixbounds.cli.options",
                          "mixbounds.cli.parsing", "mixbounds.cli.streams", "mixbounds.instances",
                          "mixbounds.instances.json_file", "mixbounds.isolation", "mixbounds.lock_holder",
                          "mixbounds.outdir", "mixbounds.selection"})
#: third-party top-level modules a help may load (numpy; the rest is the install's own import hooks)
HELP_THIRD_PARTY = ("numpy", "_distutils_hack", "__editable__")
COMMANDS = ("table", "verify", "plot", "instance", "report", "bench", "solve")


def modules_beyond_help(prelude: str, cwd) -> list[str]:
    """The modules a fresh interpreter has loaded after ``prelude`` that a help may not load (:data:`HELP_MODULES`)."""
    prog = (prelude + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))")
    r = subprocess.run([sys.executable, "-P", "-c", prog], capture_output=True, text=True, cwd=cwd)
    assert r.returncode == 0, r.stderr
    loaded = json.loads(r.stdout.strip().splitlines()[-1])
    out = []
    for m in loaded:
        top = m.split(".")[0]
        if top == "mixbounds":
            if m not in HELP_MODULES:
                out.append(m)
        elif top not in sys.stdlib_module_names and top != "__main__" and not top.startswith(HELP_THIRD_PARTY):
            out.append(m)
    return out


@pytest.mark.parametrize("argv", [["--help"]] + [[c, "--help"] for c in COMMANDS])
def test_help_loads_no_command_machinery(tmp_path, argv):
    """``mixbounds --help`` and every ``mixbounds <cmd> --help`` build the whole parser and import no command."""
    prelude = ("from mixbounds.cli import main\ntry:\n    main(%r)\nexcept SystemExit:\n    pass" % argv)
    assert modules_beyond_help(prelude, tmp_path) == []


@pytest.mark.parametrize("module", ["mixbounds.cli.solve", "mixbounds.cli.instance", "mixbounds.instances.objectives"])
def test_a_heavy_import_at_start_up_is_caught(tmp_path, module):
    """Negative control: the same measurement after importing a command's module names what it loaded."""
    beyond = modules_beyond_help(f"import {module}", tmp_path)
    assert module in beyond and any(m.startswith("scipy") for m in beyond)


def test_every_command_still_reaches_its_machinery(tmp_path):
    """The lazy dispatch of mixbounds.cli.command: each command's handler imports what it runs."""
    prog = ("import sys; from mixbounds.cli.command import main; main(['table']); "
            "print('mixbounds.bounds.render' in sys.modules)")
    r = subprocess.run([sys.executable, "-P", "-c", prog], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip().endswith("True"), r.stderr
