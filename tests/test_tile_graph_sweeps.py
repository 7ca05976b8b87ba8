"""The broad sweeps behind chapter 1.4's tile graphs (nbs/14_tile_graph.ipynb), too long for the
chapter: the exact graph at the edges of its proof, and the compiled graph's floor correction, each
under every way the cast may round. Both are slow: the interpreter runs thousands of tiles."""
import random

import numpy as np
import pytest

from resize_nearest import nki_cpu

from resize_nearest.kernels import backend
from resize_nearest.kernels.backend import nl, nisa
from resize_nearest.kernels.graph import build_index_graph_as_compiled, build_index_graph_exact
from resize_nearest.maps.index_map import first_row_failures, load_indices
from resize_nearest.maps.plan import exact_range_problems

ROUNDINGS = ('rne', 'trunc', 'floor')  # the ways a float32 -> int32 cast may round (chapter 1.2)


def _col(size):
    return nl.ndarray((size, 1), dtype=nl.int32, buffer=nl.sbuf)


def _to_hbm(t):
    out = nl.ndarray(t.shape, dtype=t.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


def exact_kernel(start, size, in_hw, out_hw):
    "The exact graph's flat source pixels: its lanes plus the base it returns (an int32 add)."
    rel, load, base_tile = _col(size), _col(size), _col(size)
    base = build_index_graph_exact(rel, start, size, in_hw, out_hw)
    nisa.memset(base_tile, base)
    nisa.tensor_tensor(dst=load, data1=rel, data2=base_tile, op=nl.add)
    return _to_hbm(load)


def integer_map(in_hw, out_hw, start, size):
    "One tile's flat source pixels with Python-sized NumPy integers: shares nothing with a graph."
    p = np.arange(start, start + size, dtype=np.int64)
    r, c = p // out_hw[1], p % out_hw[1]
    return (r * in_hw[0] // out_hw[0]) * in_hw[1] + c * in_hw[1] // out_hw[1]


def edge_cases(count=700, seed=0):
    """Size pairs at the edges of the exact graph's proof: 65,535 on an axis, tensors just under
    2^31 elements, widths around 128 (the branch), every width up to 2048 that fails the compiled
    row index, then random pairs inside the exact range."""
    cases = [((4320, 7680), (2160, 3840)), ((2160, 3840), (4320, 7680)), ((65535, 1), (1, 1)),
             ((1, 1), (65535, 1)), ((1, 65535), (1, 1)), ((1, 1), (1, 65535)),
             ((65535, 32767), (32768, 65535)), ((32767, 65535), (3, 65534)), ((65535, 2), (2, 127)),
             ((2, 65535), (65535, 129)), ((1, 1), (4095, 4096)), ((4096, 4096), (4095, 4096)),
             ((65521, 32749), (65519, 128)), ((65521, 32749), (65519, 129))]
    rng = random.Random(seed)
    cases += [((rng.randint(1, 64), rng.randint(1, 64)), (rng.randint(1, 400), int(w)))
              for w in first_row_failures(2048)]
    while len(cases) < count:
        oh, ih = rng.randint(1, 65535), rng.randint(1, 65535)
        ow = rng.choice([rng.randint(1, 300), rng.randint(1, 65535)])
        iw = rng.randint(1, min(65535, (2**31 - 1) // ih))
        if not exact_range_problems((ih, iw), (oh, ow)):
            cases.append(((ih, iw), (oh, ow)))
    return cases


def sampled_tiles(n):
    "The first tile, one a third of the way in, the middle one and the last (starts of 128 lanes)."
    return sorted({0, max(0, n // 3), max(0, n // 2 // 128 * 128), max(0, (n - 1) // 128 * 128)})


@pytest.mark.slow
@pytest.mark.parametrize('rounding', ROUNDINGS)
def test_exact_graph_is_the_integer_map_at_the_edges_of_its_proof(rounding):
    cases = edge_cases()
    assert not any(exact_range_problems(i, o) for i, o in cases)
    wrong = []
    with nki_cpu.cast_rounding(rounding):
        for in_hw, out_hw in cases:
            n = out_hw[0] * out_hw[1]
            for start in sampled_tiles(n):
                size = min(128, n - start)
                got = backend.run_kernel(exact_kernel, start, size, in_hw, out_hw, backend='cpu')
                if (got.ravel() != integer_map(in_hw, out_hw, start, size)).any():
                    wrong.append((in_hw, out_hw, start))
    assert wrong == []


def compiled_kernel(start, size, in_hw, out_hw):
    load = _col(size)
    build_index_graph_as_compiled(load, start, size, in_hw, out_hw)
    return _to_hbm(load)


def bare_cast_kernel(start, size, in_hw, out_hw):
    "The compiled graph with every floor replaced by a bare cast into int32."
    pos, row, col, row_x_w = _col(size), _col(size), _col(size), _col(size)
    nisa.iota(pos, [[1, 1]], offset=start, channel_multiplier=1)
    nisa.tensor_scalar(dst=row, data=pos, op0=nl.multiply, operand0=1.0 / out_hw[1])
    nisa.tensor_scalar(dst=row_x_w, data=row, op0=nl.multiply, operand0=float(out_hw[1]))
    nisa.tensor_tensor(dst=col, data1=pos, data2=row_x_w, op=nl.subtract)
    src_h, src_w, src_h_x_w, flat = _col(size), _col(size), _col(size), _col(size)
    nisa.tensor_scalar(dst=src_h, data=row, op0=nl.multiply, operand0=in_hw[0] / out_hw[0])
    nisa.tensor_scalar(dst=src_w, data=col, op0=nl.multiply, operand0=in_hw[1] / out_hw[1])
    nisa.tensor_scalar(dst=src_h_x_w, data=src_h, op0=nl.multiply, operand0=float(in_hw[1]))
    nisa.tensor_tensor(dst=flat, data1=src_h_x_w, data2=src_w, op=nl.add)
    return _to_hbm(flat)


def lanes_off_float32_map(kernel, in_hw, out_hw, rounding):
    "Lanes of every tile where `kernel` differs from the compiled float32 map (chapter 1.1)."
    n, ref, off = out_hw[0] * out_hw[1], load_indices(in_hw, out_hw, 'as_compiled'), 0
    with nki_cpu.cast_rounding(rounding):
        for start in range(0, n, 128):
            size = min(128, n - start)
            got = backend.run_kernel(kernel, start, size, in_hw, out_hw, backend='cpu').ravel()
            off += int((got != ref[start : start + size]).sum())
    return off


@pytest.mark.slow
def test_floor_correction_makes_the_compiled_graph_independent_of_the_cast_rounding():
    """224x224 -> 192x192, every tile: the compiled graph is its float32 map whichever way the cast
    rounds; with bare casts it is right only when the cast truncates or floors (every value here is
    non-negative), and wrong when it rounds to nearest, as the hardware does."""
    sizes = ((224, 224), (192, 192))
    compiled = {r: lanes_off_float32_map(compiled_kernel, *sizes, r) for r in ROUNDINGS}
    bare = {r: lanes_off_float32_map(bare_cast_kernel, *sizes, r) for r in ROUNDINGS}
    assert compiled == {'rne': 0, 'trunc': 0, 'floor': 0}
    assert bare['trunc'] == bare['floor'] == 0 and bare['rne'] > 0, bare
