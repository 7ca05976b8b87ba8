"""Test-only stand-in for the real `nki` package (NKI 0.3 to 0.6 layout), delegating to resize_nearest.nki_cpu.

Put tests/standin first on PYTHONPATH and the package's real-NKI code path runs on this machine: the backend
selects 'nki', `backend='nki'` / `'nki-sim'` work, and the `#| neuron` notebook cells and tools/neuron_check.py run.
It is never installed and nothing in the package knows about it.
"""
import os as _os
from resize_nearest import nki_cpu as _cpu
from resize_nearest.nki_cpu import memory as _memory
from . import language, isa

# the NKI release this stand-in poses as (NKI_STANDIN_VERSION: 0.3 to 0.6), and whose rules the
# interpreter models in this process
_RELEASE = _os.environ.get('NKI_STANDIN_VERSION', '0.3')
if _RELEASE not in _memory.NKI_VERSIONS:
    raise ValueError(f'NKI_STANDIN_VERSION must be one of {tuple(_memory.NKI_VERSIONS)}, got {_RELEASE!r}')
_memory._NKI_VERSION.set(_RELEASE)
__version__ = f'{_RELEASE}.0+standin'

def jit(func=None, mode='auto', **kwargs):
    "nki.jit: compile (here: front-end check, then interpret) when called."
    return _cpu.jit(func, mode, **kwargs)

def simulate(kernel):
    "nki.simulate: run on the CPU simulator (here: the interpreter)."
    return _cpu.simulate(kernel)
