"""Bad input at every entry point: ValueError/TypeError naming argument, value and what is allowed; never IndexError."""
import re
import subprocess, sys, numpy as np, pytest, ml_dtypes
from pathlib import Path
from resize_nearest import resize_nearest, resize_nearest_reference
from resize_nearest.kernels.backend import run_kernel
from resize_nearest.kernels.gather import resize_nearest_exact_kernel, resize_nearest_fixed_dma_kernel
from resize_nearest.compiler.registry import trace_internal_kernel, make_resize_instruction
from resize_nearest.compiler.grad import resize_nearest_grad, resize_nearest_grad_as_compiled

ROOT = Path(__file__).resolve().parent.parent
X = np.arange(2 * 4 * 5 * 3, dtype=np.float32).reshape(2, 4, 5, 3)

@pytest.mark.parametrize('x, out_hw, exc, msg', [
    (X[0, 0], (3, 3), ValueError, r'x must be 4-D NHWC .* got shape \(5, 3\)'),
    (X.tolist(), (3, 3), TypeError, 'x must be a numpy.ndarray in NHWC layout, got list'),
    (X.astype(np.float64), (3, 3), TypeError, 'x has dtype float64; allowed: float32'),
    (X.astype(np.complex64), (3, 3), TypeError, 'x has dtype complex64'),
    (X.astype(object), (3, 3), TypeError, 'x has dtype object'),
    (X > 0, (3, 3), TypeError, 'x has dtype bool'),
    (np.zeros((1, 0, 3, 1), np.float32), (3, 3), ValueError, 'no empty dimension'),
    (X, (3,), ValueError, r'out_hw must be a \(height, width\) pair of positive integers, got \(3,\)'),
    (X, (3, 3, 3), ValueError, 'out_hw must be a'),
    (X, (0, 3), ValueError, r'out_hw\[0\] must be a positive integer, got 0'),
    (X, (3, -2), ValueError, r'out_hw\[1\] must be a positive integer, got -2'),
    (X, (2.5, 3), TypeError, r'out_hw\[0\] must be a positive integer, got 2.5'),
    (X, (True, 3), TypeError, r'out_hw\[0\] must be a positive integer'),
    (X, 7, ValueError, 'out_hw must be a'),
])
def test_resize_nearest_bad_input(x, out_hw, exc, msg):
    with pytest.raises(exc, match=msg): resize_nearest(x, out_hw)
    with pytest.raises(exc, match=msg): resize_nearest_reference(x, out_hw)

@pytest.mark.parametrize('x, sizes', [(X[0], 1), (X[None], 3)])
def test_sequences_and_volumes_take_one_size_per_spatial_axis(x, sizes):
    "A 3-D array is a sequence and a 5-D one a volume (chapter R4); the reference is NHWC only."
    with pytest.raises(ValueError, match=rf'out_size must be a tuple of {sizes} positive integers .* got \(3, 3\)'):
        resize_nearest(x, (3, 3))
    with pytest.raises(ValueError, match=rf'x must be 4-D NHWC .* got shape {re.escape(str(x.shape))}'):
        resize_nearest_reference(x, (3, 3))

def test_bad_options_and_range():
    with pytest.raises(ValueError, match="variant must be one of .* got 'fast'"): resize_nearest(X, (3, 3), variant='fast')
    with pytest.raises(ValueError, match="backend must be one of .* got 'gpu'"): resize_nearest(X, (3, 3), backend='gpu')
    with pytest.raises(RuntimeError, match="backend 'nki' needs the real NKI"): resize_nearest(X, (3, 3), backend='nki')
    big = np.zeros((1, 1, 1, 1), np.float32)
    with pytest.raises(ValueError, match=r'outside the proven range .* out_h = 70000 > 65535'):
        resize_nearest(big, (70000, 2))
    with pytest.raises(ValueError, match=r'output elements batch\*out_h\*out_w\*channels = 2400000000 > 2\^31 - 1'):
        resize_nearest(np.zeros((2, 1, 1, 3), np.uint8), (20000, 20000), variant='residue')
    np.testing.assert_array_equal(resize_nearest(np.arange(5000, dtype=np.uint16).reshape(1, 1, 5000, 1), (1, 4000)),
                                  np.arange(5000, dtype=np.uint16)[[j * 5000 // 4000 for j in range(4000)]].reshape(1, 1, 4000, 1))

def test_kernels_called_directly_assert_their_invariants():
    "Kernels are NKI code: no raise, only asserts (the host wrapper resize_nearest gives the ValueErrors)."
    with pytest.raises(AssertionError, match=r'out_shape .* must keep batch and channels'): run_kernel(resize_nearest_exact_kernel, X, (1, 3, 3, 3), backend='cpu')
    with pytest.raises(ValueError, match='not enough values to unpack'): run_kernel(resize_nearest_fixed_dma_kernel, X, (2, 3, 3), backend='cpu')
    with pytest.raises(AssertionError, match='proven range'): run_kernel(resize_nearest_exact_kernel, np.zeros((1, 1, 1, 1), np.float32), (1, 70000, 2, 1), backend='cpu')

def test_registry_and_grad_bad_input():
    inst = make_resize_instruction(X.shape, (3, 3))
    with pytest.raises(TypeError, match=r'inputs\[0\] must be a numpy.ndarray'): trace_internal_kernel(inst, [X.tolist()])
    with pytest.raises(ValueError, match=r'inputs\[0\] has shape .* dtype float16'): trace_internal_kernel(inst, [X.astype(np.float16)])
    with pytest.raises(ValueError, match='traces 1 operand'): trace_internal_kernel(inst, [])
    with pytest.raises(ValueError, match='4-D NHWC'): resize_nearest_grad(np.ones((2, 2), np.float32), (1, 1))
    with pytest.raises(ValueError, match='not an integral multiple'): resize_nearest_grad_as_compiled(np.ones((1, 3, 3, 1)), (1, 2, 2, 1))
    with pytest.raises(TypeError, match='grad has dtype int'): resize_nearest_grad_as_compiled(np.ones((1, 2, 2, 1), np.int64), (1, 1, 1, 1))

@pytest.mark.parametrize('args', [['bogus'], ['sweep', '--max', '0'], ['sweep', '--max', 'x'], ['demo', '--nope'], []])
def test_cli_usage_errors(args):
    script = Path(sys.executable).parent / 'resize-nearest'          # the installed console script
    r = subprocess.run([str(script), *args], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and 'usage:' in r.stderr and 'Traceback' not in r.stderr

def test_edge_shapes_are_right():
    rng = np.random.default_rng(0)
    def ref(x, o):  # independent: Python integer rows/cols
        return x[:, [i * x.shape[1] // o[0] for i in range(o[0])]][:, :, [j * x.shape[2] // o[1] for j in range(o[1])]]
    cases = [((1, 1, 1, 1), (1, 1)), ((1, 1, 1, 2), (3, 4)), ((5, 6, 7, 3), (6, 7)), ((1, 1, 1, 1), (1, 4096)),
             ((1, 1, 4096, 1), (1, 1)), ((1, 4096, 1, 2), (1, 1)), ((1, 1, 3, 1), (1, 4096)), ((17, 3, 2, 1), (5, 5)), ((1, 64, 64, 1), (1, 1))]
    for shape, out_hw in cases:
        x = rng.integers(-1000, 1000, shape).astype(np.int16)
        for v in ('exact', 'hoisted', 'auto'):
            np.testing.assert_array_equal(resize_nearest(x, out_hw, variant=v), ref(x, out_hw), err_msg=f'{shape}->{out_hw} {v}')

def test_non_contiguous_and_read_only_inputs():
    base = np.random.default_rng(1).random((2, 9, 12, 4), dtype=np.float32)
    views = [base[:, ::2, ::3, 1:3], base.transpose(0, 2, 1, 3), np.asfortranarray(base)]
    ro = base.copy(); ro.flags.writeable = False; views.append(ro)
    for v in views:
        before = v.copy()
        y = resize_nearest(v, (5, 7))
        np.testing.assert_array_equal(y, resize_nearest_reference(np.ascontiguousarray(v), (5, 7)))
        np.testing.assert_array_equal(v, before)
        assert y.flags.c_contiguous and y.flags.writeable and not np.shares_memory(y, base)

def test_special_values_survive():
    f = np.array([np.nan, -0.0, np.inf, -np.inf, 1e-45, np.finfo(np.float32).max], np.float32)
    x = np.resize(f, (1, 2, 3, 1)).astype(np.float32)
    x.view(np.uint32)[0, 0, 0, 0] = 0x7FA01234                                  # signalling-style NaN payload
    y = resize_nearest(x, (4, 6))
    assert y.view(np.uint32).tobytes() == resize_nearest_reference(x, (4, 6)).view(np.uint32).tobytes()
    for dt, vals in ((np.int8, [-128, 127]), (np.uint8, [0, 255]), (np.int32, [-2**31, 2**31 - 1]), (np.uint32, [0, 2**32 - 1])):
        xi = np.array(vals, dt).reshape(1, 1, 2, 1)
        assert resize_nearest(xi, (1, 4)).ravel().tolist() == [vals[0], vals[0], vals[1], vals[1]]
