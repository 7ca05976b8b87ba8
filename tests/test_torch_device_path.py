"""The torch drop-in's device (XLA) path goes through the host API: its checks and `auto`'s choice, then
the kernel on the device tensor itself. No XLA device here: a tensor that reports device type 'xla'
stands in, and backend.run_kernel, the point where the real nki.jit would take over, is recorded."""
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip('torch')
from resize_nearest.kernels import backend  # noqa: E402
from resize_nearest import torch as rt  # noqa: E402
from resize_nearest.host.variants import VARIANTS, choose_variant  # noqa: E402


class XlaLike:
    "A CPU tensor that says it lives on an XLA device (what _NkiResize.forward branches on)."

    device = SimpleNamespace(type='xla')

    def __init__(self, t):
        self._t = t

    def __getattr__(self, name):
        return getattr(self._t, name)


@pytest.fixture
def runs(monkeypatch):
    "Every backend.run_kernel call as (kernel, args, backend); returns zeros of the output shape."
    calls = []

    def run_kernel(fn, *args, backend='auto', **kwargs):
        calls.append((fn, args, backend))
        return torch.zeros(args[1])

    monkeypatch.setattr(backend, 'run_kernel', run_kernel)
    return calls


def forward(t, out, mode='nearest'):
    return rt._NkiResize.forward(SimpleNamespace(), XlaLike(t), out, 'nki', (None, None), mode)


def test_the_device_path_runs_autos_choice_on_the_tensor_itself(runs):
    t = torch.arange(2 * 3 * 8 * 8, dtype=torch.float32).reshape(2, 3, 8, 8)
    y = forward(t, (16, 16))
    assert y.shape == (2, 3, 16, 16) and len(runs) == 1
    kernel, args, used = runs[0]
    auto = choose_variant((2, 8, 8, 3), (16, 16), np.float32)
    assert auto != 'exact'  # otherwise this test could not tell auto from the fixed exact kernel
    assert kernel is VARIANTS[auto].kernel and used == 'nki'
    assert isinstance(args[0], torch.Tensor) and args[0].data_ptr() == t.data_ptr()
    assert tuple(args[1]) == (2, 16, 16, 3)


def test_the_device_path_refuses_before_the_kernel_what_the_host_api_refuses(runs):
    t = torch.zeros((1, 1, 1, 1), dtype=torch.float32)
    with pytest.raises(ValueError, match=r'outside the proven range .* out_h = 70000 > 65535'):
        forward(t, (70000, 2))
    assert runs == []


def test_the_device_path_hands_a_nearest_exact_convention_its_maps(runs):
    t = torch.zeros((1, 2, 9, 7), dtype=torch.bfloat16)
    forward(t, (5, 11), mode='nearest-exact')
    kernel, args, _ = runs[0]
    assert len(args) == 3 and len(args[2]) == 2  # (x, out_shape, maps): not the compiler's map
