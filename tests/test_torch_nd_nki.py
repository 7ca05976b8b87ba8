"""The PyTorch drop-in's NKI path for sequences (N, C, L) and volumes (N, C, D, H, W): through the host
API, exact against the integer maps PyTorch documents, and with the exact adjoint as its gradient."""
import pytest

torch = pytest.importorskip('torch')
from resize_nearest.torch import interpolate_nearest  # noqa: E402

# F.interpolate's two nearest modes, given sizes: 'nearest' means src = floor(d * in / out) and
# 'nearest-exact' src = floor((d + 1/2) * in / out) (torch.nn.functional.interpolate's docs;
# aten/src/ATen/native/UpSample.h nearest_idx / nearest_neighbor_exact_compute_source_index)
SOURCE = {'nearest': lambda d, i, o: (d * i) // o,
          'nearest-exact': lambda d, i, o: ((2 * d + 1) * i) // (2 * o)}


def gathered(x, out, mode):
    "The exact answer by plain indexing, axis by axis (no package code)."
    y = x
    for axis, (i, o) in enumerate(zip(x.shape[2:], out)):
        index = torch.tensor([SOURCE[mode](d, i, o) for d in range(o)])
        y = y.index_select(2 + axis, index)
    return y


CASES = [((2, 3, 7), (11,)), ((1, 2, 13), (5,)), ((1, 1, 1), (4,)), ((1, 2, 5), (1,)),
         ((1, 2, 3, 5, 7), (5, 2, 11)), ((2, 1, 7, 1, 3), (1, 4, 3))]


@pytest.mark.parametrize('mode', sorted(SOURCE))
@pytest.mark.parametrize('shape, out', CASES)
def test_sequences_and_volumes_run_the_kernels_exactly(shape, out, mode):
    x = torch.arange(torch.Size(shape).numel(), dtype=torch.float32).reshape(shape)
    kept = x.clone()
    y = interpolate_nearest(x, out, mode=mode, backend='cpu')
    assert torch.equal(y, gathered(x, out, mode)) and torch.equal(x, kept)


@pytest.mark.parametrize('shape, out', [((1, 2, 7), (11,)), ((1, 1, 3, 4, 5), (4, 7, 2))])
def test_the_gradient_is_the_adjoint_of_the_gather(shape, out):
    # float32, the kernels' type; small integers keep every sum of gradients exact in any order
    x = torch.rand(shape, dtype=torch.float32, requires_grad=True)
    g = torch.randint(0, 8, (shape[0], shape[1], *out)).float()
    interpolate_nearest(x, out, backend='cpu').backward(g)
    reference = x.detach().clone().requires_grad_(True)
    gathered(reference, out, 'nearest').backward(g)
    assert torch.equal(x.grad, reference.grad)


def test_other_ranks_raise_what_f_interpolate_raises():
    "A drop-in raises what its original raises, before the NKI path sees the input."
    x = torch.zeros(2, 3)
    with pytest.raises(ValueError) as ours:
        interpolate_nearest(x, (4,), backend='cpu')
    with pytest.raises(ValueError) as theirs:
        torch.nn.functional.interpolate(x, (4,))
    assert str(ours.value) == str(theirs.value)
