"""Scales at the edges of what a number can hold: a tiny or huge float32 scale with the output
size given, and scales beyond float32 (an int or a Fraction past 1e38). Each either resizes as the
NumPy reference does or is refused with a ValueError naming `scales`, never an OverflowError."""
from fractions import Fraction

import numpy as np
import pytest

from resize_nearest.host.api import check_scales, resize_nearest, resize_nearest_reference
from resize_nearest.host.cost_model import axis_sources
from resize_nearest.maps.nearest_modes import COORDINATE_MODES, NEAREST_MODES

CONVENTIONS = [(m, r) for m in COORDINATE_MODES[:-1] for r in NEAREST_MODES]


@pytest.mark.parametrize('mode, rounding', CONVENTIONS)
@pytest.mark.parametrize('shape, out_hw, scales', [
    ((1, 1, 1, 1), (1, 1), (1e-30, 1e-30)),
    ((1, 3, 5, 2), (300, 2), (1e30, 1e30)),
    ((1, 3, 5, 2), (4, 7), (1e-30, 1e30)),
])
def test_extreme_float32_scales_with_sizes_resize_as_the_reference(shape, out_hw, scales, mode,
                                                                    rounding):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    kw = dict(scales=scales, coordinate_transformation_mode=mode, nearest_mode=rounding)
    expected = resize_nearest_reference(x, out_hw, **kw)
    np.testing.assert_array_equal(resize_nearest(x, out_hw, backend='cpu', **kw), expected)


def test_axis_sources_of_a_map_beyond_int64_are_clamped_exactly():
    "a = 10^35: the products leave int64, the clamped sources do not (in_size 3: 0, 2, 2)."
    np.testing.assert_array_equal(axis_sources(3, 3, (10**35, 0, 7)), [0, 2, 2])
    np.testing.assert_array_equal(axis_sources(3, 2, (1, 0, 10**30)), [0, 0])


@pytest.mark.parametrize('scales', [
    (10**400, 1), (1, 10**400), (Fraction(10**400), 1), (Fraction(10**39), 1), (np.inf, 1),
])
@pytest.mark.parametrize('out_hw', [None, (2, 2)])
def test_scales_beyond_float32_are_refused_by_name(scales, out_hw):
    x = np.ones((1, 2, 2, 1), np.float32)
    for f in (resize_nearest, resize_nearest_reference):
        with pytest.raises(ValueError, match='scales must be positive and finite'):
            f(x, out_hw, scales=scales)
    with pytest.raises(ValueError, match=r'got \((1|Fraction|inf)'):
        check_scales(scales)


def test_the_largest_float32_scale_and_a_tiny_fraction_are_kept():
    big = float(np.finfo(np.float32).max)
    assert check_scales((big, Fraction(1, 10**400))) == (big, Fraction(1, 10**400))
