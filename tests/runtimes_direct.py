"""Each deployment runtime run directly, as its own documentation shows, without the package's child
code (resize_nearest.models.runtime_children): the independent side of the runtime tests and of
tools/runtime_sweep.py. `direct(name, model, inputs, folder)` runs one script in a fresh process of
the runtime's Python, in `folder`: inputs and outputs by the graph's names, 4-D NCHW arrays.
A script that exits non-zero means the runtime (or its converter) did not run the model."""
import os, subprocess, sys

import numpy as np

COMMON = """import sys, numpy as np, onnx
g = onnx.load(sys.argv[1]).graph
consts = {t.name for t in g.initializer}
IN = [i.name for i in g.input if i.name not in consts]
OUT = [o.name for o in g.output]
z = np.load(sys.argv[2]); X = {n: z[n] for n in IN}
def save(ys): np.savez(sys.argv[3], **{n: np.asarray(y) for n, y in zip(OUT, ys)})
"""
SCRIPTS = {
    'OpenVINO': """import openvino as ov
m = ov.Core().compile_model(sys.argv[1], 'CPU', {'INFERENCE_PRECISION_HINT': 'f32'})
r = m({n: X[n] for n in IN})
save([r[m.output(n)] for n in OUT])""",
    'tract': """import tract
m = tract.onnx().load(sys.argv[1]).into_model().into_runnable()
save([t.to_numpy() for t in m.run([X[n] for n in IN])])""",
    'TVM': """import tvm
from tvm import relax
from tvm.relax.frontend.onnx import from_onnx
mod = relax.transform.LegalizeOps()(from_onnx(onnx.load(sys.argv[1]), keep_params_in_input=False))
vm = relax.VirtualMachine(tvm.compile(mod, target='llvm'), tvm.cpu())
y = vm['main'](*[tvm.runtime.tensor(X[n]) for n in IN])
save([t.numpy() for t in y] if len(OUT) > 1 else [y.numpy()])""",
    'MNN': """import MNN, _tools  # the converter, without the mnnconvert script's telemetry
_tools.mnnconvert(['mnnconvert', '-f', 'ONNX', '--modelFile', sys.argv[1], '--MNNModel', 'm.mnn'])
F = MNN.expr
net = MNN.nn.load_module_from_file('m.mnn', IN, OUT)
ys = net.forward([F.const(X[n], list(X[n].shape), F.NCHW) for n in IN])
save([np.array(F.convert(y, F.NCHW).read()) for y in ys])""",
    'ncnn': """import importlib.util, os, shutil, subprocess, ncnn
exe = os.path.join(os.path.dirname(importlib.util.find_spec('pnnx').origin), 'pnnx')
shutil.copyfile(sys.argv[1], 'm.onnx')
shapes = ','.join('[%s]' % ','.join(map(str, X[n].shape)) for n in IN)
subprocess.run([exe, 'm.onnx', 'inputshape=' + shapes], capture_output=True, check=True)
layers = [s.split()[0] for s in open('m.ncnn.param').read().splitlines()[2:] if s.strip()]
if 'Resize' in layers: sys.exit(3)  # pnnx kept an ONNX Resize: ncnn has no such layer
net = ncnn.Net(); net.load_param('m.ncnn.param'); net.load_model('m.ncnn.bin')
ex = net.create_extractor()
for k, n in enumerate(IN): ex.input(f'in{k}', ncnn.Mat(np.ascontiguousarray(X[n][0])))
ys = []
for k in range(len(OUT)):
    ret, y = ex.extract(f'out{k}')
    if ret != 0: sys.exit(4)
    ys.append(np.array(y)[None])
save(ys)""",
    'LiteRT': """import os, onnx2tf
from ai_edge_litert.interpreter import Interpreter
onnx2tf.convert(input_onnx_file_path=sys.argv[1], output_folder_path='tf', non_verbose=True)
it = Interpreter(model_path=os.path.join('tf', [f for f in os.listdir('tf')
                                                if f.endswith('_float32.tflite')][0]))
run = it.get_signature_runner()
shape = {n: d['shape'] for n, d in run.get_input_details().items()}
r = run(**{n: np.transpose(X[n], (0, 2, 3, 1)).reshape(shape[n]) for n in IN})
save([np.transpose(r[n], (0, 3, 1, 2)) if r[n].ndim == 4 else r[n] for n in OUT])""",
    'tinygrad': """import os, shutil
os.environ.setdefault('DEV', 'CPU' if shutil.which('clang') else 'PYTHON')
from tinygrad import Tensor
from tinygrad.nn.onnx import OnnxRunner
r = OnnxRunner(sys.argv[1])({n: Tensor(X[n]) for n in IN})
save([r[n].numpy() for n in OUT])""",
    'IREE': """import os, subprocess, iree.compiler, iree.runtime
# iree-import-onnx, then iree-compile for this CPU, then the module run on the local-task driver
importer = os.path.join(os.path.dirname(sys.executable), 'iree-import-onnx')
subprocess.run([importer, sys.argv[1], '-o', 'm.mlir'], check=True)
vmfb = iree.compiler.compile_file('m.mlir', target_backends=['llvm-cpu'],
                                  extra_args=['--iree-llvmcpu-target-cpu=host'])
m = iree.runtime.load_vm_flatbuffer(vmfb, driver='local-task')
ys = getattr(m, g.name)(*[X[n] for n in IN])
save([y.to_host() for y in (ys if isinstance(ys, (list, tuple)) else [ys])])""",
}
PYTHON_ENV = {'LiteRT': 'RESIZE_NEAREST_LITERT_PYTHON', 'IREE': 'RESIZE_NEAREST_IREE_PYTHON'}


def python_of(name: str) -> str:
    "The Python the runtime is installed in (the environment variables the package reads too)."
    return os.environ.get(PYTHON_ENV.get(name, 'RESIZE_NEAREST_RUNTIMES_PYTHON')) or sys.executable


def direct(name: str, model_path, inputs: dict, folder, timeout: float = 1800):
    """{output name: array} of the runtime run directly on the model file, or None where it did not
    run (what it said is in folder/stderr.txt)."""
    os.makedirs(folder, exist_ok=True)
    np.savez(os.path.join(folder, 'x.npz'), **inputs)
    out = os.path.join(folder, 'y.npz')
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL='3')
    argv = [python_of(name), '-c', COMMON + SCRIPTS[name], str(model_path), 'x.npz', out]
    done = subprocess.run(argv, cwd=folder, capture_output=True, timeout=timeout, env=env)
    if done.returncode != 0:
        with open(os.path.join(folder, 'stderr.txt'), 'wb') as f:
            f.write(done.stderr)
        return None
    with np.load(out) as z:
        return {n: z[n] for n in z.files}
