"""The memory guard's estimate against what a call holds at its peak, measured with tracemalloc
(NumPy's allocations): a recording (the probes, their outputs, the decoded map) and a whole call on
a large downscale, where the probes, one input's worth of elements each, dominate."""
import tracemalloc

import numpy as np
import pytest

from resize_nearest.host.api import prepare_resize, resize_memory_bytes, resize_nearest
from resize_nearest.host.replay import clear_cache, record, recording_bytes


def peak_bytes(f, *args) -> int:
    "The most bytes NumPy held at once while f(*args) ran (beyond what was held before)."
    tracemalloc.start()
    try:
        f(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize('dtype, shape, out_hw', [
    (np.uint8, (1, 2048, 2048, 3), (64, 64)),  # a large downscale: the probes dominate
    (np.uint8, (2, 540, 960, 3), (540, 960)),  # an identity: the decoded map dominates
    (np.uint16, (1, 1024, 1024, 1), (1500, 700)),
    (np.float32, (1, 512, 512, 3), (1024, 1024)),
])
def test_a_recording_stays_within_its_estimate(dtype, shape, out_hw):
    x = np.ones(shape, dtype)
    x, out_shape, kernel = prepare_resize(x, out_hw)
    peak = peak_bytes(record, kernel, shape, x.dtype, out_shape)
    assert peak <= recording_bytes(shape, out_shape, x.itemsize), peak


def test_a_large_downscale_stays_within_the_memory_it_is_admitted_for():
    """50 million input elements to 4,096 output pixels: the call holds about two bytes per input
    element (the input and one probe), within the estimate that the guard checks."""
    x = np.ones((1, 4096, 4096, 3), np.uint8)
    clear_cache()
    peak = peak_bytes(resize_nearest, x, (64, 64)) + x.nbytes
    clear_cache()
    assert peak <= resize_memory_bytes(x.shape, (1, 64, 64, 3), 1), peak
    assert peak <= 3 * x.nbytes, peak  # no temporaries of the whole input beyond one probe
