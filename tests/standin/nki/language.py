"""Stand-in `nki.language`: the interpreter's namespace under the real module name, as the posed release presents
it (from 0.7: static_range, affine_range and sequential_range deprecated Python ranges, dynamic_range gone)."""
from resize_nearest.nki_cpu.language import *            # noqa: F401,F403
from resize_nearest.nki_cpu.language import __all__ as _names
from resize_nearest.nki_cpu import language as _impl
from resize_nearest.nki_cpu.memory import (float32, float16, bfloat16, int8, int16, int32, uint8, uint16, uint32, bool_,
                                           sbuf, psum, hbm, private_hbm, shared_hbm)
from . import _PROFILE

static_range, affine_range, sequential_range = (_PROFILE.nl.static_range, _PROFILE.nl.affine_range,
                                                _PROFILE.nl.sequential_range)


def __getattr__(name):
    if not hasattr(_PROFILE.nl, name):
        raise AttributeError(f"module 'nki.language' has no attribute {name!r}")
    return getattr(_impl, name)
