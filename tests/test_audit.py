"""Chapter R11: each rule against the real library, wrong_pixels against check (which runs the libraries), audit_onnx on
graphs built here, and the check/audit commands' exit codes."""
import io, json, os, subprocess, sys, numpy as np, pytest, onnx, torch, torch.nn.functional as F
from onnx import helper, TensorProto
from resize_nearest.models.audit import NEURON
from resize_nearest.models.audit import onnxruntime_rule, opencv_rule, wrong_pixels, check, audit_onnx, affected
from resize_nearest.studies.compare import onnxruntime_indices, opencv_indices, torch_indices
from resize_nearest.maps.index_map import src_index_fp32
from cli_run import run_cli

def test_rules_equal_the_real_libraries():
    rng = np.random.default_rng(5)
    for _ in range(40):
        ih, iw, oh, ow = (int(v) for v in rng.integers(1, 90, 4))
        flat = lambda rule: (rule(np.arange(oh), ih, oh)[:, None] * iw + rule(np.arange(ow), iw, ow)[None]).ravel()
        np.testing.assert_array_equal(onnxruntime_indices((ih, iw), (oh, ow)), flat(onnxruntime_rule))
        np.testing.assert_array_equal(opencv_indices((ih, iw), (oh, ow)), flat(opencv_rule))
        np.testing.assert_array_equal(torch_indices((ih, iw), (oh, ow)), flat(src_index_fp32))

@pytest.mark.parametrize('in_hw, out_hw', [((224, 224), (192, 192)), ((720, 720), (224, 224)), ((26, 26), (22, 22)), ((7, 7), (41, 41)),
                                           ((14, 14), (2, 2)), ((14, 14), (18, 18)), ((30, 20), (59, 38)), ((1, 300), (1, 7))])
def test_wrong_pixels_agree_with_running_the_libraries(in_hw, out_hw):
    w, rows = wrong_pixels(in_hw, out_hw), {r['implementation']: r for r in check(in_hw, out_hw)}
    for name in w: assert w[name]['wrong'] == rows[name]['wrong'], name
    for name in ('PyTorch nearest', 'onnxruntime Resize', 'OpenCV INTER_NEAREST'):
        f = w[name]['first']
        assert (f is None) == (rows[name]['first_output'] is None)
        if f: assert (tuple(rows[name]['first_output']), tuple(rows[name]['source']), tuple(rows[name]['exact_source'])) == f

def test_out_of_bounds_reported():
    assert wrong_pixels((1, 5), (2, 41))[NEURON]['wrong'] == 'out of bounds'
    assert check((1, 5), (2, 41))[0]['status'].startswith('out of bounds')

def _model(nodes, inputs, inits):
    g = helper.make_graph(nodes, 'g', inputs, [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None) for n in nodes], initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid('', 19)])

def test_audit_onnx_graph(tmp_path):
    mk = lambda name, x, mode='nearest', ctm='asymmetric': helper.make_node('Resize', [x, '', '', f'{name}_s'], [name], name=name, mode=mode,
                                                                          coordinate_transformation_mode=ctm, nearest_mode='floor')
    inits = [helper.make_tensor(f'{n}_s', TensorProto.INT64, [4], [1, 1, *hw]) for n, hw in (('a', (192, 192)), ('b', (448, 448)), ('c', (41, 41)), ('d', (5, 5)))]
    m = _model([mk('a', 'x'), mk('b', 'x'), mk('c', 'y'), mk('d', 'x', mode='linear')],
               [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 1, 224, 224]), helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 1, 'h', 'w'])], inits)
    rep = audit_onnx(m)
    assert [r['node'] for r in rep] == ['a', 'b', 'c', 'd'] and rep[2]['status'].startswith('not analysed')
    assert rep[3]['status'] == 'mode linear: not a nearest resize, skipped'
    assert rep[0]['wrong'][NEURON] == 1143 and rep[1]['wrong']['PyTorch nearest'] == 0
    assert affected(rep)
    path = tmp_path / 'm.onnx'; onnx.save(m, path)
    r = subprocess.run([sys.executable, '-m', 'resize_nearest.cli', 'audit', str(path), '--json'], capture_output=True, text=True)
    assert r.returncode == 1 and json.loads(r.stdout)[0]['wrong']['PyTorch nearest'] == 1143
    ok = _model([mk('b', 'x')], [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 1, 224, 224])], inits[1:2])
    onnx.save(ok, tmp_path / 'ok.onnx')
    r = subprocess.run([sys.executable, '-m', 'resize_nearest.cli', 'audit', str(tmp_path / 'ok.onnx')], capture_output=True, text=True)
    assert r.returncode == 0 and '1 Resize/Upsample node(s)' in r.stdout
    (tmp_path / 'junk.onnx').write_text('not a model')
    r = subprocess.run([sys.executable, '-m', 'resize_nearest.cli', 'audit', str(tmp_path / 'junk.onnx')], capture_output=True, text=True)
    assert r.returncode == 2 and 'cannot read as an ONNX model' in r.stderr and 'Traceback' not in r.stderr

# torch 2.13 deprecates the TorchScript exporter; the torch.export-based one needs onnxscript, which the
# dev extra does not install. The two warnings of the legacy exporter are expected here.
@pytest.mark.filterwarnings('ignore:You are using the legacy TorchScript-based ONNX export:DeprecationWarning')
@pytest.mark.filterwarnings('ignore:The feature will be removed. Please remove usage of this function:DeprecationWarning')
def test_audit_of_a_torch_export():
    class M(torch.nn.Module):
        def forward(self, x): return F.interpolate(F.interpolate(x, size=(22, 22), mode='nearest'), size=(44, 44), mode='nearest')
    buf = io.BytesIO(); torch.onnx.export(M(), (torch.rand(1, 2, 26, 26),), buf, dynamo=False)
    rep = audit_onnx(onnx.load_from_string(buf.getvalue()))
    assert [(r['input_shape'][-2:], r['output_shape'][-2:]) for r in rep] == [((26, 26), (22, 22)), ((22, 22), (44, 44))]
    assert rep[0]['wrong']['PyTorch nearest'] == 2 * 43 and rep[1]['wrong']['PyTorch nearest'] == 0     # two channels

@pytest.mark.parametrize('args, rc, text', [(['224x224', '192x192'], 1, 'PyTorch nearest'), (['30x20', '60x40'], 0, 'OpenCV'),
                                            (['224', '192'], 1, NEURON), (['22a', '3'], 2, 'IN must look like'),
                                            (['5x5'], 2, 'the following arguments are required: OUT'), (['0x5', '3'], 2, 'positive integers')])
def test_check_command(args, rc, text, capsys):
    "In this process (the entry point itself runs in a subprocess in test_refusals.py)."
    status, out, err = run_cli(['check', *args], capsys)
    assert status == rc and text in out + err and 'Traceback' not in err, out + err
    status, out, err = run_cli(['check', '--json', *args], capsys)
    assert status == rc and json.loads(out), out + err        # --json first, JSON on every exit

def test_every_command_has_its_own_help_with_an_example(capsys):
    for command in ('demo', 'sweep', 'lint', 'check', 'audit'):
        status, out, _ = run_cli([command, '--help'], capsys)
        assert status == 0 and f'usage: resize-nearest {command}' in out and 'example: resize-nearest' in out
    _, out, _ = run_cli(['check', '--help'], capsys)
    assert '--json' in out and '--max' not in out
