"""patch() under TorchScript and torch.compile: a nearest nn.Upsample is refused by torch.jit.script
inside a block even when TorchScript compiled its class before (it would reuse PyTorch's own
F.interpolate, which is inexact), and torch.compile(fullgraph=True) keeps the whole graph inside a
block, exact there and PyTorch's own elsewhere, forward and backward.

Independent references: PyTorch's own F.interpolate (outside any block), and the exact map
(d * in) // out written out here in integers."""
import threading

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from resize_nearest.torch import patch

# torch 2.13 announces TorchScript's deprecation at every torch.jit.script call
pytestmark = pytest.mark.filterwarnings('ignore:`torch.jit.script` is deprecated:DeprecationWarning')

X = torch.arange(26 * 26, dtype=torch.float32).view(1, 1, 26, 26)  # each pixel names its source


def exact(x, out=22):
    "The exact nearest resize (d * in) // out on both axes, from the definition."
    index = torch.tensor([d * x.shape[-1] // out for d in range(out)])
    return x[..., index, :][..., index]


def test_pytorch_is_wrong_here_so_the_checks_below_can_tell():
    assert not torch.equal(F.interpolate(X, size=(22, 22), mode='nearest'), exact(X))


def test_an_upsample_scripted_before_a_block_is_refused_inside_it():
    "TorchScript keeps a compiled nn.Upsample(size=(22, 22)) type; inside patch() it is refused."
    before = torch.jit.script(nn.Upsample(size=(22, 22)))  # the type TorchScript keeps
    assert torch.equal(before(X), F.interpolate(X, size=(22, 22)))
    for module in (nn.Upsample(size=(22, 22)), nn.Sequential(nn.Upsample(size=(22, 22))),
                   nn.UpsamplingNearest2d(size=(22, 22))):
        with patch():
            with pytest.raises(TypeError, match='ResizeNearest'):
                torch.jit.script(module)
    after = torch.jit.script(nn.Upsample(size=(22, 22)))  # outside: PyTorch's own, as before
    assert torch.equal(after(X), F.interpolate(X, size=(22, 22)))


class Decoder(nn.Module):
    "Nearest upsampling as decoders write it: a module and a functional call."

    def __init__(self):
        super().__init__()
        self.up = nn.Upsample(size=(22, 22), mode='nearest')

    def forward(self, x):
        return self.up(x) + 2 * F.interpolate(x, size=(22, 22), mode='nearest')


def test_torch_compile_fullgraph_inside_patch_is_exact_and_outside_is_pytorchs():
    model = Decoder()
    compiled = torch.compile(model, fullgraph=True, backend='aot_eager')
    x = X.clone().requires_grad_()
    with patch():
        y = compiled(x)
    assert torch.equal(y, 3 * exact(X))
    g = torch.rand(1, 1, 22, 22)
    y.backward(g)
    xe = X.clone().requires_grad_()
    exact(xe).backward(3 * g)  # the exact adjoint, by autograd of the written-out gather
    assert torch.equal(x.grad, xe.grad)
    xo = X.clone().requires_grad_()
    outside = compiled(xo)
    assert torch.equal(outside, model(X))
    outside.backward(g)
    xp = X.clone().requires_grad_()
    model(xp).backward(g)
    assert torch.equal(xo.grad, xp.grad)


def test_a_compiled_model_reads_the_block_of_the_thread_running_it():
    "One compiled graph: exact in the thread inside the block, PyTorch's own in another thread."
    compiled = torch.compile(Decoder(), fullgraph=True, backend='aot_eager')
    seen = {}
    with patch():
        mine = compiled(X)
        worker = threading.Thread(target=lambda: seen.update(other=compiled(X)))
        worker.start()
        worker.join()
    assert torch.equal(mine, 3 * exact(X))
    assert torch.equal(seen['other'], Decoder()(X))
