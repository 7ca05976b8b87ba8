"""Test-only stand-in for the real `nki` package (NKI 0.3 to 0.8 layout), delegating to resize_nearest.nki_cpu.

Put tests/standin first on PYTHONPATH and the package's real-NKI code path runs on this machine: the backend
selects 'nki', `backend='nki'` / `'nki-sim'` work, and the `#| neuron` notebook cells and tools/neuron_check.py run.
It is never installed and nothing in the package knows about it.

NKI_STANDIN_VERSION (0.3 to 0.8, default 0.3): the release it poses as. Its `jit`, `simulate` and
`isa.dma_copy` have that release's signatures (0.7 and 0.8: jit's compile_config and
specialization_config, the loops of `language`, the LNC check of a `jit` call) (resize_nearest.nki_cpu.profile) and its rules hold in this
process. NKI_STANDIN_CHIP (trn1, inf2, trn2, trn3; default trn2): the chip its "device" reports through
`nki.isa.get_nc_version()`; the interpreter checks that chip's rules in this process.
"""
import os as _os
from resize_nearest import nki_cpu as _cpu
from resize_nearest.nki_cpu import memory as _memory

# the NKI release this stand-in poses as, and whose rules the interpreter models in this process
_RELEASE = _os.environ.get('NKI_STANDIN_VERSION', '0.3')
if _RELEASE not in _memory.NKI_VERSIONS:
    raise ValueError(f'NKI_STANDIN_VERSION must be one of {tuple(_memory.NKI_VERSIONS)}, got {_RELEASE!r}')
_CHIP = _os.environ.get('NKI_STANDIN_CHIP', 'trn2')
_GENERATION = {'trn1': 2, 'inf2': 2, 'trn2': 3, 'trn3': 4}
if _CHIP not in _GENERATION:
    raise ValueError(f'NKI_STANDIN_CHIP must be one of {tuple(_GENERATION)}, got {_CHIP!r}')
_memory._NKI_VERSION.set(_RELEASE)
_memory._TARGET_CHIP.set('trn1' if _CHIP == 'inf2' else _CHIP)   # inf2 is NeuronCore-v2, as trn1
__version__ = f'{_RELEASE}.0+standin'
_PROFILE = _cpu.profile(_RELEASE)

from . import language, isa       # noqa: E402  (after the release is set)

jit = _PROFILE.nki.jit            # nki.jit(func=None, mode='auto', **kwargs) in 0.3, nki.jit(fn=None, **kwargs) on
simulate = _PROFILE.nki.simulate  # the simulator's casts of this release
