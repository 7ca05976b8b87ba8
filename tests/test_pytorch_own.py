"""PyTorch's own nearest test cases, run against the drop-in.

The torch 2.13.0 wheel ships its test definitions under torch.testing._internal:
- the OpInfo entries `nn.functional.interpolate` (variants 'nearest' and 'nearest-exact') and
  `nn.functional.upsample_nearest` in common_methods_invocations.py, with their
  `sample_inputs_interpolate` / `sample_inputs_upsample` generators and supported CPU dtypes;
- the module tests `interpolate_nearest_*` in common_nn.py (test_nn.py runs them as
  NewModuleTest: forward, then gradcheck in float64).
Each case is run as PyTorch's tests run it, with `interpolate_nearest` in place of F.interpolate
(`upsample_nearest` through `patch()`, since it calls F.interpolate by name). Expected values do
not come from the code under test: the exact map in Python integers (a scale factor as the
Fraction of its float), PyTorch's own output shape and memory format, and F.interpolate's own
output wherever its float map equals the exact one.
"""
import math
from fractions import Fraction

import pytest
import torch
import torch.nn.functional as F

# torch.testing._internal imports expecttest: a dev requirement (settings.ini)
from torch.testing._internal import common_nn
from torch.testing._internal.common_methods_invocations import op_db

from resize_nearest.torch import interpolate_nearest, patch

# PyTorch's own samples call the deprecated alias on purpose
pytestmark = pytest.mark.filterwarnings('ignore:`nn.functional.upsample_nearest` is deprecated')

OPINFO_NAMES = (
    ('nn.functional.interpolate', 'nearest'),
    ('nn.functional.interpolate', 'nearest-exact'),
    ('nn.functional.upsample_nearest', ''),
)
OPINFOS = [op for op in op_db if (op.name, op.variant_test_name) in OPINFO_NAMES]


def _source_map(in_size: int, out_size: int, scale, mode='nearest') -> list:
    """The exact source index along one axis, clamped to in - 1: (d*in)//out or floor(d / scale)
    for `nearest`, the same of d + 1/2 for `nearest-exact`."""
    shift = Fraction(1, 2) if mode == 'nearest-exact' else 0
    step = Fraction(in_size, out_size) if scale is None else 1 / Fraction(scale)
    return [min(math.floor((d + shift) * step), in_size - 1) for d in range(out_size)]


def _follows_scale(kwargs) -> tuple:
    "Per-call: the scale factor each axis's index follows (F.interpolate's rule), else None."
    scale = kwargs.get('scale_factor')
    if scale is None or kwargs.get('recompute_scale_factor'):
        return None
    return scale


def exact_reference(x, out_shape, scale, mode='nearest'):
    "x resized by advanced indexing with the exact maps (autograd: the exact adjoint)."
    spatial = x.dim() - 2
    scales = scale if isinstance(scale, (tuple, list)) else (scale,) * spatial
    y = x
    for axis, (i, o, s) in enumerate(zip(x.shape[2:], out_shape[2:], scales)):
        index = torch.tensor(_source_map(i, o, s, mode), dtype=torch.long)
        y = y.index_select(2 + axis, index)
    return y


def _ours(op, sample):
    if op.name == 'nn.functional.upsample_nearest':
        with patch():
            return op.op(sample.input, *sample.args, **sample.kwargs)
    return interpolate_nearest(sample.input, *sample.args, **sample.kwargs)


def _check_forward(ours, theirs, x, scale, mode='nearest'):
    "Shape and memory format as PyTorch's; values the exact map's; PyTorch's where it is exact."
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert ours.stride() == theirs.stride()
    want = exact_reference(x.detach(), theirs.shape, scale, mode)
    assert torch.equal(ours, want)
    return torch.equal(theirs, want)


def _opinfo_cases():
    for op in OPINFOS:
        for dtype in sorted(op.supported_dtypes('cpu'), key=str):
            yield pytest.param(op, dtype, id=f'{op.name}-{op.variant_test_name}-{dtype}')


@pytest.mark.parametrize('op, dtype', list(_opinfo_cases()))
def test_opinfo_samples_forward(op, dtype):
    "Every OpInfo sample, in every dtype PyTorch lists for CPU: exact, PyTorch's where exact."
    samples = list(op.sample_inputs('cpu', dtype, requires_grad=False))
    assert samples
    for sample in samples:
        theirs = op.op(sample.input, *sample.args, **sample.kwargs)
        mode = sample.kwargs.get('mode', 'nearest')
        _check_forward(_ours(op, sample), theirs, sample.input, _follows_scale(sample.kwargs), mode)


@pytest.mark.parametrize('op', OPINFOS, ids=lambda op: f'{op.name}-{op.variant_test_name}')
def test_opinfo_samples_gradients(op):
    "float64 samples with requires_grad: gradcheck, gradgradcheck, and the exact adjoint."
    for sample in op.sample_inputs('cpu', torch.float64, requires_grad=True):
        scale = _follows_scale(sample.kwargs)
        run = lambda t, sample=sample: _ours(op, _with_input(sample, t))
        assert torch.autograd.gradcheck(run, (sample.input,))
        assert torch.autograd.gradgradcheck(run, (sample.input,))
        y = run(sample.input)
        # small integers: every sum of them is exact, whatever order a backward adds in
        g = torch.randint(-8, 8, y.shape, dtype=y.dtype)
        got, = torch.autograd.grad(y, sample.input, g)
        mode = sample.kwargs.get('mode', 'nearest')
        want, = torch.autograd.grad(exact_reference(sample.input, y.shape, scale, mode), sample.input, g)
        assert torch.equal(got, want)


def _with_input(sample, tensor):
    "The sample with another input tensor (gradcheck perturbs its own copy)."
    return type(sample)(tensor, args=sample.args, kwargs=sample.kwargs)


def test_the_opinfo_entries_are_found():
    "Both entries present, with the sample counts of torch 2.13.0 (a silent empty run would pass)."
    counts = {(op.name, op.variant_test_name): len(list(op.sample_inputs('cpu', torch.float32))) for op in OPINFOS}
    assert counts == {('nn.functional.interpolate', 'nearest'): 23, ('nn.functional.interpolate', 'nearest-exact'): 23,
                      ('nn.functional.upsample_nearest', ''): 12}


def _module_tests() -> list:
    "common_nn's interpolate_nearest_* module tests: (name, input size, dtype, F.interpolate kwargs)."
    cases = []
    for test in common_nn.get_new_module_tests():
        name = test.get('fullname', '')
        if not name.startswith('interpolate_nearest'):
            continue
        forward = test['constructor'].forward
        closure = dict(zip(forward.__code__.co_freevars, (c.cell_contents for c in forward.__closure__)))
        assert closure['fn'] is F.interpolate
        dtype = test.get('default_dtype', torch.float64)
        cases.append(pytest.param(test['input_size'], dtype, closure['kwargs'], id=name))
    return cases


MODULE_TESTS = _module_tests()


def test_the_module_tests_are_found():
    assert len(MODULE_TESTS) == 13


@pytest.mark.parametrize('input_size, dtype, kwargs', MODULE_TESTS)
def test_common_nn_module_tests(input_size, dtype, kwargs):
    "As NewModuleTest runs them: forward against F.interpolate and the exact map, then gradcheck."
    x = torch.randn(input_size, dtype=dtype, requires_grad=True)
    theirs = F.interpolate(x, **kwargs)
    ours = interpolate_nearest(x, **kwargs)
    _check_forward(ours, theirs, x, _follows_scale(kwargs))
    if x.numel():
        assert torch.autograd.gradcheck(lambda t: interpolate_nearest(t, **kwargs), (x,))
        assert torch.autograd.gradgradcheck(lambda t: interpolate_nearest(t, **kwargs), (x,))


def test_opinfo_finds_pytorch_exact_on_its_own_samples():
    "PyTorch's samples are small: its float map is exact on all of them (so equality with it holds)."
    op = next(op for op in OPINFOS if op.variant_test_name == 'nearest')
    exact = [
        _check_forward(
            interpolate_nearest(s.input, *s.args, **s.kwargs),
            op.op(s.input, *s.args, **s.kwargs),
            s.input,
            _follows_scale(s.kwargs),
        )
        for s in op.sample_inputs('cpu', torch.float32)
    ]
    assert all(exact)
