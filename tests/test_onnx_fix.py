"""`fix_onnx` / `fix_report` (chapter R12) on affected models built here: every fixed model passes
onnx.checker, and onnxruntime's output of it equals, bit for bit, the ONNX specification's
nearest maps written independently in tests/onnx_spec.py (Fraction arithmetic from
onnx/docs/Operators.md, Resize-19)."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from hostile_onnx import resize_node, sizes_tensor
from onnx_spec import spec_map
from resize_nearest.models.fix import fix_onnx, fix_report


def model_of(nodes, inputs, initializers=(), outputs=None, functions=()):
    """A model of `nodes` whose outputs are typed (float32 of the first input's rank), so that
    onnx.checker's full check accepts it; it is checked here, before any fix."""
    rank = len(next(iter(inputs.values())))
    outputs = outputs or [nodes[-1].output[0]]
    graph = helper.make_graph(
        nodes, 'g',
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, v) for k, v in inputs.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, [None] * rank) for o in outputs],
        initializer=list(initializers))
    opsets = [helper.make_opsetid('', 19)] + [helper.make_opsetid('local', 1)] * bool(functions)
    model = helper.make_model(graph, opset_imports=opsets, functions=list(functions))
    onnx.checker.check_model(model, full_check=True)
    return model


def run(model, feeds):
    "onnxruntime's first output of `model` on `feeds`."
    session = ort.InferenceSession(model.SerializeToString(), providers=['CPUExecutionProvider'])
    return session.run(None, feeds)[0]


def index_input(shape):
    "An index-valued float32 input: each element holds its own flat index (exact below 2^24)."
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def spec_resize(x, outs, mode, rounding, scales=None):
    "x resized on every axis by the specification's maps (an axis of equal length may shift)."
    scales = scales or [None] * x.ndim
    for axis, (n, o, s) in enumerate(zip(x.shape, outs, scales)):
        x = np.take(x, spec_map(mode, rounding, n, o, s), axis=axis)
    return x


def replaced(changes):
    return [c for c in changes if c['action'].startswith('replaced')]


def ops(model):
    return [n.op_type for n in model.graph.node]


ASYM = dict(coordinate_transformation_mode='asymmetric', nearest_mode='floor')


def test_an_affected_static_nchw_resize_becomes_constant_gathers_equal_to_the_spec():
    "26 -> 64 asymmetric/floor: onnxruntime copies wrong pixels (chapter R11); the fix does not."
    m = model_of([resize_node('y', 'x', 's')], {'x': [1, 2, 26, 26]},
                 [sizes_tensor('s', [1, 2, 64, 64])])
    x = index_input((1, 2, 26, 26))
    exact = spec_resize(x, (1, 2, 64, 64), 'asymmetric', 'floor')
    assert (run(m, {'x': x}) != exact).sum() > 0          # the original is wrong here
    fixed, changes = fix_report(m)
    onnx.checker.check_model(fixed, full_check=True)
    assert ops(fixed) == ['Constant', 'Gather', 'Constant', 'Gather']
    assert changes[0]['gather_axes'] == [2, 3] and changes[0]['verified'].startswith('verified')
    np.testing.assert_array_equal(run(fixed, {'x': x}), exact)


def test_an_affected_nhwc_resize_is_fixed_on_its_own_axes():
    "224 -> 192 on axes 1, 2 of NHWC: PyTorch's float32 map copies 1,143 wrong pixels per image."
    m = model_of([resize_node('y', 'x', 's')], {'x': [1, 224, 224, 3]},
                 [sizes_tensor('s', [1, 192, 192, 3])])
    fixed, changes = fix_report(m)
    assert changes[0]['gather_axes'] == [1, 2]
    x = index_input((1, 224, 224, 3))
    np.testing.assert_array_equal(run(fixed, {'x': x}),
                                  spec_resize(x, (1, 192, 192, 3), 'asymmetric', 'floor'))


@pytest.mark.parametrize('mode, rounding', [
    ('half_pixel', 'round_prefer_floor'),
    ('align_corners', 'floor'),
    ('tf_half_pixel_for_nn', 'ceil'),
    ('pytorch_half_pixel', 'round_prefer_ceil'),
    ('half_pixel_symmetric', 'floor'),
])
def test_every_convention_fixed_equals_the_spec(mode, rounding):
    "`every` replaces the node even where no runtime is wrong: the indices are the spec's."
    attrs = dict(coordinate_transformation_mode=mode, nearest_mode=rounding)
    m = model_of([resize_node('y', 'x', 's', **attrs)], {'x': [1, 2, 13, 26]},
                 [sizes_tensor('s', [1, 2, 25, 21])])
    fixed = fix_onnx(m, every=True)
    onnx.checker.check_model(fixed, full_check=True)
    assert 'Resize' not in ops(fixed)
    x = index_input((1, 2, 13, 26))
    np.testing.assert_array_equal(run(fixed, {'x': x}),
                                  spec_resize(x, (1, 2, 25, 21), mode, rounding))


def test_a_5d_resize_gathers_three_axes():
    node = resize_node('y', 'x', 's', coordinate_transformation_mode='half_pixel')
    m = model_of([node], {'x': [1, 1, 5, 9, 13]}, [sizes_tensor('s', [1, 1, 7, 12, 20])])
    fixed, changes = fix_report(m, every=True)
    assert changes[0]['gather_axes'] == [2, 3, 4]
    x = index_input((1, 1, 5, 9, 13))
    np.testing.assert_array_equal(run(fixed, {'x': x}),
                                  spec_resize(x, (1, 1, 7, 12, 20), 'half_pixel', 'floor'))


def axes_model(x_shape, sizes, **attrs):
    "A Resize-19 of the axes (2, 3) to `sizes`, its input of shape `x_shape` (names: dynamic)."
    node = helper.make_node('Resize', ['x', '', '', 's'], ['y'], name='y', mode='nearest',
                            axes=[2, 3], **{**ASYM, **attrs})
    return model_of([node], {'x': x_shape}, [sizes_tensor('s', sizes)])


def test_a_dynamic_batch_is_read_per_axis_and_the_fix_exact_for_every_batch():
    "The batch axis, known only at run time, is copied: the resized axes get constant indices."
    m = axes_model(['N', 2, 26, 26], [64, 64])
    fixed, changes = fix_report(m)
    assert changes[0]['action'] == 'replaced: constant indices' and changes[0]['gather_axes'] == [2, 3]
    assert 'Resize' not in ops(fixed)
    onnx.checker.check_model(fixed, full_check=True)
    for batch in (1, 3):
        x = index_input((batch, 2, 26, 26))
        np.testing.assert_array_equal(run(fixed, {'x': x}),
                                      spec_resize(x, (batch, 2, 64, 64), 'asymmetric', 'floor'))


def test_a_dynamic_image_size_with_float_scales_is_exact_for_every_size():
    "scales 2.46 (float32) on H and W unknown until run time: floor(n * s) and the exact map."
    node = helper.make_node('Resize', ['x', '', 's'], ['y'], name='y', mode='nearest',
                            coordinate_transformation_mode='half_pixel',
                            nearest_mode='round_prefer_ceil')
    scales = helper.make_tensor('s', TensorProto.FLOAT, [4], [1, 1, 2.46, 0.7])
    fixed = fix_onnx(model_of([node], {'x': [1, 1, 'H', 'W']}, [scales]))
    s = np.float32(2.46), np.float32(0.7)
    for h, w in ((26, 26), (13, 40), (1, 7)):
        x = index_input((1, 1, h, w))
        outs = (1, 1, int(h * float(s[0])), int(w * float(s[1])))
        want = spec_resize(x, outs, 'half_pixel', 'round_prefer_ceil', [1.0, 1.0, *s])
        np.testing.assert_array_equal(run(fixed, {'x': x}), want)


def test_a_resize_in_an_if_branch_is_fixed_inside_the_branch():
    def branch(name):
        n = resize_node(name, 'x', 's')
        out = helper.make_tensor_value_info(name, TensorProto.FLOAT, [None] * 4)
        return helper.make_graph([n], name, [], [out])

    cond = helper.make_tensor('c', TensorProto.BOOL, [], [True])
    if_node = helper.make_node('If', ['c'], ['y'], name='if1', then_branch=branch('then'),
                               else_branch=branch('else'))
    m = model_of([if_node], {'x': [1, 1, 26, 26]}, [sizes_tensor('s', [1, 1, 64, 64]), cond])
    fixed, changes = fix_report(m)
    assert {c['node'] for c in replaced(changes)} == {'then', 'else'}
    onnx.checker.check_model(fixed, full_check=True)
    then = fixed.graph.node[0].attribute[0].g
    assert 'Resize' not in [n.op_type for n in then.node]
    x = index_input((1, 1, 26, 26))
    np.testing.assert_array_equal(run(fixed, {'x': x}),
                                  spec_resize(x, (1, 1, 64, 64), 'asymmetric', 'floor'))


def test_a_resize_in_a_model_local_function_is_computed_and_the_function_kept():
    body = [helper.make_node('Constant', [], ['s'], value_ints=[1, 1, 64, 64]),
            helper.make_node('Resize', ['a', '', '', 's'], ['b'], name='inner', mode='nearest',
                             **ASYM)]
    f = helper.make_function('local', 'Up', ['a'], ['b'], body, [helper.make_opsetid('', 19)])
    call = helper.make_node('Up', ['x'], ['y'], domain='local', name='up1')
    m = model_of([call], {'x': [1, 1, 26, 26]}, functions=[f])
    fixed, changes = fix_report(m)
    assert replaced(changes)[0]['where'] == "function 'Up'"
    assert [f.name for f in fixed.functions] == ['Up']
    assert 'Resize' not in [n.op_type for n in fixed.functions[0].node]
    onnx.checker.check_model(fixed, full_check=True)
    x = index_input((1, 1, 26, 26))
    np.testing.assert_array_equal(run(fixed, {'x': x}),
                                  spec_resize(x, (1, 1, 64, 64), 'asymmetric', 'floor'))


def test_unaffected_nodes_stay_and_the_model_keeps_its_opset_names_and_input():
    m = model_of([resize_node('bad', 'x', 's1'), resize_node('good', 'x', 's2')],
                 {'x': [1, 1, 26, 26]},
                 [sizes_tensor('s1', [1, 1, 64, 64]), sizes_tensor('s2', [1, 1, 52, 52])],
                 outputs=['bad', 'good'])
    before = m.SerializeToString()
    fixed, changes = fix_report(m)
    assert m.SerializeToString() == before                      # the caller's model unchanged
    assert [c['action'][:8] for c in changes] == ['replaced', 'keep: ev']
    assert [n.name for n in fixed.graph.node if n.op_type == 'Resize'] == ['good']
    assert list(fixed.opset_import) == list(m.opset_import)
    assert [o.name for o in fixed.graph.output] == ['bad', 'good']


def test_tf_crop_and_resize_is_refused_with_the_reason():
    roi = helper.make_tensor('roi', TensorProto.FLOAT, [8], [0, 0, 0.1, 0.1, 1, 1, 0.9, 0.9])
    node = helper.make_node('Resize', ['x', 'roi', '', 's'], ['y'], name='y', mode='nearest',
                            coordinate_transformation_mode='tf_crop_and_resize')
    m = model_of([node], {'x': [1, 1, 26, 26]}, [sizes_tensor('s', [1, 1, 64, 64]), roi])
    fixed, changes = fix_report(m, every=True)
    assert changes[0]['action'].startswith('refuse: tf_crop_and_resize writes extrapolation_value')
    assert 'Resize' in ops(fixed)
