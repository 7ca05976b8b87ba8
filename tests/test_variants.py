"""Hoisted, strided and residue variants against the integer map; predicted counts against the interpreter; auto's choice."""
import numpy as np, pytest
from resize_nearest import resize_nearest
from resize_nearest.maps.plan import width_ratio
from resize_nearest.host.variants import predict_counts, choose_variant, exact_options, VARIANTS
from resize_nearest.studies.benchmark import measured_counts
from samples import ACROSS_2_23, sample_pairs

def ref(x, o):
    return x[:, [i * x.shape[1] // o[0] for i in range(o[0])]][:, :, [j * x.shape[2] // o[1] for j in range(o[1])]]

def test_hoisted_sweep():
    rng = np.random.default_rng(0)
    for ih in range(1, 13):
        for oh in range(1, 13):
            x = rng.integers(0, 99, (2, ih, 20, 2)).astype(np.int32)
            for ow in (1, 7, 20, 41, 130, 257):
                np.testing.assert_array_equal(resize_nearest(x, (oh, ow), variant='hoisted'), ref(x, (oh, ow)))

def check_square_pairs(variant, pairs, channels=2, dtype=np.int16, batch=2, seed=4):
    "n x n -> m x m on the interpreter for each (n, m) in pairs, against Python-integer indexing."
    rng = np.random.default_rng(seed)
    for i, o in pairs:
        x = rng.integers(0, min(2**15, np.iinfo(dtype).max), (batch, i, i, channels)).astype(dtype)
        np.testing.assert_array_equal(resize_nearest(x, (o, o), variant=variant, backend='cpu'), ref(x, (o, o)), err_msg=f'{i} -> {o}')

PAIRS_TO_48 = [(i, o) for i in range(1, 49) for o in range(1, 49)]

@pytest.mark.slow
def test_residue_every_pair_to_48():
    "Every (in, out) pair 1..48 on both axes at once (square images), against Python-integer indexing."
    check_square_pairs('residue', PAIRS_TO_48)

def test_residue_on_the_failure_families_and_non_square_pairs():
    "The fast tier's share of the sweep above, and non-square pairs."
    check_square_pairs('residue', sample_pairs(48, 24, seed=4))
    rng = np.random.default_rng(4)
    for ih, iw, oh, ow in [(1, 48, 48, 1), (48, 1, 1, 48), (7, 30, 59, 38), (1080 // 8, 1920 // 8, 720 // 8, 1280 // 8)]:
        x = rng.integers(0, 99, (1, ih, iw, 3)).astype(np.uint8)
        np.testing.assert_array_equal(resize_nearest(x, (oh, ow), variant='residue', backend='cpu'), ref(x, (oh, ow)))

def test_residue_counts_and_no_size_limit():
    from resize_nearest import nki_cpu
    x = np.zeros((1, 512, 512, 64), np.float32)
    with nki_cpu.counting() as c: resize_nearest(x, (768, 768), variant='residue', backend='cpu')
    s = c.summary()
    assert s['dma_transfers'] == 9 and s['compute_instructions'] == 0


# A forced variant over the program budget warns (chapter R2) and still runs: these tests force such
# variants on purpose, to hold them at their limits.
OVER_BUDGET = pytest.mark.filterwarnings('ignore:variant .* over the program budget:RuntimeWarning')

@OVER_BUDGET
@pytest.mark.parametrize('variant', ['exact', 'hoisted', 'strided', 'residue', 'rowgather', 'auto'])
def test_every_variant_at_the_axis_limit(variant):
    "65535 -> 1 and 1 -> 65535, rows and columns, small channel counts."
    for x, out in [(np.arange(65535, dtype=np.uint16).reshape(1, 1, 65535, 1), (1, 1)), (np.arange(65535, dtype=np.uint16).reshape(1, 65535, 1, 1), (1, 1)),
                   (np.arange(3, dtype=np.uint16).reshape(1, 1, 3, 1), (1, 65535)), (np.arange(3, dtype=np.uint16).reshape(1, 3, 1, 1), (65535, 1)),
                   (np.arange(2 * 65535, dtype=np.int32).reshape(1, 2, 65535, 1), (3, 65533))]:
        if variant == 'strided' and x.shape[2] % out[1] and out[1] % x.shape[2]: continue
        if variant == 'rowgather' and (x.shape[2] + out[1]) * x.itemsize > 160 * 1024:
            with pytest.raises(ValueError, match="variant 'rowgather' needs"): resize_nearest(x, out, variant=variant)
            continue
        np.testing.assert_array_equal(resize_nearest(x, out, variant=variant, backend='cpu'), ref(x, out))

@pytest.mark.slow
@OVER_BUDGET
@pytest.mark.parametrize('variant', ['exact', 'hoisted', 'strided', 'residue', 'rowgather', 'auto'])
def test_every_variant_on_random_shapes_up_to_4096(variant):
    "Three random shapes with sides up to 4096 (and at most 4096^3 for in_h*in_w*out_h*out_w)."
    rng = np.random.default_rng(7)
    ran = 0
    while ran < 3:
        ih, iw, oh, ow = (int(v) for v in rng.integers(1, 4097, 4))
        if ih * iw * oh * ow > 4096 ** 3 or (variant == 'exact' and oh * ow > 2**20): continue
        if variant == 'strided' and iw % ow and ow % iw: ow = iw
        x = rng.integers(0, 255, (1, ih, iw, 1)).astype(np.uint8)
        np.testing.assert_array_equal(resize_nearest(x, (oh, ow), variant=variant, backend='cpu'), ref(x, (oh, ow)))
        ran += 1

DOWN_8K, UP_8K = ((4320, 7680), (2160, 3840)), ((2160, 3840), (4320, 7680))

# The flat kernels (exact, hoisted) interpret one gather per 128 output pixels: on the 33-million-
# pixel 8K upscale that is minutes, so they run the downscale; they are also held at the 65,535
# axis limit above. The row-based variants run both.
@pytest.mark.slow
@OVER_BUDGET
@pytest.mark.parametrize('variant, in_hw, out_hw', [
    *[(v, *DOWN_8K) for v in ('exact', 'hoisted', 'strided', 'residue', 'rowgather')],
    *[(v, *UP_8K) for v in ('strided', 'residue', 'rowgather')]])
def test_4k_sizes(variant, in_hw, out_hw):
    "Exact variants on full 8K <-> 4K images (one uint16 channel)."
    x = (np.arange(in_hw[0] * in_hw[1], dtype=np.int64) % 65521).astype(np.uint16).reshape(1, *in_hw, 1)
    np.testing.assert_array_equal(resize_nearest(x, out_hw, variant=variant, backend='cpu'), ref(x, out_hw))

def test_strided_all_integer_width_ratios():
    rng = np.random.default_rng(1)
    n = 0
    for iw in range(1, 25):
        for ow in range(1, 25):
            if width_ratio(iw, ow)[0] == 'none': continue
            x = rng.integers(0, 99, (2, 5, iw, 3)).astype(np.uint8)
            for oh in (1, 5, 9):
                np.testing.assert_array_equal(resize_nearest(x, (oh, ow), variant='strided'), ref(x, (oh, ow))); n += 1
    assert n > 150
    x = rng.integers(0, 99, (1, 3, 300, 1)).astype(np.int8)                  # several partition tiles
    for ow in (100, 150, 600, 900): np.testing.assert_array_equal(resize_nearest(x, (4, ow), variant='strided'), ref(x, (4, ow)))
    with pytest.raises(ValueError, match='integer width ratio'): resize_nearest(x, (4, 7), variant='strided')

CASES = [((2, 30, 20, 3), (59, 38)), ((1, 40, 40, 2), (80, 80)), ((3, 9, 260, 1), (4, 130)), ((1, 7, 7, 70000 // 4), (9, 3)),
         ((2, 26, 26, 5), (22, 22)), ((1, 3, 700, 40), (4, 1400)), ((1, 9, 256, 3), (5, 128)), ((2, 5, 300, 7), (13, 41)),
         ((1, 30, 20, 700), (59, 38)), ((1, 30, 20, 1280), (59, 38))]

# these NHWC shapes have few rows of many pixels, which the host API's layout check flags as possibly NCHW
NHWC_AS_MEANT = pytest.mark.filterwarnings('ignore:x of shape:UserWarning')

@NHWC_AS_MEANT
@pytest.mark.parametrize('x_shape, out_hw', CASES)
def test_predicted_counts_equal_measured(x_shape, out_hw):
    "Every count of the cost model (instructions and elements per engine, transfers, descriptors by size, bytes) equals the interpreter's."
    for v in VARIANTS:
        if VARIANTS[v].problems(x_shape, out_hw):
            continue                                      # strided without an integer ratio, rowgather without room
        p = predict_counts(v, x_shape, out_hw)
        m = measured_counts(v, x_shape, out_hw)
        counters = set(p) - {'hbm_bytes'}                 # hbm_bytes is the time model's, not a counter
        assert {k: m[k] for k in counters} == {k: p[k] for k in counters}, v
        assert p['dma_descriptors'] > 0 and sum(p['descriptor_bytes'].values()) == p['dma_descriptors']

def test_auto_choice():
    "auto takes the lowest modelled trn2 time (chapter R2), ties to fewer DMA transfers."
    from resize_nearest.host.cost_model import predict_time
    time_of = lambda v, shape, out: predict_time(predict_counts(v, shape, out), shape, out)
    from resize_nearest.maps.plan import rowgather_fits
    assert choose_variant((1, 1080, 1920, 3), (720, 1280), np.uint8) == 'rowgather'   # 3-byte pixels: only whole rows make big descriptors
    for shape, out in [((1, 512, 512, 64), (768, 768)), ((2, 224, 224, 3), (192, 192)), ((1, 7, 7, 8), (41, 41)), ((10, 30, 20, 1280), (59, 38))]:
        options = ['exact', 'hoisted', 'residue'] + (['rowgather'] if rowgather_fits(shape[2], out[1], shape[3], 4) else [])
        best = min(time_of(v, shape, out)['seconds'] for v in options)
        assert time_of(choose_variant(shape, out), shape, out)['seconds'] == best

def test_auto_respects_the_program_budget():
    "auto never picks a variant whose traced program passes PROGRAM_BUDGET, and says so when none fits."
    from resize_nearest.host.cost_model import PROGRAM_BUDGET
    for shape, out in [((1, 512, 512, 64), (768, 768)), ((1, 4320, 7680, 1), (2160, 3840)), ((1, 1080, 1920, 3), (719, 1279))]:
        sizes = {v: predict_counts(v, shape, out)['traced_instructions'] for v in exact_options(shape, out)}
        fits = [v for v, n in sizes.items() if n <= PROGRAM_BUDGET]
        if fits:
            assert choose_variant(shape, out) in fits
        else:
            with pytest.raises(ValueError, match='PROGRAM_BUDGET'):
                choose_variant(shape, out)
    # a coprime 4K resize: exact traces ~10^6 instructions, residue one DMA per output pixel pair of residues
    sizes = {v: predict_counts(v, (1, 2160, 3840, 1), (2159, 3839))['traced_instructions'] for v in ('exact', 'residue')}
    assert min(sizes.values()) > PROGRAM_BUDGET

@pytest.mark.slow
def test_rowgather_every_square_pair_to_48_in_rgb():
    check_square_pairs('rowgather', PAIRS_TO_48, channels=3, dtype=np.uint8, seed=9)

@NHWC_AS_MEANT
def test_rowgather_small_channels():
    "A sample of square pairs (RGB uint8), and 1080p -> 720p: descriptors of >= 512 bytes carry >= 95% of the bytes."
    from resize_nearest import nki_cpu
    check_square_pairs('rowgather', sample_pairs(48, 24, seed=9), channels=3, dtype=np.uint8, seed=9)
    rng = np.random.default_rng(9)
    x = rng.integers(0, 255, (1, 1080, 1920, 3)).astype(np.uint8)
    with nki_cpu.counting() as c: y = resize_nearest(x, (720, 1280), variant='rowgather', backend='cpu')
    s = c.summary()
    np.testing.assert_array_equal(y, ref(x, (720, 1280)))
    assert s['dma_bytes_in_512B_descriptors'] >= 0.95 * s['dma_bytes'] and s['dma_transfers'] == 12
    p = predict_counts('rowgather', x.shape, (720, 1280), np.uint8)
    p.pop('hbm_bytes')                                    # the time model's, not a counter
    assert {k: s[k] for k in p} == p
    with pytest.raises(ValueError, match="variant 'rowgather' needs"): resize_nearest(np.zeros((1, 2, 1999, 64), np.float32), (2, 1280), variant='rowgather')
    x = rng.random((1, 3, 700, 40), dtype=np.float32)                     # rows wider than a partition: column chunks
    for ow in (500, 1400, 2100): np.testing.assert_array_equal(resize_nearest(x, (5, ow), variant='rowgather'), ref(x, (5, ow)))

def integer_ratio_pairs(pairs):
    "The pairs the strided variant takes: one size divides the other."
    return [(i, o) for i, o in pairs if i % o == 0 or o % i == 0]

@pytest.mark.slow
@pytest.mark.parametrize('variant', ['hoisted', 'strided', 'auto'])
def test_every_square_pair_to_48(variant):
    "n x n -> m x m for every n, m in 1..48 (strided: the pairs with an integer ratio), against Python-integer indexing."
    pairs = integer_ratio_pairs(PAIRS_TO_48) if variant == 'strided' else PAIRS_TO_48
    check_square_pairs(variant, pairs, batch=1, seed=11)

@pytest.mark.parametrize('variant', ['hoisted', 'strided', 'auto'])
def test_square_pairs_on_the_failure_families(variant):
    "The fast tier's share of the sweep above (strided: its integer ratios, 1..48 each way from 1, 2 and 48)."
    pairs = sample_pairs(48, 24, seed=11)
    if variant == 'strided':
        pairs = integer_ratio_pairs(pairs + [(n, k) for n in (1, 2, 48) for k in range(1, 49)])
    check_square_pairs(variant, pairs, batch=1, seed=11)

@pytest.mark.parametrize('variant', ['exact', 'hoisted', 'residue', 'rowgather', 'auto'])
def test_every_exact_variant_across_2_23(variant):
    "Rows and columns whose products d * in cross 2^23, where the float32 estimate's error changes sign."
    for i, o in ACROSS_2_23:
        for shape, out in [((1, 1, i, 1), (1, o)), ((1, i, 1, 1), (o, 1))]:
            x = np.arange(i, dtype=np.int32).reshape(shape)
            np.testing.assert_array_equal(resize_nearest(x, out, variant=variant, backend='cpu'), ref(x, out))

# --- the cast rounding: every exact variant must not depend on how float -> int casts round -----------
ROUNDINGS = ('rne', 'trunc', 'floor')
from resize_nearest.kernels.backend import nl, nisa
from resize_nearest.kernels.rows import build_column_indices
from resize_nearest.kernels.graph import build_index_graph_exact

def _column_map_kernel(start, size, in_w, out_w):
    cols = nl.ndarray((size, 1), dtype=nl.int32, buffer=nl.sbuf)
    build_column_indices(cols, start, size, in_w, out_w)
    out = nl.ndarray((size, 1), dtype=nl.int32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=cols)
    return out

def _exact_map_kernel(start, size, in_hw, out_hw):
    idx = nl.ndarray((size, 1), dtype=nl.int32, buffer=nl.sbuf)
    base = build_index_graph_exact(idx, start, size, in_hw, out_hw)
    full = nl.ndarray((size, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=full, data=idx, op0=nl.add, operand0=float(base))
    out = nl.ndarray((size, 1), dtype=nl.int32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=full)
    return out

def check_index_graphs(rounding, pairs):
    "The column/row map (hoisted, rowgather) and the flat exact graph on each (in, out) under one cast rounding."
    from resize_nearest import nki_cpu
    from resize_nearest.kernels import backend
    with nki_cpu.cast_rounding(rounding):
        for i, o in pairs:
            want = np.arange(o) * i // o
            got = backend.run_kernel(_column_map_kernel, 0, o, i, o, backend='cpu').ravel()
            assert (got == want).all(), (rounding, i, o)
            got = backend.run_kernel(_exact_map_kernel, 0, o, (1, i), (1, o), backend='cpu').ravel()
            assert (got == want).all(), (rounding, i, o)

@pytest.mark.slow
@pytest.mark.parametrize('rounding', ROUNDINGS)
def test_index_graphs_exact_under_every_rounding_1_to_64(rounding):
    check_index_graphs(rounding, [(i, o) for i in range(1, 65) for o in range(1, 65)])

@pytest.mark.parametrize('rounding', ROUNDINGS)
def test_index_graphs_exact_under_every_rounding_on_a_sample(rounding):
    "The fast tier's share of the sweep above (the test kernels hold one tile: out <= 128)."
    check_index_graphs(rounding, [(i, o) for i, o in sample_pairs(64, 40, seed=5) if o <= 128])

AXIS_LIMIT_CASES = [((1, 65535, 1, 1), (3, 1)), ((1, 1, 65535, 1), (1, 7)), ((1, 2, 3, 1), (1, 65535)),
                    ((1, 3, 2, 1), (65535, 1))]

@pytest.mark.slow
@pytest.mark.parametrize('rounding', ROUNDINGS[1:])
@pytest.mark.parametrize('variant', ['exact', 'hoisted', 'strided', 'residue', 'rowgather'])
def test_every_variant_exact_under_other_roundings(rounding, variant):
    "Whole kernels under truncating and flooring casts: square pairs 1..16 and the 65,535 limits."
    cases = [((2, i, i, 3), (o, o)) for i in range(1, 17) for o in range(1, 17)]
    check_under_rounding(rounding, variant, cases + AXIS_LIMIT_CASES)

@pytest.mark.parametrize('rounding', ROUNDINGS[1:])
@pytest.mark.parametrize('variant', ['exact', 'hoisted', 'strided', 'residue', 'rowgather'])
def test_every_variant_exact_under_other_roundings_on_a_sample(rounding, variant):
    "The fast tier's share of the test above: a sample of its square pairs, and the 65,535 limits."
    cases = [((2, i, i, 3), (o, o)) for i, o in sample_pairs(16, 12, seed=3)]
    check_under_rounding(rounding, variant, cases + AXIS_LIMIT_CASES)

def check_under_rounding(rounding, variant, cases):
    "Each (shape, out) through one variant under one cast rounding, against the NumPy reference."
    from resize_nearest import nki_cpu
    from resize_nearest.host.api import resize_nearest_reference
    rng = np.random.default_rng(3)
    with nki_cpu.cast_rounding(rounding):
        for shape, out in cases:
            if variant == 'strided' and width_ratio(shape[2], out[1])[0] == 'none':
                continue
            x = rng.integers(0, 250, shape).astype(np.uint8)
            try:
                y = resize_nearest(x, out, variant=variant)
            except ValueError as e:                       # rowgather without room for a period
                assert variant == 'rowgather' and 'rowgather' in str(e), e
                continue
            assert (y == resize_nearest_reference(x, out)).all(), (rounding, variant, shape, out)


def published_host_map(in_h, in_w, out_h, out_w):
    """The published kernel's map as its first public version built it on the host, transcribed from
    aws-neuron/nki-samples src/nki_samples/reference/vision.py at 05c0769, lines 194-197 (NumPy's
    float32 arithmetic, a Python float scale taken as float32)."""
    h_scale, w_scale = 1.0 * in_h / out_h, 1.0 * in_w / out_w
    h_map = np.floor(np.fromfunction(lambda i, _: i * h_scale, (out_h, out_w), dtype=np.float32))
    w_map = np.floor(np.fromfunction(lambda _, j: j * w_scale, (out_h, out_w), dtype=np.float32))
    return (h_map * in_w + w_map).astype(np.int32).flatten()


@pytest.mark.parametrize('in_hw, out_hw', [((7, 7), (41, 41)), ((26, 26), (22, 22)), ((224, 224), (192, 192)),
                                           ((30, 20), (59, 38)), ((5, 300), (9, 7)), ((1, 1), (3, 130))])
def test_published_variant_reads_what_the_published_source_reads(in_hw, out_hw):
    "variant='published' through the host API, on pixels that carry their own index, against the source's own map."
    import warnings
    b, n = 2, in_hw[0] * in_hw[1]
    x = np.arange(b * n, dtype=np.float32).reshape(b, *in_hw, 1)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)
        y = resize_nearest(x, out_hw, variant='published', backend='cpu')
    want = published_host_map(*in_hw, *out_hw)
    for image in range(b):
        np.testing.assert_array_equal(y[image].reshape(-1), want + image * n)


def test_published_is_offered_for_images_only_and_never_chosen_by_auto():
    from resize_nearest.host.variants import variant_names
    assert 'published' in variant_names(4) and 'published' not in variant_names(3) + variant_names(5)
    assert not VARIANTS['published'].exact
    for shape, out in [((1, 7, 7, 3), (41, 41)), ((1, 224, 224, 3), (192, 192)), ((2, 30, 20, 64), (59, 38))]:
        assert 'published' not in exact_options(shape, out)
        assert choose_variant(shape, out) != 'published'
    reasons = VARIANTS['published'].problems((1, 5, 5, 1), (3, 3), 4, ((1, 0, 1), (1, 0, 1)))
    assert reasons and "compiler's map only" in reasons[0]


def test_published_map_stays_inside_the_image_for_every_axis_to_300():
    "Per axis floor(fl32(d) * fl32(in/out)) <= in - 1 for every in, out <= 300: the record's bounds check never fires."
    d = np.arange(300, dtype=np.float32)
    for i in range(1, 301):
        for o in range(1, 301):
            last = np.floor(d[o - 1] * np.float32(1.0 * i / o))
            assert 0 <= last <= i - 1, (i, o)
    assert VARIANTS['published'].problems((1, 300, 299, 1), (1, 1)) == []
