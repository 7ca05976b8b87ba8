"""Where interpolate_nearest must behave as F.interpolate does beyond the index it picks: the
exception for dtypes PyTorch's nearest kernel lacks, the output's memory layout on the NKI path,
and the host memory its remembered checks and plans may take. F.interpolate, called live in this
torch, is the oracle."""
import pytest
import torch

import resize_nearest.entry.torch_plumbing as rt  # the host memories (appendix E5a)
from resize_nearest.torch import _F_INTERPOLATE, interpolate_nearest, patch


@pytest.mark.parametrize('dtype', [torch.bool, torch.complex64, torch.complex128])
@pytest.mark.parametrize('shape', [(2, 3, 5), (2, 3, 5, 5), (2, 3, 5, 5, 5)])
@pytest.mark.parametrize('mode', ['nearest', 'nearest-exact'])
def test_unsupported_dtypes_raise_what_f_interpolate_raises(dtype, shape, mode):
    x = torch.zeros(shape, dtype=dtype)
    size = (3,) * (len(shape) - 2)
    with pytest.raises(Exception) as theirs:
        _F_INTERPOLATE(x, size=size, mode=mode)
    with pytest.raises(Exception) as ours:
        interpolate_nearest(x, size, mode=mode)
    assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))
    with patch(), pytest.raises(Exception) as routed:
        torch.nn.functional.interpolate(x, size=size, mode=mode)
    assert (type(routed.value), str(routed.value)) == (type(theirs.value), str(theirs.value))


@pytest.mark.parametrize('layout', [torch.contiguous_format, torch.channels_last])
def test_the_nki_path_returns_the_memory_layout_f_interpolate_returns(layout):
    x = torch.rand(2, 3, 26, 26).contiguous(memory_format=layout)
    ours = interpolate_nearest(x, (22, 22), backend='cpu')
    theirs = _F_INTERPOLATE(x, size=(22, 22), mode='nearest')
    assert ours.stride() == theirs.stride()
    assert torch.equal(ours, interpolate_nearest(x, (22, 22)))


def test_the_nki_path_output_of_contiguous_input_takes_a_view_as_f_interpolate_output_does():
    x = torch.rand(2, 3, 26, 26)
    flat = interpolate_nearest(x, (22, 22), backend='cpu').view(2, -1)
    assert torch.equal(flat, interpolate_nearest(x, (22, 22)).view(2, -1))


def test_remembered_output_sizes_and_plans_are_bounded(monkeypatch):
    "Each distinct shape adds an entry; past CALLS_MAX entries the memory is cleared and refilled."
    monkeypatch.setattr(rt, 'CALLS_MAX', 8)
    monkeypatch.setattr(rt, '_SIZES', {})
    monkeypatch.setattr(rt, '_PLANS', {})
    for n in range(30, 50):
        interpolate_nearest(torch.rand(n - 29, 1, n, n), (22, 22))
        assert len(rt._SIZES) <= 8 and len(rt._PLANS) <= 8


def test_the_drop_in_without_pytorch_names_the_extra_to_install():
    "After the light install (README command 1) the import says which extra brings PyTorch."
    import subprocess, sys
    code = ("import sys; sys.modules['torch'] = None\n"
            "try:\n    import resize_nearest.torch\n"
            "except ModuleNotFoundError as e:\n    print(e.name, '|', e)\n")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True)
    assert r.stdout.startswith('torch |') and 'resize_nearest[torch]' in r.stdout, r.stdout + r.stderr
