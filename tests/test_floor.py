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
