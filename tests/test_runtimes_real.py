"""The runtimes for real (slow tier; each test skips, naming what to install, where its runtime is
missing; CI installs them all with tools/runtimes_venv.sh, so there they run). A representative
subset of chapter R13's sweep (tools/runtime_sweep.py runs all of it): `audit --json` on one-Resize
models (two conventions), and the sweep's batched models of the 2-D families (one convention for
each other coordinate mode), must give per runtime and per case the wrong-element count of a direct run of that runtime.
The direct runs (tests/runtimes_direct.py) call each runtime's own API, not the package's child
code, on the same model file, and count against ONNX's definition (maps.nearest_modes.source_index).
The fix (Gathers of exact indices, or Slices for a runtime without Gather) must be exact under
every runtime that runs it."""
import json, os

import numpy as np
import pytest

onnx = pytest.importorskip('onnx')
from onnx import TensorProto, helper

from resize_nearest.maps.nearest_modes import COORDINATE_MODES, NEAREST_MODES, source_index
from resize_nearest.models import runtimes
from resize_nearest.models.onnx_reader import ResizeNode
from resize_nearest.models.runtime_children import installed, run_cases
from tests.cli_run import run_cli
from tests.runtimes_direct import direct

pytestmark = pytest.mark.slow

CASES = [((1, 7), (1, 41)), ((26, 26), (22, 22))]
CONVENTIONS = [('asymmetric', 'floor'), ('half_pixel', 'round_prefer_floor')]
# the sweep's families under the other coordinate modes (tf_crop_and_resize aside), the nearest
# modes in turn: all 24 conventions would take CI about 10 minutes (tools/runtime_sweep.py runs them)
EACH_MODE = [(m, NEAREST_MODES[k % 4]) for k, m in enumerate(COORDINATE_MODES[:-1])
             if m not in ('asymmetric', 'half_pixel')]


def needs(name):
    "The runtime, or a skip naming how to install it (a failure under CI, which installs them all)."
    rt = runtimes.RUNTIMES[name]
    if not installed(rt):
        why = f'needs {name}: {rt.install} (the "runtimes" extra: bash tools/runtimes_venv.sh; see the README)'
        if os.environ.get('CI'):
            pytest.fail(f'CI installs the runtimes (.ci/run), yet this one is missing: {why}')
        pytest.skip(why)
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


def exact(in_hw, out_hw, mode, rounding):
    rows = source_index(mode, rounding, in_hw[0], out_hw[0])
    cols = source_index(mode, rounding, in_hw[1], out_hw[1])
    return np.add.outer(rows * in_hw[1], cols)


def direct_count(y, e):
    "A direct run's wrong elements, or 'wrong output shape', or None where it did not run."
    if y is None:
        return None
    return int((y.reshape(e.shape).astype(np.int64) != e).sum()) if y.size == e.size else 'wrong output shape'


def same(got, want) -> bool:
    "Whether the package's value says what the direct run found."
    if want is None:  # the runtime (or its converter) did not run the model: refused or crashed
        return isinstance(got, str) and got.startswith(('refused', 'crashed'))
    if want == 'wrong output shape':
        return isinstance(got, str) and got.startswith('wrong output shape')
    return got == want


@pytest.mark.parametrize('name', list(runtimes.RUNTIMES))
def test_audit_json_counts_what_a_direct_run_gives(name, tmp_path, capsys, monkeypatch):
    needs(name)
    monkeypatch.setenv(runtimes.RUNTIMES_ENV, name)
    for mode, rounding in CONVENTIONS:
        for in_hw, out_hw in CASES:
            path = model_file(tmp_path, in_hw, out_hw, mode, rounding)
            code, out, _ = run_cli(['audit', str(path), '--json'], capsys)
            got = json.loads(out)[0]['wrong'][name]
            x = np.arange(in_hw[0] * in_hw[1], dtype=np.float32).reshape(1, 1, *in_hw)
            ys = direct(name, path, {'X': x}, tmp_path / f'direct_{path.stem}')
            want = direct_count(ys and ys['Y'], exact(in_hw, out_hw, mode, rounding))
            assert same(got, want), (f'{name} {mode}/{rounding} {in_hw} -> {out_hw}', got, want)


@pytest.mark.parametrize('name', list(runtimes.RUNTIMES))
def test_the_sweep_counts_what_a_direct_run_gives(name, tmp_path):
    "The sweep's batched models (eight 2-D families in one model), one convention per mode."
    rt = needs(name)
    built = [runtimes.sweep_case(m, r, '2-D families') for m, r in EACH_MODE]
    _, results = run_cases(rt, [b[:2] for b in built])
    for (mode, rounding), (model, xs, exacts, labels), result in zip(EACH_MODE, built, results):
        counts = runtimes._case_counts(result, exacts)
        onnx.save(model, tmp_path / f'{mode}.onnx')
        ys = direct(name, tmp_path / f'{mode}.onnx', {f'X{k}': x for k, x in enumerate(xs)}, tmp_path / mode)
        for j, (e, label) in enumerate(zip(exacts, labels)):
            want = direct_count(ys and ys[f'Y{j}'], e)
            assert same(counts[j], want), (f'{name} {mode}/{rounding} {label}', counts[j], want)


# the runtimes that must run the fix exactly, per form: chapter R13 found that ncnn runs only the
# Slices (pnnx writes a Gather as its Tensor.slice, which ncnn has no layer for); LiteRT runs only
# the constant Gathers (onnx2tf's NHWC layout breaks the computed indices and the Slices); TVM's
# ONNX importer refuses the computed form (its Where takes no scalar condition); IREE runs all three.
# The others must never give a wrong result silently: each either runs a form exactly or is listed
# here.
MUST_RUN_FIX = {
    'constant': {'OpenVINO', 'tract', 'TVM', 'MNN', 'LiteRT', 'tinygrad', 'IREE'},
    'computed': {'OpenVINO', 'tract', 'MNN', 'tinygrad', 'IREE'},
    'slices': {'OpenVINO', 'tract', 'TVM', 'MNN', 'ncnn', 'tinygrad', 'IREE'},
}


@pytest.mark.parametrize('name', list(runtimes.RUNTIMES))
def test_the_fix_is_exact_under_each_runtime(name):
    needs(name)
    # 26 -> 22: the Slices of 224 -> 192 take onnx2tf minutes, a Gather of it tinygrad minutes
    r = ResizeNode('n', 'graph', 'Resize', 19, 'nearest', 'half_pixel', 'round_prefer_floor',
                   input_shape=(1, 1, 26, 26), sizes=(1, 1, 22, 22), axes=(0, 1, 2, 3))
    for how, runs in MUST_RUN_FIX.items():
        verdict = runtimes.fix_verdicts(r, how, [name])[name]
        if name in runs:
            assert verdict.startswith('exact under'), (how, verdict)
        else:
            assert verdict.startswith(('refused by', 'FAILED under')), (how, verdict)


@pytest.mark.parametrize('name', list(runtimes.RUNTIMES))
def test_audit_fix_output_runs_exactly(name, tmp_path, capsys, monkeypatch):
    "The file `audit --fix` writes (constant Gathers: the shapes are fixed), run directly."
    needs(name)
    monkeypatch.setenv(runtimes.RUNTIMES_ENV, name)
    path = model_file(tmp_path, (26, 26), (22, 22), 'half_pixel', 'round_prefer_floor')
    fixed = tmp_path / 'fixed.onnx'
    code, out, _ = run_cli(['audit', str(path), '--fix', str(fixed), '--every', '--json'], capsys)
    change = json.loads(out)['fix']['changes'][0]
    assert change['action'] == 'replaced: constant indices', change
    x = np.arange(26 * 26, dtype=np.float32).reshape(1, 1, 26, 26)
    ys = direct(name, fixed, {'X': x}, tmp_path / 'direct')
    got = direct_count(ys and ys['Y'], exact((26, 26), (22, 22), 'half_pixel', 'round_prefer_floor'))
    verdict = change['runtimes'][name]
    if name in MUST_RUN_FIX['constant']:
        assert got == 0 and verdict.startswith('exact under'), (got, verdict)
    else:  # the audit's verdict says what the direct run found: it did not run
        assert got is None and verdict.startswith('refused by'), (got, verdict)
