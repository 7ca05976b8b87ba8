"""One refused case per machine rule about the NeuronCore below the NKI API (chip generations,
instruction fields, enum arguments, outputs). test_nki_cpu.py runs each with the others; the
document each cites is aws-neuron-sdk at v2.29.1 (and v2.32.0 where named)."""
import numpy as np
import resize_nearest.nki_cpu as nki
import resize_nearest.nki_cpu.language as nl
import resize_nearest.nki_cpu.isa as nisa
from resize_nearest.nki_cpu import memory
from resize_nearest.nki_cpu.memory import allocate, from_numpy, write


def tile(shape, dtype=np.float32, buf='sbuf', fill=True):
    t = allocate(shape, dtype, getattr(memory, buf), f'{buf}{shape}')
    if fill:
        write(t, np.zeros(shape, dtype))
    return t


def private_output_kernel(x):
    out = nl.ndarray((2, 2), dtype=nl.float32, buffer=nl.hbm)  # nl.hbm is private HBM
    nisa.dma_copy(dst=out, src=x)
    return out


def _private_output():
    return nki.jit(private_output_kernel)(np.zeros((2, 2), np.float32))


def _wide_stride():
    "Two uint8 elements 33,000 apart on one free axis: past the int16 stride field."
    src = tile((2, 40000), np.uint8)
    nisa.tensor_copy(dst=tile((2, 2), np.uint8, fill=False), src=src[:, 0:40000:33000])


def _on_trn1(case):
    "The case on NeuronCore-v2: trn2, the interpreter's default chip, has what the rule asks for."
    def run():
        with memory.target_chip('trn1'):
            case()
    return run


def _gather_on_trn1():
    "A vector_offset gather of two HBM rows, the kernels' gather, on trn1."
    rows = tile((2, 1), np.int32)
    src = from_numpy(np.zeros((4, 2), np.float32)).ap([[2, 2], [1, 2]], vector_offset=rows)
    with memory.target_chip('trn1'):
        nisa.dma_copy(dst=tile((2, 2), fill=False), src=src)


def _long_axis():
    "One uint8 free axis of 65,536 elements: past the uint16 size field."
    nisa.tensor_copy(dst=tile((2, 65536), np.uint8, fill=False), src=tile((2, 65536), np.uint8))


NEW_CASES = {
    # isa:930 (v2.32.0 isa:1739): the output tile must be in SBUF
    'iota-sbuf': lambda: nisa.iota(tile((2, 2), np.int32, 'psum', False), [[1, 2]]),
    # isa:951 (v2.32.0 isa:1760): an int32 offset
    'iota-int': lambda: nisa.iota(tile((2, 2), np.int32, fill=False), [[1, 2]], offset=1.5),
    # nki-0-3-0-update-guide.rst:387-400
    'output-shared-hbm': _private_output,
    # nki-0-3-0-update-guide.rst:402-415: dge_mode=2 no longer accepted
    'enum-args': lambda: nisa.dma_copy(
        dst=tile((2, 2), fill=False), src=from_numpy(np.zeros((2, 2), np.float32)), dge_mode=2
    ),
    # trainium_inferentia2_arch.rst:716-718
    'ap-stride': _wide_stride,
    # trainium_inferentia2_arch.rst:716-718
    'ap-size': _long_axis,
    # nki-dge.rst:171: software DGE for "Any (indirect: v3+)"
    'indirect-v3': _gather_on_trn1,
    # isa:684 (v2.32.0 isa:372): hardware DGE on NeuronCore-v3 or newer
    'hwdge-v3': _on_trn1(lambda: nisa.dma_copy(
        dst=tile((2, 2), fill=False),
        src=from_numpy(np.zeros((2, 2), np.float32)),
        dge_mode=nisa.dge_mode.hwdge,
    )),
    # v2.32.0 migration/index.rst:435-454: the hardware DGE moves raw bytes, no cast
    'hwdge-cast': lambda: nisa.dma_copy(
        dst=tile((2, 2), np.int8, fill=False),
        src=from_numpy(np.zeros((2, 2), np.int32)),
        dge_mode=nisa.dge_mode.hwdge,
    ),
    # isa:2256-2261, release-notes/components/nki.rst:154
    'copy-engine': lambda: nisa.tensor_copy(
        dst=tile((2, 2), np.int32, fill=False), src=tile((2, 2), np.int32)
    ),
    # isa:2266 (v2.32.0 isa:403)
    'scalar-copy-v2': _on_trn1(lambda: nisa.tensor_copy(
        dst=tile((2, 2), fill=False), src=tile((2, 2)), engine=nisa.engine.scalar
    )),
}
