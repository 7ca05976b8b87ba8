"""The runtimes' plumbing without the runtimes (fast tier): a runtime that crashes, hangs, refuses
or is not installed costs its own row, never the report or the exit status; a runtime that runs
is counted as the audit counts its own engines. Stand-in runtimes live in a module written here;
one of them runs onnxruntime inside the child, so its count must equal the audit's onnxruntime
row, which comes from a different code path (the audit runs onnxruntime in this process)."""
import importlib.util, json, os, textwrap

import numpy as np
import pytest

onnx = pytest.importorskip('onnx')
pytest.importorskip('onnxruntime')
from onnx import TensorProto, helper

from resize_nearest.entry import cli_plumbing
from resize_nearest.models import runtimes
from resize_nearest.models.audit import audit_onnx, audit_sizes, check
from resize_nearest.models.fix import fix_report
from resize_nearest.models.runtime_children import Runtime, run_cases
from tests.cli_run import run_cli

STAND_INS = '''
import os, signal, time
import numpy as np
from resize_nearest.models.runtime_children import Refusal
def versions(): return {'stand-in': '1.0'}
def segfault(path, inputs, work): os.kill(os.getpid(), signal.SIGSEGV)
def hang(path, inputs, work): time.sleep(120)
def refuse(path, inputs, work): raise Refusal('stand-in converter', 'Resize: coordinate mode not supported')
def hog(path, inputs, work): return [np.ones(2**33, np.uint8)], {}
def beside(path, inputs, work):
    open(os.path.join(os.path.dirname(path), 'converted.bin'), 'w').write('x')
    return [np.zeros(1)], {}
def zeros(path, inputs, work):
    import onnx
    return [np.zeros([d.dim_value for d in onnx.load(path).graph.output[0].type.tensor_type.shape.dim],
                     np.float32)], {}
def ort(path, inputs, work):
    import onnxruntime
    s = onnxruntime.InferenceSession(path, providers=['CPUExecutionProvider'])
    return s.run(None, {i.name: x for i, x in zip(s.get_inputs(), inputs)}), {}
'''


@pytest.fixture
def stand_ins(tmp_path, monkeypatch):
    "Stand-in runtimes in RUNTIMES, their module importable by the child."
    (tmp_path / 'stand_in_runtimes.py').write_text(textwrap.dedent(STAND_INS))
    monkeypatch.setenv('PYTHONPATH', os.pathsep.join([str(tmp_path), os.environ.get('PYTHONPATH', '')]))
    for name in ('segfault', 'hang', 'refuse', 'hog', 'beside', 'ort', 'zeros'):
        monkeypatch.setitem(runtimes.RUNTIMES, name, Runtime(name, ('numpy',), 'nothing', f'stand_in_runtimes:{name}',
                                                             'stand_in_runtimes:versions'))
    monkeypatch.setitem(runtimes.RUNTIMES, 'absent', Runtime('absent', ('no_such_module_here',), 'pip install absent',
                                                             'x:y', 'x:z'))
    return tmp_path


def one_resize(tmp_path, n_in=26, n_out=22, mode='asymmetric', rounding='floor'):
    "A one-node nearest Resize model on disk, (1, 1, n_in, n_in) -> (1, 1, n_out, n_out)."
    sizes = helper.make_tensor('sizes', TensorProto.INT64, [4], [1, 1, n_out, n_out])
    node = helper.make_node('Resize', ['X', '', '', 'sizes'], ['Y'], mode='nearest',
                            coordinate_transformation_mode=mode, nearest_mode=rounding)
    graph = helper.make_graph([node], 'g', [helper.make_tensor_value_info('X', TensorProto.FLOAT, [1, 1, n_in, n_in])],
                              [helper.make_tensor_value_info('Y', TensorProto.FLOAT, [1, 1, n_out, n_out])],
                              initializer=[sizes])
    path = tmp_path / 'model.onnx'
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid('', 19)]), path)
    return path


def test_crash_hang_and_refusal_cost_their_rows_only(stand_ins):
    engine = runtimes.RuntimeEngine(['segfault', 'hang', 'refuse', 'absent', 'ort'], timeout=8)
    row = audit_onnx(str(one_resize(stand_ins)), engines=[engine])[0]
    assert row.wrong['segfault'] == 'crashed (SIGSEGV)'
    assert row.wrong['hang'] == 'timed out after 8 s'
    assert row.wrong['refuse'] == 'refused by stand-in converter: Resize: coordinate mode not supported'
    assert row.wrong['absent'] == 'not installed (pip install absent)'
    # the other rows are all there, counted as without the stand-ins
    plain = audit_onnx(str(one_resize(stand_ins)))[0]
    assert {k: v for k, v in row.wrong.items() if k in plain.wrong} == plain.wrong
    # onnxruntime in the child counts what the audit's own onnxruntime row counts
    assert row.wrong['ort'] == plain.wrong['onnxruntime']
    assert row.sources['ort'].startswith('run: ort (stand-in 1.0) on CPU in a child process')


def test_memory_bound_and_temporary_folder(stand_ins):
    case = (b'', [np.zeros(3, np.float32)])
    _, (hog,) = run_cases(runtimes.RUNTIMES['hog'], [case], timeout=60, memory=2**30)
    # 8 GiB asked for under a 1 GiB address-space bound: numpy's MemoryError, the runner's refusal
    assert hog['refused'] == 'hog' and 'MemoryError' in hog['message']
    model = one_resize(stand_ins)
    before = sorted(os.listdir(stand_ins))
    _, (beside,) = run_cases(runtimes.RUNTIMES['beside'], [(model.read_bytes(), [np.zeros(3)])])
    assert 'outputs' in beside and sorted(os.listdir(stand_ins)) == before  # nothing written beside the model


def test_the_exit_status_is_the_same(stand_ins, capsys, monkeypatch):
    model = str(one_resize(stand_ins))
    monkeypatch.setenv(runtimes.RUNTIMES_ENV, 'none')
    plain = run_cli(['audit', model, '--json'], capsys)
    monkeypatch.setenv(runtimes.RUNTIMES_ENV, 'segfault,absent')
    code, out, _ = run_cli(['audit', model, '--json'], capsys)
    assert code == plain[0] == 1
    row = json.loads(out)[0]
    assert row['wrong']['segfault'] == 'crashed (SIGSEGV)' and row['wrong']['absent'].startswith('not installed')
    code, out, _ = run_cli(['check', '26x26', '22x22', '--json'], capsys)
    rows = {r['implementation']: r for r in json.loads(out)}
    assert code == 1 and rows['segfault']['status'] == 'crashed (SIGSEGV)' and rows['segfault']['kind'] == 'run'


def test_not_installed_rows_say_how_to_install(monkeypatch):
    for name, rt in runtimes.RUNTIMES.items():
        monkeypatch.delenv(rt.python_env, raising=False)
    engine = runtimes.RuntimeEngine()
    row = audit_sizes((26, 26), (22, 22), engines=[engine])
    for name, rt in runtimes.RUNTIMES.items():
        if not all(importlib.util.find_spec(m) for m in rt.modules):
            assert row.wrong[name] == f'not installed ({rt.install})'
    assert [r.implementation for r in check((26, 26), (22, 22))][-1] == 'resize_nearest (exact)'
    assert not set(runtimes.RUNTIMES) & {r.implementation for r in check((26, 26), (22, 22))}  # no engines


def test_the_fix_replaces_a_node_wrong_only_in_a_runtime(stand_ins):
    "26 -> 52 asymmetric/floor: every built-in implementation is exact, the stand-in 'zeros' is not."
    model = str(one_resize(stand_ins, 26, 52))
    _, plain = fix_report(model)
    assert plain[0]['action'].startswith('keep: every implementation audited copies the exact')
    _, changes = fix_report(model, engines=[runtimes.RuntimeEngine(['zeros'])])
    assert changes[0]['action'] == 'replaced: constant indices' and changes[0]['verified'].startswith('verified')


def test_the_fix_is_verified_under_a_runtime(stand_ins):
    "Each replaced node's Gathers, run by a runtime in a child (onnxruntime here), get its verdict."
    model = str(one_resize(stand_ins, 26, 22, 'half_pixel', 'round_prefer_floor'))
    _, changes = fix_report(model, every=True)
    runtimes.verify_fix_runtimes(model, changes, names=['ort', 'segfault'])
    assert changes[0]['runtimes']['ort'] == 'exact under ort (stand-in 1.0)'
    assert changes[0]['runtimes']['segfault'] == 'crashed (SIGSEGV)'


def test_the_command_line_fix_replaces_a_node_wrong_only_in_a_runtime(stand_ins, capsys, monkeypatch):
    """`audit --fix` with a runtime chosen: 26 -> 52 is exact everywhere but under the stand-in
    'zeros', so the node is replaced without --every, and the runtime ran once for audit and fix;
    `--fix-form slices` writes Slices instead of Gathers; --fix-form alone is a usage error."""
    model = str(one_resize(stand_ins, 26, 52))
    monkeypatch.setenv(runtimes.RUNTIMES_ENV, 'zeros')
    runs = []
    engine = cli_plumbing._TimedEngine  # the command's RuntimeEngine, its runs within --timeout
    counted = engine._count
    monkeypatch.setattr(engine, '_count', lambda self, *a: runs.append(a[0]) or counted(self, *a))
    code, out, _ = run_cli(['audit', model, '--json', '--fix', str(stand_ins / 'exact.onnx')], capsys)
    change = json.loads(out)['fix']['changes'][0]
    assert code == 0 and change['action'] == 'replaced: constant indices' and len(runs) == 1
    code, out, _ = run_cli(['audit', model, '--json', '--fix', str(stand_ins / 'slices.onnx'),
                            '--fix-form', 'slices'], capsys)
    assert code == 0 and json.loads(out)['fix']['changes'][0]['action'] == 'replaced: constant slices'
    code, _, err = run_cli(['audit', model, '--fix-form', 'slices'], capsys)
    assert code == 2 and '--fix-form' in err
