"""The RNE cast and the cast-plus-correction floor against torch and numpy."""
import numpy as np, torch
from resize_nearest.maps.floor import rne_cast_int32, rne_cast_int, floor_via_cast, check_floor_exhaustive

def test_rne_cast_matches_torch_round_half_even():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-1e6, 1e6, 200000).astype(np.float32), np.arange(-50, 50, 0.5, dtype=np.float32)])
    ref = torch.round(torch.from_numpy(x)).to(torch.int64).numpy()   # torch.round is half-to-even
    np.testing.assert_array_equal(rne_cast_int32(x), ref)

def test_saturation_and_nan():
    x = np.float32([2**31, -2**31 - 1e3, np.inf, -np.inf, np.nan, 1e30])
    assert rne_cast_int32(x).tolist() == [2**31 - 1, -2**31, 2**31 - 1, -2**31, 0, 2**31 - 1]
    assert rne_cast_int(np.float32([255.5, 256.4, -1]), np.uint8).tolist() == [255, 255, 0]

def test_floor_via_cast_random_and_special():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-2**24, 2**24, 10**6), rng.uniform(-4, 4, 10**6)]).astype(np.float32)
    x = np.concatenate([x, np.float32([-0.0, 0.0, 0.5, -0.5, 1.5, 2.5, 2**24, -2**24, 16777215.0, np.nextafter(np.float32(1), 0)])])
    np.testing.assert_array_equal(floor_via_cast(x), np.floor(x))

def test_exhaustive_window_around_integers():
    r = check_floor_exhaustive(2.0**24, lo=2.0**23, progress=False)   # every float32 in [2^23, 2^24], both signs
    assert r['mismatches'] == 0 and r['checked'] == 2 * (2**23 + 1)


def test_the_cast_rounds_up_exactly_where_chapter_1_2_says():
    """Chapter 1.2's rule, held to torch.round (round half to even, an independent oracle): the cast
    is floor + 1 where the fraction is above 1/2, or exactly 1/2 above an odd floor; else the floor."""
    halves = np.arange(-64, 64, 0.5, dtype=np.float32)
    rng = np.random.default_rng(2)
    x = np.concatenate([halves, rng.uniform(-100, 100, 100000).astype(np.float32)])
    floor, fraction = np.floor(x), x - np.floor(x)
    rule = floor + ((fraction > 0.5) | ((fraction == 0.5) & (floor % 2 == 1)))
    np.testing.assert_array_equal(torch.round(torch.from_numpy(x)).numpy(), rule)
    np.testing.assert_array_equal(rne_cast_int32(x), rule)


def test_negative_values_above_minus_one_half_floor_to_minus_one():
    "(-1/2, 0) is where the cast gives 0, one above the floor: the correction must act there."
    x = -np.float32([0.49999997, 0.3, 1e-10, 2.0**-126, 2.0**-149])
    assert rne_cast_int32(x).tolist() == [0] * 5
    assert floor_via_cast(x).tolist() == [-1] * 5


def test_last_index_of_an_upscale_under_a_plain_cast():
    """A plain cast of the last product (out-1)*fl32(in/out): `in` (out of bounds) beyond an
    upscale by two; at exactly two the tie in - 1/2 goes even (in if in is even, else in - 1).
    Expected values from exact rationals, not from the code."""
    from fractions import Fraction
    from resize_nearest.maps.index_map import fp32_scale
    for i in range(1, 200):
        for o in (2 * i, 2 * i + 1, 3 * i, 4 * i + 3):
            product = np.float32(o - 1) * fp32_scale(i, o)
            exact = Fraction(o - 1) * Fraction(i, o)
            assert abs(Fraction(float(product)) - exact) < Fraction(1, 1000)
            want = round(exact)  # Python's round: half to even
            assert int(rne_cast_int32(product)) == want == (i if o > 2 * i or i % 2 == 0 else i - 1)
