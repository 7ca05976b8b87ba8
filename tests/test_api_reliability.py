"""The host API's request under a chip, under threads and against changes: one chip per call, from
one place; bounded caches that stay whole with 16 threads switching every microsecond; a frozen
record frozen all the way down."""
import sys, threading

import numpy as np
import pytest

from resize_nearest import nki_cpu
from resize_nearest.host import api, variants
from resize_nearest.host.request import build_request

X = np.random.default_rng(0).random((2, 26, 26, 3), dtype=np.float32)
# the exact map of 26 -> 22 (floor(d * 26 / 22)), independent of the package's maps
ROWS = [d * 26 // 22 for d in range(22)]


def test_auto_under_a_target_chip_chooses_for_that_chip_and_runs():
    # trn1 is NeuronCore-v2: no indirect DMA (aws-neuron-sdk v2.29.1 nki/deep-dives/nki-dge.rst:169-173)
    with nki_cpu.target_chip('trn1'):
        y = api.resize_nearest(X, (22, 22))
    np.testing.assert_array_equal(y, X[:, ROWS][:, :, ROWS])
    assert variants.choose_variant(X.shape, (22, 22), chip='trn1') == 'residue'


@pytest.mark.parametrize('variant', ['exact', 'hoisted', 'rowgather', 'as_compiled'])
def test_a_variant_the_chip_cannot_run_is_refused_before_any_work(variant, monkeypatch):
    def no_work(*args, **kw):
        raise AssertionError('a kernel ran before the refusal')

    monkeypatch.setattr(api, 'run_request', no_work)
    with nki_cpu.target_chip('trn1'), pytest.raises(ValueError) as e:
        api.resize_nearest(X, (22, 22), variant=variant)
    words = [repr(variant), 'trn1', 'indirect DMA']
    assert all(w in str(e.value) for w in words), str(e.value)


def test_the_request_takes_its_chip_from_the_argument_else_the_target_chip():
    with nki_cpu.target_chip('trn1'):
        assert build_request(X, (22, 22)).chip == 'trn1'
        assert build_request(X, (22, 22), chip='trn3').chip == 'trn3'
    assert build_request(X, (22, 22)).chip == 'trn2'  # nki_cpu's default target


def test_the_frozen_request_is_frozen_all_the_way_down():
    r = build_request(X, (22, 22), chip='trn2')
    with pytest.raises(TypeError):
        r.chip_row['sbuf'] = 0
    assert r.chip_row['sbuf'] == 224 * 1024  # trainium2_arch.rst:39 (aws-neuron-sdk v2.29.1)
    for name in ('x_shape', 'out_hw', 'maps', 'axis_maps', 'range_problems', 'key'):
        assert isinstance(getattr(r, name), tuple), name


def test_plan_and_cost_caches_hold_under_16_threads_switching_every_microsecond():
    shapes = [(1, h, w, 1) for h in range(2, 40) for w in range(2, 40)]  # 1,444 > the 1,024 kept
    errors = []

    def work(part):
        for shape in part:
            try:
                api.prepare_request(build_request(np.zeros(shape, np.uint8), (3, 5)), 'auto')
            except Exception as e:  # what a race raises: KeyError, RuntimeError (dict size)
                errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(shapes[k::16],)) for k in range(16)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []
    held = api._plans.cache_info()
    assert held.currsize <= held.maxsize == 1024


def test_a_4k_identity_resize_holds_a_small_multiple_of_its_output():
    "2160x3840x3 uint8 to the same size: 24.9 MB out; the first call's peak stays within 8x that."
    import tracemalloc
    from resize_nearest.host.replay import clear_cache

    x = np.random.default_rng(1).integers(0, 256, (1, 2160, 3840, 3), dtype=np.uint8)
    clear_cache()
    tracemalloc.start()
    try:
        y = api.resize_nearest(x, (2160, 3840), backend='cpu')
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(y, x)  # the identity map: every pixel its own
    assert peak <= 8 * y.nbytes, f'{peak / 2**20:.0f} MiB at the peak for {y.nbytes / 2**20:.0f} MiB out'
