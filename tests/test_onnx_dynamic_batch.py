"""Models as they are exported with a dynamic batch (`torch.onnx.export(..., dynamic_axes=
{'x': {0: 'batch'}})`): Resize(X, '', scales=[1, 1, 192/224, 192/224]) and sizes =
Concat(Shape(X)[:2], [192, 192]) on X (batch, 3, 224, 224). The reader reads them per axis: the
batch is copied (an identity at any length), the spatial axes are analysed, and the audit gives
the counts of the same model with a batch of 1. An axis whose map depends on its run-time length
is not analysed, and named. `--fix` removes what the replaced node alone read, the fixed model
loads in onnxruntime without a warning, and it equals the ONNX specification's maps (Fraction
arithmetic, tests/onnx_spec.py) for a batch of 1 and of 3."""
import io
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from onnx_spec import spec_map
from resize_nearest.models.audit import audit_onnx
from resize_nearest.models.fix import fix_report
from resize_nearest.models.onnx_reader import read_resizes

ASYM = dict(coordinate_transformation_mode='asymmetric', nearest_mode='floor')


def graph_model(nodes, batch, initializers, opset=17):
    x = helper.make_tensor_value_info('X', TensorProto.FLOAT, [batch, 3, 224, 224])
    y = helper.make_tensor_value_info('Y', TensorProto.FLOAT, [batch, 3, 192, 192])
    graph = helper.make_graph(nodes, 'g', [x], [y], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)])


def scales_model(batch):
    node = helper.make_node('Resize', ['X', '', 'scales'], ['Y'], name='up', mode='nearest', **ASYM)
    scales = helper.make_tensor('scales', TensorProto.FLOAT, [4], [1, 1, 192 / 224, 192 / 224])
    return graph_model([node], batch, [scales])


def sizes_model(batch):
    "sizes = Concat(Shape(X)[:2], [192, 192]), the pattern torch's exporter writes."
    nodes = [helper.make_node('Shape', ['X'], ['shape']),
             helper.make_node('Slice', ['shape', 'zero', 'two'], ['head']),
             helper.make_node('Concat', ['head', 'tail'], ['sizes'], axis=0),
             helper.make_node('Resize', ['X', '', '', 'sizes'], ['Y'], name='up', mode='nearest',
                              **ASYM)]
    inits = [helper.make_tensor('zero', TensorProto.INT64, [1], [0]),
             helper.make_tensor('two', TensorProto.INT64, [1], [2]),
             helper.make_tensor('tail', TensorProto.INT64, [2], [192, 192])]
    return graph_model(nodes, batch, inits)


def doubled_batch_model():
    "sizes = (2 * batch, 3, 192, 192): the batch axis's map depends on its run-time length."
    nodes = [helper.make_node('Shape', ['X'], ['shape']),
             helper.make_node('Slice', ['shape', 'zero', 'one'], ['n']),
             helper.make_node('Mul', ['n', 'two'], ['n2']),
             helper.make_node('Concat', ['n2', 'tail'], ['sizes'], axis=0),
             helper.make_node('Resize', ['X', '', '', 'sizes'], ['Y'], name='up', mode='nearest',
                              **ASYM)]
    inits = [helper.make_tensor('zero', TensorProto.INT64, [1], [0]),
             helper.make_tensor('one', TensorProto.INT64, [1], [1]),
             helper.make_tensor('two', TensorProto.INT64, [1], [2]),
             helper.make_tensor('tail', TensorProto.INT64, [3], [3, 192, 192])]
    return graph_model(nodes, 'batch', inits)


def quiet_session(model):
    "An onnxruntime session that logs warnings (severity 2) and errors to the captured stderr."
    options = ort.SessionOptions()
    options.log_severity_level = 2
    return ort.InferenceSession(model.SerializeToString(), options, ['CPUExecutionProvider'])


@pytest.mark.parametrize('make', [scales_model, sizes_model])
def test_a_dynamic_batch_is_analysed_with_the_counts_of_a_batch_of_one(make):
    (dynamic,), (static,) = audit_onnx(make('batch')), audit_onnx(make(1))
    assert dynamic.status == 'analysed' == static.status, dynamic.status
    assert dynamic.wrong == static.wrong and dynamic.resized == static.resized
    assert dynamic.resized == 'axis 2: 224->192, axis 3: 224->192'
    assert dynamic.wrong['onnxruntime'] != 0 or dynamic.wrong['PyTorch nearest'] != 0
    (r,) = read_resizes(make('batch'))
    assert r.run_time_axes == (0,) and 'known only when the model runs' in r.note


def test_an_axis_whose_map_depends_on_its_run_time_length_is_named():
    (r,) = read_resizes(doubled_batch_model())
    assert r.problem == ('not analysed: its sizes on axis 0 change with the lengths the model is'
                         ' run with (2 and 4 in two runs)'), r.problem


@pytest.mark.parametrize('make', [scales_model, sizes_model])
def test_the_fixed_dynamic_batch_model_is_exact_for_a_batch_of_1_and_3_and_loads_quietly(
        make, capfd):
    model = make('batch')
    fixed, (change,) = fix_report(model, every=True)
    assert change['action'] == 'replaced: constant indices' and change['gather_axes'] == [2, 3]
    assert change['verified'].startswith('verified'), change
    assert [n.op_type for n in fixed.graph.node] == ['Constant', 'Gather', 'Constant', 'Gather']
    assert [t.name for t in fixed.graph.initializer] == []  # scales, or zero/two/tail: orphans
    onnx.checker.check_model(fixed, full_check=True)
    capfd.readouterr()
    session = quiet_session(fixed)
    scale = np.float32(192 / 224) if make is scales_model else None  # x = d / s, s the float32
    index = spec_map('asymmetric', 'floor', 224, 192, scale)
    for batch in (1, 3):
        x = np.arange(batch * 3 * 224 * 224, dtype=np.float32).reshape(batch, 3, 224, 224)
        np.testing.assert_array_equal(session.run(None, {'X': x})[0], x[:, :, index][..., index])
    assert capfd.readouterr().err == ''
    fixed.graph.initializer.append(helper.make_tensor('unused', TensorProto.INT64, [1], [0]))
    quiet_session(fixed)  # an orphan left behind: onnxruntime warns, so the check above can fail
    assert 'Removing initializer' in capfd.readouterr().err


@pytest.mark.parametrize('conv', [False, True], ids=['on the input', 'on a convolution'])
def test_a_torch_export_with_a_dynamic_batch_is_analysed_and_fixed(conv):
    "The resize of the model's input, or of a value the model computes (its batch from a run)."
    torch = pytest.importorskip('torch')

    class Down(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 3, 1) if conv else torch.nn.Identity()

        def forward(self, x):
            return torch.nn.functional.interpolate(self.conv(x), size=(192, 192), mode='nearest')

    buffer = io.BytesIO()
    with warnings.catch_warnings():  # the TorchScript exporter's deprecation notice
        warnings.simplefilter('ignore')
        torch.onnx.export(Down(), torch.zeros(1, 3, 224, 224), buffer, dynamo=False,
                          input_names=['X'], output_names=['Y'], dynamic_axes={'X': {0: 'batch'}})
    model = onnx.load_from_string(buffer.getvalue())
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == 'batch'
    (row,) = audit_onnx(model)
    assert row.status == 'analysed' and row.resized == 'axis 2: 224->192, axis 3: 224->192', row
    fixed, (change,) = fix_report(model, every=True)
    assert change['action'] == 'replaced: constant indices', change
    session = ort.InferenceSession(fixed.SerializeToString(), providers=['CPUExecutionProvider'])
    original = ort.InferenceSession(model.SerializeToString(), providers=['CPUExecutionProvider'])
    index = spec_map('asymmetric', 'floor', 224, 192)
    for batch in (1, 3):
        x = np.arange(batch * 3 * 224 * 224, dtype=np.float32).reshape(batch, 3, 224, 224)
        got = session.run(None, {'X': x})[0]
        if conv:  # the original model: 224 -> 192 to sizes, which onnxruntime maps exactly
            np.testing.assert_array_equal(got, original.run(None, {'X': x})[0])
        else:
            np.testing.assert_array_equal(got, x[:, :, index][..., index])
