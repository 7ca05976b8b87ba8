"""The PyTorch audit called as a newcomer would: `audit(model, tensor)` with one bare tensor, not a
tuple, gives the rows of `audit(model, (tensor,))`; anything else is refused before the trace."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import resize_nearest.torch as rt


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
