"""The runtimes for real (slow tier; each test skips, naming what to install, where its runtime is
missing). For a representative subset of the sweep of chapter 4.6 (1-D pairs and 2-D families,
three conventions), `audit --json` on a one-Resize model must report per runtime the wrong-element
count that a direct run of that runtime gives. The direct runs below call each runtime's own API
(written here from its documentation, not through models.runtime_children), on the model file the
audit read, and count against ONNX's definition (maps.nearest_modes.source_index). The fix
(Gathers of exact indices) must be exact under every runtime that runs it."""
import json, os, subprocess, sys

import numpy as np
import pytest

onnx = pytest.importorskip('onnx')
from onnx import TensorProto, helper

from resize_nearest.maps.nearest_modes import source_index
from resize_nearest.models import runtimes
from resize_nearest.models.onnx_reader import ResizeNode
from resize_nearest.models.runtime_children import installed
from tests.cli_run import run_cli

pytestmark = pytest.mark.slow

DIRECT = {  # runtime -> a script: argv model.onnx x.npy y.npy, run in a scratch folder
    'OpenVINO': """import sys, numpy as np, openvino as ov
m = ov.Core().compile_model(sys.argv[1], 'CPU', {'INFERENCE_PRECISION_HINT': 'f32'})
np.save(sys.argv[3], m(np.load(sys.argv[2]))[0])""",
    'tract': """import sys, numpy as np, tract
m = tract.onnx().load(sys.argv[1]).into_model().into_runnable()
np.save(sys.argv[3], m.run([np.load(sys.argv[2])])[0].to_numpy())""",
    'TVM': """import sys, numpy as np, onnx, tvm
from tvm import relax
from tvm.relax.frontend.onnx import from_onnx
mod = relax.transform.LegalizeOps()(from_onnx(onnx.load(sys.argv[1]), keep_params_in_input=False))
vm = relax.VirtualMachine(tvm.compile(mod, target='llvm'), tvm.cpu())
np.save(sys.argv[3], vm['main'](tvm.runtime.tensor(np.load(sys.argv[2]))).numpy())""",
    'MNN': """import os, subprocess, sys, numpy as np, MNN
import _tools  # MNN's converter, without the mnnconvert script's telemetry logger
_tools.mnnconvert(['mnnconvert', '-f', 'ONNX', '--modelFile', sys.argv[1], '--MNNModel', 'm.mnn'])
x = np.load(sys.argv[2])
y = MNN.nn.load_module_from_file('m.mnn', ['X'], ['Y']).forward([MNN.expr.const(x, list(x.shape), MNN.expr.NCHW)])[0]
np.save(sys.argv[3], np.array(MNN.expr.convert(y, MNN.expr.NCHW).read()))""",
    'ncnn': """import os, shutil, subprocess, sys, numpy as np, ncnn, importlib.util
exe = os.path.join(os.path.dirname(importlib.util.find_spec('pnnx').origin), 'pnnx')
shutil.copyfile(sys.argv[1], 'm.onnx')
x = np.load(sys.argv[2])
subprocess.run([exe, 'm.onnx', 'inputshape=[%s]' % ','.join(map(str, x.shape))], capture_output=True)
if 'Resize ' in open('m.ncnn.param').read(): sys.exit(3)  # pnnx kept a Resize: ncnn has none
net = ncnn.Net(); net.load_param('m.ncnn.param'); net.load_model('m.ncnn.bin')
ex = net.create_extractor(); ex.input('in0', ncnn.Mat(np.ascontiguousarray(x[0])))
ret, y = ex.extract('out0'); np.save(sys.argv[3], np.array(y)[None])""",
    'LiteRT': """import os, sys, numpy as np, onnx2tf
from ai_edge_litert.interpreter import Interpreter
onnx2tf.convert(input_onnx_file_path=sys.argv[1], output_folder_path='tf', non_verbose=True)
it = Interpreter(model_path=[os.path.join('tf', f) for f in os.listdir('tf') if f.endswith('_float32.tflite')][0])
it.allocate_tensors(); i, o = it.get_input_details()[0], it.get_output_details()[0]
it.set_tensor(i['index'], np.transpose(np.load(sys.argv[2]), (0, 2, 3, 1))); it.invoke()
np.save(sys.argv[3], np.transpose(it.get_tensor(o['index']), (0, 3, 1, 2)))""",
    'tinygrad': """import os, shutil, sys, numpy as np
os.environ.setdefault('DEV', 'CPU' if shutil.which('clang') else 'PYTHON')
from tinygrad import Tensor
from tinygrad.nn.onnx import OnnxRunner
np.save(sys.argv[3], OnnxRunner(sys.argv[1])({'X': Tensor(np.load(sys.argv[2]))})['Y'].numpy())""",
}
CASES = [((1, 26), (1, 22)), ((1, 7), (1, 41)), ((224, 224), (192, 192)), ((720, 720), (224, 224))]
CONVENTIONS = [('asymmetric', 'floor'), ('half_pixel', 'round_prefer_floor'), ('align_corners', 'round_prefer_ceil')]


def needs(name):
    rt = runtimes.RUNTIMES[name]
    if not installed(rt):
        pytest.skip(f'needs {name}: {rt.install} (the "runtimes" extra; see the README)')
    return rt


def model_file(folder, in_hw, out_hw, mode, rounding):
    "A one-Resize model (1, 1, H, W) -> sizes, opset 19, IR 9."
    sizes = helper.make_tensor('sizes', TensorProto.INT64, [4], [1, 1, *out_hw])
    node = helper.make_node('Resize', ['X', '', '', 'sizes'], ['Y'], mode='nearest',
                            coordinate_transformation_mode=mode, nearest_mode=rounding)
    graph = helper.make_graph([node], 'g', [helper.make_tensor_value_info('X', TensorProto.FLOAT, [1, 1, *in_hw])],
                              [helper.make_tensor_value_info('Y', TensorProto.FLOAT, [1, 1, *out_hw])], initializer=[sizes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 19)])
    model.ir_version = 9
    path = folder / f'm_{mode}_{rounding}_{in_hw[1]}_{out_hw[1]}.onnx'
    onnx.save(model, path)
    return path


def direct(rt, name, path, in_hw, folder):
    "The runtime run directly on the model file: its output, or None when it refuses."
    x = np.arange(in_hw[0] * in_hw[1], dtype=np.float32).reshape(1, 1, *in_hw)
    np.save(folder / 'x.npy', x)
    python = os.environ.get(rt.python_env) or sys.executable
    done = subprocess.run([python, '-c', DIRECT[name], str(path), str(folder / 'x.npy'), str(folder / 'y.npy')],
                          cwd=folder, capture_output=True, timeout=600)
    return np.load(folder / 'y.npy') if done.returncode == 0 else None


def exact(in_hw, out_hw, mode, rounding):
    rows = source_index(mode, rounding, in_hw[0], out_hw[0])
    cols = source_index(mode, rounding, in_hw[1], out_hw[1])
    return np.add.outer(rows * in_hw[1], cols)


@pytest.mark.parametrize('name', list(runtimes.RUNTIMES))
def test_audit_json_counts_what_a_direct_run_gives(name, tmp_path, capsys, monkeypatch):
    rt = needs(name)
    monkeypatch.setenv(runtimes.RUNTIMES_ENV, name)
    for mode, rounding in CONVENTIONS:
        for in_hw, out_hw in CASES:
            path = model_file(tmp_path, in_hw, out_hw, mode, rounding)
            code, out, _ = run_cli(['audit', str(path), '--json'], capsys)
            got = json.loads(out)[0]['wrong'][name]
            y = direct(rt, name, path, in_hw, tmp_path)
            case = f'{name} {mode}/{rounding} {in_hw} -> {out_hw}'
            if y is None:
                assert isinstance(got, str) and got.startswith('refused'), (case, got)
            else:
                assert got == int((y.reshape(1, 1, *out_hw).astype(np.int64) != exact(in_hw, out_hw, mode, rounding)).sum()), case


# the runtimes that must run the fix (Gathers of int64 indices) exactly, per form of the fix; the
# others must never give a wrong result, but may refuse the fixed model (chapter 4.6 found: ncnn
# runs neither form; TVM's ONNX importer and LiteRT refuse the computed form, indices built in the
# graph from the input's shape)
MUST_RUN_FIX = {('OpenVINO', 'constant'), ('OpenVINO', 'computed'), ('tract', 'constant'),
                ('tract', 'computed'), ('TVM', 'constant'), ('MNN', 'constant'),
                ('MNN', 'computed'), ('LiteRT', 'constant')}


@pytest.mark.parametrize('name', list(runtimes.RUNTIMES))
def test_the_fix_is_exact_under_each_runtime(name):
    needs(name)
    for mode, rounding in CONVENTIONS[:2]:
        r = ResizeNode('n', 'graph', 'Resize', 19, 'nearest', mode, rounding,
                       input_shape=(1, 1, 224, 224), sizes=(1, 1, 192, 192), axes=(0, 1, 2, 3))
        for how in ('constant', 'computed'):
            verdict = runtimes.fix_verdicts(r, how, [name])[name]
            if (name, how) in MUST_RUN_FIX:
                assert verdict.startswith('exact under'), (mode, how, verdict)
            else:
                assert verdict.startswith(('exact under', 'refused by')), (mode, how, verdict)
