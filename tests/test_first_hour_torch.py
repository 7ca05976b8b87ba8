"""The PyTorch audit called as a newcomer would: `audit(model, tensor)` with one bare tensor, not a
tuple, gives the rows of `audit(model, (tensor,))`; anything else is refused before the trace."""
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import resize_nearest.torch as rt
from resize_nearest.host.api import resize_nearest


class To192(nn.Module):
    def forward(self, x):
        return F.interpolate(x, size=(192, 192), mode='nearest')


def test_a_bare_tensor_is_audited_as_the_one_input_it_is():
    x = torch.zeros(1, 3, 224, 224)
    bare, wrapped = rt.audit(To192(), x), rt.audit(To192(), (x,))
    assert bare == wrapped and len(bare) == 1
    assert (bare[0].input_size, bare[0].output_size) == ((224, 224), (192, 192))


def test_inputs_of_another_kind_are_refused_before_the_trace():
    with pytest.raises(TypeError, match="a tensor or a tuple of the module's inputs, got dict"):
        rt.audit(To192(), {'x': torch.zeros(1, 3, 224, 224)})


def test_the_nki_path_names_its_channels_last_layout_so_no_layout_warning():
    """The drop-in hands the kernel (N, H, W, C): (1, 16, 2, 32) NCHW becomes (1, 2, 32, 16), which,
    unnamed, reads as channels-first (2 rows of 32 pixels with 16 channels); named, it is not."""
    x = torch.arange(16 * 2 * 32, dtype=torch.float32).reshape(1, 16, 2, 32)
    with pytest.warns(UserWarning, match="layout='NCHW'"):  # the shape the case is about
        resize_nearest(x.permute(0, 2, 3, 1).numpy(), (4, 64), backend='cpu')
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter('always')
        y = rt.interpolate_nearest(x, size=(4, 64), backend='cpu')
    assert not [w for w in said if 'layout=' in str(w.message)], [str(w.message) for w in said]
    expected = F.interpolate(x, size=(4, 64), mode='nearest')  # scales 1/2: exact in float
    torch.testing.assert_close(y, expected, rtol=0, atol=0)
