"""Integer narrowing casts (int32 to int8, uint8, int16) as the NKI documents state them. A copy
between different dtypes casts through FP32 ("intermediate FP32 cast when input and output data
types differ", aws-neuron-sdk v2.29.1 nki/api/nki/isa/__init__.py:2256-2261; a DMA "by first casting
the source type to FP32", v2.32.0 nki/get-started/about/nki-dma-overview.rst:19), and the FP32 to
integer cast saturates ("round to nearest, ties to even; saturate to the destination range",
v2.32.0 release-notes/components/nki.rst:71-72): a narrowing saturates, it does not wrap."""
import numpy as np
import pytest
import resize_nearest.nki_cpu.isa as nisa
from resize_nearest.nki_cpu.memory import MachineRuleError, NkiError, from_numpy, read
from machine_rule_cases import tile

WIDE = np.int32([[300, -300, 127, 128, -129, 2**24 + 1, -(2**31)]])
SATURATED = {  # WIDE cast to each dtype through float32, saturated
    np.int8: [[127, -128, 127, 127, -128, 127, -128]],
    np.uint8: [[255, 0, 127, 128, 0, 255, 0]],
    np.int16: [[300, -300, 127, 128, -129, 32767, -32768]],
}


def _sbuf(values):
    t = tile(values.shape, values.dtype, fill=False)
    nisa.dma_copy(dst=t, src=from_numpy(values))
    return t


@pytest.mark.parametrize('dtype', sorted(SATURATED, key=str))
@pytest.mark.parametrize('engine', [nisa.engine.vector, nisa.engine.gpsimd])
def test_tensor_copy_narrowing_saturates(dtype, engine):
    dst = tile(WIDE.shape, dtype, fill=False)
    nisa.tensor_copy(dst=dst, src=_sbuf(WIDE), engine=engine)
    assert read(dst).tolist() == SATURATED[dtype]


@pytest.mark.parametrize('dtype', sorted(SATURATED, key=str))
def test_dma_narrowing_saturates(dtype):
    dst = tile(WIDE.shape, dtype, fill=False)
    nisa.dma_copy(dst=dst, src=from_numpy(WIDE))
    assert read(dst).tolist() == SATURATED[dtype]


def test_a_hardware_dge_dma_refuses_to_narrow():
    """v2.32.0 nki/migration/index.rst:435-454: "HWDGE generates descriptors without interpreting
    data content, so no type casting occurs"; NKI 0.3.0 refuses mismatched types there."""
    dst = tile(WIDE.shape, np.int8, fill=False)
    with pytest.raises(MachineRuleError, match="int32 to int8.*'hwdge-cast'"):
        nisa.dma_copy(dst=dst, src=from_numpy(WIDE), dge_mode=nisa.dge_mode.hwdge)
    same = tile(WIDE.shape, np.int32, fill=False)
    nisa.dma_copy(dst=same, src=from_numpy(WIDE), dge_mode=nisa.dge_mode.hwdge)
    assert read(same).tolist() == WIDE.tolist()


def test_memset_refuses_an_integer_its_tile_cannot_hold():
    """v2.32.0 release-notes/components/nki.rst:396: memset matches the value's type to the tile's
    strictly; 300 is no int8 (NumPy would write the wrapped 44)."""
    with pytest.raises(NkiError, match=r"needs a value in -128\.\.127, got 300"):
        nisa.memset(tile((1, 2), np.int8, fill=False), 300)
    with pytest.raises(NkiError, match=r"needs a value in 0\.\.255, got -1"):
        nisa.memset(tile((1, 2), np.uint8, fill=False), -1)
    t = tile((1, 2), np.int8, fill=False)
    nisa.memset(t, -128)
    assert read(t).tolist() == [[-128, -128]]
