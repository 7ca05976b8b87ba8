"""The published kernel's index graph (chapter 1.5): `resize_nearest_published_kernel` on the interpreter
equals its host model `published_load_indices`, and both equal maps computed here independently.

Source of the graph: aws-neuron/nki-samples, src/nki_samples/reference/vision.py at 83a3630
(2025-08-28), `resize_nearest_fixed_dma_kernel` lines 194-227: row `nl.floor(output_pos_iota / out_w)`
(line 219), column `nl.mod(output_pos_iota, out_w)` (line 220), per axis
`nl.floor(nl.multiply(index, 1.0 * in / out, dtype=nl.float32))` (lines 223-224), load index
`src_h_idx * in_w + src_w_idx` (line 227). Numerics assumed (shared/reference/nki-api.md §3): the ALU
computes in float32 with a float32-rounded scalar; the quotient is one rounded float32 division.
Oracles: a pixel-by-pixel float32 computation written below with NumPy float32 scalars; the integer
map floor(d * in / out); PyTorch's own `nearest` on float32 input (ATen UpSample.h `nearest_idx`:
a float scale, floor of the float product); and the map the public unit test's golden result builds
(test/unit/test_resize_nearest.py at 23835a5, lines 19-22)."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from resize_nearest.kernels import backend
from resize_nearest.kernels.gather import (
    published_load_indices,
    resize_nearest_fixed_dma_kernel,
    resize_nearest_published_kernel,
)
from resize_nearest.maps.index_map import load_indices
from resize_nearest.nki_cpu.frontend import check_kernel

SIZES = [  # (in_h, in_w, out_h, out_w)
    (224, 224, 192, 192), (26, 26, 22, 22), (7, 7, 41, 41), (30, 20, 59, 38), (6, 5, 13, 11),
    (7, 47, 41, 47), (7, 55, 41, 55), (13, 3, 5, 200), (1, 1, 3, 129), (50, 9, 17, 128),
]


def float32_by_pixel(in_h, in_w, out_h, out_w) -> np.ndarray:
    "The published graph one pixel at a time, in NumPy float32 scalars (IEEE: each op rounded once)."
    h_scale = np.float32(1.0 * in_h / out_h)
    w_scale = np.float32(1.0 * in_w / out_w)
    flat = []
    for p in range(out_h * out_w):
        row = math.floor(np.float32(p) / np.float32(out_w))
        col = p % out_w
        src_h = math.floor(np.float32(row) * h_scale)
        src_w = math.floor(np.float32(col) * w_scale)
        flat.append(src_h * in_w + src_w)  # below 2^24: the float32 product is exact
    return np.array(flat, dtype=np.int64)


def integer_map(in_h, in_w, out_h, out_w) -> np.ndarray:
    "floor(d * in / out) per axis in integers: the exact map."
    oh, ow = np.divmod(np.arange(out_h * out_w, dtype=np.int64), out_w)
    return (oh * in_h) // out_h * in_w + (ow * in_w) // out_w


def index_image(batch, channels, in_h, in_w) -> np.ndarray:
    "Pixels that carry their flat index (+ 1000 per channel, + 100000 per image), exact in float32."
    pixel = np.arange(in_h * in_w, dtype=np.float32).reshape(1, in_h, in_w, 1)
    channel = 1000 * np.arange(channels, dtype=np.float32)
    image = 100000 * np.arange(batch, dtype=np.float32).reshape(batch, 1, 1, 1)
    return pixel + channel + image


def run_published(in_h, in_w, out_h, out_w, batch=1, channels=1) -> np.ndarray:
    x = index_image(batch, channels, in_h, in_w)
    shape = (batch, out_h, out_w, channels)
    return backend.run_kernel(resize_nearest_published_kernel, x, shape, backend='cpu')


@pytest.mark.parametrize('size', SIZES)
def test_host_model_is_the_float32_graph_pixel_by_pixel(size):
    np.testing.assert_array_equal(published_load_indices(*size), float32_by_pixel(*size))


@pytest.mark.parametrize('size', SIZES)
def test_kernel_on_the_interpreter_equals_the_host_model(size):
    y = run_published(*size)[0, ..., 0].reshape(-1).astype(np.int64)
    np.testing.assert_array_equal(y, published_load_indices(*size))
    np.testing.assert_array_equal(y, float32_by_pixel(*size))


def test_every_image_and_channel_is_gathered():
    y = run_published(26, 26, 22, 22, batch=2, channels=3)
    flat = float32_by_pixel(26, 26, 22, 22).reshape(22, 22)
    for b in range(2):
        for c in range(3):
            np.testing.assert_array_equal(y[b, ..., c], flat + 1000 * c + 100000 * b)


def test_random_sizes_agree_with_the_pixel_by_pixel_graph():
    rng = np.random.default_rng(7)
    for in_h, in_w, out_h, out_w in rng.integers(1, 60, size=(12, 4)):
        size = (int(in_h), int(in_w), int(out_h), int(out_w))
        y = run_published(*size)[0, ..., 0].reshape(-1).astype(np.int64)
        np.testing.assert_array_equal(y, float32_by_pixel(*size), err_msg=str(size))


@pytest.mark.parametrize('size', [(224, 224, 192, 192), (30, 20, 59, 38), (7, 7, 41, 41),
                                  (720, 720, 224, 224), (13, 40, 7, 97)])
def test_the_map_is_pytorchs_nearest_on_float32(size):
    in_h, in_w, out_h, out_w = size
    x = torch.arange(in_h * in_w, dtype=torch.float32).reshape(1, 1, in_h, in_w)
    ref = F.interpolate(x, size=(out_h, out_w), mode='nearest').reshape(-1).long().numpy()
    np.testing.assert_array_equal(published_load_indices(*size), ref)


def test_the_quotient_floors_to_the_integer_row_below_two_to_the_24():
    """floor(fl32(p) / fl32(w)) == p // w at and just below multiples k * w <= 2^24: every k for a
    few widths, and the first and last 200 for every width to 4,096 and some wider ones."""
    for w in [*range(1, 4097), 65535, 65536, 2**20 + 1, 2**24 - 1, 2**24]:
        last = 2**24 // w
        k = np.arange(1, last + 1) if w in (41, 1000) else np.r_[1:min(200, last) + 1,
                                                                 max(1, last - 200):last + 1]
        p = np.concatenate([k * w - 1, k * w]).astype(np.int64)
        p = p[p < 2**24]
        quotient = np.floor(p.astype(np.float32) / np.float32(w)).astype(np.int64)
        np.testing.assert_array_equal(quotient, p // w, err_msg=f'w={w}')


def test_it_shares_the_float32_scale_failures_and_not_the_row_split():
    for size in [(224, 224, 192, 192), (720, 720, 224, 224), (26, 26, 22, 22)]:
        exact = integer_map(*size)
        published_wrong = float32_by_pixel(*size) != exact
        described_wrong = load_indices(size[:2], size[2:], 'as_compiled') != exact
        assert published_wrong.any()
        np.testing.assert_array_equal(published_wrong, described_wrong)
    for w in (41, 47, 55, 61, 82, 83):  # widths whose float32 reciprocal splits rows wrong
        exact = integer_map(7, w, 41, w)
        assert (load_indices((7, w), (41, w), 'as_compiled') != exact).any()
        y = run_published(7, w, 41, w)[0, ..., 0].reshape(-1).astype(np.int64)
        np.testing.assert_array_equal(y, exact)


def test_the_described_kernel_differs_where_the_models_say():
    x = index_image(1, 1, 7, 7)
    described = backend.run_kernel(resize_nearest_fixed_dma_kernel, x, (1, 41, 41, 1), backend='cpu')
    published = run_published(7, 7, 41, 41)
    differ = (described != published).reshape(-1)
    models = load_indices((7, 7), (41, 41), 'as_compiled') != published_load_indices(7, 7, 41, 41)
    np.testing.assert_array_equal(differ, models)
    assert differ.any()


def golden_map_of_the_unit_test(in_h, in_w, out_h, out_w) -> np.ndarray:
    "The map test_resize_nearest.py's golden result builds (23835a5 lines 19-22), our code."
    rows, cols = np.indices((out_h, out_w), dtype=np.float32)
    h_map = np.floor(rows * (1.0 * in_h / out_h))  # a Python float: NumPy keeps float32
    w_map = np.floor(cols * (1.0 * in_w / out_w))
    return (h_map * in_w + w_map).astype(np.int32).reshape(-1)


@pytest.mark.parametrize('size', [(30, 20, 59, 38), (224, 224, 192, 192), (720, 720, 224, 224)])
def test_the_unit_tests_golden_builds_the_same_map(size):
    golden = golden_map_of_the_unit_test(*size)
    assert golden.dtype == np.int32
    np.testing.assert_array_equal(golden, published_load_indices(*size))


def test_the_unit_tests_only_shape_is_exact_in_float32():
    np.testing.assert_array_equal(float32_by_pixel(30, 20, 59, 38), integer_map(30, 20, 59, 38))


def test_the_kernel_is_inside_the_nki_subset():
    names = [f.__name__ for f in check_kernel(resize_nearest_published_kernel)]
    assert names[0] == 'resize_nearest_published_kernel' and 'floor_div' in names


def test_bad_sizes_are_refused_by_name():
    with pytest.raises(TypeError, match='in_h must be a positive integer, got 7.0'):
        published_load_indices(7.0, 7, 41, 41)
    with pytest.raises(ValueError, match='out_w must be a positive integer, got 0'):
        published_load_indices(7, 7, 41, 0)
    with pytest.raises(ValueError, match=r'out_h \* out_w is 16785409 output pixels; at most'):
        published_load_indices(7, 7, 4097, 4097)
    published_load_indices(1, 1, 4096, 4096)  # 2^24 pixels: still inside


def test_the_kernel_asserts_its_range():
    with pytest.raises(AssertionError, match='at most 2'):
        backend.run_kernel(resize_nearest_published_kernel, np.zeros((1, 1, 1, 1), np.float32),
                           (1, 4097, 4097, 1), backend='cpu')
