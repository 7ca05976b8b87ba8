"""A runtime child's bad output costs its own row (appendix E4d): only numeric arrays cross from a
child to the parent, which reads them without pickle. The oracle of the other rows is the audit
run without the bad runtime; of the exit status, `--help` (1: an implementation that ran copies a
wrong pixel)."""
import json, os, textwrap
import numpy as np
import pytest

onnx = pytest.importorskip('onnx')
pytest.importorskip('onnxruntime')
from resize_nearest.models import runtimes
from resize_nearest.models.audit import audit_onnx
from resize_nearest.models.runtime_children import Runtime, _case_result, run_cases
from tests.cli_run import run_cli
from tests.test_runtimes import one_resize

STAND_INS = '''
import numpy as np
def versions(): return {'stand-in': '1.0'}
def nothing(path, inputs, work): return [None], {}  # a binding whose to_numpy returns None
def objects(path, inputs, work): return [np.array([{}, []], dtype=object)], {}
def numbers(path, inputs, work): return [np.arange(4, dtype=np.float32)], {}
'''
NAMES = ('nothing', 'objects', 'numbers')


@pytest.fixture
def stand_ins(tmp_path, monkeypatch):
    "Stand-in runtimes in RUNTIMES, their module importable by the child."
    (tmp_path / 'stand_in_bad_outputs.py').write_text(textwrap.dedent(STAND_INS))
    path = os.pathsep.join([str(tmp_path), os.environ.get('PYTHONPATH', '')])
    monkeypatch.setenv('PYTHONPATH', path)
    for name in NAMES:
        rt = Runtime(name, ('numpy',), 'nothing', f'stand_in_bad_outputs:{name}',
                     'stand_in_bad_outputs:versions')
        monkeypatch.setitem(runtimes.RUNTIMES, name, rt)
    return tmp_path


def test_an_output_of_objects_costs_its_case_only(stand_ins):
    case = (b'', [np.zeros(3, np.float32)])
    for name, dtype in (('nothing', 'object'), ('objects', 'object')):
        _, results = run_cases(runtimes.RUNTIMES[name], [case, case], timeout=60)
        assert results == [dict(failed=f'output 0 is not a numeric array (dtype {dtype})')] * 2
    # the twin: numbers cross
    _, (got,) = run_cases(runtimes.RUNTIMES['numbers'], [case], timeout=60)
    assert got['outputs'][0].tolist() == [0, 1, 2, 3]


def test_the_parent_reads_no_pickle(tmp_path):
    "A child that broke the rule: its file of objects is that case's failure, not the parent's."
    np.savez(tmp_path / 'case0_out.npz', np.array([None, 1], dtype=object))
    (tmp_path / 'case0.json').write_text('{}')
    got = _case_result(str(tmp_path), 0, {})
    assert set(got) == {'failed'} and 'allow_pickle' in got['failed']
    np.savez(tmp_path / 'case1_out.npz', np.arange(3))
    (tmp_path / 'case1.json').write_text('{}')
    assert _case_result(str(tmp_path), 1, {})['outputs'][0].tolist() == [0, 1, 2]


def test_the_audit_keeps_every_other_row_and_its_exit_status(stand_ins, capsys, monkeypatch):
    model = str(one_resize(stand_ins))
    engine = runtimes.RuntimeEngine(['nothing'], timeout=60)
    row = audit_onnx(model, engines=[engine])[0]
    assert row.status == 'analysed'
    assert row.wrong['nothing'] == 'output 0 is not a numeric array (dtype object)'
    plain = audit_onnx(model)[0]
    assert {k: v for k, v in row.wrong.items() if k in plain.wrong} == plain.wrong
    monkeypatch.setenv(runtimes.RUNTIMES_ENV, 'none')
    plain_code = run_cli(['audit', model, '--json'], capsys)[0]
    monkeypatch.setenv(runtimes.RUNTIMES_ENV, 'nothing')
    code, out, _ = run_cli(['audit', model, '--json'], capsys)
    assert code == plain_code == 1
    assert json.loads(out)[0]['status'] == 'analysed'


def _declared(tmp_path, out_hw):
    "A one-node model, (1, 1, 2, 2) resized to `out_hw` by constant sizes (218 bytes or so)."
    from onnx import TensorProto, helper
    sizes = helper.make_tensor('sizes', TensorProto.INT64, [4], [1, 1, *out_hw])
    node = helper.make_node('Resize', ['X', '', '', 'sizes'], ['Y'], mode='nearest')
    graph = helper.make_graph(
        [node], 'g', [helper.make_tensor_value_info('X', TensorProto.FLOAT, [1, 1, 2, 2])],
        [helper.make_tensor_value_info('Y', TensorProto.FLOAT, [1, 1, *out_hw])],
        initializer=[sizes])
    path = tmp_path / 'declared.onnx'
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid('', 19)]), path)
    return str(path)


def test_a_declared_output_too_large_is_refused_before_anything_is_made(stand_ins):
    "2^21 x 2^21 elements (8 TiB of int32): the runtimes' probe is refused from the sizes alone."
    engine = runtimes.RuntimeEngine(['numbers'], timeout=60)
    (row,) = audit_onnx(_declared(stand_ins, (1 << 21, 1 << 21)), engines=[engine])
    assert row.wrong['numbers'] == f'not run: {1 << 42} output elements (at most 4194304 for this check)'
    assert row.wrong['onnxruntime'] == row.wrong['numbers']  # the audit's own rows say the same
    # the twin: a small declared output is run (the stand-in's four numbers are a wrong shape)
    (small,) = audit_onnx(_declared(stand_ins, (3, 3)), engines=[engine])
    assert str(small.wrong['numbers']).startswith('wrong output shape')
