"""Bad input refused early and by name: negative and huge as-compiled maps, shapes, masked arrays, index ranges,
malformed registry instructions, gradient dtypes, the command line; counters per thread; a hypothesis property that
every accepted call is exact and every refusal comes before any kernel work."""
import os, re, subprocess, sys, threading, tracemalloc, warnings, numpy as np, pytest, ml_dtypes
from pathlib import Path
from hypothesis import given, settings, strategies as st, HealthCheck
from resize_nearest import resize_nearest, resize_nearest_reference, nki_cpu
from resize_nearest.maps.index_map import load_indices, src_index_exact, src_index_fp32
from resize_nearest.studies.compare import kernel_sweep
from resize_nearest.compiler.grad import resize_nearest_grad, lower_resize_nearest_grad
from resize_nearest.compiler.registry import TensorInfo, Instruction, make_resize_instruction, trace_internal_kernel
from resize_nearest.studies.benchmark import measured_counts

ROOT = Path(__file__).resolve().parent.parent
NEG = ((1, 1), (679079, 15))          # the as-compiled map reaches -1 at output pixel 10186169


# negative as-compiled indices are refused like indices past the end, in every path, before any work
def test_negative_as_compiled_index_refused_everywhere():
    x = np.arange(2, dtype=np.float32).reshape(2, 1, 1, 1)
    msg = r'as-compiled index map of 1x1 -> 679079x15 reads source pixel -1 .*output pixel 10186169'
    for f in (lambda: resize_nearest_reference(x, NEG[1], 'as_compiled'), lambda: resize_nearest(x, NEG[1], variant='as_compiled'),
              lambda: resize_nearest_grad(np.zeros((2, *NEG[1], 1), np.float32), (2, 1, 1, 1), mode='as_compiled')):
        with nki_cpu.counting() as c, pytest.raises(ValueError, match=msg): f()
        assert c.summary()['dma_transfers'] == 0 and c.summary()['compute_instructions'] == 0   # refused before any kernel work

# as_compiled memory: refused or checked in chunks, never killed
def test_huge_as_compiled_map_refused_quickly():
    x = np.zeros((1, 1, 1, 1), np.uint8)
    tracemalloc.start()
    with pytest.raises(ValueError, match=r'needs out_h \* out_w <= 2\^24; got out_h \* out_w = 900000000'): resize_nearest(x, (30000, 30000), variant='as_compiled')
    with pytest.raises(ValueError, match=r'needs out_h \* out_w <= 2\^24; got out_h \* out_w = 900000000'): resize_nearest_reference(x, (30000, 30000), 'as_compiled')
    peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
    assert peak < 16 * 2**20, peak      # refused before the 900M-entry map (3.6 GB as int32) is made

def test_as_compiled_reference_checks_in_chunks():
    import tracemalloc
    x = np.zeros((1, 4, 4, 1), np.uint8)
    tracemalloc.start()
    y = resize_nearest_reference(x, (1500, 1500), 'as_compiled')
    peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
    assert y.shape == (1, 1500, 1500, 1) and peak < 40 * 2**20, peak        # 2.25M pixels: far below 60 bytes per pixel

# shapes are never truncated: one validator everywhere
@pytest.mark.parametrize('bad, exc', [((2, 3.7, 4, 3), TypeError), ((2, True, 4, 3), TypeError), ('2343', TypeError), ((2, 0, 4, 3), ValueError)])
def test_shapes_validated_never_truncated(bad, exc):
    g = np.zeros((2, 6, 8, 3), np.float32)
    with pytest.raises(exc, match='input_shape'): resize_nearest_grad(g, bad)
    with pytest.raises(exc, match='input_shape'): lower_resize_nearest_grad((2, 6, 8, 3), bad)
    with pytest.raises(exc, match='shape'): TensorInfo(bad, np.float32)

def test_sizes_never_truncated():
    with pytest.raises(TypeError, match=r'grad_shape\[1\]'): lower_resize_nearest_grad((2, 6.9, 8, 3), (2, 3, 4, 3))
    with pytest.raises(TypeError, match=r'shape\[0\]'): TensorInfo((1.7, 2), np.float32)
    with pytest.raises(TypeError, match=r'out_hw\[0\]'): make_resize_instruction((1, 4, 4, 1), (4.5, 5))
    with pytest.raises(ValueError, match='grad'): resize_nearest_grad(np.zeros((2, 0, 8, 3), np.float32), (2, 3, 4, 3))

# masked arrays: refused by both
def test_masked_arrays_refused():
    x = np.ma.masked_array(np.zeros((1, 2, 2, 1), np.float32), mask=np.eye(2, dtype=bool)[None, ..., None])
    for f in (resize_nearest, resize_nearest_reference):
        with pytest.raises(TypeError, match='masked array'): f(x, (3, 3))

# counters per thread, and a context manager for one run
def test_counters_are_per_thread():
    alone = measured_counts('exact', (1, 8, 8, 2), (20, 20))
    errors, results = [], []
    def work():
        try:
            for _ in range(5): results.append(measured_counts('exact', (1, 8, 8, 2), (20, 20))); nki_cpu.stats()
        except Exception as e: errors.append(e)
    ts = [threading.Thread(target=work) for _ in range(3)]
    for t in ts: t.start()
    for t in ts: t.join()
    assert not errors and all(r == alone for r in results)
    with nki_cpu.counting() as c: resize_nearest(np.zeros((1, 8, 8, 2), np.float32), (20, 20), variant='exact', backend='cpu')
    assert c.summary() == alone

# index_map: no silent overflow
@pytest.mark.parametrize('f, arg', [
    (lambda: src_index_exact(np.array([2**62]), 4, 3), 'dst'),
    (lambda: src_index_exact(np.array([2**64 - 1], np.uint64), 4, 3), 'dst'),
    (lambda: src_index_fp32([1], 2**200, 1), 'in_size'),
    (lambda: load_indices((2**40, 2**40), (2, 2), 'as_compiled'), 'in_hw'),
    (lambda: load_indices((2, 2), (10**6, 10**6)), 'out_hw'),
    (lambda: src_index_exact([1], 2**70, 3), 'in_size'),
])
def test_index_map_ranges_refused_not_overflowed(f, arg):
    with pytest.raises(ValueError, match=arg): f()

# registry tracing with malformed instructions
def test_registry_refuses_malformed_instructions():
    x = np.zeros((1, 4, 4, 1), np.float32)
    ok = make_resize_instruction((1, 4, 4, 1), (5, 5))
    with pytest.raises(TypeError, match='inst must be an Instruction'): trace_internal_kernel(None, [x])
    with pytest.raises(TypeError, match='func_name'): trace_internal_kernel(Instruction(None, ok.operands, ok.results), [x])
    with pytest.raises(TypeError, match='func_name'): trace_internal_kernel(Instruction(['ResizeNearest'], ok.operands, ok.results), [x])
    with pytest.raises(ValueError, match='one result'): trace_internal_kernel(Instruction('ResizeNearest', ok.operands, []), [x])
    with pytest.raises(ValueError, match='operand'): trace_internal_kernel(Instruction('ResizeNearest', [], ok.results), [x])
    with pytest.raises(ValueError, match='dtype int32'):
        trace_internal_kernel(Instruction('ResizeNearest', ok.operands, [TensorInfo((1, 5, 5, 1), np.int32)]), [x])
    wide = np.zeros((1, 4, 4, 100000), np.float32)
    with pytest.raises(ValueError, match='TiB|GiB of memory'):
        trace_internal_kernel(Instruction('ResizeNearest', [TensorInfo(wide.shape, np.float32)], [TensorInfo((1, 4000, 4000, 100000), np.float32)]), [wide])
    oob = make_resize_instruction((2, 1, 5, 1), (2, 41))
    with pytest.raises(ValueError, match='out of bounds'): trace_internal_kernel(oob, [np.zeros((2, 1, 5, 1), np.float32)])
    with pytest.raises(TypeError, match='dtype bool'):
        trace_internal_kernel(make_resize_instruction((1, 4, 4, 1), (5, 5), np.bool_), [np.zeros((1, 4, 4, 1), bool)])
    inst = make_resize_instruction((1, 26, 26, 1), (22, 22))
    with pytest.warns(RuntimeWarning, match='43 of 484 output pixels'): trace_internal_kernel(inst, [np.zeros((1, 26, 26, 1), np.float32)])

# gradient dtypes like the forward path
def test_gradient_dtypes():
    g = np.ones((1, 4, 4, 1), ml_dtypes.bfloat16)
    assert resize_nearest_grad(g, (1, 2, 2, 1)).dtype == g.dtype
    with pytest.raises(TypeError, match='byte order'): resize_nearest_grad(np.ones((1, 4, 4, 1), '>f4'), (1, 2, 2, 1))
    with pytest.raises(ValueError, match='grad'): resize_nearest_grad(np.ones((0, 4, 4, 1), np.float32), (0, 2, 2, 1))

# the command line
def _cli(*args, env=None, **kw):
    return subprocess.run([sys.executable, '-m', 'resize_nearest.cli', *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, **kw)

def test_command_line_refusals(tmp_path):
    blocker = tmp_path / 'a_file'; blocker.write_text('x')          # unwritable even for root: its parent is a file
    r = _cli('sweep', '--max', '20', '--figures', str(blocker / 'sub'))
    assert r.returncode == 2 and 'cannot write' in r.stderr, r.stderr
    r = subprocess.run(f'{sys.executable} -m resize_nearest.cli sweep --max 4 | head -1', shell=True, capture_output=True, text=True, cwd=tmp_path)
    assert 'Traceback' not in r.stderr and 'BrokenPipeError' not in r.stderr, r.stderr
    r = _cli('sweep', '--max', '4', env={'RESIZE_NEAREST_BACKEND': 'tpu'}, cwd=tmp_path)
    assert r.returncode == 2 and 'RESIZE_NEAREST_BACKEND' in r.stderr and 'Traceback' not in r.stderr
    r = _cli('sweep', '--max', '512', cwd=tmp_path)
    assert r.returncode == 2 and '--yes' in r.stderr and 'estimated' in r.stderr
    r = _cli('demo', '--max', '1', cwd=tmp_path)
    assert r.returncode == 2 and 'unrecognized arguments: --max' in r.stderr
    r = _cli('sweep', '--max', '3', '--force', cwd=tmp_path)
    assert r.returncode == 0 and 'size pairs' not in r.stderr          # no progress bar when stderr is not a terminal

# a bad RESIZE_NEAREST_BACKEND does not break the import: tests/test_backend.py::test_env_var_is_read_when_a_kernel_runs

# kernel_sweep raises what is not an out-of-bounds refusal
def test_kernel_sweep_refuses_bad_variants():
    with pytest.raises(ValueError, match="variant must be one of"): kernel_sweep(3, variants=('exact', 'fast'), progress=False)
    with pytest.raises(TypeError, match='variants must be a tuple'): kernel_sweep(3, variants='exact', progress=False)
    r = kernel_sweep(6, variants=('exact', 'as_compiled', 'hoisted', 'strided'), progress=False)
    assert r['exact'].sum() == 0 and r['hoisted'].sum() == 0
    assert r['strided'][2, 3] == -1 and r['strided'][1, 3] == 0                 # 3 -> 4 has no integer width ratio; 2 -> 4 has

# the hypothesis property: accepted calls are exact, refusals are TypeError/ValueError before any kernel runs
VALID = st.integers(1, 40)
SIZE = st.one_of(VALID, VALID, VALID, VALID, VALID, VALID, st.integers(2**25, 2**40), st.integers(-3, 0), st.booleans(),
                 st.floats(0.5, 50), st.just('7'), st.none())

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(in_hw=st.tuples(st.integers(1, 12), st.integers(1, 12)), out_hw=st.tuples(SIZE, SIZE),
       variant=st.sampled_from(['exact', 'as_compiled', 'hoisted', 'strided', 'auto']), batch=st.integers(1, 2))
def test_property_accepted_exact_refused_early(in_hw, out_hw, variant, batch):
    x = np.random.default_rng(0).integers(0, 255, (batch, *in_hw, 2)).astype(np.uint8)
    with nki_cpu.counting() as c, warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)
        try: y = resize_nearest(x, out_hw, variant=variant, backend='cpu')
        except (TypeError, ValueError):
            assert c.summary()['dma_transfers'] == 0 and c.summary()['compute_instructions'] == 0   # refused before work
            return
    mode = 'as_compiled' if variant == 'as_compiled' else 'exact'
    li = load_indices(in_hw, out_hw, mode)
    expect = x.reshape(-1, 2)[(np.arange(batch)[:, None] * in_hw[0] * in_hw[1] + li[None]).reshape(-1)].reshape(y.shape)
    np.testing.assert_array_equal(y, expect)
    ih, iw = in_hw; oh, ow = out_hw
    assert 0 <= li.min() and li.max() < ih * iw
    if mode == 'exact':                                 # the integer formula itself, independent of load_indices
        grid = li.reshape(oh, ow)
        assert np.array_equal(grid[:, 0] // iw, np.arange(oh) * ih // oh) and np.array_equal(grid[0] % iw, np.arange(ow) * iw // ow)


# no test reads the clock to pass or fail: a bound is checked by what it stopped (a reason, a counter, a call)
CLOCK = re.compile(r'\b(?:time\.(?:perf_counter|monotonic|time|process_time)(?:_ns)?|perf_counter|monotonic)\s*\(')

def test_no_test_reads_the_clock():
    found = [f'{p.name}:{n}' for p in sorted((ROOT / 'tests').glob('*.py')) if p.name != 'test_refusals.py'
             for n, line in enumerate(p.read_text(encoding='utf-8').splitlines(), 1) if CLOCK.search(line)]
    own = [n for n, line in enumerate(Path(__file__).read_text(encoding='utf-8').splitlines(), 1)
           if CLOCK.search(line) and 'CLOCK' not in line]
    assert found == [] and own == [], (found, own)
