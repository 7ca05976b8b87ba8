"""The audit asks onnxruntime whether it loads the model, always, before any row is reported: a
model onnxruntime cannot load gets the documented exit status 2 (`audit --help`), whatever its
nodes are. The oracle is onnxruntime itself (`InferenceSession` on the same file); each refused
model has a twin that differs only where onnxruntime's refusal lies, and is audited as before."""
import json
import pytest

onnx = pytest.importorskip('onnx')
ort = pytest.importorskip('onnxruntime')
from onnx import TensorProto, helper
from resize_nearest.models.audit import audit_onnx
from resize_nearest.models.runtimes import RUNTIMES_ENV
from tests.cli_run import run_cli


def _model(path, opset=21, dtype=TensorProto.FLOAT, **attrs):
    "A one-node nearest Resize, (1, 1, 26, 26) -> (1, 1, 22, 22), saved at `path`."
    sizes = helper.make_tensor('sizes', TensorProto.INT64, [4], [1, 1, 22, 22])
    node = helper.make_node('Resize', ['X', '', '', 'sizes'], ['Y'], mode='nearest', **attrs)
    graph = helper.make_graph(
        [node], 'g', [helper.make_tensor_value_info('X', dtype, [1, 1, 26, 26])],
        [helper.make_tensor_value_info('Y', dtype, [1, 1, 22, 22])], initializer=[sizes])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)]), path)
    return str(path)


def _loads(path) -> bool:
    "The oracle: does onnxruntime load the model?"
    try:
        ort.InferenceSession(path, providers=['CPUExecutionProvider'])
    except Exception:  # noqa: BLE001 - onnxruntime's refusal, whatever its class
        return False
    return True


CASES = {  # refused model's attributes and input type -> its twin's
    'antialias at opset 21': (dict(antialias=1), dict(antialias=0)),
    'bool input to Resize-19': (dict(opset=19, dtype=TensorProto.BOOL),
                                dict(opset=19, dtype=TensorProto.UINT8)),
    'int64 input to Resize-19': (dict(opset=19, dtype=TensorProto.INT64),
                                 dict(opset=19, dtype=TensorProto.INT32)),
}


@pytest.mark.parametrize('case', CASES)
def test_a_model_onnxruntime_cannot_load_exits_2(tmp_path, capsys, monkeypatch, case):
    monkeypatch.setenv(RUNTIMES_ENV, 'none')
    refused, twin = CASES[case]
    bad, good = _model(tmp_path / 'bad.onnx', **refused), _model(tmp_path / 'good.onnx', **twin)
    assert not _loads(bad) and _loads(good)
    code, out, _ = run_cli(['audit', bad, '--json'], capsys)
    assert code == 2
    assert 'onnxruntime cannot load it' in json.loads(out)['error']
    code, out, _ = run_cli(['audit', good, '--json'], capsys)
    assert code in (0, 1) and json.loads(out)[0]['status'] == 'analysed'


def test_the_onnxruntime_row_runs_the_node_as_the_model_has_it(tmp_path):
    "The row is not counted from a probe without the model's antialias (which onnxruntime runs)."
    row = audit_onnx(_model(tmp_path / 'bad.onnx', antialias=1))[0]
    assert str(row.wrong['onnxruntime']).startswith('failed:')
    twin = audit_onnx(_model(tmp_path / 'good.onnx'))[0]
    assert isinstance(twin.wrong['onnxruntime'], int)
