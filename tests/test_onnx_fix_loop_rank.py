"""A Resize in a Loop body whose input is declared without a shape: its four scales fix the rank
(ONNX Resize: one scale per axis of X without `axes`), so `fix_report` replaces it with Gathers
computed in the graph instead of refusing it for an unknown rank. The fixed model is run by
onnxruntime against the ONNX specification's maps (tests/onnx_spec.py, Fraction arithmetic)."""
import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from onnx_spec import spec_map
from resize_nearest.models.fix import fix_report


def loop_model():
    "One trip of a Loop whose body resizes the carried value v by scales (1, 1, 2.46, 0.7)."
    scales = helper.make_tensor('scl', TensorProto.FLOAT, [4], [1, 1, 2.46, 0.7])
    body = helper.make_graph(
        [helper.make_node('Identity', ['cond_in'], ['cond_out']),
         helper.make_node('Resize', ['v', '', 'scl'], ['v_out'], name='body_resize',
                          mode='nearest', coordinate_transformation_mode='asymmetric',
                          nearest_mode='floor')],
        'body',
        [helper.make_tensor_value_info('i', TensorProto.INT64, []),
         helper.make_tensor_value_info('cond_in', TensorProto.BOOL, []),
         helper.make_tensor_value_info('v', TensorProto.FLOAT, None)],   # no shape, no rank
        [helper.make_tensor_value_info('cond_out', TensorProto.BOOL, []),
         helper.make_tensor_value_info('v_out', TensorProto.FLOAT, None)],
        [scales])
    loop = helper.make_node('Loop', ['trips', 'cond', 'x'], ['y'], name='loop', body=body)
    graph = helper.make_graph(
        [loop], 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 1, 26, 26])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)],
        [helper.make_tensor('trips', TensorProto.INT64, [], [1]),
         helper.make_tensor('cond', TensorProto.BOOL, [], [True])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid('', 19)])


def test_a_loop_body_resize_of_unknown_shape_is_replaced_by_computed_gathers():
    fixed, (change,) = fix_report(loop_model())
    assert change['action'] == 'replaced: computed indices', change
    assert change['gather_axes'] == [0, 1, 2, 3]
    body = fixed.graph.node[0].attribute[0].g
    assert 'Resize' not in [n.op_type for n in body.node]
    x = np.arange(26 * 26, dtype=np.float32).reshape(1, 1, 26, 26)
    session = ort.InferenceSession(fixed.SerializeToString(), providers=['CPUExecutionProvider'])
    got = session.run(None, {'x': x})[0]
    s = np.float32(2.46), np.float32(0.7)
    rows = spec_map('asymmetric', 'floor', 26, int(26 * float(s[0])), s[0])
    cols = spec_map('asymmetric', 'floor', 26, int(26 * float(s[1])), s[1])
    np.testing.assert_array_equal(got, x[:, :, rows][:, :, :, cols])
