"""The ONNX audit (chapters R1, R11, R8, R10) against the real systems: ONNX's own conformance data,
onnxruntime and onnx.reference run directly, PyTorch and the definitions in Python integers.

Expected values never come from the engine under test: they are computed here from the ONNX
specification's formulas with fractions.Fraction, or by running the library on a fresh model."""
import io
import json
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

from cli_run import run_cli
from fractions import Fraction

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from resize_nearest.models.audit import NEURON
from resize_nearest.models.audit import affected, audit_onnx, convention_wrong_pixels
from resize_nearest.maps.index_map import load_indices
from resize_nearest.maps.nearest_modes import COORDINATE_MODES, NEAREST_MODES, source_index
from resize_nearest.models.onnx_reader import read_resizes, resize_axes
from resize_nearest.models.onnx_refusals import ModelReadError, load_model
from onnx_spec import CONFORMANCE, conformance_case, spec_map

ASYM = dict(coordinate_transformation_mode='asymmetric', nearest_mode='floor')
CLI = [sys.executable, '-m', 'resize_nearest.cli']


def resize(name, x, sizes=None, scales=None, opset_inputs=13, **attrs):
    "A nearest Resize node and its sizes or scales initializer."
    kind, values = ('sizes', sizes) if sizes is not None else ('scales', scales)
    dtype = TensorProto.INT64 if kind == 'sizes' else TensorProto.FLOAT
    init = helper.make_tensor(f'{name}_{kind}', dtype, [len(values)], values)
    slots = [x, '', init.name] if kind == 'scales' else [x, '', '', init.name]
    return helper.make_node('Resize', slots, [name], name=name, **{'mode': 'nearest', **attrs}), init


def model(specs, inputs, opset=19, extra_nodes=(), functions=()):
    nodes = list(extra_nodes) + [n for n, _ in specs]
    g = helper.make_graph(
        nodes, 'g',
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, v) for k, v in inputs.items()],
        [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None) for n, _ in specs],
        initializer=[i for _, i in specs if i is not None])
    opsets = [helper.make_opsetid('', opset)] + [helper.make_opsetid('local', 1)] * bool(functions)
    return helper.make_model(g, opset_imports=opsets, functions=list(functions))


def wrong_2d(got_flat, rows, cols, n_in_w):
    "Elements where a flat source image differs from the separable exact maps."
    exact = np.add.outer(np.array(rows) * n_in_w, np.array(cols)).reshape(-1)
    return int((np.asarray(got_flat).reshape(-1) != exact).sum())


def torch_wrong_axis(n_in, n_out):
    "Output indices along one axis where F.interpolate's nearest index is not (d*in)//out."
    x = torch.arange(n_in, dtype=torch.float32).view(1, 1, n_in)
    got = F.interpolate(x, size=n_out, mode='nearest').reshape(-1).long().tolist()
    return sum(g != d * n_in // n_out for d, g in enumerate(got))


def by_node(report):
    return {r['node']: r for r in report}


# --- ONNX's own conformance data --------------------------------------------------------------



def test_the_conformance_data_is_all_there():
    assert len(CONFORMANCE) == 19


@pytest.mark.parametrize('folder', CONFORMANCE, ids=os.path.basename)
def test_conformance_model_audited_with_the_right_shapes_and_its_exact_map(folder):
    path, inputs, expected = conformance_case(folder)
    node, = read_resizes(path, inputs)
    assert node.problem is None
    y = inputs['X']
    for a in resize_axes(node):
        y = np.take(y, source_index(node.coordinate_transformation_mode, node.nearest_mode,
                                    a.in_size, a.out_size, a.scale, a.roi), axis=a.axis)
    assert y.shape == expected.shape and np.array_equal(y, expected)
    row, = audit_onnx(path, inputs)
    assert row['status'] == 'analysed' and row['output_shape'] == expected.shape
    assert row['wrong']['onnxruntime'] == 0          # onnxruntime reproduces every expected output


# --- the exact maps against the specification, onnxruntime and onnx.reference -----------------

def test_every_convention_equals_the_specification_on_sizes_to_24():
    for mode in COORDINATE_MODES[:-1]:
        for rounding in NEAREST_MODES:
            for n_in in range(1, 25):
                for n_out in range(1, 25):
                    for scale in (None, 1.25):
                        assert source_index(mode, rounding, n_in, n_out, scale).tolist() == \
                            spec_map(mode, rounding, n_in, n_out, scale), (mode, rounding, n_in, n_out)


def _one_axis(mode, rounding, n_in, n_out, opset=19):
    node, init = resize('y', 'x', sizes=[1, n_out], coordinate_transformation_mode=mode, nearest_mode=rounding)
    m = model([(node, init)], {'x': [1, n_in]}, opset)
    return m, np.arange(n_in, dtype=np.float32)[None]


def test_onnxruntime_misses_an_exact_integer_half_pixel_floor_13_to_7():
    "(3 + 1/2) * 13/7 - 1/2 is exactly 6; onnxruntime's float arithmetic lands just below it."
    m, x = _one_axis('half_pixel', 'floor', 13, 7)
    got = ort.InferenceSession(m.SerializeToString(), providers=['CPUExecutionProvider']).run(None, {'x': x})[0]
    assert (Fraction(7, 2) * Fraction(13, 7) - Fraction(1, 2)) == 6
    assert int(got[0, 3]) == 5 and source_index('half_pixel', 'floor', 13, 7)[3] == 6


def test_onnx_reference_misses_an_exact_integer_half_pixel_floor_7_to_41():
    "(20 + 1/2) * 7/41 - 1/2 is exactly 3; onnx.reference gives 2."
    m, x = _one_axis('half_pixel', 'floor', 7, 41)
    got = ReferenceEvaluator(m).run(None, {'x': x})[0]
    assert (Fraction(41, 2) * Fraction(7, 41) - Fraction(1, 2)) == 3
    assert int(got[0, 20]) == 2 and source_index('half_pixel', 'floor', 7, 41)[20] == 3


# --- reading: opsets, subgraphs, functions, constants -----------------------------------------

def test_upsample_9_and_7_are_read():
    up9 = helper.make_node('Upsample', ['x', 's'], ['y'], name='up9', mode='nearest')
    m9 = model([(up9, helper.make_tensor('s', TensorProto.FLOAT, [4], [1, 1, 2, 1.5]))], {'x': [1, 1, 6, 6]}, opset=9)
    r, = read_resizes(m9)
    assert (r.op_type, r.opset, r.coordinate_transformation_mode, r.nearest_mode) == ('Upsample', 9, 'asymmetric', 'floor')
    assert [(a.axis, a.in_size, a.out_size) for a in resize_axes(r)] == [(2, 6, 12), (3, 6, 9)]
    up7 = helper.make_node('Upsample', ['x'], ['y'], name='up7', mode='nearest', scales=[1.0, 1.0, 2.0, 2.0])
    r7, = read_resizes(model([(up7, None)], {'x': [1, 1, 6, 6]}, opset=7))
    assert r7.scales == (1.0, 1.0, 2.0, 2.0) and r7.problem is None


def test_resize_10_floors_growing_and_ceils_shrinking_axes_as_onnxruntime_does():
    for scale in (0.6, 0.75, 2.0, 1.5):  # scales whose float arithmetic is exact here
        node = helper.make_node('Resize', ['x', 's'], ['y'], mode='nearest')
        m = model([(node, helper.make_tensor('s', TensorProto.FLOAT, [2], [1.0, scale]))], {'x': [1, 26]}, opset=10)
        r, = read_resizes(m)
        a, = resize_axes(r)
        got = ort.InferenceSession(m.SerializeToString(), providers=['CPUExecutionProvider']).run(
            None, {'x': np.arange(26, dtype=np.float32)[None]})[0][0].astype(np.int64)
        s = Fraction(float(np.float32(scale)))
        rounding = math.ceil if scale < 1 else math.floor
        assert got.tolist() == [min(rounding(d / s), 25) for d in range(len(got))]
        assert source_index('asymmetric', r.nearest_mode, 26, a.out_size, a.scale).tolist() == got.tolist()


def _subgraph_model():
    sizes = helper.make_tensor('sizes', TensorProto.INT64, [4], [1, 1, 22, 22])

    def body(name):
        n = helper.make_node('Resize', ['X', '', '', 'sizes'], [name + '_y'], name=name, mode='nearest', **ASYM)
        return helper.make_graph([n], name, [], [helper.make_tensor_value_info(name + '_y', TensorProto.FLOAT, None)])

    cond = helper.make_tensor('c', TensorProto.BOOL, [], [True])
    if_node = helper.make_node('If', ['c'], ['Y'], then_branch=body('then'), else_branch=body('else'), name='if1')
    trip = helper.make_tensor('n', TensorProto.INT64, [], [1])
    loop_body = helper.make_graph(
        [helper.make_node('Identity', ['cond_in'], ['cond_out']),
         helper.make_node('Resize', ['X', '', '', 'sizes'], ['v'], name='in_loop', mode='nearest', **ASYM)],
        'loop', [helper.make_tensor_value_info('i', TensorProto.INT64, []),
                 helper.make_tensor_value_info('cond_in', TensorProto.BOOL, [])],
        [helper.make_tensor_value_info('cond_out', TensorProto.BOOL, []),
         helper.make_tensor_value_info('v', TensorProto.FLOAT, None)])
    loop = helper.make_node('Loop', ['n', 'c'], ['L'], body=loop_body, name='loop1')
    fn = helper.make_function('local', 'Up', ['x'], ['y'], [
        helper.make_node('Constant', [], ['s'], value_ints=[1, 1, 22, 22]),
        helper.make_node('Resize', ['x', '', '', 's'], ['y'], name='inner', mode='nearest', **ASYM)],
        opset_imports=[helper.make_opsetid('', 19)])
    call = helper.make_node('Up', ['X'], ['Z'], domain='local', name='up1')
    g = helper.make_graph([if_node, loop, call], 'g', [helper.make_tensor_value_info('X', TensorProto.FLOAT, [1, 1, 26, 26])],
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ('Y', 'L', 'Z')],
                          initializer=[sizes, cond, trip])
    return helper.make_model(g, opset_imports=[helper.make_opsetid('', 19), helper.make_opsetid('local', 1)], functions=[fn])


def test_resizes_in_if_branches_loop_bodies_and_local_functions_are_analysed():
    report = audit_onnx(_subgraph_model())
    where = {r['node']: r['where'] for r in report}
    assert len(where) == 4
    assert where['then'].startswith("If 'if1'") and where['in_loop'].startswith("Loop 'loop1'")
    assert any(w == "function 'Up'" for w in where.values())
    per_image = 22 * 22 - (22 - torch_wrong_axis(26, 22)) ** 2
    for r in report:
        assert r['status'] == 'analysed' and r['wrong']['PyTorch nearest'] == per_image, r


def test_constants_in_every_form_are_read():
    nodes = [helper.make_node('Constant', [], ['a'], value_ints=[1, 1, 22, 22]),
             helper.make_node('Constant', [], ['b'], value_floats=[1.0, 1.0, 1.25, 1.25]),
             helper.make_node('Constant', [], ['c'], value=numpy_helper.from_array(np.array([1, 1, 7, 7], np.int64)))]
    specs = [(helper.make_node('Resize', ['x', '', '', 'a'], ['ya'], name='ya', mode='nearest', **ASYM), None),
             (helper.make_node('Resize', ['x', '', 'b'], ['yb'], name='yb', mode='nearest', **ASYM), None),
             (helper.make_node('Resize', ['x', '', '', 'c'], ['yc'], name='yc', mode='nearest', **ASYM), None)]
    report = by_node(audit_onnx(model(specs, {'x': [1, 1, 26, 26]}, extra_nodes=nodes)))
    assert [report[k]['output_shape'] for k in ('ya', 'yb', 'yc')] == [(1, 1, 22, 22), (1, 1, 32, 32), (1, 1, 7, 7)]


# --- what the audit gets right that it used to miss -------------------------------------------

def test_a_scale_is_read_as_floor_d_over_scale():
    "6x6 with scale 1.25: the compiled kernel indexes (d*6)//7, the node means floor(d/1.25)."
    row, = audit_onnx(model([resize('y', 'x', scales=[1, 1, 1.25, 1.25], **ASYM)], {'x': [1, 1, 6, 6]}))
    node_map = [math.floor(Fraction(d) / Fraction(1.25)) for d in range(7)]
    kernel = load_indices((6, 6), (7, 7), 'as_compiled')
    assert row['wrong'][NEURON] == wrong_2d(kernel, node_map, node_map, 6) == 13


def test_scale_192_over_224():
    scale = float(np.float32(192 / 224))
    row, = audit_onnx(model([resize('y', 'x', scales=[1, 1, scale, scale], **ASYM)], {'x': [1, 1, 224, 224]}))
    n_out = math.floor(224 * Fraction(scale))
    node_map = [math.floor(Fraction(d) / Fraction(scale)) for d in range(n_out)]
    assert row['output_shape'] == (1, 1, n_out, n_out)
    assert row['wrong'][NEURON] == wrong_2d(load_indices((224, 224), (n_out, n_out), 'as_compiled'),
                                                              node_map, node_map, 224)
    m = model([resize('y', 'x', scales=[1, 1, scale, scale], **ASYM)], {'x': [1, 1, 224, 224]})
    x = np.arange(224 * 224, dtype=np.float32).reshape(1, 1, 224, 224)
    got = ort.InferenceSession(m.SerializeToString(), providers=['CPUExecutionProvider']).run(None, {'x': x})[0]
    assert row['wrong']['onnxruntime'] == wrong_2d(got.astype(np.int64), node_map, node_map, 224)


@pytest.mark.parametrize('shape, sizes, axes', [
    ([1, 26, 26, 3], [1, 22, 26, 3], [1]),              # NHWC, height only
    ([1, 224, 224, 3], [1, 192, 192, 3], [1, 2]),       # NHWC
    ([1, 1, 26, 8, 8], [1, 1, 22, 8, 8], [2]),          # 5-D, depth only
    ([4, 3, 5, 5], [2, 3, 5, 5], [0]),                  # the batch axis
])
def test_layout_every_resized_axis_and_only_those(shape, sizes, axes):
    row, = audit_onnx(model([resize('y', 'x', sizes=sizes, **ASYM)], {'x': shape}))
    assert row['resized'] == ', '.join(f'axis {a}: {shape[a]}->{sizes[a]}' for a in axes)
    right = math.prod(sizes[a] - torch_wrong_axis(shape[a], sizes[a]) for a in axes)
    others = math.prod(n for k, n in enumerate(sizes) if k not in axes)
    if len(axes) <= 3 and 0 not in axes:
        assert row['wrong']['PyTorch nearest'] == math.prod(sizes) - others * right
    if shape == [1, 224, 224, 3]:
        assert row['wrong'][NEURON] == 3 * 1143


def test_opset_18_axes_in_their_own_order_and_the_aspect_policy():
    rows = by_node(audit_onnx(model([
        resize('rev', 'x', sizes=[8, 7], axes=[3, 2], **ASYM),
        resize('not_larger', 'w', sizes=[22, 22], axes=[2, 3], keep_aspect_ratio_policy='not_larger', **ASYM),
        resize('not_smaller', 'w', sizes=[22, 22], axes=[2, 3], keep_aspect_ratio_policy='not_smaller', **ASYM),
    ], {'x': [1, 1, 2, 2], 'w': [1, 1, 26, 52]})))
    assert rows['rev']['output_shape'] == (1, 1, 7, 8)
    assert rows['not_larger']['output_shape'] == (1, 1, 11, 22)      # scale 22/52: 26 * 22/52 = 11
    assert rows['not_smaller']['output_shape'] == (1, 1, 22, 44)     # scale 22/26: 52 * 22/26 = 44


def test_every_nearest_mode_is_analysed_and_onnxruntime_counted_as_running_it_shows():
    "Each convention's onnxruntime count equals a direct run of the same node against spec_map."
    conventions = [(m, n) for m in COORDINATE_MODES[:-1] for n in NEAREST_MODES]
    specs = [resize(f'{m}_{n}', 'x', sizes=[1, 1, 7, 9], coordinate_transformation_mode=m, nearest_mode=n)
             for m, n in conventions]
    m19 = model(specs, {'x': [1, 1, 13, 5]})
    x = np.arange(65, dtype=np.float32).reshape(1, 1, 13, 5)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(m19.SerializeToString(), options, ['CPUExecutionProvider'])
    outputs = dict(zip([o.name for o in m19.graph.output], session.run(None, {'x': x})))
    for r, (mode, rounding) in zip(audit_onnx(m19), conventions):
        assert r['status'] == 'analysed', r
        rows, cols = spec_map(mode, rounding, 13, 7), spec_map(mode, rounding, 5, 9)
        assert r['wrong']['onnxruntime'] == wrong_2d(outputs[r['node']].astype(np.int64), rows, cols, 5), r['node']


def test_our_kernels_are_measured_not_assumed():
    """The NKI kernels run with the node's sizes or scales: exact on both, including a scale whose
    map floor(d/s) differs from the sizes' (d*in)//out, which a kernel called by size would miss."""
    report = by_node(audit_onnx(model([resize('sizes', 'x', sizes=[1, 1, 22, 22], **ASYM),
                                       resize('scale', 'y', scales=[1, 1, 1.25, 1.25], **ASYM)],
                                      {'x': [1, 1, 26, 26], 'y': [1, 1, 6, 6]})))
    node_map = [math.floor(Fraction(d) / Fraction(1.25)) for d in range(7)]
    by_size = [d * 6 // 7 for d in range(7)]
    assert node_map != by_size
    assert report['sizes']['wrong']['resize_nearest (exact)'] == 0
    assert report['scale']['wrong']['resize_nearest (exact)'] == 0
    assert report['scale']['wrong'][NEURON] > 0


def test_tf_crop_and_resize_through_the_audit():
    roi = helper.make_tensor('roi', TensorProto.FLOAT, [8], [0, 0, 0.2, 0.1, 1, 1, 0.9, 1.3])
    sizes = helper.make_tensor('sizes', TensorProto.INT64, [4], [1, 1, 7, 9])
    node = helper.make_node('Resize', ['x', 'roi', '', 'sizes'], ['y'], name='crop', mode='nearest',
                            coordinate_transformation_mode='tf_crop_and_resize', nearest_mode='floor',
                            extrapolation_value=-1.0)
    g = helper.make_graph([node], 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 1, 13, 5])],
                          [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)], initializer=[roi, sizes])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 19)])
    row, = audit_onnx(m)
    assert row['status'] == 'analysed'

    def crop_map(n_in, n_out, start, end):
        start, end = Fraction(float(np.float32(start))), Fraction(float(np.float32(end)))
        xs = [start * (n_in - 1) + d * (end - start) * (n_in - 1) / (n_out - 1) for d in range(n_out)]
        return [math.floor(x) if 0 <= x <= n_in - 1 else -1 for x in xs]

    rows, cols = crop_map(13, 7, 0.2, 0.9), crop_map(5, 9, 0.1, 1.3)
    exact = np.array([[-1 if r < 0 or c < 0 else r * 5 + c for c in cols] for r in rows])
    x = np.arange(65, dtype=np.float32).reshape(1, 1, 13, 5)
    got = ort.InferenceSession(m.SerializeToString(), providers=['CPUExecutionProvider']).run(None, {'x': x})[0]
    assert row['wrong']['onnxruntime'] == int((got.reshape(7, 9).astype(np.int64) != exact).sum())


@pytest.mark.parametrize('make, status', [
    (lambda: resize('n', 'x', sizes=[1, 1, 22, 22], coordinate_transformation_mode='foo', nearest_mode='floor'),
     'invalid: coordinate_transformation_mode'),
    (lambda: resize('n', 'x', sizes=[1, 1, 22, 22], coordinate_transformation_mode='asymmetric', nearest_mode='bogus'),
     'invalid: nearest_mode'),
    (lambda: resize('n', 'z', sizes=[1, 1, 22, 22], **ASYM), 'invalid: the input shape (1, 1, 0, 26) has an empty axis'),
    (lambda: resize('n', 'x', scales=[1, 1, 2, 2], coordinate_transformation_mode='tf_crop_and_resize',
                    nearest_mode='floor'), 'invalid: tf_crop_and_resize needs its roi input'),
])
def test_a_node_the_reader_cannot_take_is_reported_and_the_others_analysed(make, status):
    report = by_node(audit_onnx(model([make(), resize('good', 'x', sizes=[1, 1, 22, 22], **ASYM)],
                                      {'x': [1, 1, 26, 26], 'z': [1, 1, 0, 26]})))
    assert report['n']['status'].startswith(status), report['n']
    assert report['good']['status'] == 'analysed'


def test_upsample_7_without_scales_and_a_model_without_a_default_opset():
    up7 = helper.make_node('Upsample', ['x'], ['y'], name='up7', mode='nearest')
    row, = audit_onnx(model([(up7, None)], {'x': [1, 1, 6, 6]}, opset=7))
    assert row['status'] == 'invalid: Upsample-7 needs its scales attribute'
    m = model([resize('y', 'x', sizes=[1, 1, 3, 3], **ASYM)], {'x': [1, 1, 6, 6]})
    del m.opset_import[:]
    m.opset_import.append(helper.make_opsetid('local', 1))
    with pytest.raises(ModelReadError, match='no opset of the default'):
        read_resizes(m)


def test_the_aspect_policy_is_read_from_opset_18_on_only():
    node, init = resize('y', 'x', sizes=[1, 1, 22, 22], keep_aspect_ratio_policy='not_larger', **ASYM)
    row, = audit_onnx(model([(node, init)], {'x': [1, 1, 26, 52]}, opset=13))
    assert row['output_shape'] == (1, 1, 22, 22)


def test_unknown_values_say_why():
    nodes = [helper.make_node('Shape', ['x'], ['s']),
             helper.make_node('Concat', ['s_head', 'tail'], ['sizes'], axis=0),
             helper.make_node('Slice', ['s', 'zero', 'two'], ['s_head'])]
    inits = [helper.make_tensor('tail', TensorProto.INT64, [2], [22, 22]),
             helper.make_tensor('zero', TensorProto.INT64, [1], [0]), helper.make_tensor('two', TensorProto.INT64, [1], [2])]
    node = helper.make_node('Resize', ['x', '', '', 'sizes'], ['y'], name='y', mode='nearest', **ASYM)
    g = helper.make_graph(nodes + [node], 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 1, 26, 26])],
                          [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 19)])
    r, = read_resizes(m, run_if_needed=False)
    assert r.problem == "not analysed: 'sizes' is known only when the model runs (the model was not run)"
    r, = read_resizes(m)
    assert r.problem is None and r.sizes == (1, 1, 22, 22) and r.note.startswith('shapes and values from one onnxruntime run')


def test_check_of_an_unchanged_size_still_runs_every_library():
    wrong = convention_wrong_pixels((5, 5), (5, 5), 'half_pixel', 'round_prefer_floor')
    assert wrong['onnxruntime'] == 0 and wrong['onnx.reference'] == 0 and wrong['PyTorch nearest-exact'] == 0


@pytest.mark.parametrize('bad, why', [
    (dict(sizes=[1, 1, 0, 22]), 'invalid: sizes [1, 1, 0, 22] must be between 1 and 2^31 - 1'),
    (dict(sizes=[1, 1, 2**33, 22]), 'invalid: sizes'),
    (dict(scales=[1, 1, float('nan'), 1]), 'invalid: scales'),
    (dict(scales=[1, 1, float('inf'), 1]), 'invalid: scales'),
    (dict(scales=[2.0, 2.0], axes=[3]), 'invalid: scales has 2 values for 1 axes'),
])
def test_one_bad_node_is_reported_and_the_others_still_analysed(bad, why):
    report = by_node(audit_onnx(model([resize('bad', 'x', **bad, **ASYM), resize('good', 'x', sizes=[1, 1, 22, 22], **ASYM)],
                                      {'x': [1, 1, 26, 26]})))
    assert report['bad']['status'].startswith(why)
    assert report['good']['status'] == 'analysed'


def test_sizes_stored_as_float_are_refused_not_truncated():
    node = helper.make_node('Resize', ['x', '', '', 's'], ['y'], name='y', mode='nearest', **ASYM)
    init = helper.make_tensor('s', TensorProto.FLOAT, [4], [1, 1, 22.7, 22.7])
    row, = audit_onnx(model([(node, init)], {'x': [1, 1, 26, 26]}))
    assert row['status'] == 'invalid: sizes must be int64, got float32 [1.0, 1.0, 22.700000762939453, 22.700000762939453]'


def test_the_exit_status_follows_the_report(tmp_path, capsys):
    "14x14 -> 2x2: only onnxruntime is wrong, and that is enough for exit status 1."
    path = tmp_path / 'm.onnx'
    onnx.save(model([resize('y', 'x', sizes=[1, 1, 2, 2], **ASYM)], {'x': [1, 1, 14, 14]}), path)
    x = np.arange(196, dtype=np.float32).reshape(1, 1, 14, 14)
    got = ort.InferenceSession(str(path), providers=['CPUExecutionProvider']).run(None, {'x': x})[0]
    assert wrong_2d(got.astype(np.int64), [0, 7], [0, 7], 14) > 0
    status, out, _ = run_cli(['audit', str(path), '--json'], capsys)
    assert status == 1 and json.loads(out)[0]['wrong']['onnxruntime'] > 0
    onnx.save(model([resize('y', 'x', sizes=[1, 1, 28, 28], **ASYM)], {'x': [1, 1, 14, 14]}), path)
    status, out, _ = run_cli(['audit', str(path)], capsys)
    assert status == 0, out


# --- the file --------------------------------------------------------------------------------

def _fifo(p):
    os.mkfifo(p)


@pytest.mark.parametrize('make, message', [
    (lambda p: None, 'no such file'),
    (os.mkdir, 'is a directory'),
    (_fifo, 'is not a regular file'),
    (lambda p: open(p, 'wb').close(), 'is empty'),
    (lambda p: Path(p).write_bytes(b'\x08\x07\x12'), 'cannot read as an ONNX model'),
    (lambda p: Path(p).write_bytes(onnx.ModelProto(producer_name='x').SerializeToString()), 'no IR version or opset'),
])
def test_files_that_are_not_models_are_refused_each_with_its_own_message(tmp_path, make, message, capsys):
    path = str(tmp_path / 'm.onnx')
    make(path)
    with pytest.raises(ModelReadError, match=message):
        load_model(path)
    status, out, err = run_cli(['audit', path, '--json'], capsys)
    assert status == 2 and message in json.loads(out)['error'] and 'Traceback' not in err


def test_a_truncated_model_is_refused(tmp_path):
    data = model([resize('y', 'x', sizes=[1, 1, 22, 22], **ASYM)], {'x': [1, 1, 26, 26]}).SerializeToString()
    (tmp_path / 'cut.onnx').write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelReadError, match='cannot read as an ONNX model'):
        load_model(str(tmp_path / 'cut.onnx'))


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path):
    "A sparse 3 GB file: the size is checked on the metadata, so this takes no time or memory."
    path = tmp_path / 'big.onnx'
    with open(path, 'wb') as f:
        f.truncate(3 * 2**30)
    with pytest.raises(ModelReadError, match='is 3221225472 bytes'):
        load_model(str(path))


def test_dev_zero_is_refused():
    with pytest.raises(ModelReadError, match='is not a regular file'):
        load_model('/dev/zero')


# --- a YOLOv8n-style static export, and shapes only a run can give ----------------------------

class C2f(nn.Module):
    "YOLOv8's C2f block: a split into two halves, a conv on one, concatenated."

    def __init__(self, c):
        super().__init__()
        self.cv1, self.m, self.cv2 = nn.Conv2d(c, 2 * c, 1), nn.Conv2d(c, c, 3, padding=1), nn.Conv2d(3 * c, c, 1)

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        y.append(self.m(y[-1]))
        return self.cv2(torch.cat(y, 1))


class TinyYolo(nn.Module):
    "The neck of a YOLOv8n: two nn.Upsample(scale_factor=2) between C2f blocks, without weights."

    def __init__(self):
        super().__init__()
        self.p1, self.p2, self.p3 = nn.Conv2d(3, 16, 3, 2, 1), nn.Conv2d(16, 32, 3, 2, 1), nn.Conv2d(32, 64, 3, 2, 1)
        self.c2, self.c3, self.h1, self.h2 = C2f(32), C2f(64), C2f(96), C2f(112)
        self.up = nn.Upsample(scale_factor=2, mode='nearest')

    def forward(self, x):
        p1 = self.p1(x)
        p2 = self.c2(self.p2(p1))
        h = self.h1(torch.cat([self.up(self.c3(self.p3(p2))), p2], 1))
        return self.h2(torch.cat([self.up(h), p1], 1))


def test_a_yolo_style_static_export_has_every_resize_analysed():
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        torch.onnx.export(TinyYolo().eval(), (torch.zeros(1, 3, 640, 640),), buf, dynamo=False, opset_version=17)
    report = audit_onnx(onnx.load_from_string(buf.getvalue()))
    assert [r['resized'] for r in report] == ['axis 2: 80->160, axis 3: 80->160', 'axis 2: 160->320, axis 3: 160->320']
    assert all(r['status'] == 'analysed' and not affected([r]) for r in report)


def test_shapes_lost_to_inference_come_from_one_onnxruntime_run():
    "A Slice whose end inference cannot compute (float arithmetic on a shape) loses the shape."
    nodes = [helper.make_node('Shape', ['x'], ['shape']),
             helper.make_node('Cast', ['shape'], ['shape_f'], to=TensorProto.FLOAT),
             helper.make_node('Mul', ['shape_f', 'half'], ['half_f']),
             helper.make_node('Cast', ['half_f'], ['ends'], to=TensorProto.INT64),
             helper.make_node('Slice', ['x', 'starts', 'ends'], ['cut'])]
    inits = [helper.make_tensor('half', TensorProto.FLOAT, [1], [0.5]),
             helper.make_tensor('starts', TensorProto.INT64, [4], [0, 0, 0, 0])]
    specs = [resize('y', 'cut', sizes=[1, 2, 22, 22], **ASYM)]
    g = helper.make_graph(nodes + [specs[0][0]], 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [2, 4, 52, 52])],
                          [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)], initializer=inits + [specs[0][1]])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 19)])
    without_run, = read_resizes(m, run_if_needed=False)
    assert without_run.problem.startswith('not analysed')
    row, = audit_onnx(m)
    assert row['status'] == 'analysed' and row['input_shape'] == (1, 2, 26, 26)


# --- check for every mode, and the torch audit on the same engine -----------------------------

def test_check_takes_every_mode(capsys):
    status, out, _ = run_cli(['check', '13x13', '7x7', '--coordinate-transformation-mode', 'half_pixel',
                              '--nearest-mode', 'floor', '--json'], capsys)
    rows = {x['implementation']: x for x in json.loads(out)}
    assert status == 1 and rows['onnxruntime']['wrong'] == 13
    assert rows['Neuron compiled kernel (modelled)']['status'].startswith('n/a')
    status, out, _ = run_cli(['check', '8x8', '16x16', '--coordinate-transformation-mode', 'align_corners'],
                             capsys)
    assert 'refused by the compiler' in out and status == 0
    status, _, err = run_cli(['check', '8x8', '16x16', '--nearest-mode', 'sideways'], capsys)
    assert status == 2 and 'invalid choice' in err
    with pytest.raises(ValueError, match='coordinate_transformation_mode must be one of'):
        convention_wrong_pixels((8, 8), (4, 4), 'half-pixel')


def test_the_torch_audit_and_the_onnx_audit_agree():
    from resize_nearest.torch import audit

    class M(nn.Module):
        def forward(self, x):
            return F.interpolate(F.interpolate(x, size=(22, 22), mode='nearest'), scale_factor=1.25, mode='nearest')

    x = torch.rand(1, 2, 26, 26)
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        torch.onnx.export(M(), (x,), buf, dynamo=False)
    assert [r['wrong'] for r in audit(M(), (x,))] == [r['wrong'] for r in audit_onnx(onnx.load_from_string(buf.getvalue()))]


def test_the_probe_names_an_attribute_only_where_it_changes_the_map():
    """IREE 3.13 compiles no nearest Resize that names axes or a non-zero extrapolation_value, even
    where they change nothing (appendix E4e): the audit's probe leaves them out where they change
    nothing, keeps them where they do, and onnxruntime and ONNX's reference give the spec's map."""
    from resize_nearest.models.audit_records import _exact_image, _probe_model
    from resize_nearest.models.onnx_reader import ResizeNode

    def node(mode, axes, sizes, **kw):
        return ResizeNode('n', 'graph', 'Resize', 19, 'nearest', mode, 'floor',
                          input_shape=(1, 1, 6, 9), sizes=sizes, axes=axes, **kw)

    cases = [(node('half_pixel', (0, 1, 2, 3), (1, 1, 4, 13)), set()),
             (node('asymmetric', (3, 2), (1, 1, 4, 13)), {'axes'}),
             (node('tf_crop_and_resize', (0, 1, 2, 3), (1, 1, 4, 13),
                   roi=((0, 1), (0, 1), (0.2, 1.3), (-0.1, 0.8))), {'extrapolation_value'})]
    for r, named in cases:
        probe, shape = _probe_model(r, resize_axes(r))
        attrs = {a.name for a in probe.graph.node[0].attribute}
        assert attrs & {'axes', 'extrapolation_value', 'keep_aspect_ratio_policy'} == named, attrs
        x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
        exact = _exact_image(r, resize_axes(r), shape)
        ran = ort.InferenceSession(probe.SerializeToString(), providers=['CPUExecutionProvider'])
        reference = ReferenceEvaluator(probe)
        for y in (ran.run(None, {'X': x})[0], reference.run(None, {'X': x})[0]):
            np.testing.assert_array_equal(y.astype(np.int64), exact)
