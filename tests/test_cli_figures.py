"""The figures `resize-nearest demo` and `sweep` write: an existing file or link is not replaced
without --force, a link is never written through, a folder in the figure's place is refused before
any work, and the figure is written to a new file and renamed into place."""
import os

import pytest

from resize_nearest import cli
from cli_run import run_cli


@pytest.fixture
def notes(tmp_path):
    "A user's file that a link in the figure's place points at."
    path = tmp_path / 'notes.txt'
    path.write_text('my notes\n')
    return path


@pytest.mark.parametrize('command, name', [(['demo'], 'demo.png'), (['sweep', '--max', '2'],
                                                                      'sweep.png')])
def test_an_existing_figure_is_kept_and_the_command_stops_before_its_work(tmp_path, capsys,
                                                                          command, name):
    (tmp_path / name).write_text('mine')
    code, out, err = run_cli([*command, '--figures', str(tmp_path)], capsys)
    assert code == 2 and out == '' and 'Traceback' not in err
    assert str(tmp_path / name) in err and '--force' in err
    assert (tmp_path / name).read_text() == 'mine'


@pytest.mark.parametrize('command, name', [(['demo'], 'demo.png'), (['sweep', '--max', '2'],
                                                                      'sweep.png')])
def test_a_link_in_the_figures_place_is_not_written_through(tmp_path, capsys, notes, command,
                                                            name):
    (tmp_path / name).symlink_to(notes)
    code, out, err = run_cli([*command, '--figures', str(tmp_path)], capsys)
    assert code == 2 and out == '' and 'a link' in err
    assert notes.read_text() == 'my notes\n' and (tmp_path / name).is_symlink()


def test_force_replaces_the_link_itself_and_leaves_no_temporary_file(tmp_path, capsys, notes):
    (tmp_path / 'sweep.png').symlink_to(notes)
    code, out, err = run_cli(['sweep', '--max', '2', '--force', '--figures', str(tmp_path)],
                             capsys)
    figure = tmp_path / 'sweep.png'
    assert code == 0 and not figure.is_symlink()
    assert figure.read_bytes().startswith(b'\x89PNG\r\n\x1a\n')
    assert notes.read_text() == 'my notes\n'
    assert sorted(os.listdir(tmp_path)) == ['notes.txt', 'sweep.png']


@pytest.mark.parametrize('force', [[], ['--force']])
def test_a_folder_named_like_the_figure_is_refused_before_the_work_by_its_path(tmp_path, capsys,
                                                                               force):
    (tmp_path / 'demo.png').mkdir()
    code, out, err = run_cli(['demo', '--figures', str(tmp_path), *force], capsys)
    assert code == 2 and out == '' and 'Traceback' not in err
    assert f'{tmp_path / "demo.png"}: it is a folder' in err


def test_a_file_that_appears_while_the_figure_is_drawn_is_not_replaced(tmp_path):
    path = cli.figure_path(tmp_path, 'demo.png')  # free when the command starts
    path.write_text('written meanwhile')
    fig = cli.plot_sweep(cli.np.ones((2, 2)), 'a figure')
    with pytest.raises(FileExistsError, match='appeared while the work ran; it is kept'):
        cli.write_figure(fig, path)
    assert path.read_text() == 'written meanwhile' and os.listdir(tmp_path) == ['demo.png']


def test_sweep_writes_a_new_figure_where_none_was(tmp_path, capsys):
    code, out, err = run_cli(['sweep', '--max', '2', '--figures', str(tmp_path / 'new')], capsys)
    assert code == 0 and f'wrote {tmp_path / "new" / "sweep.png"}' in out
    assert os.listdir(tmp_path / 'new') == ['sweep.png']


@pytest.mark.slow
def test_the_readme_demo_runs_on_a_fresh_folder_and_a_second_run_keeps_its_figure(tmp_path):
    "README command 1 (`resize-nearest demo` where no demo.png is), then the same again."
    import subprocess
    import sys

    command = [sys.executable, '-m', 'resize_nearest.cli', 'demo']
    first = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert first.returncode == 0 and 'wrote demo.png' in first.stdout, first.stderr
    png = (tmp_path / 'demo.png').read_bytes()
    second = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert second.returncode == 2 and '--force' in second.stderr and second.stdout == ''
    assert (tmp_path / 'demo.png').read_bytes() == png
