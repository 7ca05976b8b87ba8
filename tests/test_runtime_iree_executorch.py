"""IREE and ExecuTorch in child processes (appendix E4e). The fast tests run the plumbing with
stand-ins: the "not installed" row a missing runtime gives, the calls read from an exported graph,
and the per-call counts with a stand-in child that runs the exported probe with PyTorch itself.
The slow tests run the real runtimes (each skips, naming what to install, where it is missing;
under CI a missing one fails): IREE on the audit's cases, sizes and scales, against a direct run of
IREE's own tools; ExecuTorch on PyTorch's nearest, against a direct run through its pybindings;
and the drop-in's exact path exported to ExecuTorch. The exact maps here are written from ONNX's
Resize definition (onnx/docs/Operators.md) in integers, not taken from the package."""
import importlib.util, io, os, subprocess, sys, textwrap
from fractions import Fraction
from math import ceil, floor

import numpy as np
import pytest

torch = pytest.importorskip('torch')
onnx = pytest.importorskip('onnx')
import torch.nn.functional as F
from onnx import TensorProto, helper

from resize_nearest.models import runtime_iree_executorch as ie
from resize_nearest.models.runtime_children import Runtime, installed, run_cases


def onnx_nearest(mode, rounding, i, o, scale=None):
    "ONNX Resize's source index per output index, for the conventions tested here, in fractions."
    s = Fraction(o, i) if scale is None else Fraction(scale)
    out = []
    for d in range(o):
        x = d / s if mode == 'asymmetric' else (d + Fraction(1, 2)) / s - Fraction(1, 2)
        k = floor(x) if rounding == 'floor' else ceil(x - Fraction(1, 2))  # round_prefer_floor
        out.append(min(max(k, 0), i - 1))
    return np.array(out)


class Upsample(torch.nn.Module):
    def __init__(self, **how):
        super().__init__()
        self.how = how

    def forward(self, x):
        return F.interpolate(x, mode='nearest', **self.how)


class NearestExact(torch.nn.Module):
    def forward(self, x):
        return F.interpolate(x, size=(5, 7), mode='nearest-exact')


def eager_wrong(i, o, channels=1):
    "PyTorch eager's wrong elements at i x i -> o x o (size given), against floor(d * i / o)."
    x = torch.arange(i * i, dtype=torch.float32).reshape(1, 1, i, i)
    y = F.interpolate(x, size=(o, o), mode='nearest').numpy().astype(np.int64)
    exact = np.add.outer(np.arange(o) * i // o * i, np.arange(o) * i // o)
    return channels * int((y[0, 0] != exact).sum())


# ---- fast: stand-ins ---------------------------------------------------------------------------

def python_wrapper(folder):
    "A path to this Python that is not sys.executable: a child runs, and finds no runtime."
    path = folder / 'python'
    path.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize('rt', [ie.IREE, ie.EXECUTORCH], ids=lambda rt: rt.name)
def test_a_missing_runtime_is_a_row_with_its_install_command(rt, tmp_path, monkeypatch):
    if importlib.util.find_spec(rt.modules[0]) is not None:
        pytest.skip(f'{rt.name} is installed in this Python: nothing is missing')
    monkeypatch.delenv(rt.python_env, raising=False)
    model = onnx.helper.make_model(onnx.helper.make_graph([], 'g', [], []))
    assert run_cases(rt, [(model, [])]) == ({}, [dict(failed=f'not installed ({rt.install})')])
    # named Python without the runtime: its child says so, with the same row
    monkeypatch.setenv(rt.python_env, python_wrapper(tmp_path))
    assert run_cases(rt, [(model, [])]) == ({}, [dict(failed=f'not installed ({rt.install})')])
    assert 'tools/iree_executorch_venv.sh' in rt.install


def test_the_calls_are_read_from_the_exported_graph():
    x = torch.zeros(2, 3, 4, 6)
    (node,) = ie._nearest_calls(Upsample(scale_factor=2.5), x)
    assert ie._upsample_call(node) == ((2, 3, 4, 6), (10, 15), (2.5, 2.5), 'asymmetric')
    (node,) = ie._nearest_calls(NearestExact(), x)
    assert ie._upsample_call(node) == ((2, 3, 4, 6), (5, 7), (None, None), 'tf_half_pixel_for_nn')


def test_exported_case_refuses_what_is_not_a_tensor():
    with pytest.raises(TypeError, match='example_inputs must be a tensor or a tuple'):
        ie.exported_case(Upsample(size=3), 'x')


STAND_IN = '''
import shutil, torch
def versions(): return {'torch': torch.__version__}
def run(path, inputs, work):
    shutil.copyfile(path, work + '/m.pt2')
    program = torch.export.load(work + '/m.pt2')
    return [program.module()(*[torch.from_numpy(x) for x in inputs]).numpy()], {}
'''


def test_per_call_counts_with_an_eager_stand_in(tmp_path, monkeypatch):
    "A child that runs the exported probe with PyTorch eager counts what PyTorch gets wrong."
    (tmp_path / 'eager_probe_stand_in.py').write_text(textwrap.dedent(STAND_IN))
    path = os.pathsep.join([str(tmp_path), os.environ.get('PYTHONPATH', '')])
    monkeypatch.setenv('PYTHONPATH', path)
    rt = Runtime('eager', ('torch',), 'nothing', 'eager_probe_stand_in:run',
                 'eager_probe_stand_in:versions', python_env='RESIZE_NEAREST_NO_SUCH_PYTHON')
    x = torch.zeros(1, 3, 224, 224)
    versions, counts = ie.executorch_counts(Upsample(size=(192, 192)), x, runtimes=[rt])
    assert versions == {'eager': {'torch': torch.__version__}}
    want = eager_wrong(224, 192, channels=3)
    assert want > 0 and counts == {'upsample_nearest2d': {'eager': want}}
    _, counts = ie.executorch_counts(Upsample(scale_factor=2), x, runtimes=[rt])
    assert counts == {'upsample_nearest2d': {'eager': 0}}


def test_exact_output_is_onnx_asymmetric_floor():
    x = np.arange(26 * 26).reshape(1, 1, 26, 26)
    rows = onnx_nearest('asymmetric', 'floor', 26, 22)
    want = x[0, 0][np.ix_(rows, rows)][None, None]
    np.testing.assert_array_equal(ie._exact_output(x, (22, 22), (None, None), 'asymmetric'), want)


# ---- slow: the real runtimes -------------------------------------------------------------------

def needs(rt):
    "The runtime, or a skip naming how to install it (a failure under CI, which installs it)."
    if not installed(rt) or not os.environ.get(rt.python_env):
        why = f'needs {rt.name}: {rt.install}'
        if os.environ.get('CI'):
            pytest.fail(f'CI installs IREE and ExecuTorch (.ci/run), yet one is missing: {why}')
        pytest.skip(why)
    return os.environ[rt.python_env]


def resize_model(i, o, mode, rounding, scales):
    "A one-Resize model (1, 1, i, i) -> (1, 1, o, o), opset 19, sizes or float32 scales."
    if scales:
        s = float(np.float32(o) / np.float32(i))
        target = helper.make_tensor('t', TensorProto.FLOAT, [4], [1, 1, s, s])
        inputs = ['X', '', 't']
    else:
        target = helper.make_tensor('t', TensorProto.INT64, [4], [1, 1, o, o])
        inputs = ['X', '', '', 't']
    node = helper.make_node('Resize', inputs, ['Y'], mode='nearest',
                            coordinate_transformation_mode=mode, nearest_mode=rounding)
    x = helper.make_tensor_value_info('X', TensorProto.FLOAT, [1, 1, i, i])
    y = helper.make_tensor_value_info('Y', TensorProto.FLOAT, [1, 1, o, o])
    graph = helper.make_graph([node], 'resize', [x], [y], initializer=[target])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 19)])
    model.ir_version = 9
    return model


IREE_CASES = [(i, o, m, r, s) for i, o in ((26, 22), (224, 192))
              for m, r in (('asymmetric', 'floor'), ('half_pixel', 'round_prefer_floor'))
              for s in (False, True)]

# IREE as its documentation runs it: the iree-import-onnx and iree-compile commands, then
# iree.runtime's load_vm_flatbuffer (not the package's child code)
IREE_DIRECT = '''
import os, subprocess, sys, numpy as np, iree.runtime as rt
bin = os.path.dirname(sys.executable)
subprocess.run([os.path.join(bin, 'iree-import-onnx'), sys.argv[1], '-o', 'm.mlir'], check=True)
subprocess.run([os.path.join(bin, 'iree-compile'), 'm.mlir', '--iree-hal-target-backends=llvm-cpu',
                '--iree-llvmcpu-target-cpu=host', '-o', 'm.vmfb'], check=True)
module = rt.load_vm_flatbuffer_file('m.vmfb', driver='local-task')
x = np.load(sys.argv[2])
np.save(sys.argv[3], np.asarray(module.resize(x).to_host()))
'''


@pytest.mark.slow
def test_iree_on_the_audit_cases_agrees_with_a_direct_run(tmp_path):
    python = needs(ie.IREE)
    script = tmp_path / 'direct.py'
    script.write_text(IREE_DIRECT)
    models = [resize_model(*c) for c in IREE_CASES]
    inputs = [np.arange(c[0] ** 2, dtype=np.float32).reshape(1, 1, c[0], c[0])
              for c in IREE_CASES]
    versions, results = run_cases(ie.IREE, [(m, [x]) for m, x in zip(models, inputs)])
    assert set(versions) == {'iree_compiler', 'iree_runtime'}, versions
    for k, (c, model, x, result) in enumerate(zip(IREE_CASES, models, inputs, results)):
        i, o, mode, rounding, scales = c
        s = float(np.float32(o) / np.float32(i)) if scales else None
        rows = onnx_nearest(mode, rounding, i, o, s)
        exact = np.add.outer(rows * i, rows)
        onnx.save(model, tmp_path / f'm{k}.onnx')
        np.save(tmp_path / f'x{k}.npy', x)
        files = [str(tmp_path / f'{name}{k}.{ext}')
                 for name, ext in (('m', 'onnx'), ('x', 'npy'), ('y', 'npy'))]
        subprocess.run([python, str(script), *files], cwd=tmp_path, check=True,
                       capture_output=True)
        direct = int((np.load(tmp_path / f'y{k}.npy').reshape(o, o) != exact).sum())
        assert 'outputs' in result, (c, result)
        got = int((result['outputs'][0].reshape(o, o) != exact).sum())
        assert got == direct, (c, got, direct)


# ExecuTorch through its pybindings' own loader (not executorch.runtime, which the package uses)
EXECUTORCH_DIRECT = '''
import sys, numpy as np, torch
from executorch.exir import to_edge
from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer
program = to_edge(torch.export.load(sys.argv[1])).to_executorch()
module = _load_for_executorch_from_buffer(program.buffer)
x = torch.from_numpy(np.load(sys.argv[2]))
np.save(sys.argv[3], module.forward([x])[0].numpy())
'''


def executorch_direct(python, folder, module, x):
    "The output of `module` on `x`, exported here and run by ExecuTorch directly."
    torch.export.save(torch.export.export(module, (x,)), folder / 'm.pt2')
    np.save(folder / 'x.npy', x.numpy())
    (folder / 'direct.py').write_text(EXECUTORCH_DIRECT)
    subprocess.run([python, 'direct.py', 'm.pt2', 'x.npy', 'y.npy'], cwd=folder, check=True,
                   capture_output=True)
    return np.load(folder / 'y.npy')


@pytest.mark.slow
@pytest.mark.parametrize('how,out', [(dict(size=(192, 192)), 192), (dict(scale_factor=2), 448)],
                         ids=['224-192', 'scale-2'])
def test_executorch_counts_agree_with_a_direct_run(how, out, tmp_path):
    python = needs(ie.EXECUTORCH)
    module = Upsample(**how)
    index = torch.arange(224 * 224, dtype=torch.float32).reshape(1, 1, 224, 224)
    rows = np.arange(out) * 224 // out  # asymmetric/floor; at scale 2 it is d // 2 as well
    exact = np.add.outer(rows * 224, rows)
    direct = int((executorch_direct(python, tmp_path, module, index)[0, 0] != exact).sum())
    versions, counts = ie.executorch_counts(module, torch.zeros(1, 3, 224, 224))
    assert versions['ExecuTorch']['executorch'], versions
    want = {'ExecuTorch': 3 * direct, 'ExecuTorch XNNPACK': 3 * direct}
    assert counts == {'upsample_nearest2d': want}
    if out == 448:
        assert direct == 0
    else:  # where ExecuTorch stands beside PyTorch eager (the same float index, so far)
        print(f'ExecuTorch at 224 -> 192: {direct} wrong; PyTorch eager {eager_wrong(224, 192)}')


@pytest.mark.slow
@pytest.mark.parametrize('rt', [ie.EXECUTORCH, ie.EXECUTORCH_XNNPACK], ids=lambda rt: rt.name)
def test_the_drop_in_exact_path_exports_and_runs_exactly_on_executorch(rt):
    needs(rt)
    from resize_nearest.torch import interpolate_nearest

    class Exact(torch.nn.Module):
        def forward(self, x):
            return interpolate_nearest(x, size=(192, 192))

    index = torch.arange(224 * 224, dtype=torch.float32).reshape(1, 1, 224, 224)
    _, (result,) = run_cases(rt, [ie.exported_case(Exact(), index)])
    assert 'outputs' in result, result
    rows = onnx_nearest('asymmetric', 'floor', 224, 192)
    assert int((result['outputs'][0][0, 0] != np.add.outer(rows * 224, rows)).sum()) == 0
    assert 'index_select' in result['converted'], result['converted']
