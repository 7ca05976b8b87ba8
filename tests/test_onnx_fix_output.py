"""`audit --fix OUT.onnx` writes OUT and nothing else, and never a wrong model: OUT the model itself
(a hard link, which only the file's device and inode tell), OUT a link to another file (replaced,
not followed), a failed verification (nothing written), two nodes of one name (each fixed by its
own convention), a run-time scale below 2^-9, and a verdict drawn from values given with --inputs.
Every written model is run by onnxruntime against the ONNX specification's maps in Fraction
arithmetic (tests/onnx_spec.py, from onnx/docs/Operators.md, Resize-19)."""
import contextlib
import io
import json
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from hostile_onnx import one_resize
from onnx_spec import spec_map
from resize_nearest import cli
from resize_nearest.models import fix


def audit(*args):
    "(exit status, parsed JSON) of `resize-nearest audit ... --json`, run in this process."
    with pytest.raises(SystemExit) as stop, contextlib.redirect_stdout(io.StringIO()) as out:
        cli.main(['audit', *map(str, args), '--json'])
    text = out.getvalue()
    return stop.value.code, json.loads(text) if text else None


def snapshot(folder) -> dict:
    "{name: (is a link, bytes read through it)} of every entry of `folder`."
    return {p.name: (p.is_symlink(), p.read_bytes() if p.exists() else None)
            for p in sorted(folder.iterdir())}


def run(path, feeds):
    session = ort.InferenceSession(str(path), providers=['CPUExecutionProvider'])
    return session.run(None, feeds)


def index_input(shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def spec_resize(x, outs, mode, rounding, scales=None):
    "x resized axis by axis by the specification's maps."
    scales = scales or [None] * x.ndim
    for axis, (n, o, s) in enumerate(zip(x.shape, outs, scales)):
        x = np.take(x, spec_map(mode, rounding, n, o, s), axis=axis)
    return x


def test_a_hard_link_to_the_model_is_refused_and_the_model_kept(tmp_path):
    onnx.save(one_resize([1, 1, 64, 64]), tmp_path / 'm.onnx')  # 26 -> 64: onnxruntime is wrong
    os.link(tmp_path / 'm.onnx', tmp_path / 'hard.onnx')
    before = snapshot(tmp_path)
    status, report = audit(tmp_path / 'm.onnx', '--fix', tmp_path / 'hard.onnx', '--force')
    assert status == 2 and 'is the model itself' in report['error'], report
    assert snapshot(tmp_path) == before


def test_force_through_a_link_replaces_the_link_and_keeps_its_target(tmp_path):
    onnx.save(one_resize([1, 1, 64, 64]), tmp_path / 'm.onnx')
    (tmp_path / 'p.txt').write_bytes(b'precious')
    os.symlink(tmp_path / 'p.txt', tmp_path / 'link.onnx')
    before = snapshot(tmp_path)
    status, _ = audit(tmp_path / 'm.onnx', '--fix', tmp_path / 'link.onnx', '--force')
    assert status == 0
    after = snapshot(tmp_path)
    assert after['p.txt'] == before['p.txt'] and after['m.onnx'] == before['m.onnx']
    assert not (tmp_path / 'link.onnx').is_symlink() and set(after) == set(before)
    x = index_input((1, 1, 26, 26))
    want = spec_resize(x, (1, 1, 64, 64), 'asymmetric', 'floor')
    np.testing.assert_array_equal(run(tmp_path / 'link.onnx', {'x': x})[0], want)


def test_a_failed_verification_writes_nothing_and_keeps_an_existing_out(tmp_path, monkeypatch):
    onnx.save(one_resize([1, 1, 64, 64]), tmp_path / 'm.onnx')
    (tmp_path / 'out.onnx').write_bytes(b'old')
    monkeypatch.setattr(fix, 'verify_written', lambda *a: 'FAILED: differs on 1 of 4 elements')
    before = snapshot(tmp_path)
    status, out = audit(tmp_path / 'm.onnx', '--fix', tmp_path / 'out.onnx', '--force')
    assert status == 1 and out['fix']['written'] is None and not out['fix']['complete']
    assert snapshot(tmp_path) == before


def two_nodes_of_one_name():
    "Two Resize nodes named 'same' (26 -> 64): one asymmetric/floor, one half_pixel/round_prefer_floor."
    conventions = [dict(coordinate_transformation_mode='asymmetric', nearest_mode='floor'),
                   dict(coordinate_transformation_mode='half_pixel', nearest_mode='round_prefer_floor')]
    nodes = [helper.make_node('Resize', ['x', '', '', 's'], [f'y{k}'], name='same', mode='nearest',
                              **c) for k, c in enumerate(conventions)]
    sizes = helper.make_tensor('s', TensorProto.INT64, [4], [1, 1, 64, 64])
    graph = helper.make_graph(
        nodes, 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 1, 26, 26])],
        [helper.make_tensor_value_info(f'y{k}', TensorProto.FLOAT, [1, 1, 64, 64]) for k in (0, 1)],
        [sizes])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid('', 19)])


def test_two_nodes_of_one_name_are_each_fixed_by_their_own_convention(tmp_path):
    """onnxruntime refuses the model (node names are unique in a graph: onnx docs/IR.md, 'Names
    Within a Graph'), so the command exits 2 and writes nothing; the library fixes it, each node by
    its own convention."""
    onnx.save(two_nodes_of_one_name(), tmp_path / 'm.onnx')
    status, out = audit(tmp_path / 'm.onnx', '--fix', tmp_path / 'out.onnx', '--every')
    assert status == 2 and 'two nodes with same node name' in out['error'], out
    assert not (tmp_path / 'out.onnx').exists()
    onnx.save(fix.fix_onnx(str(tmp_path / 'm.onnx'), every=True), tmp_path / 'out.onnx')
    x = index_input((1, 1, 26, 26))
    y0, y1 = run(tmp_path / 'out.onnx', {'x': x})
    np.testing.assert_array_equal(y0, spec_resize(x, (1, 1, 64, 64), 'asymmetric', 'floor'))
    np.testing.assert_array_equal(
        y1, spec_resize(x, (1, 1, 64, 64), 'half_pixel', 'round_prefer_floor'))


def fed_scales_model(width):
    "A Resize (asymmetric, floor) of x (1, 1, 1, width) by the scales fed as the input 'sc'."
    node = helper.make_node('Resize', ['x', '', 'sc'], ['y'], name='y', mode='nearest',
                            coordinate_transformation_mode='asymmetric', nearest_mode='floor')
    graph = helper.make_graph(
        [node], 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 1, 1, width]),
                      helper.make_tensor_value_info('sc', TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, [None] * 4)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid('', 19)])


def test_a_run_time_scale_below_2_to_the_minus_9_gives_the_spec_index(tmp_path):
    "2048 * 0.001 (float32) -> 2 outputs; x = 1 / 0.001f = 999.99995..., so index 999 at d = 1."
    onnx.save(fed_scales_model(2048), tmp_path / 'm.onnx')
    sc = np.array([1, 1, 1, 0.001], np.float32)
    np.savez(tmp_path / 'in.npz', sc=sc)
    status, out = audit(tmp_path / 'm.onnx', '--inputs', tmp_path / 'in.npz',
                        '--fix', tmp_path / 'out.onnx')
    assert status == 0 and out['fix']['complete'], out['fix']
    assert spec_map('asymmetric', 'floor', 2048, 2, sc[3]) == [0, 999]
    x = index_input((1, 1, 1, 2048))
    y, = run(tmp_path / 'out.onnx', {'x': x, 'sc': sc})
    np.testing.assert_array_equal(y, x[..., [0, 999]])


def test_a_verdict_from_given_scales_says_so_and_the_node_is_replaced(tmp_path):
    "Scales 2 give every runtime the exact map; scales fed later (2.46, 0.7) do not."
    model = fed_scales_model(26)
    model.graph.input[0].type.tensor_type.shape.dim[2].dim_value = 26
    onnx.save(model, tmp_path / 'm.onnx')
    np.savez(tmp_path / 'in.npz', sc=np.array([1, 1, 2, 2], np.float32))
    status, report = audit(tmp_path / 'm.onnx', '--inputs', tmp_path / 'in.npz')
    assert status == 0 and 'holds for those values only' in report[0]['note'], report
    status, out = audit(tmp_path / 'm.onnx', '--inputs', tmp_path / 'in.npz',
                        '--fix', tmp_path / 'out.onnx')
    change, = out['fix']['changes']
    assert status == 0 and change['action'] == 'replaced: computed indices', change
    later = np.array([1, 1, 2.46, 0.7], np.float32)
    x = index_input((1, 1, 26, 26))
    outs = [int(n * float(s)) for n, s in zip(x.shape, later)]
    want = spec_resize(x, outs, 'asymmetric', 'floor', list(later))
    np.testing.assert_array_equal(run(tmp_path / 'out.onnx', {'x': x, 'sc': later})[0], want)


def test_the_text_report_says_a_verdict_holds_for_the_given_values_only(tmp_path, capsys):
    model = fed_scales_model(26)
    onnx.save(model, tmp_path / 'm.onnx')
    np.savez(tmp_path / 'in.npz', sc=np.array([1, 1, 1, 2], np.float32))
    with pytest.raises(SystemExit):
        cli.main(['audit', str(tmp_path / 'm.onnx'), '--inputs', str(tmp_path / 'in.npz')])
    out = capsys.readouterr().out
    assert "note: read from the values given for ['sc']" in out and 'those values only' in out, out
