"""Stand-in `nki.isa`: the interpreter's instructions under the real module name."""
from resize_nearest.nki_cpu.isa import *                 # noqa: F401,F403
from resize_nearest.nki_cpu import isa as _impl

def __getattr__(name): return getattr(_impl, name)
