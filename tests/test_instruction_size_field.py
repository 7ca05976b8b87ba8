"""The size field of a compute instruction's access pattern: "each F axis in the tensor can have a
size expressed in ``uint16`` and a stride expressed in ``int16``, measured in data elements"
(aws-neuron-sdk v2.29.1 and v2.32.0, nki/guides/architecture/trainium_inferentia2_arch.rst:716-718).
The stride half is tested in test_machine_below_api.py; these are the size half."""
import numpy as np
import resize_nearest.nki_cpu.isa as nisa
from resize_nearest.nki_cpu.memory import AP_SIZE_MAX, MachineRuleError, read, write
from machine_rule_cases import tile


def _copy(elements: int, view=None):
    """tensor_copy of a (2, elements) uint8 tile (as `view` shape if given): True if the copy is
    exact, else the refusal's message. The tiles die here, so their SBUF bytes are free after."""
    src, dst = tile((2, elements), np.uint8, fill=False), tile((2, elements), np.uint8, fill=False)
    write(src, np.tile(np.arange(elements) % 251, (2, 1)).astype(np.uint8))
    try:
        nisa.tensor_copy(dst=dst.reshape(view or dst.shape), src=src.reshape(view or src.shape))
    except MachineRuleError as e:
        return str(e)
    return bool(np.array_equal(read(dst), read(src)))


def test_a_free_axis_of_65536_elements_is_refused():
    assert AP_SIZE_MAX == 2**16 - 1
    refusal = _copy(65536)
    assert "'ap-size'" in refusal and '65536 elements along a free axis' in refusal
    assert 'trainium_inferentia2_arch.rst:716-718' in refusal


def test_a_free_axis_of_65535_elements_is_accepted():
    assert _copy(65535) is True


def test_a_long_axis_split_by_the_kernel_fits_the_field():
    "The same 65,536 elements as two free axes of 4 x 16,384 (a reshape of the tile) are accepted."
    assert _copy(65536, view=(2, 4, 16384)) is True
