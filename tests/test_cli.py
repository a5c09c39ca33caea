"""The mixbounds command line (foundation sub-commands)."""

import subprocess
import sys

import pytest

from mixbounds.cli import main


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
    r = subprocess.run([sys.executable, "-m", "mixbounds.cli", "table"], capture_output=True, text=True)
    assert r.returncode == 0 and "Table 1" in r.stdout
