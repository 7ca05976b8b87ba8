"""Sizes computed from the Shape of an input with lengths known only at run time (chapter R10):
read at the audit's placeholder lengths they may be out of range (H * 2 // 7 is 0 at H = 1), which
says nothing of the model. Such a node is 'not analysed' (exit 3) and `--fix` replaces it by
computed indices; sizes out of range in the model itself are still 'invalid'. The oracle is
onnxruntime running the model at real lengths."""
import numpy as np
import pytest

onnx = pytest.importorskip('onnx')
ort = pytest.importorskip('onnxruntime')
from onnx import TensorProto as T, helper
from resize_nearest.models.audit import audit_onnx
from resize_nearest.models.runtimes import RUNTIMES_ENV
from tests.cli_run import run_cli


def _ints(name, values):
    return helper.make_tensor(name, T.INT64, [len(values)], values)


def _model(path, computed=True):
    """X (N, 2, H, W) resized to Concat(Shape(X)[0:2], Shape(X)[2:4] * [2, 3] // [7, 5]), or
    (`computed` False) to the constant sizes [1, 2, 0, 0]."""
    if computed:
        nodes = [helper.make_node('Shape', ['X'], ['s']),
                 helper.make_node('Slice', ['s', 'zero', 'two'], ['nc']),
                 helper.make_node('Slice', ['s', 'two', 'four'], ['hw']),
                 helper.make_node('Mul', ['hw', 'mul'], ['hw2']),
                 helper.make_node('Div', ['hw2', 'div'], ['hw3']),
                 helper.make_node('Concat', ['nc', 'hw3'], ['sizes'], axis=0)]
        constants = [_ints('zero', [0]), _ints('two', [2]), _ints('four', [4]),
                     _ints('mul', [2, 3]), _ints('div', [7, 5])]
    else:
        nodes, constants = [], [_ints('sizes', [1, 2, 0, 0])]
    nodes.append(helper.make_node('Resize', ['X', '', '', 'sizes'], ['Y'], mode='nearest'))
    graph = helper.make_graph(
        nodes, 'g', [helper.make_tensor_value_info('X', T.FLOAT, ['N', 2, 'H', 'W'])],
        [helper.make_tensor_value_info('Y', T.FLOAT, ['N', 2, 'h', 'w'])], initializer=constants)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid('', 19)]), path)
    return str(path)


def _run(path, x):
    return ort.InferenceSession(path, providers=['CPUExecutionProvider']).run(None, {'X': x})[0]


def test_sizes_computed_from_run_time_lengths_are_not_invalid(tmp_path, capsys, monkeypatch):
    model = _model(tmp_path / 'computed.onnx')
    x = np.arange(2 * 2 * 14 * 10, dtype=np.float32).reshape(2, 2, 14, 10)
    assert _run(model, x).shape == (2, 2, 4, 6)  # the oracle: a valid model at real lengths
    (row,) = audit_onnx(model)
    assert row.status.startswith('not analysed: its sizes are computed from lengths known only')
    monkeypatch.setenv(RUNTIMES_ENV, 'none')
    assert run_cli(['audit', model], capsys)[0] == 3
    fixed = str(tmp_path / 'fixed.onnx')
    code, out, _ = run_cli(['audit', model, '--fix', fixed], capsys)
    assert 'replaced: computed indices' in out and code == 1  # replaced, not verified
    assert np.array_equal(_run(fixed, x), _run(model, x))


def test_constant_sizes_out_of_range_are_still_invalid(tmp_path):
    "The twin: the same sizes as constants are the model's own, refused by ONNX's Resize."
    (row,) = audit_onnx(_model(tmp_path / 'constant.onnx', computed=False))
    assert row.status.startswith('invalid: sizes [1, 2, 0, 0]')
