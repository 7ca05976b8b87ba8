"""What a newcomer meets in the first hour, each case as the README's commands leave it: `check`
with only the runtime dependencies, the audit's footer and hints, `--fix`'s exit status where a
node is not verified, its bound and progress lines with a runtime that never finishes, an OUT
file that appears while the fix runs, the words of --help and of usage errors, and Ctrl-C while
the command is still importing. The oracles are the documented exit statuses (`--help`), POSIX
`link()` (EEXIST where the new name exists) and the shell's 128 + SIGINT."""
import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from unittest import mock

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from cli_run import run_cli
from hostile_onnx import model_of, one_resize, resize_node, sizes_tensor
from resize_nearest import cli
from resize_nearest.entry import cli_plumbing
from resize_nearest.studies import compare


def missing(module):
    "A library whose import fails, as where its extra is not installed."
    def run(in_hw, out_hw):
        raise ModuleNotFoundError(f'No module named {module!r}', name=module)
    return run


ABSENT = {'PyTorch nearest': missing('torch'), 'onnxruntime Resize': missing('onnxruntime'),
          'OpenCV INTER_NEAREST': missing('cv2')}


def test_check_after_command_1_runs_what_it_can_and_names_the_extra(capsys):
    "Only the runtime dependencies: no onnx, so no runtime; the modelled row alone decides (4)."
    with mock.patch.dict(compare.PEERS, ABSENT), mock.patch.dict(sys.modules, {'onnx': None}), \
            mock.patch.dict(os.environ, {'RESIZE_NEAREST_RUNTIMES': ''}):
        status, out, err = run_cli(['check', '224x224', '192x192'], capsys)
    assert status == 4, (out, err)  # --help: 4, only a row marked (modelled) copies a wrong pixel
    assert 'Traceback' not in err and 'resize_nearest (exact)' in out
    assert 'Neuron compiled kernel (modelled)' in out and 'OpenVINO' not in out
    assert err.count('\n') == 1 and 'resize_nearest[onnx]' in err and 'tinygrad' in err


def test_check_with_onnx_has_no_such_line(capsys):
    "The twin: with onnx there, the runtimes have their rows and nothing is said of the extra."
    with mock.patch.dict(compare.PEERS, ABSENT), \
            mock.patch.dict(os.environ, {'RESIZE_NEAREST_RUNTIMES': 'tract'}):
        status, out, err = run_cli(['check', '224x224', '192x192'], capsys)
    assert status == 4 and 'tract' in out and 'resize_nearest[onnx]' not in err


def dynamic_model():
    "F.interpolate(size=(41, 41)) exported with dynamic H and W: sizes = Shape(x)[0:2] ++ [41, 41]."
    nodes = [helper.make_node('Shape', ['x'], ['shape'], end=2),
             helper.make_node('Concat', ['shape', 'hw'], ['sizes'], axis=0),
             resize_node('y', 'x', 'sizes')]
    return model_of(nodes, {'x': ['N', 1, 'H', 'W']}, [sizes_tensor('hw', [41, 41])])


def test_fix_of_a_node_not_verified_exits_1_and_is_incomplete(tmp_path, capsys):
    onnx.save(dynamic_model(), tmp_path / 'm.onnx')
    env = {'RESIZE_NEAREST_RUNTIMES': 'none'}
    with mock.patch.dict(os.environ, env):
        audited, _, _ = run_cli(['audit', str(tmp_path / 'm.onnx')], capsys)
        status, out, _ = run_cli(['audit', str(tmp_path / 'm.onnx'), '--fix',
                                  str(tmp_path / 'out.onnx'), '--json'], capsys)
    summary = json.loads(out)['fix']
    assert audited == 3  # not analysed, as --help says
    assert summary['changes'][0]['verified'].startswith('not verified')
    assert (status, summary['complete']) == (1, False)  # --help: 1, a node not verified


def test_fix_of_the_same_node_with_its_inputs_is_verified_and_complete(tmp_path, capsys):
    "The twin: the values given make the node analysable, and its fix verified: exit 0."
    onnx.save(dynamic_model(), tmp_path / 'm.onnx')
    np.savez(tmp_path / 'in.npz', x=np.zeros((1, 1, 26, 26), np.float32))
    with mock.patch.dict(os.environ, {'RESIZE_NEAREST_RUNTIMES': 'none'}):
        status, out, _ = run_cli(['audit', str(tmp_path / 'm.onnx'), '--inputs',
                                  str(tmp_path / 'in.npz'), '--fix', str(tmp_path / 'out.onnx'),
                                  '--json'], capsys)
    summary = json.loads(out)['fix']
    assert summary['changes'][0]['verified'].startswith('verified'), summary
    assert (status, summary['complete']) == (0, True)


def test_a_node_known_only_at_run_time_gets_the_inputs_hint(tmp_path, capsys):
    onnx.save(dynamic_model(), tmp_path / 'm.onnx')
    np.savez(tmp_path / 'in.npz', x=np.zeros((1, 1, 26, 26), np.float32))
    with mock.patch.dict(os.environ, {'RESIZE_NEAREST_RUNTIMES': 'none'}):
        _, without, _ = run_cli(['audit', str(tmp_path / 'm.onnx')], capsys)
        _, given, _ = run_cli(['audit', str(tmp_path / 'm.onnx'), '--inputs',
                               str(tmp_path / 'in.npz')], capsys)
    assert 'hint: --inputs DATA' in without and 'hint:' not in given


def test_the_footer_names_no_runtime_that_did_not_run(tmp_path, capsys):
    "OpenVINO is not installed here: its row says so, and the footer does not list it as run."
    if cli_plumbing.installed(cli_plumbing.RUNTIMES['OpenVINO']):
        pytest.skip('OpenVINO is installed here')
    onnx.save(one_resize([1, 1, 22, 22]), tmp_path / 'm.onnx')
    with mock.patch.dict(os.environ, {'RESIZE_NEAREST_RUNTIMES': 'OpenVINO'}):
        status, out, _ = run_cli(['audit', str(tmp_path / 'm.onnx')], capsys)
    assert 'OpenVINO: not installed' in out and 'runtimes that ran' not in out, out


FAKE_TRACT = '''
import time

def version():
    return '0.0-never-finishes'

def onnx():
    time.sleep(600)
'''


@pytest.fixture
def never_finishing_tract(tmp_path, monkeypatch):
    "A `tract` on the import path whose model loading never ends (as tinygrad's compile may not)."
    (tmp_path / 'fake' / 'tract').mkdir(parents=True)
    (tmp_path / 'fake' / 'tract' / '__init__.py').write_text(FAKE_TRACT)
    path = os.pathsep.join([str(tmp_path / 'fake'), os.environ.get('PYTHONPATH', '')])
    monkeypatch.setenv('PYTHONPATH', path)
    monkeypatch.setenv('RESIZE_NEAREST_RUNTIMES', 'tract')
    return os.environ.copy()


# slow: it waits out a 25 s bound on a runtime that never finishes
@pytest.mark.slow
def test_fix_is_bounded_by_timeout_and_says_so_as_each_runtime_starts(tmp_path,
                                                                        never_finishing_tract):
    onnx.save(one_resize([1, 1, 22, 22]), tmp_path / 'm.onnx')
    command = [sys.executable, '-m', 'resize_nearest.cli', 'audit', str(tmp_path / 'm.onnx'),
               '--fix', str(tmp_path / 'out.onnx'), '--timeout', '25', '--json']
    # without the bound, the child would wait 300 s twice (the audit, then the verification):
    # past this cap, which fails the test; within it, the bound is read from what the call reports
    done = subprocess.run(command, capture_output=True, text=True, env=never_finishing_tract,
                          timeout=240)
    result = json.loads(done.stdout)
    assert 'tract' in result['audit'][0]['wrong'], (result['audit'][0], done.stderr)
    tract_row = result['audit'][0]['wrong']['tract']
    verdict = result['fix']['changes'][0]['runtimes']['tract']
    stopped = re.fullmatch(r'timed out after ([0-9.]+) s', tract_row)  # stopped at what was left
    assert stopped and 0 < float(stopped[1]) <= 25, tract_row
    assert verdict.startswith('not run: the --timeout of 25 s was spent'), verdict  # no second wait
    assert "tract: running 'y' (at most" in done.stderr and 'Traceback' not in done.stderr
    assert done.returncode == 0  # onnxruntime verified the fix: complete, as --help says


@pytest.mark.parametrize('value', ['0', '-5', 'inf', 'nan'])
def test_timeout_must_be_a_positive_number(tmp_path, capsys, value):
    onnx.save(one_resize([1, 1, 22, 22]), tmp_path / 'm.onnx')
    status, _, err = run_cli(['audit', str(tmp_path / 'm.onnx'), '--timeout', value], capsys)
    assert status == 2 and '--timeout must be a positive number of seconds' in err


def test_fix_keeps_a_file_that_appears_at_out_while_it_runs(tmp_path, capsys):
    "OUT is free when the command starts; a file appears before the rename: it is kept, exit 2."
    onnx.save(one_resize([1, 1, 22, 22]), tmp_path / 'm.onnx')
    out = tmp_path / 'out.onnx'
    checker = cli_plumbing._checker

    def appearing(fixed, original):  # runs after the work, before the write
        out.write_bytes(b'written by someone else meanwhile')
        return checker(fixed, original)

    argv = ['audit', str(tmp_path / 'm.onnx'), '--fix', str(out)]
    with mock.patch.object(cli_plumbing, '_checker', appearing), \
            mock.patch.dict(os.environ, {'RESIZE_NEAREST_RUNTIMES': 'none'}):
        status, _, err = run_cli(argv, capsys)
        assert status == 2 and 'appeared there while the fix ran' in err and '--force' in err
        assert out.read_bytes() == b'written by someone else meanwhile'
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith('.tmp')] == []
        forced, _, _ = run_cli(argv + ['--force'], capsys)  # the twin: --force replaces it
    assert forced == 0 and onnx.load(out).graph.node


def test_a_refusal_names_the_flag_not_the_python_keyword(tmp_path, capsys):
    onnx.save(one_resize([1, 1, 22, 22]), tmp_path / 'm.onnx')
    (tmp_path / 'out.onnx').write_bytes(b'there')
    status, _, err = run_cli(['audit', str(tmp_path / 'm.onnx'), '--fix',
                              str(tmp_path / 'out.onnx')], capsys)
    assert status == 2 and '--force' in err and 'force=True' not in err
    (tmp_path / 'demo.png').write_bytes(b'there')
    status, _, err = run_cli(['demo', '--figures', str(tmp_path)], capsys)
    assert status == 2 and '--force' in err and 'force=True' not in err


def test_check_help_says_what_exit_0_means_without_but_ours(capsys):
    status, out, _ = run_cli(['check', '--help'], capsys)
    assert status == 0 and 'but ours' not in out
    assert '0  every implementation that ran or was modelled copies the right pixels' in out


INTERRUPTED_WHILE_IMPORTING = textwrap.dedent('''
    import os, signal, sys

    class Interrupt:
        "SIGINT to this process as the command imports one of its modules: Ctrl-C at that moment."
        def find_spec(self, name, path=None, target=None):
            if name == 'resize_nearest.studies.compare':
                os.kill(os.getpid(), signal.SIGINT)
            return None

    sys.meta_path.insert(0, Interrupt())
    sys.argv = [os.path.join(os.path.dirname(sys.executable), 'resize-nearest'), *sys.argv[1:]]
    from resize_nearest.cli import main
    sys.exit(main())
''')


def test_ctrl_c_during_the_imports_exits_130_with_one_line(tmp_path):
    """As the console script runs it: the interrupt arrives inside an import, before main(); the
    command stops there (it never writes the figure it was asked for)."""
    done = subprocess.run([sys.executable, '-c', INTERRUPTED_WHILE_IMPORTING, 'demo', '--figures',
                           str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (130, '', 'resize-nearest: interrupted\n')
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_handler_is_not_installed_by_importing_the_module():
    "Imported by a program of its own (not as the command), the module leaves SIGINT alone."
    assert signal.getsignal(signal.SIGINT) is not cli._interrupted_while_starting


def test_the_sweep_marks_a_run_that_reads_outside_the_image_apart(monkeypatch, tmp_path):
    """A pair whose as-compiled map leaves the image has no output: counted as OUT_OF_BOUNDS, never
    as o*o wrong pixels (3 -> 41 is the one such pair up to 48; here 2 -> 3 is made to be one)."""
    run_kernel = compare.run_kernel

    def leaves_the_image(kernel, x, out_shape, **kw):
        if kernel is compare.VARIANTS['as_compiled'].kernel and x.shape[1:3] == (2, 2) \
                and out_shape[1:3] == (3, 3):
            raise compare.OutOfBoundsError('index 9 outside the 4 source pixels')
        return run_kernel(kernel, x, out_shape, **kw)

    monkeypatch.setattr(compare, 'run_kernel', leaves_the_image)
    counts = compare.kernel_sweep(3, progress=False)['as_compiled']
    assert counts[1, 2] == compare.OUT_OF_BOUNDS and counts[counts > 0].sum() == 0
    with contextlib.redirect_stdout(io.StringIO()) as table:
        monkeypatch.setattr(cli, 'kernel_sweep', lambda n, progress: {'exact': 0 * counts,
                                                                       'as_compiled': counts})
        cli.sweep(3, str(tmp_path), progress=False)
    as_compiled = [s for s in table.getvalue().splitlines() if 'as_compiled' in s][0].split()
    assert as_compiled[1:5] == ['9', '1', '1', '0'], as_compiled  # pairs, wrong, outside, pixels

