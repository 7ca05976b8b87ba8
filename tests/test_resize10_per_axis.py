"""Resize-10 states no rounding; onnxruntime floors where an axis grows and takes the ceiling where
it shrinks, axis by axis. A node that grows one axis and shrinks another is read per axis, and
onnxruntime's own output (run by the audit on an index image) matches that reading exactly."""
import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

from resize_nearest.models.audit import audit_onnx
from resize_nearest.models.fix import fix_report
from resize_nearest.models.onnx_reader import read_resizes


from onnx_spec import spec_map


def resize10(shape, scales):
    node = helper.make_node('Resize', ['x', 's'], ['y'], name='y', mode='nearest')
    graph = helper.make_graph(
        [node], 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, [None] * len(shape))],
        [helper.make_tensor('s', TensorProto.FLOAT, [len(scales)], scales)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 10)])
    model.ir_version = 8
    return model


def test_a_resize10_growing_and_shrinking_is_read_per_axis():
    r, = read_resizes(resize10([1, 1, 7, 10], [1, 1, 2.0, 0.4]))
    assert r.problem is None and r.axis_nearest_modes == ('floor', 'floor', 'floor', 'ceil')


def test_onnxruntime_agrees_with_the_per_axis_reading():
    "10 -> 4 at scale 0.4: ceil gives 0, 3, 5, 8 where floor gives 0, 2, 5, 7."
    m = resize10([1, 1, 7, 10], [1, 1, 2.0, 0.4])
    session = ort.InferenceSession(m.SerializeToString(), providers=['CPUExecutionProvider'])
    x = np.arange(70, dtype=np.float32).reshape(1, 1, 7, 10)
    got = session.run(None, {'x': x})[0]
    assert got[0, 0, 0].tolist() == [0, 3, 5, 8]                      # ceil on the shrinking axis
    assert got[0, 0, :, 0].tolist() == [0, 0, 10, 10, 20, 20, 30, 30, 40, 40, 50, 50, 60, 60]
    row, = audit_onnx(m)
    assert row['status'] == 'analysed' and row['wrong']['onnxruntime'] == 0
    assert row['convention'] == 'asymmetric/floor,floor,floor,ceil per axis'


def test_the_fix_of_a_resize10_uses_each_axis_rounding():
    m = resize10([1, 1, 7, 10], [1, 1, 2.0, 0.4])
    fixed, (change,) = fix_report(m, every=True)
    assert change['action'] == 'replaced: constant indices'
    session = ort.InferenceSession(fixed.SerializeToString(), providers=['CPUExecutionProvider'])
    x = np.arange(70, dtype=np.float32).reshape(1, 1, 7, 10)
    assert session.run(None, {'x': x})[0][0, 0, 0].tolist() == [0, 3, 5, 8]


def test_a_resize10_of_dynamic_size_rounds_each_axis_in_the_graph():
    "H and W unknown until run time: Less(p, q) picks ceil on the shrinking axis, in int64."
    m = resize10([1, 1, 'H', 'W'], [1, 1, 2.0, 0.4])
    fixed, (change,) = fix_report(m, every=True)
    assert change['action'] == 'replaced: computed indices'
    session = ort.InferenceSession(fixed.SerializeToString(), providers=['CPUExecutionProvider'])
    for h, w in ((7, 10), (3, 23)):
        x = np.arange(h * w, dtype=np.float32).reshape(1, 1, h, w)
        rows = spec_map('asymmetric', 'floor', h, 2 * h, np.float32(2.0))
        cols = spec_map('asymmetric', 'ceil', w, int(w * float(np.float32(0.4))), np.float32(0.4))
        np.testing.assert_array_equal(session.run(None, {'x': x})[0], x[:, :, rows][:, :, :, cols])
