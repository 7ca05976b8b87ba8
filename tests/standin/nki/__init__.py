"""Test-only stand-in for the real `nki` package (NKI 0.3 layout), delegating to resize_nearest.nki_cpu.

Put tests/standin first on PYTHONPATH and the package's real-NKI code path runs on this machine: the backend
selects 'nki', `backend='nki'` / `'nki-sim'` work, and the `#| neuron` notebook cells and tools/neuron_check.py run.
It is never installed and nothing in the package knows about it.
"""
from resize_nearest import nki_cpu as _cpu
from . import language, isa

__version__ = '0.3.0+standin'

def jit(func=None, mode='auto', **kwargs):
    "nki.jit: compile (here: front-end check, then interpret) when called."
    return _cpu.jit(func, mode, **kwargs)

def simulate(kernel):
    "nki.simulate: run on the CPU simulator (here: the interpreter)."
    return _cpu.simulate(kernel)
