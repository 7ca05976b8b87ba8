"""Stand-in `nki.language`: the interpreter's namespace under the real module name."""
from resize_nearest.nki_cpu.language import *            # noqa: F401,F403
from resize_nearest.nki_cpu.language import __all__ as _names
from resize_nearest.nki_cpu import language as _impl
from resize_nearest.nki_cpu.memory import (float32, float16, bfloat16, int8, int16, int32, uint8, uint16, uint32, bool_,
                                           sbuf, psum, hbm, private_hbm, shared_hbm)

def __getattr__(name): return getattr(_impl, name)
