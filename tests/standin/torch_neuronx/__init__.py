"""Test-only stand-in for `torch_neuronx` (the Neuron SDK's PyTorch package). Its `trace` compiles NOTHING: it runs
the traced module on the CPU with PyTorch's nearest operators replaced by the lowering described for neuronx-cc 2.24
(shared/reference/compiler-contract.md), so that tools/neuron_check.py's compiled-model step runs end to end here:

- aten.upsample_nearest2d and aten._upsample_nearest_exact2d -> ResizeNearest -> the described kernel (the
  interpreter running resize_nearest's `as_compiled` variant). The described kernel takes no mode argument, so
  nearest-exact gets the same kernel: a stand-in assumption, not a claim about the compiler;
- aten.upsample_nearest2d_backward -> ResizeNearestGrad -> the described average pool (refused, with the
  described message, where a ratio is not an integer).

NEURON_STANDIN_LOWERING (described, published or exact; default described) picks the forward lowering the stand-in
applies, so that the three-way verdict can be run end to end on each kind of output: `published` gathers with the
published kernel's map (resize_nearest.kernels.gather.published_load_indices), `exact` with the mode's exact map
(the integer floor(d*in/out) for nearest, which PyTorch's CPU operator does not compute: it multiplies by a float32
scale; PyTorch's own operator for nearest-exact, whose map chapter 3.3 checks against it). Every trace writes a log saying it is a stand-in into `compiler_workdir`. Only a real instance
decides.
"""
import os as _os
from pathlib import Path as _Path

__version__ = '2.9.0.2.15+standin'
STANDIN_NOTE = 'STAND-IN (tests/standin/torch_neuronx): nothing was compiled'


LOWERINGS = ('described', 'published', 'exact')


def _lowering():
    chosen = _os.environ.get('NEURON_STANDIN_LOWERING', 'described')
    if chosen not in LOWERINGS:
        raise ValueError(f'NEURON_STANDIN_LOWERING must be one of {LOWERINGS}, got {chosen!r}')
    return chosen


def _described_forward(x, out_hw):
    import numpy as np
    import torch
    from resize_nearest.host.api import resize_nearest
    nhwc = x.detach().permute(0, 2, 3, 1).contiguous().numpy()
    y = resize_nearest(nhwc, tuple(out_hw), variant='as_compiled', backend='cpu')
    return torch.from_numpy(np.ascontiguousarray(y)).permute(0, 3, 1, 2).contiguous()


def _published_forward(x, out_hw):
    "A gather with the published kernel's map (the same map for every mode: the kernel has no mode)."
    import torch
    from resize_nearest.kernels.gather import published_load_indices
    b, c, h, w = x.shape
    index = torch.from_numpy(published_load_indices(h, w, *out_hw))
    return x.detach().reshape(b, c, h * w)[:, :, index].reshape(b, c, *out_hw).contiguous()


def _exact_nearest(x, out_hw):
    "A gather with the exact integer map of `nearest`, floor(d * in / out) per axis."
    import torch
    from resize_nearest.maps.index_map import load_indices
    b, c, h, w = x.shape
    index = torch.from_numpy(load_indices((h, w), tuple(out_hw), 'exact'))
    return x.detach().reshape(b, c, h * w)[:, :, index].reshape(b, c, *out_hw).contiguous()


def _described_backward(grad, input_size):
    import torch
    from resize_nearest.compiler.grad import resize_nearest_grad_as_compiled, LoweringError
    try:
        return torch.from_numpy(resize_nearest_grad_as_compiled(grad.detach().numpy(), tuple(input_size)))
    except LoweringError as e:
        raise RuntimeError(f'{STANDIN_NOTE}; the described lowering refuses: {e}') from None


def _mode(log):
    from torch.utils._python_dispatch import TorchDispatchMode
    import torch

    class Described(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            forward = func in (torch.ops.aten.upsample_nearest2d.default,
                               torch.ops.aten._upsample_nearest_exact2d.default)
            if forward and _lowering() == 'published':
                log.append('ResizeNearest -> resize_nearest_published_kernel (stand-in lowering: published)')
                return _published_forward(args[0], args[1])
            if func is torch.ops.aten.upsample_nearest2d.default and _lowering() == 'exact':
                log.append('ResizeNearest -> exact integer map (stand-in lowering: exact)')
                return _exact_nearest(args[0], args[1])
            if forward and _lowering() == 'described':
                log.append('ResizeNearest -> resize_nearest_fixed_dma_kernel (neuronxcc.private_nkl.resize)')
                return _described_forward(args[0], args[1])
            if func is torch.ops.aten.upsample_nearest2d_backward.default:
                log.append('ResizeNearestGrad -> reduce_window(add) / prod(k) (CanonicalizeForTensorizer)')
                return _described_backward(args[0], args[2])
            return func(*args, **kwargs)
    return Described()


class _Traced:
    "What trace returns: call it like the module."

    def __init__(self, func, log):
        self.func, self.log = func, log

    def __call__(self, *inputs):
        with _mode([]):
            return self.func(*inputs)


def trace(func, example_inputs, *_, input_output_aliases={}, compiler_workdir=None, compiler_args=None,
          partitioner_config=None, inline_weights_to_neff=True, cpu_backend=False):
    """torch_neuronx.trace's signature (aws-neuron-sdk v2.32.0 frameworks/torch/torch-neuronx/
    api-reference-guide/inference/api-torch-neuronx-trace.rst:13); runs the module once on the example
    inputs (a "compile" that fails where the described lowering refuses) and logs the lowering."""
    import torch
    inputs = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    log = []
    with torch.no_grad(), _mode(log):
        func(*inputs)
    if compiler_workdir is not None:
        _Path(compiler_workdir).mkdir(parents=True, exist_ok=True)
        text = '\n'.join([STANDIN_NOTE] + [f'lowered (as described for neuronx-cc 2.24): {x}' for x in log])
        (_Path(compiler_workdir) / 'log-neuron-cc.txt').write_text(text + '\n')
    return _Traced(func, log)
