"""Index maps against independent implementations: Python integers, struct-free float32 via torch, real PyTorch."""
import numpy as np, pytest, torch, torch.nn.functional as F
from resize_nearest.maps.index_map import src_index_exact, src_index_fp32, load_indices, first_row_failures, fp32_mismatch_counts

def test_exact_matches_python_integers():
    rng = np.random.default_rng(0)
    for _ in range(300):
        i, o = (int(v) for v in rng.integers(1, 5000, 2))
        d = np.arange(o)
        assert src_index_exact(d, i, o).tolist() == [k * i // o for k in range(o)]

def _torch_nearest(i, o):
    x = torch.arange(i, dtype=torch.float32).view(1, 1, i)
    return F.interpolate(x, size=o, mode='nearest').view(-1).to(torch.int64).numpy()

def test_fp32_matches_torch_wide_sweep():
    rng = np.random.default_rng(1)
    pairs = [(int(a), int(b)) for a, b in rng.integers(1, 2049, (3000, 2))] + [(26, 22), (2, 82), (224, 192), (720, 224)]
    for i, o in pairs:
        np.testing.assert_array_equal(_torch_nearest(i, o), src_index_fp32(np.arange(o), i, o), err_msg=f'{i}->{o}')

def test_fp32_differs_from_exact_exactly_where_torch_does():
    for i, o in [(26, 22), (2, 82), (224, 192), (14, 46)]:
        t, e = _torch_nearest(i, o), src_index_exact(np.arange(o), i, o)
        assert (t != e).any()
        np.testing.assert_array_equal(t != e, src_index_fp32(np.arange(o), i, o) != e)

def test_2d_nhwc_torch_equals_flat_map_where_rows_are_right():
    rng = np.random.default_rng(2)
    bad_w = set(first_row_failures(256).tolist())
    for _ in range(60):
        ih, iw, oh, ow = (int(v) for v in rng.integers(1, 200, 4))
        x = torch.arange(ih * iw, dtype=torch.float32).view(1, 1, ih, iw)
        t = F.interpolate(x, size=(oh, ow), mode='nearest').view(-1).to(torch.int64).numpy()
        ac = load_indices((ih, iw), (oh, ow), 'as_compiled')
        if ow in bad_w: assert (t != ac).any()
        else: np.testing.assert_array_equal(t, ac)

def test_row_failures_independent():
    # float32 arithmetic done by torch, not numpy
    w = torch.arange(1, 2049, dtype=torch.float32)
    fails = torch.nonzero(torch.floor(w * (1.0 / torch.arange(1, 2049, dtype=torch.float64)).to(torch.float32)) < 1).view(-1) + 1
    assert fails.tolist() == first_row_failures(2048).tolist()
    assert len(fails) == 280

def test_exact_load_indices_against_loops():
    for in_hw, out_hw in [((30, 20), (59, 38)), ((7, 3), (2, 11)), ((1, 1), (3, 4))]:
        ref = [(oh * in_hw[0] // out_hw[0]) * in_hw[1] + ow * in_hw[1] // out_hw[1] for oh in range(out_hw[0]) for ow in range(out_hw[1])]
        assert load_indices(in_hw, out_hw).tolist() == ref

def test_mismatch_counts_against_direct_comparison():
    c = fp32_mismatch_counts(60, progress=False)
    for i in range(1, 61):
        for o in range(1, 61):
            d = np.arange(o)
            assert c[i - 1, o - 1] == int((src_index_fp32(d, i, o) != src_index_exact(d, i, o)).sum())

@pytest.mark.parametrize('bad, msg', [((1.5, 2), 'in_size'), ((2, 0), 'out_size'), ((True, 2), 'in_size')])
def test_bad_sizes(bad, msg):
    with pytest.raises((TypeError, ValueError), match=msg): src_index_exact(np.arange(3), *bad)


def test_ties_on_the_7_6_ray_round_to_the_even_integer():
    """Chapter 1.1: on 224 -> 192, where d*7/6 is an integer the exact product d*fl32(7/6) falls
    short of it; it is a tie with the float32 number below exactly at d = 6 * 2^j, rounded to the
    even integer, and past the tie at d = 54, 102, 108, the wrong indices. Held against Python's
    exact fractions and IEEE 754 round-to-nearest-even, written out here."""
    from fractions import Fraction
    scale = Fraction(float(np.float32(224 / 192)))
    ties, past = [], []
    for d in range(6, 192, 6):
        k = 7 * d // 6
        below = Fraction(float(np.nextafter(np.float32(k), np.float32(0))))
        shortfall, half = k - d * scale, (k - below) / 2
        (ties if shortfall == half else past if shortfall > half else []).append(d)
        # round to nearest, ties to the even significand: the integer's, never the one below
        assert (np.float32(d) * np.float32(224 / 192) == k) == (shortfall <= half), d
    assert (ties, past) == ([6, 12, 24, 48, 96], [54, 102, 108])
    wrong = np.flatnonzero(src_index_fp32(np.arange(192), 224, 192) != np.arange(192) * 224 // 192)
    assert wrong.tolist() == past


@pytest.mark.parametrize('in_w, want', [(7, (1, 0)), (2, (0, 1))])
def test_column_past_the_row_boundary_rounds_either_way(in_w, want):
    """41 -> 41 wide puts p = 41 in row 0, column 41: the float32 source column rounds up to in_w
    (7: the next source row's first pixel) or stays below it (2: the same row's last pixel)."""
    got = int(load_indices((in_w, in_w), (41, 41), 'as_compiled')[41])
    assert divmod(got, in_w) == want
    assert load_indices((in_w, in_w), (41, 41))[41] == 0
