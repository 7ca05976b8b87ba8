"""The command line's answers at its edges: Ctrl-C stops any command quietly with status 130,
audit's text escapes control characters in names from the model, check reports the libraries'
rows past the kernels' axis limit, and lint reports a kernel too deeply nested to check as an
error (status 2), not as a refusal (status 1)."""
import importlib
import json
import re
import signal
import subprocess
import sys
import time

import pytest

from resize_nearest.models.audit import NEURON
from resize_nearest import cli
from cli_run import run_cli
from resize_nearest.nki_cpu.frontend import kernel_problems


# --- Ctrl-C -----------------------------------------------------------------------------------

# the command as a terminal starts it (SIGINT raises KeyboardInterrupt even where the test runner
# was started with SIGINT ignored), saying when its imports are done
STARTED = (
    'import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler);'
    " import resize_nearest.cli as c; print('started', flush=True); c.main(sys.argv[1:])"
)


@pytest.mark.parametrize('argv', [
    ['demo', '--figures', '.'],
    ['sweep', '--max', '60', '--yes', '--figures', '.'],
    ['check', '4000x4000', '3000x3000'],
])
def test_ctrl_c_stops_a_command_quietly_with_status_130(tmp_path, argv):
    child = subprocess.Popen([sys.executable, '-c', STARTED, *argv], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == 'started\n'
        time.sleep(0.3)  # inside the command's work
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130, err
    assert 'Traceback' not in err and 'KeyboardInterrupt' not in err
    assert not list(tmp_path.iterdir())  # no figure, no temporary file


# --- audit's text -----------------------------------------------------------------------------

FORGED = 'up\x1b[2J\x1b[H\r\n  all libraries: 0 wrong\x07\u202e'


def test_audit_text_escapes_control_characters_in_names(tmp_path, capsys):
    onnx = pytest.importorskip('onnx')
    from onnx import TensorProto, helper

    sizes = helper.make_tensor('sizes', TensorProto.INT64, [4], [1, 1, 22, 22])
    node = helper.make_node('Resize', ['x', '', '', 'sizes'], ['y'], name=FORGED, mode='nearest')
    graph = helper.make_graph(
        [node], 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 1, 26, 26])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)], initializer=[sizes])
    path = tmp_path / 'forged.onnx'
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid('', 19)]), str(path))
    code, out, err = run_cli(['audit', str(path)], capsys)
    assert code in (0, 1), err
    assert not any(c in out for c in '\x1b\r\x07\u202e')
    assert 'up\\x1b[2J\\x1b[H\\r\\n  all libraries: 0 wrong\\x07\\u202e (Resize' in out
    assert out.count('\n') == len(out.splitlines())  # every line break is one of audit's own
    code, out, err = run_cli(['audit', str(path), '--json'], capsys)
    assert json.loads(out)[0]['node'] == FORGED  # JSON keeps the name, escaped by JSON itself


def test_printable_escapes_what_a_terminal_would_act_on():
    assert cli.printable('a\tb\x00c\\d\u200bé') == 'a\\tb\\x00c\\\\d\\u200bé'


# --- check past the kernels' axis limit --------------------------------------------------------

@pytest.mark.parametrize('sizes, axis', [(['70000', '3'], 'in_w = 70000'),
                                         (['3', '70000'], 'out_w = 70000')])
def test_check_past_the_kernels_axis_limit_reports_the_other_rows(capsys, sizes, axis):
    code, out, err = run_cli(['check', *sizes, '--json'], capsys)
    rows = {r['implementation']: r for r in json.loads(out)}
    assert code == 0, err
    assert rows['onnxruntime']['status'] == 'ran' and rows['onnxruntime']['wrong'] == 0
    assert rows['Neuron compiled kernel (modelled)']['wrong'] == 0
    ours = rows['resize_nearest (exact)']
    assert ours['wrong'] is None and ours['status'].startswith('not run') and axis in ours['status']


# --- lint of a deeply nested expression ---------------------------------------------------------

@pytest.fixture
def deep_module(tmp_path, monkeypatch):
    "A module Python imports whose kernel returns a sum of 2,000 terms (a tree 2,000 levels deep)."
    (tmp_path / 'deep_kernels.py').write_text(
        'def deep_kernel(a):\n    return ' + ' + '.join(['a'] * 2000) + '\n'
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module('deep_kernels')
    sys.modules.pop('deep_kernels', None)


def test_kernel_problems_of_a_too_deep_expression_is_a_value_error(deep_module):
    with pytest.raises(ValueError, match=r'deep_kernel .*too deeply to check'):
        kernel_problems(deep_module.deep_kernel)


def test_lint_reports_a_too_deep_kernel_as_an_error_not_a_refusal(deep_module, capsys):
    target = 'resize_nearest.kernels.residue:resize_nearest_residue_kernel'
    code, out, err = run_cli(['lint', 'deep_kernels:deep_kernel', target], capsys)
    assert code == 2 and 'Traceback' not in err
    assert out.startswith('ERROR deep_kernels:deep_kernel: deep_kernel (') and 'FAIL' not in out
    assert f'ok   {target}' in out  # the other target is still checked


# --- exit statuses: a run or a model, and nodes not analysed ----------------------------------

def test_an_unwritable_fix_folder_is_named_as_fix_with_its_path(tmp_path, capsys):
    "audit has no --figures: a --fix file whose folder cannot be made names --fix and the path."
    onnx = pytest.importorskip('onnx')
    from hostile_onnx import one_resize

    onnx.save(one_resize([1, 1, 22, 22]), tmp_path / 'm.onnx')
    (tmp_path / 'plain').write_text('a file, so no folder can be made under it')
    out = tmp_path / 'plain' / 'exact.onnx'
    status, _, err = run_cli(['audit', str(tmp_path / 'm.onnx'), '--fix', str(out)], capsys)
    assert status == 2 and f"cannot write to --fix {str(out)!r}" in err, err
    assert '--figures' not in err and not out.parent.is_dir()


def exit_statuses(command, capsys):
    "{status: text} from the 'exit status:' block of `resize-nearest COMMAND --help`."
    status, out, _ = run_cli([command, '--help'], capsys)
    block = out.split('exit status:\n')[1].split('\n\n')[0]
    found = re.findall(r'^  (\d)  (.+(?:\n {5}.+)*)', block, re.M)
    return status, {int(code): ' '.join(text.split()) for code, text in found}


def test_audit_and_check_help_document_their_exit_statuses(capsys):
    status, audit = exit_statuses('audit', capsys)
    assert status == 0 and sorted(audit) == [0, 1, 2, 3, 4], audit
    assert 'could not be analysed' in audit[3] and '(modelled)' in audit[4]
    assert '--fix' in audit[1] and 'cannot be read' in audit[2]
    status, check = exit_statuses('check', capsys)
    assert status == 0 and sorted(check) == [0, 1, 2, 4], check
    assert 'ran' in check[1] and '(modelled)' in check[4]


def test_a_model_with_a_node_that_cannot_be_analysed_exits_3(tmp_path, capsys):
    "A Resize whose input shape is known only at run time, and nothing else: status 3, not 0."
    onnx = pytest.importorskip('onnx')
    from hostile_onnx import one_resize

    onnx.save(one_resize([1, 1, 22, 22], x_shape=(1, 1, 'h', 'w')), tmp_path / 'm.onnx')
    status, out, _ = run_cli(['audit', str(tmp_path / 'm.onnx'), '--json'], capsys)
    row, = json.loads(out)
    assert row['status'].startswith('not analysed') and status == 3, (status, row['status'])
    onnx.save(one_resize([1, 1, 52, 52]), tmp_path / 'ok.onnx')  # 26 -> 52: right everywhere
    assert run_cli(['audit', str(tmp_path / 'ok.onnx')], capsys)[0] == 0


def test_a_row_only_modelled_is_named_so_and_exits_4_not_1(capsys):
    """26 -> 41 fails only in the described compiler's float32 flat-row map (output width 41 puts
    p = 41 in row 0, chapter 1.1): no library that runs gets it wrong, so the status is 4."""
    status, out, _ = run_cli(['check', '26x26', '41x41'], capsys)
    assert status == 4 and 'Neuron compiled kernel (modelled)' in out, out
    status, out, _ = run_cli(['check', '26x26', '41x41', '--json'], capsys)
    rows = {r['implementation']: r for r in json.loads(out)}
    assert status == 4 and rows['Neuron compiled kernel (modelled)']['kind'] == 'modelled'
    assert rows['Neuron compiled kernel (modelled)']['wrong'] > 0
    ran = {name: r for name, r in rows.items()
           if '(modelled)' not in name and not r['status'].startswith('not installed')}
    assert ran and all(r['wrong'] == 0 for r in ran.values()), ran


def test_with_only_the_runtime_dependencies_224_to_192_exits_4(monkeypatch, capsys):
    "Every library missing, as with the runtime dependencies only: the modelled row alone is 4."
    from resize_nearest.studies import compare

    def missing(name):
        def run(in_hw, out_hw):
            raise ModuleNotFoundError(f'No module named {name!r}', name=name)
        return run

    for key, name in (('PyTorch nearest', 'torch'), ('onnxruntime Resize', 'onnxruntime'),
                      ('OpenCV INTER_NEAREST', 'cv2')):
        monkeypatch.setitem(compare.PEERS, key, missing(name))
    status, out, _ = run_cli(['check', '224x224', '192x192'], capsys)
    assert status == 4 and 'Neuron compiled kernel (modelled)' in out and 'skipped' in out, out
    monkeypatch.undo()
    status, out, _ = run_cli(['check', '224x224', '192x192'], capsys)
    assert status == 1 and 'PyTorch nearest ' in out  # PyTorch ran, and is wrong on 1,143
