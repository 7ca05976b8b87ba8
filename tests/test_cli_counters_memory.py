"""The command line, the counters, the memory guard and the interpreter's inputs. Each test is a
case that went wrong before (a traceback, a silent truncation, a count in the wrong block, a peak
over the memory guard) and must now fail cleanly or count right."""
import asyncio
import functools
import json
import subprocess
import sys
import textwrap
import tracemalloc
import warnings

import ml_dtypes
import numpy as np
import pytest
from cli_run import run_cli
from hypothesis import given, settings, strategies as st

from resize_nearest.models.audit import NEURON
from resize_nearest import cli, nki_cpu
from resize_nearest.host.api import prepare_resize, resize_memory_bytes, resize_nearest
from resize_nearest.compiler.grad import resize_nearest_grad
from resize_nearest.kernels.gather import resize_nearest_exact_kernel
from resize_nearest.nki_cpu import language as nl
from resize_nearest.compiler.registry import (
    make_resize_instruction, trace_internal_kernel, validate_resize_nearest, Instruction,
    TensorInfo)
from resize_nearest.host.replay import clear_cache, fresh_runs


# --- lint -------------------------------------------------------------------------------------

@pytest.fixture
def kernel_modules(tmp_path, monkeypatch):
    (tmp_path / 'exits_on_import.py').write_text('import sys\nsys.exit(0)\n')
    (tmp_path / 'odd_targets.py').write_text(textwrap.dedent('''\
        import functools
        LIMIT = 3
        class NotAKernel:
            pass
        square = lambda x: x * x
        exec("def made_by_exec(x):\\n    return x")

        def wrap(f):
            @functools.wraps(f)
            def wrapper(*args):
                return f(*args)
            return wrapper

        @wrap
        def wrapped_kernel(data_tensor, out_shape):
            x = 1
            return [i for i in range(3)]
        '''))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_lint_of_a_module_that_exits_on_import_is_a_usage_error(kernel_modules, capsys):
    code, out, err = run_cli(['lint', 'exits_on_import:kernel'], capsys)
    assert code == 2 and 'sys.exit(0)' in err


@pytest.mark.parametrize('target, says', [
    ('os:getcwd', 'not a kernel function'),
    ('odd_targets:NotAKernel', 'not a kernel function'),
    ('odd_targets:LIMIT', 'not a kernel function'),
    ('resize_nearest.maps.index_map:MAX_INDEX', 'not a kernel function'),
    ('odd_targets:square', 'lambda'),
    ('odd_targets:made_by_exec', 'no source file'),
])
def test_lint_of_what_is_not_a_kernel_says_so(kernel_modules, capsys, target, says):
    code, out, err = run_cli(['lint', target], capsys)
    assert code == 2 and says in err and 'Traceback' not in err


def test_lint_reports_a_wrapped_kernel_at_its_own_line(kernel_modules, capsys):
    code, out, err = run_cli(['lint', 'odd_targets:wrapped_kernel'], capsys)
    source = (kernel_modules / 'odd_targets.py').read_text().splitlines()
    comprehension_line = next(n for n, line in enumerate(source, 1) if 'for i in range' in line)
    assert code == 1 and f'odd_targets.py:{comprehension_line}:' in out


# --- counters ---------------------------------------------------------------------------------

def exact_counts(shape, out_hw):
    with fresh_runs(), nki_cpu.counting() as counted:
        resize_nearest(np.zeros(shape, np.float32), out_hw, variant='exact', backend='cpu')
    return counted.summary()['dma_transfers']


def test_two_asyncio_tasks_on_one_thread_count_their_own_runs():
    small, large = ((1, 6, 6, 1), (6, 6)), ((1, 20, 20, 1), (30, 30))
    expected = exact_counts(*small), exact_counts(*large)
    assert expected[0] != expected[1]

    async def task(shape, out_hw):
        with fresh_runs(), nki_cpu.counting() as counted:
            for _ in range(2):
                await asyncio.sleep(0)  # the other task runs here, inside its own block
                resize_nearest(np.zeros(shape, np.float32), out_hw, variant='exact', backend='cpu')
        return counted.summary()['dma_transfers']

    async def both():
        return await asyncio.gather(task(*small), task(*large))

    assert tuple(asyncio.run(both())) == (2 * expected[0], 2 * expected[1])


def test_blocks_held_by_generators_may_close_out_of_order():
    one = exact_counts((1, 6, 6, 1), (6, 6))

    def held():
        with nki_cpu.counting() as counted:
            yield counted

    outer_gen, inner_gen = held(), held()
    outer, inner = next(outer_gen), next(inner_gen)
    exact_counts_run = lambda: resize_nearest(
        np.zeros((1, 6, 6, 1), np.float32), (6, 6), variant='exact', backend='cpu')
    with fresh_runs():
        exact_counts_run()  # counted by the innermost block
        outer_gen.close()  # the outer block closes first
        exact_counts_run()  # still the inner block's
        inner_gen.close()
        with nki_cpu.counting() as after:
            exact_counts_run()  # a fresh block counts normally: nothing points at a closed one
    assert inner.summary()['dma_transfers'] == 2 * one
    assert outer.summary()['dma_transfers'] == 0
    assert after.summary()['dma_transfers'] == one


# --- the interpreter's inputs -----------------------------------------------------------------

@pytest.mark.parametrize('shape', [(2.9, 3), (True, 3), ('4', 3), (np.float64(2.0), 3)])
def test_tensor_shapes_that_are_not_integers_are_refused(shape):
    with pytest.raises(TypeError, match='tensor shape entries must be integers'):
        nl.ndarray(shape, dtype=nl.float32, buffer=nl.sbuf)


def test_the_interpreter_takes_a_torch_bfloat16_tensor():
    torch = pytest.importorskip('torch')
    x = torch.rand(1, 6, 6, 2).to(torch.bfloat16)
    y = nki_cpu.jit(resize_nearest_exact_kernel)(x, (1, 4, 4, 2))
    expected = resize_nearest(x.view(torch.int16).numpy().view(ml_dtypes.bfloat16), (4, 4),
                              variant='exact', backend='cpu')
    assert y.dtype == ml_dtypes.bfloat16 and np.array_equal(y.view(np.uint16),
                                                            expected.view(np.uint16))


# --- the memory guard -------------------------------------------------------------------------

@pytest.mark.parametrize('dtype, shape, out_hw', [
    (np.uint8, (1, 64, 64, 1), (4000, 4000)),
    (np.float32, (1, 300, 400, 3), (2400, 2400)),
])
def test_a_call_stays_within_the_memory_it_is_admitted_for(dtype, shape, out_hw):
    """tracemalloc sees NumPy's allocations. Outputs of millions of elements, so that what grows
    with the output dominates the fixed on-chip allowance (335 MB): the estimate bounds the peak,
    and is not so loose that it would refuse calls that fit (at most four times the peak). A
    recording holds about 10 bytes per float32 output element (int32 decoding), so the output is
    17 million elements."""
    x = np.ones(shape, dtype)
    estimate = resize_memory_bytes(shape, (shape[0], *out_hw, shape[3]), x.itemsize)
    peaks = []
    for fresh in (False, True):
        clear_cache()
        tracemalloc.start()
        if fresh:
            with fresh_runs(), warnings.catch_warnings():
                warnings.simplefilter('ignore', RuntimeWarning)
                resize_nearest(x, out_hw, variant='rowgather', backend='cpu')
        else:
            resize_nearest(x, out_hw, backend='cpu')
        peaks.append(tracemalloc.get_traced_memory()[1] + x.nbytes)
        tracemalloc.stop()
    assert max(peaks) <= estimate <= 4 * max(peaks), (peaks, estimate)


def test_a_gradient_too_large_for_memory_is_refused_before_any_work():
    with pytest.raises(ValueError, match='GiB of memory'):
        resize_nearest_grad(np.ones((1, 1, 1, 1), np.float32), (1, 46340, 46340, 1))


def test_a_gradient_of_more_outputs_than_one_index_chunk_is_computed():
    "2^26 indices is load_indices's limit per call; the gradient walks its outputs in chunks."
    grad = np.ones((1, 8200, 8200, 1), np.float32)
    out = resize_nearest_grad(grad, (1, 41, 41, 1))
    assert out.sum() == grad.size and out.shape == (1, 41, 41, 1)


# --- explicit variants that trace huge programs -------------------------------------------------

def test_a_named_variant_over_the_program_budget_warns_with_an_estimate_first():
    x = np.zeros((1, 1, 1, 1), np.float32)
    with pytest.warns(RuntimeWarning, match=r'traces 67,108,864 instructions.*about [\d,]+ s'):
        prepare_resize(x, (8192, 8192), 'residue')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        prepare_resize(x, (8192, 8192), 'auto')  # auto stays within the budget: no warning


# --- the registry -----------------------------------------------------------------------------

def test_tracing_a_placeholder_kernel_raises_its_not_implemented_error():
    inst = Instruction('SelectAndScatter', [TensorInfo((1, 4, 4, 1), np.float32)],
                       [TensorInfo((1, 4, 4, 1), np.float32)])
    with pytest.raises(NotImplementedError, match="'SelectAndScatter'"):
        trace_internal_kernel(inst, [np.zeros((1, 4, 4, 1), np.float32)], backend='cpu')


@pytest.mark.parametrize('value', [np.array([True, False]), [False], {'x': 1}])
def test_attributes_that_are_not_scalars_are_refused_by_name(value):
    with pytest.raises(TypeError, match="'align_corners' must be a bool"):
        validate_resize_nearest({'align_corners': value})


def test_numpy_scalar_attributes_are_read_as_their_values():
    assert validate_resize_nearest({'align_corners': np.bool_(False)})
    with pytest.raises(ValueError, match='align_corners=true is not supported'):
        validate_resize_nearest({'align_corners': np.bool_(True)})


# --- the command line -------------------------------------------------------------------------

@pytest.mark.parametrize('argv', [
    ['--json', 'check', '26x26', '22x22'],
    ['check', '--json', '26x26', '22x22'],
    ['check', '26x26', '--json', '22x22'],
    ['check', '26x26', '22x22', '--json'],
])
def test_json_is_taken_anywhere(argv, capsys):
    code, out, err = run_cli(argv, capsys)
    rows = json.loads(out)
    assert code == 1 and rows[0]['implementation'] == 'Neuron compiled kernel (modelled)'


@pytest.mark.parametrize('sizes', [
    ['١٢x١٢', '5x5'], ['５x５', '4x4'], ['99999999999999999999x1', '5x5'], ['4096x4096', '1x1'],
    ['1x1', '65535x65535'], ['²x3', '4x4'], ['0x5', '3x3'], ['5x', '3x3'],
])
def test_sizes_check_cannot_run_are_usage_errors_in_text_and_json(sizes, capsys):
    code, out, err = run_cli(['check', *sizes], capsys)
    assert code == 2 and 'Traceback' not in err and 'error:' in err
    code, out, err = run_cli(['check', '--json', *sizes], capsys)
    assert code == 2 and json.loads(out)['exit_status'] == 2


def test_json_for_a_command_without_json_output_is_a_usage_error(capsys):
    code, out, err = run_cli(['--json', 'sweep', '--max', '2'], capsys)
    assert code == 2 and json.loads(out)['error'].startswith('--json is for check and audit')


@pytest.mark.parametrize('redirect', ['>&-', '>/dev/full'])
def test_an_unwritable_stdout_ends_with_a_message_not_a_traceback(redirect):
    command = f'{sys.executable} -m resize_nearest.cli check 26x26 22x22 {redirect}'
    done = subprocess.run(command, shell=True, capture_output=True, text=True)
    assert done.returncode == 2 and 'Traceback' not in done.stderr
    assert 'cannot write the output' in done.stderr or 'standard output is closed' in done.stderr


SIZE_TEXT = st.one_of(
    st.builds(lambda h, w: f'{h}x{w}', st.integers(1, 40), st.integers(1, 40)),
    st.integers(1, 40).map(str),
    st.builds(lambda h, w: f'{h}x{w}', st.integers(0, 10**12), st.integers(0, 10**12)),
    st.text(alphabet=st.characters(codec='utf-8'), max_size=8),
)


@settings(max_examples=40, deadline=None)
@given(in_text=SIZE_TEXT, out_text=SIZE_TEXT, json_at=st.sampled_from([None, 0, 1, 2, 3]))
def test_check_exits_with_a_documented_status_and_its_json_always_parses(in_text, out_text,
                                                                         json_at):
    """check's statuses (cli.py's epilog): 0 exact everywhere, 1 a run wrong, 2 a usage error,
    4 wrong only where modelled (2 -> 2x121: exact on every run, wrong in the modelled compiled
    kernel)."""
    argv = ['check', in_text, out_text]
    if json_at is not None:
        argv.insert(json_at, '--json')
    stdout, stderr = _capture(argv)
    code, out, err = stdout
    assert code in (0, 1, 2, 4), (argv, code, err)
    assert 'Traceback' not in err
    if json_at is not None:
        json.loads(out)


def _capture(argv):
    "Run the command in this process, capturing its output without pytest's capsys fixture."
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    code = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli.main(argv)
        except SystemExit as stop:
            code = stop.code
    return (code, out.getvalue(), err.getvalue()), None
