"""Chapter R4: sequences (N, L, C) and volumes (N, D, H, W, C) resized through NKI kernels, held
bit for bit against `resize_nearest_nd_reference`, which computes ONNX Resize's coordinate
formulas (onnx/docs/Operators.md, Resize-19, coordinate_transformation_mode and nearest_mode) in
Fractions, not chapter R1's maps; that reference is itself held against tests/onnx_spec.py, an
oracle written apart from it."""
import itertools
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from onnx_spec import spec_map
from resize_nearest import nki_cpu
from resize_nearest.kernels import backend
from resize_nearest.host import replay
from resize_nearest.nki_cpu import isa as cpu_isa
from resize_nearest.nki_cpu.frontend import check_kernel
from resize_nearest.host.request import KERNEL_MODES, build_request
from resize_nearest.host.api import resize_nearest_nd
from resize_nearest.host.cost_model import volume_residue_counts
from resize_nearest.host.variants import variant_names as nd_variants
from resize_nearest.host.volumes import (
    route_runs,
    resize_nearest_depth_kernel,
    resize_nearest_nd_reference,
    resize_nearest_volume_residue_kernel,
)
from resize_nearest.maps.nearest_modes import NEAREST_MODES, source_index

CONVENTIONS = list(itertools.product(KERNEL_MODES, NEAREST_MODES))
DTYPES = (np.uint8, np.float32, ml_dtypes.bfloat16)
# (in, out) per axis: primes up and down, out = 1, in = 1, 1 -> 1, equal sizes, integer ratios
SEQUENCES = ((7, 11), (13, 7), (11, 1), (1, 13), (1, 1), (13, 13), (7, 21), (22, 11))
VOLUMES = (
    ((7, 11), (11, 5), (13, 17)),  # up, down, up: every axis prime
    ((1, 7), (13, 1), (11, 11)),  # in = 1, out = 1, the same size
    ((7, 1), (1, 13), (13, 6)),
    ((5, 3), (7, 14), (11, 22)),  # integer width ratio: the strided 2-D kernel applies
)


def sample(shape, dtype, seed=0):
    "Random elements of `dtype`, every bit pattern allowed (NaNs too: a copy keeps their bits)."
    rng = np.random.default_rng(seed)
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32}[np.dtype(dtype).itemsize]
    return rng.integers(0, np.iinfo(bits).max, shape, dtype=bits, endpoint=True).view(dtype)


def same_bits(a, b) -> bool:
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32}[a.dtype.itemsize]
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a.view(bits), b.view(bits))


def check_every_variant(x, out_size, mode, rounding):
    """Every variant of `nd_variants(x.ndim)` against the reference; returns the ones that refused
    the shape (each refusal a ValueError naming itself)."""
    want = resize_nearest_nd_reference(
        x, out_size, coordinate_transformation_mode=mode, nearest_mode=rounding
    )
    refused = []
    for variant in nd_variants(x.ndim):
        try:
            got = resize_nearest_nd(
                x, out_size, variant=variant, coordinate_transformation_mode=mode,
                nearest_mode=rounding,
            )
        except ValueError as e:
            assert variant.split(':')[-1] in str(e), (variant, str(e))
            refused.append(variant)
            continue
        assert same_bits(got, want), (variant, x.shape, out_size, mode, rounding)
    return refused


# --- the reference ---------------------------------------------------------------------------

@pytest.mark.parametrize('mode,rounding', CONVENTIONS)
def test_reference_maps_equal_the_onnx_spec_oracle(mode, rounding):
    """The one reference of every rank (chapter R1's source_index) and a second transcription of
    ONNX's formulas agree on every size pair 1..24 and float32 scales."""
    for n_in, n_out in itertools.product(range(1, 25), repeat=2):
        want = spec_map(mode, rounding, n_in, n_out)
        assert list(source_index(mode, rounding, n_in, n_out)) == want
    for n_in, n_out, s in ((7, 4, 0.6), (13, 30, 2.3), (5, 5, 1.7)):
        s32 = float(np.float32(s))
        want = spec_map(mode, rounding, n_in, n_out, s32)
        assert list(source_index(mode, rounding, n_in, n_out, s32)) == want


# --- every convention, every variant, sequences and volumes ----------------------------------

@pytest.mark.parametrize('mode,rounding', CONVENTIONS)
def test_sequences_every_convention_every_variant_exact(mode, rounding):
    for (n_in, n_out), dtype in itertools.product(SEQUENCES, DTYPES):
        x = sample((2, n_in, 3), dtype)
        refused = check_every_variant(x, (n_out,), mode, rounding)
        assert not {'auto', 'exact', 'hoisted', 'residue'} & set(refused), refused


@pytest.mark.parametrize('mode,rounding', CONVENTIONS)
def test_volumes_every_convention_every_variant_exact(mode, rounding):
    for axes, dtype in zip(VOLUMES * 2, DTYPES * 3):
        x = sample((2, *(i for i, _ in axes), 2), dtype, seed=len(axes))
        refused = check_every_variant(x, tuple(o for _, o in axes), mode, rounding)
        assert not {'auto', 'residue', 'planes', 'planes:exact', 'planes:residue'} & set(refused)


def test_images_every_convention_exact():
    "(N, H, W, C) goes straight to the 2-D kernels, under every convention."
    x = sample((2, 7, 11, 3), np.uint8)
    for mode, rounding in CONVENTIONS:
        refused = check_every_variant(x, (13, 5), mode, rounding)
        assert not {'auto', 'exact', 'residue'} & set(refused)


def test_strided_and_rowgather_planes_run_where_they_apply():
    "The 2-D kernels with conditions do run on the planes where the widths allow them."
    x = sample((1, 5, 7, 11, 2), np.float32)
    assert check_every_variant(x, (3, 14, 22), 'asymmetric', 'floor') == []


def test_scales_per_axis_size_and_map_the_output():
    "ONNX scales, one per axis: floor(in * scale) sizes the output and the maps use the scale."
    x = sample((1, 7, 11, 13, 1), np.uint8)
    for scales in ((0.6, 1.7, 2.3), (Fraction(3, 2), 0.5, 1.0)):
        for mode, rounding in (('asymmetric', 'floor'), ('half_pixel', 'round_prefer_floor')):
            convention = dict(coordinate_transformation_mode=mode, nearest_mode=rounding)
            want = resize_nearest_nd_reference(x, None, scales=scales, **convention)
            got = resize_nearest_nd(x, None, scales=scales, **convention)
            assert same_bits(got, want), (scales, mode)
            sized = resize_nearest_nd(x, (5, 5, 5), scales=scales, variant='planes', **convention)
            want = resize_nearest_nd_reference(x, (5, 5, 5), scales=scales, **convention)
            assert same_bits(sized, want)
    seq = sample((2, 13, 3), np.uint8)
    corners = dict(scales=[0.3], coordinate_transformation_mode='align_corners')
    got = resize_nearest_nd(seq, None, **corners)
    assert same_bits(got, resize_nearest_nd_reference(seq, None, **corners))


# --- the kernels ----------------------------------------------------------------------------

def test_kernels_pass_the_front_end_check():
    "Both kernels of the chapter stay inside the NKI 0.3 subset (appendix A5's check)."
    check_kernel(resize_nearest_volume_residue_kernel)
    check_kernel(resize_nearest_depth_kernel)


def test_residue_copies_have_at_most_four_free_dimensions(monkeypatch):
    """Every DMA of the volume residue kernel is one access pattern whose entries after the
    outermost (the images) number at most 4 (aws-neuron-sdk v2.29.1 nki-aps.rst:23-28), and there
    is one per segment triple."""
    patterns = []
    original = cpu_isa.dma_copy

    def recording(dst, src, **kw):
        patterns.extend([dst.pattern, src.pattern])
        return original(dst, src, **kw)

    monkeypatch.setattr(cpu_isa, 'dma_copy', recording)
    x = sample((2, 7, 11, 13, 3), np.uint8)
    maps = build_request(x, (11, 5, 17), 'half_pixel', 'round_prefer_ceil').spatial_maps
    kernel = resize_nearest_volume_residue_kernel
    backend.run_kernel(kernel, x, (2, 11, 5, 17, 3), maps, backend='cpu')
    transfers = volume_residue_counts(x.shape, (11, 5, 17), 1, maps)["dma_transfers"]
    assert len(patterns) == 2 * transfers
    assert max(len(p) - 1 for p in patterns) <= 4


@pytest.mark.parametrize('out_size', [(11, 5, 17), (3, 14, 22), (7, 11, 13), (14, 1, 26)])
def test_modelled_counts_of_the_volume_kernels_equal_the_interpreter_counts(out_size):
    """`route_runs`' counts of the residue and depth kernels (what auto's model costs): DMA
    instructions, descriptors by size and bytes, against what the interpreter moved."""
    x = sample((2, 7, 11, 13, 3), np.uint8)
    r = build_request(x, out_size, 'pytorch_half_pixel', 'round_prefer_floor')
    keys = ('dma_transfers', 'dma_descriptors', 'dma_bytes', 'descriptor_bytes')
    for variant in ('residue', 'planes:residue', 'planes:exact'):
        for step, model in route_runs(r, variant):
            kernel, view, out_shape, extra = step
            if kernel not in (resize_nearest_volume_residue_kernel, resize_nearest_depth_kernel):
                continue  # chapter R2's predictions, checked against the interpreter in chapter R7
            with nki_cpu.counting() as counted:
                backend.run_kernel(kernel, sample(view, np.uint8), out_shape, *extra, backend='cpu')
            assert {k: counted.summary()[k] for k in keys} == {k: model[k] for k in keys}, variant


def test_auto_moves_fewer_descriptors_than_the_residue_kernel_on_a_one_byte_mask():
    """One channel of uint8: every residue copy moves one-byte descriptors; auto's route (costed by
    chapter R2's model) must move fewer, measured on the interpreter."""
    mask = sample((1, 24, 24, 24, 1), np.uint8)
    moved = {}
    for variant in ('auto', 'residue'):
        with nki_cpu.counting() as counted:
            resize_nearest_nd(mask, (32, 32, 32), variant=variant)
        moved[variant] = counted.summary()['dma_descriptors']
    assert moved['residue'] == 32**3
    assert moved['auto'] < moved['residue'] / 10, moved


# --- arguments -------------------------------------------------------------------------------

X3 = np.zeros((1, 5, 1), np.uint8)
X5 = np.zeros((1, 2, 3, 4, 1), np.uint8)
REFUSALS = [
    # (call, exception, words the message must hold: the argument, the value, what is allowed)
    (lambda: resize_nearest_nd([[[1]]], (2,)), TypeError, ['x', 'list']),
    (lambda: resize_nearest_nd(np.zeros((3, 4)), (2,)), ValueError, ['x', '(3, 4)', '(N, L, C)']),
    (lambda: resize_nearest_nd(np.zeros((1, 3, 1)), (2,)), TypeError, ['float64', 'uint8']),
    (lambda: resize_nearest_nd(X3[:, :0], (2,)), ValueError, ['x', '(1, 0, 1)']),
    (lambda: resize_nearest_nd(np.ma.zeros((1, 3, 1)), (2,)), TypeError, ['x', 'masked array']),
    (lambda: resize_nearest_nd(X5, (2, 3)), ValueError, ['out_size', '3 positive', '(2, 3)']),
    (lambda: resize_nearest_nd(X3, 4), ValueError, ['out_size', '4']),
    (lambda: resize_nearest_nd(X3, (0,)), ValueError, ['out_size[0]', '0', 'positive']),
    (lambda: resize_nearest_nd(X3, (2.5,)), TypeError, ['out_size[0]', '2.5', 'integer']),
    (lambda: resize_nearest_nd(X3, (70000,)), ValueError, ['(70000,)', '70000 > 65535']),
    (lambda: resize_nearest_nd(X3, None), ValueError, ['out_size', 'scales']),
    (lambda: resize_nearest_nd(X5, (65535, 65535, 1)), ValueError,
     ['(65535, 65535, 1)', 'output elements', '2^31 - 1']),
    (lambda: resize_nearest_nd(X3, (2,), variant='as_compiled'), ValueError,
     ['variant', "'as_compiled'", "'residue'"]),
    (lambda: resize_nearest_nd(X3, (2,), variant='planes'), ValueError, ['variant', "'planes'"]),
    (lambda: resize_nearest_nd(X5, (2, 3, 4), variant=None), TypeError, ['variant', 'None']),
    (lambda: resize_nearest_nd(X5, (2, 3, 5), variant='planes:strided'), ValueError,
     ['strided', 'integer width ratio']),
    (lambda: resize_nearest_nd(X3, (2,), coordinate_transformation_mode='tf_crop_and_resize'),
     ValueError, ['coordinate_transformation_mode', 'tf_crop_and_resize', 'half_pixel']),
    (lambda: resize_nearest_nd(X3, (2,), nearest_mode='round'), ValueError,
     ['nearest_mode', "'round'", 'round_prefer_floor']),
    (lambda: resize_nearest_nd(X3, (2,), scales=(1.0, 2.0)), ValueError, ['scales', '1 positive']),
    (lambda: resize_nearest_nd(X3, (2,), scales=('2',)), TypeError, ['scales', "'2'", 'real']),
    (lambda: resize_nearest_nd(X3, (2,), scales=(float('nan'),)), ValueError, ['scales', 'nan']),
    (lambda: resize_nearest_nd(X3, (2,), scales=(-2.0,)), ValueError,
     ['scales', '-2.0', 'positive']),
    (lambda: resize_nearest_nd(X3, None, scales=(0.1,)), ValueError, ['scales', '(0,)']),
]


@pytest.mark.parametrize('call,exc,words', REFUSALS, ids=range(len(REFUSALS)))
def test_bad_arguments_are_refused_before_any_kernel_runs(call, exc, words, monkeypatch):
    def no_run(*args, **kwargs):
        raise AssertionError('a kernel ran before the arguments were refused')

    monkeypatch.setattr(replay, 'run_resize', no_run)
    monkeypatch.setattr(backend, 'run_kernel', no_run)
    with pytest.raises(exc) as refused:
        call()
    for word in words:
        assert word in str(refused.value), (word, str(refused.value))


def test_input_is_not_modified():
    x = sample((2, 5, 7, 3, 2), np.float32)
    before = x.copy()
    x.flags.writeable = False  # any write would raise
    for variant in ('residue', 'planes'):
        half = dict(coordinate_transformation_mode='half_pixel')
        resize_nearest_nd(x, (9, 2, 6), variant=variant, **half)
    assert same_bits(x, before)


# --- label masks at scale (slow) -------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize('n_in,n_out', [(48, 64), (96, 128)])
def test_uint8_label_mask_through_auto_is_exact(n_in, n_out):
    rng = np.random.default_rng(1)
    mask = rng.integers(0, 7, (1, n_in, n_in, n_in, 1), dtype=np.uint8)
    got = resize_nearest_nd(mask, (n_out,) * 3)
    assert same_bits(got, resize_nearest_nd_reference(mask, (n_out,) * 3))
    half = dict(coordinate_transformation_mode='half_pixel', nearest_mode='round_prefer_ceil')
    got = resize_nearest_nd(mask, (n_out,) * 3, **half)
    assert same_bits(got, resize_nearest_nd_reference(mask, (n_out,) * 3, **half))
