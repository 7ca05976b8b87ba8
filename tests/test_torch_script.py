"""TorchScript and the drop-in: ResizeNearest scripts (exact, like its eager self; nn.Upsample
scripts too), and what patch() cannot make exact in TorchScript is refused with a message that
says so instead of an AttributeError or PyTorch's own inexact op."""
import math
from fractions import Fraction

import pytest
import torch
import torch.nn as nn

from resize_nearest.torch import ResizeNearest, patch

X = torch.rand(2, 3, 26, 26)
# torch 2.13 announces TorchScript's deprecation on every torch.jit.script call; scripting is what
# these tests check, so the announcement is expected here
pytestmark = pytest.mark.filterwarnings('ignore:`torch.jit.script` is deprecated:DeprecationWarning')


def _index(in_size, out_size, scale=None, half=False):
    "The exact source index from the definition, in Python integers and fractions."
    d = [Fraction(k) + (Fraction(1, 2) if half else 0) for k in range(out_size)]
    step = Fraction(in_size, out_size) if scale is None else 1 / Fraction(scale)
    return [min(math.floor(v * step), in_size - 1) for v in d]


@pytest.mark.parametrize('args, kwargs', [
    (((22, 41),), {}),
    ((22,), {}),
    ((), dict(scale_factor=0.3)),
    ((), dict(scale_factor=(1 / 3, 1.7))),
    ((), dict(scale_factor=2)),
    (((22, 41),), dict(mode='nearest-exact')),
    ((), dict(scale_factor=1 / 3, mode='nearest-exact')),
])
def test_resize_nearest_scripts_and_stays_exact(args, kwargs):
    module = ResizeNearest(*args, **kwargs)
    scripted = torch.jit.script(module)
    for h, w in ((26, 26), (224, 192), (7, 301)):
        x = torch.rand(1, 2, h, w)
        out = scripted(x)
        assert torch.equal(out, module(x))
        half = kwargs.get('mode') == 'nearest-exact'
        factors = kwargs.get('scale_factor')
        factors = factors if isinstance(factors, tuple) else (factors, factors)
        rows = _index(h, out.shape[2], factors[0], half)
        cols = _index(w, out.shape[3], factors[1], half)
        assert torch.equal(out, x[:, :, rows][:, :, :, cols])


def test_scripted_resize_nearest_keeps_channels_last_and_refuses_what_scripted_upsample_refuses():
    scripted = torch.jit.script(ResizeNearest((22, 22)))
    cl = X.contiguous(memory_format=torch.channels_last)
    assert scripted(cl).is_contiguous(memory_format=torch.channels_last)
    with pytest.raises(Exception) as theirs:
        torch.jit.script(nn.Upsample(size=(22, 22)))(X.unsqueeze(0))
    with pytest.raises(Exception) as ours:
        scripted(X.unsqueeze(0))  # the wrong rank for a 2-D size
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value).splitlines()[-1] == str(theirs.value).splitlines()[-1]


def test_a_resize_nearest_on_the_nki_path_is_refused_by_torch_jit_script():
    with pytest.raises(TypeError, match="backend='cpu'"):
        torch.jit.script(ResizeNearest((22, 22), backend='cpu'))


def test_scripting_a_model_inside_patch_model_is_refused_with_a_message():
    model = nn.Sequential(nn.Conv2d(3, 3, 1), nn.Upsample(size=(22, 22)))
    with patch(model):
        with pytest.raises(TypeError, match='ResizeNearest'):
            torch.jit.script(model)
    scripted = torch.jit.script(model)  # outside the block: PyTorch's own, as nn.Upsample scripts
    assert torch.equal(scripted(X), model(X))


def test_scripting_an_upsample_inside_patch_is_refused_with_a_message():
    class Fresh(nn.Upsample):  # a class TorchScript has not compiled before in this process
        pass

    with patch():
        with pytest.raises(TypeError, match='ResizeNearest'):
            torch.jit.script(Fresh(size=(22, 22)))


@pytest.mark.parametrize('module, shape', [
    (ResizeNearest(22), (1, 2, 26)),
    (ResizeNearest(scale_factor=0.3, mode='nearest-exact'), (1, 2, 26)),
    (ResizeNearest((4, 9, 3)), (1, 2, 5, 6, 7)),
    (ResizeNearest(scale_factor=(1.7, 0.5, 1 / 3)), (1, 2, 5, 6, 7)),
])
def test_resize_nearest_scripts_in_one_and_three_spatial_dimensions(module, shape):
    x = torch.rand(shape)
    assert torch.equal(torch.jit.script(module)(x), module(x))


def test_the_scripted_gradient_is_the_eager_one():
    module = ResizeNearest((22, 41))
    scripted = torch.jit.script(module)
    x = torch.rand(1, 2, 26, 26, dtype=torch.float64, requires_grad=True)
    g = torch.rand(1, 2, 22, 41, dtype=torch.float64)
    ours = torch.autograd.grad(scripted(x), x, g)[0]
    eager = torch.autograd.grad(module(x), x, g)[0]
    assert torch.equal(ours, eager)


def test_resize_nearest_scripts_inside_a_patch_block():
    "Exact either way, so the refusal for F.interpolate inside patch() does not reach it."
    module = nn.Sequential(ResizeNearest((22, 22)))
    with patch():
        scripted = torch.jit.script(module)
    assert torch.equal(scripted(X), module(X))
