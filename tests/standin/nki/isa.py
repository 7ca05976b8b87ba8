"""Stand-in `nki.isa`: the interpreter's instructions under the real module name, with the posed release's
signatures (dma_copy's `priority` from 0.4) and a device that reports NKI_STANDIN_CHIP."""
import enum as _enum
from resize_nearest.nki_cpu.isa import *                 # noqa: F401,F403
from resize_nearest.nki_cpu import isa as _impl
from . import _PROFILE, _GENERATION, _CHIP

dma_copy = _PROFILE.nisa.dma_copy


class nc_version(_enum.Enum):
    "NeuronCore version, as the API stubs list it (v2.29.1 nki/api/nki/isa/__init__.py:118-126)."
    gen2 = 2
    gen3 = 3
    gen4 = 4


def get_nc_version():
    "The nc_version of the stand-in's device (NKI_STANDIN_CHIP)."
    return nc_version(_GENERATION[_CHIP])


def __getattr__(name): return getattr(_impl, name)
