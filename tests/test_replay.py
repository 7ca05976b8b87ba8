"""A replayed resize (appendix E2b) is a fresh interpreter run: same bits out, same counters, same
refusals. The reference of every comparison is a fresh run of the same kernel inside
`fresh_runs()`, which never consults the recordings."""
import threading
import warnings

import ml_dtypes
import numpy as np
import pytest

from resize_nearest import nki_cpu
from resize_nearest.host.api import resize_nearest
from resize_nearest.host.replay import clear_cache, fresh_runs, record
from resize_nearest.host.variants import VARIANTS
from resize_nearest.kernels.backend import nisa, nl
from resize_nearest.kernels.gather import gather_store_chunk
from resize_nearest.kernels.tiles import dtype_bytes
from resize_nearest.maps.plan import channel_chunk

DTYPES = (np.float32, np.uint8, ml_dtypes.bfloat16, np.int16, np.float16, np.uint32)
CASES = (((2, 26, 26, 3), (22, 22)), ((1, 7, 41, 5), (9, 82)), ((1, 48, 96, 2), (24, 32)))


def random_bits(shape, dtype, seed=0):
    "Any bit pattern, NaN payloads and -0.0 included: a replay must copy bits, not values."
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    bits = np.random.default_rng(seed).integers(0, 256, nbytes, dtype=np.uint8)
    return bits.view(dtype).reshape(shape)


def run(x, out_hw, variant, fresh):
    with warnings.catch_warnings(), nki_cpu.counting() as counted:
        warnings.simplefilter('ignore', RuntimeWarning)  # as_compiled's wrong pixels
        if fresh:
            with fresh_runs():
                y = resize_nearest(x, out_hw, variant=variant, backend='cpu')
        else:
            y = resize_nearest(x, out_hw, variant=variant, backend='cpu')
    return y, counted.summary()


@pytest.mark.parametrize('variant', [*VARIANTS, 'auto'])
@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: np.dtype(d).name)
def test_replay_equals_a_fresh_run(variant, dtype):
    clear_cache()
    for shape, out_hw in CASES:
        itemsize = np.dtype(dtype).itemsize
        if variant != 'auto' and VARIANTS[variant].problems(shape, out_hw, itemsize):
            continue  # strided needs an integer width ratio
        x = random_bits(shape, dtype)
        before = x.copy()
        expected, fresh_counts = run(x, out_hw, variant, fresh=True)
        for _ in ('record', 'replay'):
            y, counts = run(x, out_hw, variant, fresh=False)
            assert y.dtype == expected.dtype and y.shape == expected.shape
            np.testing.assert_array_equal(y.view(np.uint8), expected.view(np.uint8))
            assert counts == fresh_counts
        np.testing.assert_array_equal(x.view(np.uint8), before.view(np.uint8))


def test_a_replay_returns_a_new_array_each_call():
    x = random_bits((1, 26, 26, 3), np.float32)
    first = resize_nearest(x, (22, 22), backend='cpu')
    second = resize_nearest(x, (22, 22), backend='cpu')
    first[...] = 0
    assert not np.shares_memory(first, second) and second.view(np.uint8).any()


@pytest.mark.parametrize('setting', [('cast_rounding', 'trunc'), ('cast_rounding', 'floor'),
                                     ('target_chip', 'trn3')])
def test_the_interpreter_settings_key_the_recording(setting):
    "as_compiled's float32 graph depends on the cast rounding: a recording never crosses settings."
    name, value = setting
    x = random_bits((2, 26, 26, 3), np.float32)
    clear_cache()
    run(x, (22, 22), 'as_compiled', fresh=False)  # recorded under the default settings
    with getattr(nki_cpu, name)(value):
        expected, fresh_counts = run(x, (22, 22), 'as_compiled', fresh=True)
        y, counts = run(x, (22, 22), 'as_compiled', fresh=False)
    np.testing.assert_array_equal(y.view(np.uint8), expected.view(np.uint8))
    assert counts == fresh_counts


def test_a_recording_is_never_used_under_other_settings(monkeypatch):
    "The settings are part of the cache key: each setting records its own run."
    from resize_nearest.host import replay

    recorded = []
    real_record = replay.record
    monkeypatch.setattr(replay, 'record', lambda *a: recorded.append(a) or real_record(*a))
    x = random_bits((2, 26, 26, 3), np.float32)
    clear_cache()
    run(x, (22, 22), 'as_compiled', fresh=False)
    run(x, (22, 22), 'as_compiled', fresh=False)
    with nki_cpu.cast_rounding('trunc'):
        run(x, (22, 22), 'as_compiled', fresh=False)
    with nki_cpu.target_chip('trn3'):
        run(x, (22, 22), 'as_compiled', fresh=False)
    assert len(recorded) == 3


def test_a_trace_is_recorded_instruction_by_instruction():
    x = random_bits((1, 26, 26, 3), np.float32)
    resize_nearest(x, (22, 22), backend='cpu')  # a recording exists
    with nki_cpu.counting(trace=True) as traced:
        resize_nearest(x, (22, 22), backend='cpu')
    assert len(traced.trace) == traced.summary()['traced_instructions'] > 0


def test_threads_replay_their_own_shapes_and_counts():
    clear_cache()
    shapes = [((1, 26, 26, 3), (22, 22)), ((2, 30, 20, 8), (59, 38))] * 4
    expected = {}
    for shape, out_hw in shapes[:2]:
        x = random_bits(shape, np.float32, seed=1)
        expected[shape] = run(x, out_hw, 'auto', fresh=True)
    failures = []

    def worker(shape, out_hw):
        x = random_bits(shape, np.float32, seed=1)
        for _ in range(3):
            y, counts = run(x, out_hw, 'auto', fresh=False)
            ok = np.array_equal(y.view(np.uint8), expected[shape][0].view(np.uint8))
            if not ok or counts != expected[shape][1]:
                failures.append(shape)

    threads = [threading.Thread(target=worker, args=s) for s in shapes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_a_kernel_that_computes_on_its_input_is_not_recorded():
    from resize_nearest.kernels.backend import nisa, nl

    def add_one_kernel(data_tensor, out_shape):
        out = nl.ndarray(out_shape, dtype=data_tensor.dtype, buffer=nl.shared_hbm)
        tile = nl.ndarray((4, 8), dtype=data_tensor.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=tile, src=data_tensor.reshape((4, 8)))
        nisa.tensor_scalar(dst=tile, data=tile, op0=nl.add, operand0=1000.0)
        nisa.dma_copy(dst=out.reshape((4, 8)), src=tile)
        return out

    with pytest.raises(RuntimeError, match='is not a copy of input elements'):
        record(add_one_kernel, (1, 4, 8, 1), np.int32, (1, 4, 8, 1))


@pytest.mark.parametrize('step', [1 << 20, 64, 1])
@pytest.mark.parametrize('itemsize', [1, 2, 4])
def test_probe_digits_are_the_index_digits(monkeypatch, step, itemsize):
    """Every probe element holds digit k of its flat (or pixel) index, against Python's own integer
    arithmetic; a small STEP takes the branches a large image takes (runs longer than a step, many
    pieces), and decoding the probes gives every index back."""
    from resize_nearest.host import replay

    monkeypatch.setattr(replay, 'STEP', step)
    for size in (1, 2, 255, 256, 257, 70_000, 65_537 * 3):
        shape = (1, size, 1, 1)
        probes = list(replay.probe_inputs(shape, np.dtype(f'u{itemsize}')))
        base = 1 << (8 * itemsize)
        for k, probe in enumerate(probes):
            expected = [(i // base**k) % base for i in range(0, size, max(1, size // 997))]
            assert probe.reshape(-1)[:: max(1, size // 997)].tolist() == expected, (size, k)
        assert (replay.decode(probes, itemsize) == np.arange(size)).all(), size
        pixels = list(replay.pixel_probes((1, size, 1, 3), np.dtype(f'u{itemsize}')))
        for k, probe in enumerate(pixels[: len(probes)]):
            assert (probe.reshape(-1, 3) == probes[k].reshape(-1, 1)).all(), (size, k)


def assert_recording_is_a_fresh_run(kernel, x, out_shape, extra=()):
    """`record` of kernel on x's shape against a fresh interpreter run on x: the replayed bits and
    every counter. Returns the fresh run's output and the recording."""
    from resize_nearest.kernels.backend import run_kernel

    with nki_cpu.counting() as fresh:
        expected = run_kernel(kernel, x, out_shape, *extra, backend='cpu')
    recording = record(kernel, x.shape, x.dtype, out_shape, extra)
    np.testing.assert_array_equal(recording.apply(x).view(np.uint8), expected.view(np.uint8))
    assert recording.stats.summary() == fresh.summary()
    return expected, recording


# 7 and 9 images are expanded from three (where the kernel allows), 4 are recorded whole
BATCHES = (((7, 26, 26, 3), (22, 22)), ((4, 7, 41, 5), (9, 82)), ((9, 48, 96, 2), (24, 32)))


@pytest.mark.parametrize('variant', [*VARIANTS, 'auto'])
@pytest.mark.parametrize('dtype', (np.uint8, ml_dtypes.bfloat16, np.float32),
                         ids=lambda d: np.dtype(d).name)
def test_a_batch_recorded_on_three_images_equals_a_fresh_run(variant, dtype):
    """Batches of 4 to 9 images, those above six recorded on one, two and three of them and expanded
    where they show one body per image (else recorded whole): the bits and every counter of a
    fresh run of the whole batch."""
    clear_cache()
    for shape, out_hw in BATCHES:
        itemsize = np.dtype(dtype).itemsize
        if variant != 'auto' and VARIANTS[variant].problems(shape, out_hw, itemsize):
            continue
        x = random_bits(shape, dtype, seed=shape[0])
        expected, fresh_counts = run(x, out_hw, variant, fresh=True)
        y, counts = run(x, out_hw, variant, fresh=False)
        np.testing.assert_array_equal(y.view(np.uint8), expected.view(np.uint8))
        assert counts == fresh_counts


def test_the_batch_expansion_is_taken_where_a_body_repeats_and_refused_where_a_dma_spans_it():
    """The rowgather kernel loops over images (expanded: three small recordings); the residue
    kernel moves the whole batch in each DMA, so its instructions grow with the batch (recorded
    whole). Either way the result is a fresh run's."""
    from resize_nearest.host import replay
    from resize_nearest.kernels.backend import run_kernel
    from resize_nearest.kernels.residue import resize_nearest_residue_kernel
    from resize_nearest.kernels.rowgather import resize_nearest_rowgather_kernel

    shape, out_shape = (6, 26, 26, 3), (6, 22, 22, 3)
    taken = replay._record_batch(resize_nearest_rowgather_kernel, shape, np.dtype(np.uint8),
                                 out_shape, ())
    refused = replay._record_batch(resize_nearest_residue_kernel, shape, np.dtype(np.uint8),
                                   out_shape, ())
    assert taken is not None and refused is None
    x = random_bits(shape, np.uint8, seed=3)
    with nki_cpu.counting() as fresh:
        expected = run_kernel(resize_nearest_rowgather_kernel, x, out_shape, backend='cpu')
    np.testing.assert_array_equal(taken.apply(x), expected)
    assert taken.stats.summary() == fresh.summary()


def copy_image(data_tensor, out, dst_image: int, src_image: int):
    "One DMA: output image `dst_image` from input image `src_image` (HBM to HBM, flat rows)."
    images, rest = out.shape[0], out.shape[1] * out.shape[2] * out.shape[3]
    rows_in = data_tensor.reshape((images, rest))
    rows_out = out.reshape((images, rest))
    nisa.dma_copy(dst=rows_out.ap(pattern=[[rest, 1], [1, rest]], offset=dst_image * rest),
                  src=rows_in.ap(pattern=[[rest, 1], [1, rest]], offset=src_image * rest))


def triangular_kernel(data_tensor, out_shape):
    "Image b copied b + 1 times: each image adds one DMA more than the one before."
    out = nl.ndarray(out_shape, dtype=data_tensor.dtype, buffer=nl.shared_hbm)
    for b in nl.static_range(out_shape[0]):
        for _ in nl.static_range(b + 1):
            copy_image(data_tensor, out, b, b)
    return out


def neighbour_kernel(data_tensor, out_shape):
    "Image b copies image b + 1 (the last one image 0): the same DMAs, not each image's own data."
    out = nl.ndarray(out_shape, dtype=data_tensor.dtype, buffer=nl.shared_hbm)
    for b in nl.static_range(out_shape[0]):
        copy_image(data_tensor, out, b, (b + 1) % out_shape[0])
    return out


@pytest.mark.parametrize('kernel', [triangular_kernel, neighbour_kernel])
def test_a_batch_whose_images_differ_is_recorded_whole(kernel):
    """Counters that grow faster than the batch, and a map that does not repeat per image: the
    three small recordings show it, the expansion is refused, and the recording of 8 images is
    a fresh run's."""
    from resize_nearest.host import replay

    shape = (8, 2, 3, 1)
    assert replay._record_batch(kernel, shape, np.dtype(np.uint8), shape, ()) is None
    assert_recording_is_a_fresh_run(kernel, random_bits(shape, np.uint8, seed=5), shape)


def shipped_cases():
    """(kernel, input shape, output shape, trace-time arguments): every shipped kernel, 3+ channels,
    the compiler's map and an ONNX convention's."""
    from resize_nearest.host.request import resize_maps
    from resize_nearest.kernels.gather import (
        resize_nearest_exact_kernel,
        resize_nearest_fixed_dma_kernel,
    )
    from resize_nearest.kernels.residue import resize_nearest_residue_kernel
    from resize_nearest.kernels.rowgather import resize_nearest_rowgather_kernel
    from resize_nearest.kernels.rows import (
        resize_nearest_hoisted_kernel,
        resize_nearest_strided_kernel,
    )
    from resize_nearest.kernels.volumes import (
        resize_nearest_depth_kernel,
        resize_nearest_volume_residue_kernel,
    )
    half_pixel = resize_maps((7, 41), (9, 300), 'half_pixel', 'round_prefer_ceil')
    return [
        (resize_nearest_fixed_dma_kernel, (2, 26, 26, 3), (2, 22, 22, 3), ()),
        (resize_nearest_exact_kernel, (2, 26, 26, 3), (2, 22, 22, 3), ()),
        # 20,000 channels: two channel chunks of float32 (one of uint8 or bfloat16)
        (resize_nearest_exact_kernel, (1, 3, 2, 20_000), (1, 2, 3, 20_000), ()),
        (resize_nearest_exact_kernel, (1, 7, 41, 5), (1, 9, 300, 5), (half_pixel,)),
        (resize_nearest_hoisted_kernel, (1, 7, 41, 5), (1, 9, 300, 5), ()),
        (resize_nearest_hoisted_kernel, (1, 7, 41, 5), (1, 9, 300, 5), (half_pixel,)),
        (resize_nearest_strided_kernel, (1, 12, 24, 3), (1, 8, 12, 3), ()),
        (resize_nearest_rowgather_kernel, (1, 5, 700, 40), (1, 9, 500, 40), ()),
        # a width ratio of 3 to 24: the row-gather kernel's nc_n_gather path
        (resize_nearest_rowgather_kernel, (2, 3, 3, 5), (2, 7, 24, 5), ()),
        (resize_nearest_rowgather_kernel, (1, 7, 41, 5), (1, 9, 300, 5), (half_pixel,)),
        (resize_nearest_residue_kernel, (2, 24, 20, 3), (2, 60, 50, 3), ()),
        (resize_nearest_volume_residue_kernel, (2, 4, 6, 6, 3), (2, 6, 4, 9, 3), ()),
        (resize_nearest_depth_kernel, (2, 4, 3, 2, 5), (2, 6, 3, 2, 5), ((4, 0, 6),)),
    ]


def case_id(case) -> str:
    kernel, shape, out_shape, extra = case
    return f"{kernel.__name__.replace('resize_nearest_', '')}-{shape}-{'mapped' if extra else ''}"


DTYPES_DRY = (np.uint8, ml_dtypes.bfloat16, np.float32)


@pytest.mark.parametrize('case', shipped_cases(), ids=case_id)
@pytest.mark.parametrize('dtype', DTYPES_DRY, ids=lambda d: np.dtype(d).name)
def test_a_dry_run_counts_what_a_run_on_data_counts(case, dtype):
    """A shipped kernel run dry (no values moved) and on random bits: the same counters, and the
    same instructions by engine, kind, elements, descriptors and bytes."""
    from resize_nearest.host import replay
    from resize_nearest.kernels.backend import run_kernel

    kernel, shape, out_shape, extra = case
    x = random_bits(shape, dtype)
    with nki_cpu.counting(trace=True) as on_data:
        run_kernel(kernel, x, out_shape, *extra, backend='cpu')
    dry = replay._dry_counters(kernel, shape, np.dtype(dtype), out_shape, extra, tally=True)
    assert dry is not None
    assert dry.summary() == on_data.summary()
    tally = replay.InstructionTally()
    tally.extend(on_data.trace)
    assert dry.trace == tally


@pytest.mark.parametrize('case', shipped_cases(), ids=case_id)
@pytest.mark.parametrize('dtype', DTYPES_DRY, ids=lambda d: np.dtype(d).name)
def test_a_recording_on_one_channel_equals_a_fresh_run(monkeypatch, case, dtype):
    """With the threshold lowered so that every shape takes it, a shipped kernel is recorded on
    one channel plus a dry run: the replayed bits and every counter are a fresh run's."""
    from resize_nearest.host import replay

    monkeypatch.setattr(replay, 'CHANNELS_REDUCED_FROM', 1)
    reduced = []
    real = replay._record_one_channel
    monkeypatch.setattr(replay, '_record_one_channel',
                        lambda *a: reduced.append(real(*a)) or reduced[-1])
    kernel, shape, out_shape, extra = case
    _, recording = assert_recording_is_a_fresh_run(kernel, random_bits(shape, dtype, seed=3),
                                                   out_shape, extra)
    assert len(reduced) == 1 and reduced[0] is recording  # the one-channel path made it


def add_zero_kernel(data_tensor, out_shape):
    "Adds 0.0 to every element: its output is its input, but it computes with its data."
    out = nl.ndarray(out_shape, dtype=data_tensor.dtype, buffer=nl.shared_hbm)
    rows, columns = out_shape[0] * out_shape[1], out_shape[2] * out_shape[3]
    tile = nl.ndarray((rows, columns), dtype=data_tensor.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=tile, src=data_tensor.reshape((rows, columns)))
    nisa.tensor_scalar(dst=tile, data=tile, op0=nl.add, operand0=0.0)
    nisa.dma_copy(dst=out.reshape((rows, columns)), src=tile)
    return out


def test_a_kernel_that_computes_on_its_data_is_not_run_dry(monkeypatch):
    """Its dry run is refused (the values are not there): its batch is counted on zeros, and, made
    to look like a shipped kernel, its image is recorded on every channel, as a fresh run."""
    from resize_nearest.host import replay

    shape = (8, 2, 3, 1)
    assert replay._dry_counters(add_zero_kernel, shape, np.dtype(np.int32), shape, ()) is None
    counted = replay._counted_run(add_zero_kernel, shape, np.dtype(np.int32), shape, (), 2)
    assert counted.summary()['compute_instructions'] == 1
    monkeypatch.setattr(replay, 'CHANNELS_REDUCED_FROM', 1)
    monkeypatch.setattr(replay, 'CHANNEL_FREE', replay.CHANNEL_FREE | {add_zero_kernel})
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    assert_recording_is_a_fresh_run(add_zero_kernel, x, x.shape)


def half_tile_kernel(data_tensor, out_shape):
    "Loads half of a tile and stores all of it: a read of memory nothing wrote."
    out = nl.ndarray(out_shape, dtype=data_tensor.dtype, buffer=nl.shared_hbm)
    rows, columns = out_shape
    tile = nl.ndarray((rows, columns), dtype=data_tensor.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=tile[:, 0 : columns // 2], src=data_tensor[:, 0 : columns // 2])
    nisa.dma_copy(dst=out, src=tile)
    return out


def half_output_kernel(data_tensor, out_shape):
    "Writes the first half of its output's rows only: an output left partly unwritten."
    out = nl.ndarray(out_shape, dtype=data_tensor.dtype, buffer=nl.shared_hbm)
    rows, columns = out_shape
    tile = nl.ndarray((rows // 2, columns), dtype=data_tensor.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=tile, src=data_tensor[0 : rows // 2, :])
    nisa.dma_copy(dst=out[0 : rows // 2, :], src=tile)
    return out


def first_chunk_only(data_flat, out_flat, load_indices, rows):
    "The gather kernels' tile body, broken: only the first channel chunk is gathered and stored."
    chunk = channel_chunk(data_flat.shape[1], dtype_bytes(data_flat.dtype))
    gather_store_chunk(data_flat, out_flat, load_indices, rows, (0, min(chunk, data_flat.shape[1])))


@pytest.mark.parametrize('kernel', [half_tile_kernel, half_output_kernel])
def test_a_dry_run_refuses_what_a_run_on_data_refuses(kernel):
    "A read of unwritten memory, and an output left partly unwritten, are refused dry too."
    from resize_nearest.host import replay
    from resize_nearest.kernels.backend import run_kernel

    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    with pytest.raises(nki_cpu.UninitializedReadError):
        run_kernel(kernel, x, (4, 8), backend='cpu')
    with pytest.raises(nki_cpu.UninitializedReadError):
        replay._dry_counters(kernel, (4, 8), np.dtype(np.float32), (4, 8), ())


def test_a_shipped_kernel_broken_beyond_one_channel_is_refused_as_a_fresh_run_refuses_it(
        monkeypatch):
    """The exact kernel broken so that it stores only its first channel chunk: a fresh run reads
    the unwritten rest of its output, and so does the dry run of the one-channel recording."""
    from resize_nearest.host import replay
    from resize_nearest.kernels import gather
    from resize_nearest.kernels.backend import run_kernel

    from resize_nearest.kernels import backend

    monkeypatch.setattr(gather, 'gather_store_tile', first_chunk_only)
    monkeypatch.setattr(backend, '_BOUND', {})  # kernels bound before the patch are bound anew
    monkeypatch.setattr(replay, 'CHANNELS_REDUCED_FROM', 1)
    kernel = gather.resize_nearest_exact_kernel
    shape, out_shape = (1, 3, 2, 20_000), (1, 2, 3, 20_000)
    x = random_bits(shape, np.float32)
    with pytest.raises(nki_cpu.UninitializedReadError):
        run_kernel(kernel, x, out_shape, backend='cpu')
    with pytest.raises(nki_cpu.UninitializedReadError):
        record(kernel, shape, np.float32, out_shape)


def channel_shift_kernel(data_tensor, out_shape):
    "Channel c of pixel p from pixel p + c (mod the pixels): a map that depends on the channel."
    out = nl.ndarray(out_shape, dtype=data_tensor.dtype, buffer=nl.shared_hbm)
    pixels, channels = out_shape[1] * out_shape[2], out_shape[3]
    flat_in = data_tensor.reshape((pixels, channels))
    flat_out = out.reshape((pixels, channels))
    for c in nl.static_range(channels):
        for p in nl.static_range(pixels):
            source = (p + c) % pixels
            nisa.dma_copy(dst=flat_out.ap(pattern=[[channels, 1], [1, 1]], offset=p * channels + c),
                          src=flat_in.ap(pattern=[[channels, 1], [1, 1]],
                                         offset=source * channels + c))
    return out


def test_a_kernel_outside_the_shipped_ones_is_recorded_on_every_channel(monkeypatch):
    """A kernel whose map depends on the channel is not in `CHANNEL_FREE`: it is recorded on all
    of its channels, and its replay is a fresh run's."""
    from resize_nearest.host import replay

    monkeypatch.setattr(replay, 'CHANNELS_REDUCED_FROM', 1)
    x = random_bits((1, 2, 3, 3), np.uint8, seed=7)
    expected, _ = assert_recording_is_a_fresh_run(channel_shift_kernel, x, x.shape)
    assert not np.array_equal(expected, x)  # the kernel does move channels across pixels
