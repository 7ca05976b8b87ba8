"""Hypothesis: random shapes and dtypes for the kernels against the references; the interpreter's out-of-bounds guard."""
import numpy as np, ml_dtypes, warnings
from hypothesis import given, settings, strategies as st, HealthCheck
from resize_nearest import resize_nearest
from resize_nearest.maps.index_map import load_indices
import resize_nearest.nki_cpu as nki
import resize_nearest.nki_cpu.language as nl
import resize_nearest.nki_cpu.isa as nisa
from resize_nearest.nki_cpu.memory import write, OutOfBoundsError

DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.int8, np.uint8, np.int32]
sizes = st.integers(1, 40)

def ref_from_map(x, out_hw, li):
    b, h, w, c = x.shape
    return x.reshape(b, h * w, c)[:, li].reshape(b, *out_hw, c)

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(b=st.integers(1, 3), ih=sizes, iw=sizes, oh=sizes, ow=sizes, c=st.integers(1, 4), dt=st.sampled_from(DTYPES),
       variant=st.sampled_from(['exact', 'hoisted', 'residue', 'rowgather', 'auto']), seed=st.integers(0, 2**32 - 1))
def test_exact_variants_equal_integer_map(b, ih, iw, oh, ow, c, dt, variant, seed):
    x = np.random.default_rng(seed).integers(0, 256, (b, ih, iw, c * np.dtype(dt).itemsize), dtype=np.uint8).view(dt)
    before = x.copy()
    y = resize_nearest(x, (oh, ow), variant=variant)
    assert y.view(np.uint8).tobytes() == ref_from_map(x, (oh, ow), load_indices((ih, iw), (oh, ow))).view(np.uint8).tobytes()
    assert x.view(np.uint8).tobytes() == before.view(np.uint8).tobytes()

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(b=st.integers(1, 3), ih=sizes, iw=sizes, oh=st.integers(1, 70), ow=st.integers(1, 70), dt=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1))
def test_as_compiled_equals_fp32_map_or_refuses(b, ih, iw, oh, ow, dt, seed):
    x = np.random.default_rng(seed).integers(0, 256, (b, ih, iw, 2 * np.dtype(dt).itemsize), dtype=np.uint8).view(dt)
    li = load_indices((ih, iw), (oh, ow), 'as_compiled')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)
        if li.max() >= ih * iw:
            try: resize_nearest(x, (oh, ow), variant='as_compiled')
            except ValueError as e: assert 'out of bounds' in str(e); return
            raise AssertionError('an out-of-bounds as-compiled map must raise')
        y = resize_nearest(x, (oh, ow), variant='as_compiled')
    assert y.view(np.uint8).tobytes() == ref_from_map(x, (oh, ow), li).view(np.uint8).tobytes()

@settings(max_examples=80, deadline=None)
@given(batch=st.integers(2, 4), pixels=st.integers(1, 50), c=st.integers(1, 5), lanes=st.integers(1, 128),
       bad=st.one_of(st.integers(-2**31, -1), st.integers(1, 2**31 - 1)), lane=st.data())
def test_corrupted_index_tile_never_reads_neighbouring_memory(batch, pixels, c, lanes, bad, lane):
    "A gather from image 0's view with any index outside [0, pixels) raises, even one that lands in image 1."
    data = nki.memory.from_numpy(np.arange(batch * pixels * c, dtype=np.float32).reshape(batch * pixels, c))
    image0 = data[0:pixels]
    idx = nl.ndarray((lanes, 1), dtype=nl.int32, buffer=nl.sbuf)
    vals = np.zeros((lanes, 1), np.int32)
    vals[lane.draw(st.integers(0, lanes - 1))] = bad if bad < 0 else pixels - 1 + bad % (batch * pixels)  + 1
    write(idx, vals)
    dst = nl.ndarray((lanes, c), dtype=nl.float32, buffer=nl.sbuf)
    try:
        nisa.dma_copy(dst=dst, src=image0.ap([[c, lanes], [1, c]], vector_offset=idx, indirect_dim=0))
    except OutOfBoundsError: return
    raise AssertionError('an index outside the view was read')
