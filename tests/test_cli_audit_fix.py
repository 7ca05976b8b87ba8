"""`resize-nearest audit MODEL --inputs DATA --fix OUT.onnx`, run in this process: runtime values
from an ONNX test_data_set folder or an .npz, the fixed model written and checked, and a model
onnxruntime cannot load exiting 2 with the reason."""
import contextlib
import io
import json
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from hostile_onnx import one_resize
from onnx_spec import CONFORMANCE, conformance_case
from resize_nearest import cli


def typed(model):
    "The model with its output typed (rank 4), which onnx.checker's full check requires."
    for _ in range(4):
        model.graph.output[0].type.tensor_type.shape.dim.add()
    return model


def audit(capsys, *args):
    "(exit status, parsed JSON, stderr) of `resize-nearest audit ... --json`."
    with pytest.raises(SystemExit) as stop, contextlib.redirect_stdout(io.StringIO()) as out:
        cli.main(['audit', *map(str, args), '--json'])
    return stop.value.code, json.loads(out.getvalue()), capsys.readouterr().err


@pytest.mark.parametrize('folder', CONFORMANCE, ids=os.path.basename)
def test_conformance_models_are_analysed_with_their_test_data(folder, capsys):
    model = os.path.join(folder, 'model.onnx')
    status, report, _ = audit(capsys, model, '--inputs', os.path.join(folder, 'test_data_set_0'))
    assert status == 0 and report[0]['status'] == 'analysed', report


def test_without_inputs_a_fed_size_says_to_give_it(capsys):
    folder = [f for f in CONFORMANCE if f.endswith('test_resize_upsample_sizes_nearest')][0]
    status, report, _ = audit(capsys, os.path.join(folder, 'model.onnx'))
    assert report[0]['status'].startswith("not analysed: 'sizes' is known only when the model runs")
    assert 'fed at run time' in report[0]['status'] and '--inputs' in report[0]['status']


def test_inputs_from_an_npz_file(tmp_path, capsys):
    folder = [f for f in CONFORMANCE if f.endswith('test_resize_upsample_sizes_nearest')][0]
    path, inputs, _ = conformance_case(folder)
    np.savez(tmp_path / 'in.npz', **inputs)
    status, report, _ = audit(capsys, path, '--inputs', tmp_path / 'in.npz')
    assert status == 0 and report[0]['resized'] == 'axis 2: 2->7, axis 3: 2->8'


@pytest.mark.parametrize('make, message', [
    (lambda tmp: tmp / 'missing.npz', '--inputs must be a test_data_set folder'),
    (lambda tmp: tmp, 'holds no input_N.pb file'),
])
def test_bad_inputs_are_usage_errors(tmp_path, capsys, make, message):
    onnx.save(one_resize([1, 1, 64, 64]), tmp_path / 'm.onnx')
    status, report, _ = audit(capsys, tmp_path / 'm.onnx', '--inputs', make(tmp_path))
    assert status == 2 and message in report['error']


def test_inputs_naming_no_model_input_are_refused(tmp_path, capsys):
    onnx.save(one_resize([1, 1, 64, 64]), tmp_path / 'm.onnx')
    np.savez(tmp_path / 'in.npz', nothere=np.zeros(2))
    status, report, _ = audit(capsys, tmp_path / 'm.onnx', '--inputs', tmp_path / 'in.npz')
    assert status == 2 and "['nothere'], which are not inputs of the model" in report['error']


def test_a_model_onnxruntime_cannot_load_exits_2_and_says_why(tmp_path, capsys):
    "sizes with 5 values for a 4-D input: onnxruntime refuses the model at load."
    onnx.save(one_resize([1, 1, 22, 22, 3]), tmp_path / 'm.onnx')
    with pytest.raises(Exception, match='Number of elements of input'):
        ort.InferenceSession(str(tmp_path / 'm.onnx'), providers=['CPUExecutionProvider'])
    status, report, _ = audit(capsys, tmp_path / 'm.onnx')
    assert status == 2 and 'onnxruntime cannot load it' in report['error']
    assert 'Number of elements of input' in report['error']
    assert report['report'][0]['status'] == 'invalid: sizes has 5 values for 4 axes'


def test_fix_writes_a_checked_exact_model(tmp_path, capsys):
    onnx.save(typed(one_resize([1, 1, 64, 64])), tmp_path / 'm.onnx')  # 26 -> 64: onnxruntime wrong
    status, out, _ = audit(capsys, tmp_path / 'm.onnx', '--fix', tmp_path / 'exact.onnx')
    assert status == 0 and out['fix']['written'] == str(tmp_path / 'exact.onnx')
    assert out['fix']['checker'] == 'passed (full check, with shape inference)'
    change, = out['fix']['changes']
    assert change['action'] == 'replaced: constant indices' and change['gather_axes'] == [2, 3]
    fixed = onnx.load(tmp_path / 'exact.onnx')
    onnx.checker.check_model(fixed, full_check=True)
    x = np.arange(26 * 26, dtype=np.float32).reshape(1, 1, 26, 26)
    session = ort.InferenceSession(str(tmp_path / 'exact.onnx'), providers=['CPUExecutionProvider'])
    rows = (np.arange(64) * 26) // 64                       # asymmetric/floor: d * in // out
    np.testing.assert_array_equal(session.run(None, {'x': x})[0], x[:, :, rows][:, :, :, rows])


def test_a_checker_complaint_the_original_has_too_is_not_the_fix(tmp_path, capsys):
    "one_resize's output is untyped: the full check refuses the original and the fix alike."
    onnx.save(one_resize([1, 1, 64, 64]), tmp_path / 'm.onnx')
    status, out, _ = audit(capsys, tmp_path / 'm.onnx', '--fix', tmp_path / 'exact.onnx')
    assert status == 0 and out['fix']['checker'].startswith('as for the original model')


def test_fix_text_says_what_changed(tmp_path, capsys):
    onnx.save(one_resize([1, 1, 64, 64]), tmp_path / 'm.onnx')
    with pytest.raises(SystemExit) as stop:
        cli.main(['audit', str(tmp_path / 'm.onnx'), '--fix', str(tmp_path / 'exact.onnx')])
    out = capsys.readouterr().out
    assert stop.value.code == 0
    assert 'y (Resize-19, graph): replaced: constant indices on axes [2, 3]' in out
    assert 'verified: the written nodes, run by onnxruntime, differ from the exact map on 0 of 4,096 probe elements' in out


def test_fix_refuses_an_existing_file_unless_forced(tmp_path, capsys):
    onnx.save(one_resize([1, 1, 64, 64]), tmp_path / 'm.onnx')
    (tmp_path / 'exact.onnx').write_bytes(b'keep')
    status, report, _ = audit(capsys, tmp_path / 'm.onnx', '--fix', tmp_path / 'exact.onnx')
    assert status == 2 and 'replaced only with --force' in report['error']
    assert (tmp_path / 'exact.onnx').read_bytes() == b'keep'
    status, _, _ = audit(capsys, tmp_path / 'm.onnx', '--fix', tmp_path / 'exact.onnx', '--force')
    assert status == 0


@pytest.mark.parametrize('args, message', [
    (['--every'], '--every, --force and --fix-form go with --fix'),
    (['--fix', 'out.txt'], '--fix must name an .onnx file'),
])
def test_fix_options_are_checked(tmp_path, capsys, args, message):
    onnx.save(one_resize([1, 1, 64, 64]), tmp_path / 'm.onnx')
    status, report, _ = audit(capsys, tmp_path / 'm.onnx', *args)
    assert status == 2 and message in report['error']


def test_fix_of_a_conformance_model_with_its_inputs(tmp_path, capsys):
    folder = [f for f in CONFORMANCE if f.endswith('floor_align_corners')][0]
    path, inputs, expected = conformance_case(folder)
    status, out, _ = audit(capsys, path, '--inputs', os.path.join(folder, 'test_data_set_0'),
                           '--fix', tmp_path / 'exact.onnx', '--every')
    assert status == 0 and out['fix']['changes'][0]['action'] == 'replaced: computed indices'
    session = ort.InferenceSession(str(tmp_path / 'exact.onnx'), providers=['CPUExecutionProvider'])
    np.testing.assert_array_equal(session.run(None, inputs)[0], expected)
