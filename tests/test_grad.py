"""Gradients against PyTorch autograd, and the described lowering's verbatim legality errors."""
import numpy as np, pytest, torch, torch.nn.functional as F
from math import prod
from resize_nearest.compiler.grad import lower_resize_nearest_grad, resize_nearest_grad, resize_nearest_grad_as_compiled, LoweringError

def autograd(g, input_shape):
    x = torch.zeros(input_shape, dtype=torch.from_numpy(g).dtype).permute(0, 3, 1, 2).requires_grad_()
    F.interpolate(x, size=g.shape[1:3], mode='nearest').backward(torch.from_numpy(g).permute(0, 3, 1, 2))
    return x.grad.permute(0, 2, 3, 1).numpy()

@pytest.mark.parametrize('shape, out_hw', [((2, 3, 5, 4), (6, 10)), ((1, 4, 4, 2), (12, 8)), ((3, 1, 1, 2), (5, 7)), ((1, 6, 6, 1), (6, 6))])
def test_sum_equals_autograd_and_mean_is_divided(shape, out_hw):
    g = np.random.default_rng(0).integers(-999, 999, (shape[0], *out_hw, shape[3])).astype(np.float64)
    a = autograd(g, shape)
    np.testing.assert_array_equal(resize_nearest_grad(g, shape), a)
    np.testing.assert_array_equal(resize_nearest_grad_as_compiled(g, shape), a / prod(o // i for o, i in zip(out_hw, shape[1:3])))

@pytest.mark.parametrize('dtype', [np.float32, np.float16])
def test_low_precision_dtypes(dtype):
    g = np.random.default_rng(1).standard_normal((2, 8, 6, 3)).astype(dtype)
    a = autograd(g.astype(np.float32), (2, 4, 3, 3))
    tol = 1e-5 if dtype == np.float32 else 1e-2
    np.testing.assert_allclose(resize_nearest_grad(g, (2, 4, 3, 3)).astype(np.float32), a, rtol=tol, atol=tol)
    assert resize_nearest_grad(g, (2, 4, 3, 3)).dtype == dtype

def test_fractional_sizes_scatter_add_equals_autograd():
    rng = np.random.default_rng(2)
    for shape, out_hw in [((1, 30, 20, 2), (59, 38)), ((2, 9, 7, 1), (4, 11)), ((1, 13, 5, 3), (6, 17))]:
        g = rng.integers(-99, 99, (shape[0], *out_hw, shape[3])).astype(np.float64)
        np.testing.assert_array_equal(resize_nearest_grad(g, shape), autograd(g, shape))

def test_verbatim_legality_errors():
    cases = [(dict(grad_shape=(4,), input_shape=(2,), num_operands=2), 'ResizeNearestGrad: only one operand allowed'),
             (dict(grad_shape=(4,), input_shape=(2,), num_results=0), 'ResizeNearestGrad: only one output allowed'),
             (dict(grad_shape=(1, 4, 4), input_shape=(1, 2, 2, 1)), 'ResizeNearestGrad: input and output have different rank'),
             (dict(grad_shape=(1, 6, 5, 2), input_shape=(1, 3, 2, 2)), 'ResizeNearestGrad: output dim 2 is not an integral multiple of input dim 2, which is unsupported')]
    for kw, msg in cases:
        with pytest.raises(LoweringError) as e: lower_resize_nearest_grad(**kw)
        assert str(e.value) == msg

def test_rewrite_parameters_and_bad_input():
    low = lower_resize_nearest_grad((2, 6, 9, 3), (2, 3, 3, 3))
    assert low['window_dimensions'] == low['window_strides'] == (1, 2, 3, 1) and low['then'] == ('divide', 6) and low['body'] == 'add'
    with pytest.raises(TypeError, match='grad has dtype int'): resize_nearest_grad(np.ones((1, 2, 2, 1), np.int32), (1, 1, 1, 1))
    with pytest.raises(TypeError, match='grad must be a numpy.ndarray'): resize_nearest_grad([[1.0]], (1, 1, 1, 1))
    with pytest.raises(ValueError, match='agree on batch and channels'): resize_nearest_grad(np.ones((1, 2, 2, 1)), (2, 1, 1, 1))
