"""Both kernels on the interpreter against the integer map, the float32 map and real PyTorch."""
import numpy as np, pytest, torch, torch.nn.functional as F, warnings, ml_dtypes
from resize_nearest.kernels import backend
from resize_nearest.host.api import resize_nearest, resize_nearest_reference, SUPPORTED_DTYPES
from resize_nearest.kernels.gather import resize_nearest_exact_kernel, resize_nearest_fixed_dma_kernel
from resize_nearest.maps.index_map import load_indices
from samples import ACROSS_2_23, sample_pairs

def run(kernel, x, out_hw):
    return backend.run_kernel(kernel, x, (x.shape[0], *out_hw, x.shape[3]), backend='cpu')

def integer_reference(x, out_hw):  # written without the package: Python integers per axis
    b, h, w, c = x.shape
    rows = [oh * h // out_hw[0] for oh in range(out_hw[0])]; cols = [ow * w // out_hw[1] for ow in range(out_hw[1])]
    return x[:, rows][:, :, cols]

def exact_kernel_wrong_pairs(pairs) -> list:
    "The square (in, out) pairs on which the exact kernel differs from the integer map."
    wrong = []
    for i, o in pairs:
        x = np.arange(i * i, dtype=np.int32).reshape(1, i, i, 1)
        if not np.array_equal(run(resize_nearest_exact_kernel, x, (o, o)), integer_reference(x, (o, o))): wrong.append((i, o))
    return wrong

@pytest.mark.slow
def test_exact_kernel_exhaustive_up_to_64():
    assert exact_kernel_wrong_pairs([(i, o) for i in range(1, 65) for o in range(1, 65)]) == []

def test_exact_kernel_on_the_failure_families_and_a_sample_to_64():
    "The fast tier's share of the sweep above: the compiled map's failure families and a sample."
    assert exact_kernel_wrong_pairs(sample_pairs(64, 24, seed=1)) == []

def test_exact_kernel_across_2_23():
    "Rows and columns whose products d * in cross 2^23, where the float32 estimate's error changes sign."
    for i, o in ACROSS_2_23:
        for x, out_hw in [(np.arange(i, dtype=np.int32).reshape(1, 1, i, 1), (1, o)), (np.arange(i, dtype=np.int32).reshape(1, i, 1, 1), (o, 1))]:
            np.testing.assert_array_equal(run(resize_nearest_exact_kernel, x, out_hw), integer_reference(x, out_hw))

def test_exact_kernel_random_rectangles_and_batches():
    rng = np.random.default_rng(0)
    for _ in range(25):
        b, ih, iw, oh, ow, c = (int(v) for v in rng.integers(1, [4, 300, 300, 300, 300, 5]))
        x = rng.integers(-2**31, 2**31 - 1, (b, ih, iw, c), dtype=np.int64).astype(np.int32)
        np.testing.assert_array_equal(run(resize_nearest_exact_kernel, x, (oh, ow)), integer_reference(x, (oh, ow)))

def test_as_compiled_kernel_equals_fp32_map():
    rng = np.random.default_rng(1)
    pairs = [((i, i), (o, o)) for i in range(1, 33) for o in range(1, 33)]
    pairs += [((int(a), int(b)), (int(c), int(d))) for a, b, c, d in rng.integers(1, 120, (40, 4))] + [((26, 26), (22, 22)), ((7, 7), (41, 41))]
    for in_hw, out_hw in pairs:
        x = np.arange(in_hw[0] * in_hw[1], dtype=np.int32).reshape(1, *in_hw, 1)
        li = load_indices(in_hw, out_hw, 'as_compiled')
        if li.max() >= x.size: continue                      # single image: this map leaves the tensor (tested below)
        np.testing.assert_array_equal(run(resize_nearest_fixed_dma_kernel, x, out_hw).ravel(), li, err_msg=f'{in_hw}->{out_hw}')

def test_both_equal_torch_where_fp32_map_is_exact_and_as_compiled_equals_torch_elsewhere():
    rng = np.random.default_rng(2)
    cases = [((30, 20), (59, 38)), ((26, 26), (22, 22)), ((224, 224), (192, 192)), ((7, 9), (41, 3))]
    cases += [((int(a), int(b)), (int(c), int(d))) for a, b, c, d in rng.integers(1, 90, (30, 4))]
    checked_exact = checked_ac = 0
    for in_hw, out_hw in cases:
        x = rng.random((2, *in_hw, 3), dtype=np.float32)
        t = F.interpolate(torch.from_numpy(x).permute(0, 3, 1, 2), size=out_hw, mode='nearest').permute(0, 2, 3, 1).numpy()
        fp32_exact = np.array_equal(load_indices(in_hw, out_hw, 'as_compiled'), load_indices(in_hw, out_hw))
        ex = run(resize_nearest_exact_kernel, x, out_hw)
        if fp32_exact:
            np.testing.assert_array_equal(ex, t); checked_exact += 1
        ac_map = load_indices(in_hw, out_hw, 'as_compiled')
        ids = torch.arange(in_hw[0] * in_hw[1], dtype=torch.float32).view(1, 1, *in_hw)
        torch_map = F.interpolate(ids, size=out_hw, mode='nearest').view(-1).to(torch.int64).numpy()
        if ac_map.max() < in_hw[0] * in_hw[1]:
            ac = run(resize_nearest_fixed_dma_kernel, x, out_hw)
            equal_pixels = (ac == t).all(-1).reshape(2, -1)
            # identical wherever the two index maps agree, different (random data) wherever they do not
            np.testing.assert_array_equal(equal_pixels, np.broadcast_to(ac_map == torch_map, equal_pixels.shape))
            checked_ac += 1
    assert checked_exact >= 10 and checked_ac >= 10

def test_every_dtype_bit_exact_and_input_untouched():
    rng = np.random.default_rng(3)
    for dt in SUPPORTED_DTYPES:
        x = rng.integers(0, 256, (2, 5, 6, 3 * dt.itemsize), dtype=np.uint8).view(dt)
        if dt.kind == 'f' or dt == np.dtype(ml_dtypes.bfloat16):
            x.reshape(-1)[:4] = np.array([np.nan, -0.0, np.inf, -np.inf]).astype(dt)
            x.view(np.uint8)[0, 0, 0, :dt.itemsize] = 0xFF                 # a NaN with a non-default payload
        before = x.copy()
        for variant in ('exact', 'as_compiled'):
            y = resize_nearest(x, (7, 4), variant=variant)
            assert y.view(np.uint8).tobytes() == integer_reference(x, (7, 4)).view(np.uint8).tobytes()
            assert not np.shares_memory(y, x)
        assert x.view(np.uint8).tobytes() == before.view(np.uint8).tobytes()

def test_as_compiled_warns_and_refuses_out_of_bounds():
    x = np.arange(10, dtype=np.float32).reshape(2, 1, 5, 1)
    with pytest.raises(ValueError, match=r'1x5 -> 2x41 reads source pixel 5 of a 5-pixel image'):
        resize_nearest(x, (2, 41), variant='as_compiled')
    with pytest.warns(RuntimeWarning, match='43 of 484 output pixels'):
        resize_nearest(np.zeros((1, 26, 26, 1), np.float32), (22, 22), variant='as_compiled')

def test_cross_batch_read_reproduced_by_kernel():
    # 2x41 from 1x5 in a batch of 3 with the last image's bad lanes: kernel raises; the first images read their successor
    x = np.arange(15, dtype=np.float32).reshape(3, 1, 5, 1)
    rows = load_indices((1, 5), (2, 41), 'as_compiled')
    with pytest.raises(Exception, match='selects row 15'):
        run(resize_nearest_fixed_dma_kernel, x, (2, 41))
    assert rows[41] == 5   # image b reads flat row b*5 + 5 = image b+1's first pixel

def test_channels_split_across_tiles():
    x = np.random.default_rng(4).integers(-128, 127, (1, 3, 2, 70000), dtype=np.int8)  # > 64 KiB per partition
    np.testing.assert_array_equal(resize_nearest(x, (2, 5)), integer_reference(x, (2, 5)))
