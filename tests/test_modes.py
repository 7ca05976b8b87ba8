"""Every ONNX nearest convention through the exact kernels (chapters R1, 1.3, 1.4-2.5, 3.1, 3.2).

The oracle is the ONNX specification's formulas in Fraction arithmetic (tests/onnx_spec.py), ONNX's
own conformance data, and PyTorch's and OpenCV's own kernels (and TensorFlow's half-pixel formula,
transcribed) where their float maps are exact.
CI runs a fixed sample of the size pairs; `python tools/mode_sweep.py --limit` runs every pair
1..48 on both axes and the 65,535 limit for every variant and convention."""
import functools
import os
import random
import warnings
from fractions import Fraction

import numpy as np
import pytest

from samples import sample_pairs
from onnx_spec import (CONFORMANCE, KERNEL_MODES, ROUNDINGS, conformance_case, spec_map,
                       spec_resize)
from resize_nearest import nki_cpu, resize_nearest
from resize_nearest.kernels import backend
from resize_nearest.host.api import output_size, resize_maps, resize_nearest_reference
from resize_nearest.kernels.backend import nl, nisa
from resize_nearest.studies.benchmark import measured_counts
from resize_nearest.kernels.graph import build_mapped_indices
from resize_nearest.studies.mode_peers import opencv_axis, torch_axis
from resize_nearest.maps.nearest_modes import affine_params
from resize_nearest.models.onnx_reader import read_resizes, resize_axes
from resize_nearest.maps.plan import (TILE, axis_segment, axis_segments, map_width_ratio, period_plan,
                                 source_of)
from resize_nearest.compiler.registry import (ALIGN_CORNERS_ERRORS, make_resize_instruction,
                                     set_registry_kernel, trace_internal_kernel)
from resize_nearest.host.variants import VARIANTS, predict_counts

CONVENTIONS = [(m, r) for m in KERNEL_MODES for r in ROUNDINGS]
EXACT = ('exact', 'hoisted', 'strided', 'residue', 'rowgather')
PAIRS = [(i, o) for i in range(1, 49) for o in range(1, 49)]


@functools.lru_cache(maxsize=None)
def spec(mode, rounding, n_in, n_out):
    return tuple(spec_map(mode, rounding, n_in, n_out))


def run(x, out_hw, variant, mode, rounding, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)  # program-size warnings of named variants
        return resize_nearest(x, out_hw, variant=variant, backend='cpu',
                              coordinate_transformation_mode=mode, nearest_mode=rounding, **kw)


# --- the trace-time plan: segments, whole periods, width ratios ---------------------------------

@pytest.mark.slow
@pytest.mark.parametrize('mode', KERNEL_MODES)
def test_plan_of_every_axis_pair_to_48(mode):
    "Segments tile each axis exactly; period_plan and map_width_ratio hold only where they claim."
    periodic, ratios = check_plan(mode, PAIRS)
    assert periodic > 100 and ratios > 50  # the claims are made, not only refused


@pytest.mark.parametrize('mode', KERNEL_MODES)
def test_plan_on_the_failure_families_and_a_sample(mode):
    "The fast tier's share of the sweep above."
    periodic, ratios = check_plan(mode, sample_pairs(48, 60, seed=6))
    assert periodic > 5 and ratios > 5  # the claims are made, not only refused


def check_plan(mode, pairs) -> tuple:
    "Check the plan of every (in, out) in pairs under every rounding: (periodic maps, width ratios)."
    periodic = ratios = 0
    for rounding in ROUNDINGS:
        for i, o in pairs:
            want, axis_map = spec(mode, rounding, i, o), affine_params(mode, rounding, i, o)
            got = [None] * o
            for k in range(axis_segments(axis_map, i, o)):
                d0, d_step, count, s0, s_step = axis_segment(axis_map, i, o, k)
                for j in range(count):
                    assert got[d0 + d_step * j] is None, (mode, rounding, i, o, 'covered twice')
                    got[d0 + d_step * j] = s0 + s_step * j
            assert tuple(got) == want, (mode, rounding, i, o)
            assert tuple(source_of(axis_map, i, d) for d in range(o)) == want
            g, step, period = period_plan(i, o, axis_map)
            if g:
                periodic += 1
                offsets = [(axis_map[0] * r + axis_map[1]) // axis_map[2] for r in range(period)]
                assert all(0 <= s < step for s in offsets) and g * period == o and g * step == i
                assert want == tuple(j * step + s for j in range(g) for s in offsets)
            how, k, first = map_width_ratio(i, o, axis_map)
            if how != 'none':
                ratios += 1
                expect = [first + k * d if how == 'down' else first + d // k for d in range(o)]
                assert want == tuple(expect), (mode, rounding, i, o, how, k, first)
    return periodic, ratios


# --- the mapped graph on chip, many axis maps in one kernel -------------------------------------

def axis_maps_kernel(cases, total):
    "The mapped graph's source indices of every case ((a, b, c), in, out), one after another."
    out = nl.ndarray((total, 1), dtype=nl.int32, buffer=nl.shared_hbm)
    first = 0
    for k in nl.static_range(len(cases)):
        axis_map, in_size, out_size = cases[k]
        for start in nl.static_range(0, out_size, TILE):
            size = min(TILE, out_size - start)
            idx = nl.ndarray((size, 1), dtype=nl.int32, buffer=nl.sbuf)
            build_mapped_indices(idx, start, size, axis_map, in_size)
            dst = out.ap(pattern=[[1, size], [1, 1]], offset=first + start)
            nisa.dma_copy(dst=dst, src=idx)
        first += out_size
    return out


def wrong_axis_maps(cases):
    "Cases ((mode, rounding), in, out) whose on-chip indices differ from the specification."
    maps = tuple((affine_params(*conv, i, o), i, o) for conv, i, o in cases)
    got = backend.run_kernel(axis_maps_kernel, maps, sum(o for _, _, o in cases), backend='cpu')
    got, first, wrong = got.ravel(), 0, []
    for conv, i, o in cases:
        if tuple(got[first:first + o]) != spec(*conv, i, o):
            wrong.append((conv, i, o))
        first += o
    return wrong


def distinct_axis_maps():
    "One case per distinct (map, in, out) over every convention and pair 1..48."
    found = {}
    for conv in CONVENTIONS:
        for i, o in PAIRS:
            found.setdefault((affine_params(*conv, i, o), i, o), (conv, i, o))
    return list(found.values())


@pytest.mark.parametrize('rounding', ['rne', 'trunc', 'floor'])
def test_mapped_graph_on_chip_under_every_cast_rounding(rounding):
    "A fixed sample of the distinct axis maps 1..48 (all of them in tools/mode_sweep.py)."
    cases = distinct_axis_maps()
    assert len(cases) > 30000
    sample = cases[::7 if rounding == 'rne' else 29]
    with nki_cpu.cast_rounding(rounding):
        assert wrong_axis_maps(sample) == []


def test_mapped_graph_at_the_axis_limit():
    "65,535 -> 1 and 3 for every coordinate mode; 2 -> 65,535 or 65,535 -> 65,534 for each."
    cases = []
    for k, (mode, rounding) in enumerate(zip(KERNEL_MODES, ROUNDINGS * 2)):
        cases += [((mode, rounding), 65535, 1), ((mode, rounding), 65535, 3)]
        cases += [((mode, rounding), 2, 65535) if k % 2 else ((mode, rounding), 65535, 65534)]
    assert wrong_axis_maps(cases) == []


# --- whole kernels ------------------------------------------------------------------------------

def sample_sizes(seed):
    "Size pairs: fixed edges, then random pairs 1..48 on both axes."
    rng = random.Random(seed)
    cases = [((1, 48), (48, 1)), ((48, 1), (1, 48)), ((2, 3), (3, 2)), ((47, 48), (48, 47)),
             ((5, 40), (40, 10)), ((24, 7), (48, 14))]
    cases += [tuple(zip(*(rng.choice(PAIRS) for _ in range(2)))) for _ in range(12)]
    return cases


@pytest.mark.parametrize('mode, rounding', CONVENTIONS)
def test_every_exact_variant_under_every_convention(mode, rounding):
    "Each exact variant equals the specification, or refuses with its own reason."
    rng = np.random.default_rng(5)
    ran = dict.fromkeys(EXACT, 0)
    for in_hw, out_hw in sample_sizes(KERNEL_MODES.index(mode) * 4 + ROUNDINGS.index(rounding)):
        x = rng.integers(-2**15, 2**15, (2, *in_hw, 2)).astype(np.int16)
        want = spec_resize(x, out_hw, mode, rounding)
        for v in EXACT:
            try:
                got = run(x, out_hw, v, mode, rounding)
            except ValueError as e:
                assert v in ('strided', 'rowgather') and f"variant '{v}' needs" in str(e), e
                continue
            np.testing.assert_array_equal(got, want, err_msg=f'{v} {in_hw} -> {out_hw}')
            ran[v] += 1
        np.testing.assert_array_equal(run(x, out_hw, 'auto', mode, rounding), want)
    assert min(ran['exact'], ran['hoisted'], ran['residue']) == len(sample_sizes(0))


@pytest.mark.parametrize('mode, rounding', [('half_pixel', 'round_prefer_floor')])
def test_every_exact_variant_at_the_axis_limit(mode, rounding):
    "65,535 -> 3 on rows and on columns, and 2 -> 65,535 rows (every convention: mode_sweep.py)."
    for in_hw, out_hw, variants in [((65535, 2), (3, 2), EXACT), ((2, 65535), (2, 3), EXACT),
                                    ((2, 3), (65535, 1), ('exact', 'rowgather'))]:
        x = (np.arange(np.prod(in_hw)) % 65521).astype(np.uint16).reshape(1, *in_hw, 1)
        want = spec_resize(x, out_hw, mode, rounding)
        for v in variants:  # 65,535 output rows on chip; the row-by-row variants: mode_sweep.py
            try:
                got = run(x, out_hw, v, mode, rounding)
            except ValueError as e:
                assert f"variant '{v}' needs" in str(e), e
                continue
            np.testing.assert_array_equal(got, want, err_msg=f'{v} {in_hw} -> {out_hw}')


# --- ONNX's conformance data --------------------------------------------------------------------

@pytest.mark.parametrize('folder', CONFORMANCE, ids=os.path.basename)
def test_conformance_data_through_every_exact_variant(folder):
    "ONNX's expected outputs, bit for bit, from every exact variant that takes the resize."
    path, inputs, y = conformance_case(folder)
    x = inputs['X']
    node, = read_resizes(path, inputs)
    axes = {a.axis: a for a in resize_axes(node)}
    assert set(axes) <= {2, 3} and x.ndim == 4  # NCHW, resized on H and W
    rows, cols = (axes.get(k) for k in (2, 3))
    out_hw = (y.shape[2], y.shape[3])
    scales = [None if a is None else a.scale for a in (rows, cols)]
    scales = None if scales == [None, None] else tuple(
        s if s is not None else Fraction(o, n) for s, o, n in zip(scales, out_hw, x.shape[2:]))
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    ran = []
    for v in EXACT:
        try:
            got = run(nhwc, out_hw, v, node.coordinate_transformation_mode, node.nearest_mode,
                      scales=scales)
        except ValueError as e:
            assert f"variant '{v}' needs" in str(e), e
            continue
        np.testing.assert_array_equal(got.transpose(0, 3, 1, 2), y, err_msg=v)
        ran.append(v)
    assert {'exact', 'hoisted', 'residue'} <= set(ran)


# --- peers whose float maps are exact on a pair: our kernels agree there ------------------------

def tensorflow_half_pixel_axis(name, in_size, out_size):
    """TensorFlow's ResizeNearestNeighbor(half_pixel_centers=True) index, transcribed (tensorflow is
    not installed here): HalfPixelScalerForNN ((float)d + 0.5f) * scale with CalculateResizeScale
    in / (float)out, floorf, then min(in - 1) and max(0) (core/kernels/image/image_resizer_state.h,
    resize_nearest_neighbor_op.cc; shared/reference/peers.md)."""
    scale = np.float32(in_size) / np.float32(out_size)
    x = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale
    return np.clip(np.floor(x), 0, in_size - 1).astype(np.int64)


@pytest.mark.parametrize('peer, axis', [('PyTorch nearest-exact', torch_axis),
                                        ('OpenCV INTER_NEAREST_EXACT', opencv_axis),
                                        ('TensorFlow half_pixel_centers', tensorflow_half_pixel_axis)])
def test_half_pixel_peers_equal_our_kernels_where_their_float_map_is_exact(peer, axis):
    "floor((d + 1/2) * in/out): ours is the specification everywhere, the peer where it is exact."
    agree = disagree = 0
    for i, o in [(i, o) for i, o in PAIRS if max(i, o) <= 32]:
        theirs = tuple(int(v) for v in axis(peer, i, o))
        exact = spec('tf_half_pixel_for_nn', 'floor', i, o)
        x = np.arange(i, dtype=np.int32).reshape(1, 1, i, 1)
        ours = tuple(run(x, (1, o), 'auto', 'tf_half_pixel_for_nn', 'floor').ravel())
        assert ours == exact, (i, o)
        agree += theirs == exact
        disagree += theirs != exact
    assert agree > 600 and disagree > 0, (agree, disagree)  # the peers are wrong on some pairs


# --- the host API and the registry --------------------------------------------------------------

def test_api_refuses_bad_conventions_before_any_work():
    x = np.zeros((1, 4, 4, 1), np.float32)
    before = x.copy()
    cases = [
        (dict(coordinate_transformation_mode=3), TypeError, 'must be a string'),
        (dict(coordinate_transformation_mode='half'), ValueError, "got 'half'"),
        (dict(coordinate_transformation_mode='tf_crop_and_resize'), ValueError,
         'extrapolation_value'),
        (dict(nearest_mode='round'), ValueError, 'nearest_mode must be one of'),
        (dict(scales=(2.0,)), ValueError, 'scales must be a (scale_h, scale_w) pair'),
        (dict(scales=(2.0, '2')), TypeError, 'real numbers'),
        (dict(scales=(2.0, -1.0)), ValueError, 'positive and finite'),
        (dict(scales=(0.1, 1.0)), ValueError, 'empty output'),
        (dict(variant='as_compiled', coordinate_transformation_mode='half_pixel'), ValueError,
         "variant 'as_compiled' has the compiler's map only"),
    ]
    for kwargs, error, text in cases:
        with pytest.raises(error, match=text.replace('(', r'\(').replace(')', r'\)')):
            resize_nearest(x, (8, 8) if 'scales' not in kwargs else None, backend='cpu', **kwargs)
    with pytest.raises(ValueError, match='give out_hw, or scales'):
        resize_nearest(x, None, backend='cpu')
    assert np.array_equal(x, before)


def test_scales_follow_onnx_sizes_and_exact_values():
    "floor(in * scale) of the float32 scale sizes the output; the map uses that exact scale."
    # float32(0.3) = 0.30000001192..., float32(1.7) = 1.70000004768...: ONNX's sizes, not Python's
    assert output_size((10, 10), None, (0.3, 1.7)) == (3, 17)
    assert output_size((10, 10), None, (Fraction(3, 10), Fraction(17, 10))) == (3, 17)
    x = np.arange(3, dtype=np.int32).reshape(1, 1, 3, 1)
    for variant in ('exact', 'hoisted', 'residue'):
        got = run(x, None, variant, 'asymmetric', 'floor', scales=(1.0, 2.6)).ravel()
        s = Fraction(float(np.float32(2.6)))  # floor(3 * 2.6) = 7 outputs, index floor(d / s)
        assert list(got) == [int(d / s) for d in range(7)] == [0, 0, 0, 1, 1, 1, 2], variant
    # out / in = 7/3 instead puts d = 5 at floor(15 / 7) = 2: the compiler's map of the same sizes
    assert resize_maps((1, 3), (1, 7)) == () and resize_maps((1, 3), (1, 7), scales=(1, 2.6)) != ()


def test_compiler_convention_keeps_the_compilers_call():
    "The default convention, spelled out or not, reaches the kernels with two arguments."
    x = np.random.default_rng(0).random((1, 26, 26, 3), dtype=np.float32)
    assert resize_maps((26, 26), (22, 22), 'asymmetric', 'floor') == ()
    want = resize_nearest_reference(x, (22, 22))
    assert np.array_equal(run(x, (22, 22), 'exact', 'asymmetric', 'floor'), want)


@pytest.fixture
def exact_registry():
    set_registry_kernel('exact')
    yield
    set_registry_kernel('as_compiled')


@pytest.mark.parametrize('attrs, convention', [
    ({'coordinate_transformation_mode': 'half_pixel', 'nearest_mode': 'round_prefer_floor'},
     ('half_pixel', 'round_prefer_floor')),
    ({'align_corners': True}, ('align_corners', 'round_prefer_ceil')),
    ({'half_pixel_centers': True}, ('tf_half_pixel_for_nn', 'floor')),
    ({}, ('asymmetric', 'floor'))])
def test_exact_registry_binding_reads_the_attributes(exact_registry, attrs, convention):
    x = np.random.default_rng(1).random((2, 26, 41, 3), dtype=np.float32)
    inst = make_resize_instruction(x.shape, (22, 30), attributes=attrs)
    got = trace_internal_kernel(inst, [x], backend='cpu')
    np.testing.assert_array_equal(got, spec_resize(x, (22, 30), *convention))


def test_compiled_registry_binding_keeps_the_compilers_errors():
    x = np.zeros((1, 4, 4, 1), np.float32)
    inst = make_resize_instruction(x.shape, (8, 8), attributes={'align_corners': True})
    with pytest.raises(ValueError) as e:
        trace_internal_kernel(inst, [x], backend='cpu')
    assert str(e.value) == '\n'.join(ALIGN_CORNERS_ERRORS)
    inst = make_resize_instruction(x.shape, (8, 8), attributes={'nearest_mode': 'ceil'})
    with pytest.raises(ValueError, match="only nearest_mode='floor'"):
        trace_internal_kernel(inst, [x], backend='cpu')


# --- the cost model per convention --------------------------------------------------------------

COUNT_CASES = [((2, 30, 20, 3), (59, 38)), ((1, 40, 40, 2), (80, 80)), ((3, 9, 260, 1), (4, 130)),
               ((2, 26, 26, 5), (22, 22)), ((1, 3, 700, 40), (4, 1400)), ((2, 5, 300, 7), (13, 41))]


@pytest.mark.parametrize('convention', [('half_pixel', 'round_prefer_floor'),
                                        ('align_corners', 'floor'), ('tf_half_pixel_for_nn', 'ceil')])
def test_predicted_counts_equal_measured_under_other_conventions(convention):
    "Every counter of the cost model equals the interpreter's, for every variant that applies."
    compared = 0
    for x_shape, out_hw in COUNT_CASES:
        maps = resize_maps(x_shape[1:3], out_hw, *convention)
        assert maps != ()
        for v in VARIANTS:
            if VARIANTS[v].problems(x_shape, out_hw, 4, maps):
                continue
            p = predict_counts(v, x_shape, out_hw, np.float32, maps)
            m = measured_counts(v, x_shape, out_hw, np.float32, convention)
            counters = set(p) - {'hbm_bytes'}
            assert {k: m[k] for k in counters} == {k: p[k] for k in counters}, (v, x_shape)
            compared += 1
    assert compared >= 3 * len(COUNT_CASES)
