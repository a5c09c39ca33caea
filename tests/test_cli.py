"""The mixbounds command line (foundation sub-commands)."""

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


def test_every_command_still_reaches_its_machinery(tmp_path):
    """The lazy dispatch of mixbounds.cli.command: each command's handler imports what it runs."""
    prog = ("import sys; from mixbounds.cli.command import main; main(['table']); "
            "print('mixbounds.bounds.render' in sys.modules)")
    r = subprocess.run([sys.executable, "-P", "-c", prog], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip().endswith("True"), r.stderr
