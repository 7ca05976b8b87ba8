"""One resize travels as one frozen record (appendix E2a's `Request`), built and checked once by the host
API; below it nothing works the maps out again, and a cold call crosses few module boundaries."""
import dataclasses, json, subprocess, sys
from pathlib import Path

import numpy as np
import pytest

from resize_nearest.host import api

from resize_nearest.maps import plan

from resize_nearest.host import variants
from resize_nearest.host.request import Request, build_request, request_for

ROOT = Path(__file__).resolve().parent.parent

# A cold resize_nearest() call in a fresh interpreter, under sys.setprofile. A crossing is a 'call'
# event whose callee's module (frame.f_globals['__name__']) starts with 'resize_nearest' and differs
# from its caller's. Counting stops at the first call of the backend layer's run entry: replay's
# `run_steps` or `run_resize` (the interpreter, replaying or recording a run) or backend's `run_kernel` (the
# interpreter or the real NKI), whichever comes first; from there on the kernel runs. The profile
# starts after the import, so the count is the call's own work.
COLD_CALL = r'''
import collections, json, sys
import numpy as np
from resize_nearest.kernels import backend
from resize_nearest.maps import plan
from resize_nearest.host import replay
from resize_nearest.host.api import resize_nearest
STOP = {replay.run_steps.__code__, replay.run_resize.__code__, backend.run_kernel.__code__}
MAPS = {plan.kernel_maps.__code__: 'kernel_maps', plan.axis_maps.__code__: 'axis_maps',
        plan.exact_range_problems.__code__: 'exact_range_problems'}
seen = dict(crossings=0, stopped=False, calls=collections.Counter())

def profile(frame, event, arg):
    if event != 'call' or seen['stopped']:
        return
    if frame.f_code in STOP:
        seen['stopped'] = True
        return
    if frame.f_code in MAPS:
        seen['calls'][MAPS[frame.f_code]] += 1
    callee = frame.f_globals.get('__name__', '')
    caller = frame.f_back.f_globals.get('__name__', '') if frame.f_back else ''
    if callee.startswith('resize_nearest') and callee != caller:
        seen['crossings'] += 1

x = np.arange(8 * 8 * 3, dtype=np.float32).reshape(1, 8, 8, 3)
sys.setprofile(profile)
y = resize_nearest(x, (5, 7), backend='cpu')
sys.setprofile(None)
print(json.dumps(dict(seen, shape=list(y.shape))))
'''


@pytest.fixture(scope='module')
def cold_call():
    r = subprocess.run([sys.executable, '-c', COLD_CALL], capture_output=True, text=True, cwd=ROOT,
                       check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_a_cold_call_crosses_modules_at_most_31_times_before_the_kernel_runs(cold_call):
    # 30 before one request served every rank; chapter R4's `plan_steps`, the variant or route
    # choice for any rank, is the one hop that added
    assert cold_call['stopped'] and cold_call['shape'] == [1, 5, 7, 3]
    assert cold_call['crossings'] <= 31, cold_call


def test_a_cold_call_computes_the_axis_maps_and_the_range_once(cold_call):
    calls = cold_call['calls']
    assert calls['kernel_maps'] == 1, calls
    assert calls['exact_range_problems'] == 1, calls


def test_a_call_computes_the_maps_once_in_process(monkeypatch):
    "The same, counted by a wrapper, on a call whose convention is not the compiler's."
    calls = []
    real = plan.kernel_maps

    def counted(*args):
        calls.append(args)
        return real(*args)

    for module in ('maps.plan', 'host.request', 'host.cost_model', 'host.variants', 'host.api'):  # wherever it is imported
        mod = sys.modules[f'resize_nearest.{module}']
        if hasattr(mod, 'kernel_maps'):
            monkeypatch.setattr(mod, 'kernel_maps', counted)
    x = np.arange(2 * 9 * 7 * 2, dtype=np.int16).reshape(2, 9, 7, 2)
    y = api.resize_nearest(x, (5, 11), backend='cpu', coordinate_transformation_mode='half_pixel',
                           nearest_mode='round_prefer_ceil')
    assert len(calls) == 1 and y.shape == (2, 5, 11, 2)


def test_the_record_is_frozen_and_carries_what_the_layers_below_read():
    r = build_request(np.zeros((2, 8, 8, 3), np.uint8), (5, 7), 'half_pixel', 'floor')
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.maps = ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.out_hw = (1, 1)
    assert (r.x_shape, r.out_hw, r.out_shape, r.itemsize) == ((2, 8, 8, 3), (5, 7), (2, 5, 7, 3), 1)
    assert r.convention == ('half_pixel', 'floor') and not r.compiler_map and len(r.maps) == 2
    assert r.axis_maps == r.maps and r.column_map == r.maps[1] and r.range_problems == ()
    compiler = build_request(np.zeros((1, 26, 26, 1), np.float32), (22, 22))
    assert compiler.compiler_map and compiler.maps == () and compiler.axis_maps == ((26, 0, 22), (26, 0, 22))


def test_the_record_made_by_shape_equals_the_one_the_host_builds():
    built = build_request(np.zeros((1, 9, 7, 2), np.int16), (5, 11), 'align_corners', 'ceil')
    by_shape = request_for((1, 9, 7, 2), (5, 11), np.int16, built.maps, built.chip)
    assert by_shape.key == built.key and by_shape.plan == built.plan


def test_variants_read_the_record_and_answer_as_by_shape():
    r = request_for((1, 48, 96, 8), (24, 32), np.float32)
    for name, v in variants.VARIANTS.items():
        assert v.problems(r) == v.problems((1, 48, 96, 8), (24, 32), 4), name
        if not v.problems(r):
            assert v.counts(r) == variants.predict_counts(name, (1, 48, 96, 8), (24, 32)), name


@pytest.mark.parametrize('kwargs, exc, words', [
    (dict(variant=3), TypeError, ['variant must be a string', "'auto'", 'got 3']),
    (dict(variant='fastest'), ValueError, ["variant must be one of", "'rowgather'", "'fastest'"]),
    (dict(backend=None), TypeError, ['backend must be one of', "'cpu'", 'got None']),
    (dict(backend='gpu'), ValueError, ['backend must be one of', "'nki-sim'", "'gpu'"]),
    (dict(nearest_mode='round'), ValueError, ['nearest_mode must be one of', "'ceil'", "'round'"]),
    (dict(coordinate_transformation_mode=1), TypeError,
     ['coordinate_transformation_mode must be a string', "'half_pixel'", 'got 1']),
])
def test_a_bad_name_is_refused_naming_argument_value_and_choices_before_any_work(kwargs, exc, words,
                                                                               monkeypatch):
    def no_work(*args, **kw):
        raise AssertionError('work started before the refusal')

    monkeypatch.setattr(api, 'plan_steps', no_work)
    monkeypatch.setattr(api, 'run_request', no_work)
    with pytest.raises(exc) as e:
        api.resize_nearest(np.zeros((1, 4, 4, 1), np.float32), (2, 2), **kwargs)
    assert all(w in str(e.value) for w in words), str(e.value)


def test_variant_records_take_keywords_only():
    v = variants.VARIANTS['residue']
    fields = {f.name: f.default for f in dataclasses.fields(v)}
    with pytest.raises(TypeError, match='positional'):
        variants.Variant('x', v.kernel, '', True, False, v.own_problems, v.count)
    assert variants.Variant(**{k: getattr(v, k) for k in fields}) == v
