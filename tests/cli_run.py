"""The command line run in the test's own process, shared by the CLI tests."""
import pytest

from resize_nearest import cli


def run_cli(argv, capsys):
    "resize-nearest in this process: (exit status, stdout, stderr); a traceback fails the test."
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    out, err = capsys.readouterr()
    return stop.value.code, out, err
