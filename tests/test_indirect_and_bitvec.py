"""What the real stack accepts that the interpreter used to refuse: `scalar_offset` access patterns,
a `vector_offset` given as an `.ap()` view, and bitvec ALU operators. Citations: aws-neuron-sdk
v2.29.1 unless named; isa = nki/api/nki/isa/__init__.py."""
import numpy as np
import pytest
import resize_nearest.nki_cpu.language as nl
import resize_nearest.nki_cpu.isa as nisa
from resize_nearest.nki_cpu.memory import NkiError, MachineRuleError, from_numpy, read, write
from machine_rule_cases import tile


def _index(value, dtype=np.int32):
    t = tile((1, 1), dtype, fill=False)
    write(t, np.array([[value]], dtype))
    return t


def test_scalar_offset_moves_the_start_by_whole_rows():
    """nki-aps.rst:237-279: start = offset + scalar_offset * prod(A.shape[indirect_dim+1:]); the
    docs' example copies A[3*128:, 0:256] (here at a tenth of the size)."""
    a = from_numpy(np.arange(40 * 12, dtype=np.float32).reshape(40, 12))
    dst = tile((8, 6), fill=False)
    nisa.dma_copy(dst=dst, src=a.ap(pattern=[[12, 8], [1, 6]], offset=0,
                                    scalar_offset=_index(3 * 8), indirect_dim=0))
    assert np.array_equal(read(dst), np.arange(40 * 12).reshape(40, 12)[24:32, 0:6])


def test_scalar_offset_on_an_inner_dimension_and_its_checks():
    "nki-aps.rst:261-263: the dimension is the base tensor's, not the pattern's."
    a = from_numpy(np.arange(2 * 5 * 4, dtype=np.float32).reshape(2, 5, 4))
    dst = tile((1, 4), fill=False)
    nisa.dma_copy(dst=dst, src=a.ap(pattern=[[4, 1], [1, 4]], offset=20,
                                    scalar_offset=_index(2), indirect_dim=1))
    assert read(dst).tolist() == [list(range(28, 32))]
    with pytest.raises(NkiError, match='int32/uint32'):
        a.ap(pattern=[[4, 1], [1, 4]], scalar_offset=_index(1.0, np.float32), indirect_dim=0)
    with pytest.raises(NkiError, match='leaves'):
        nisa.dma_copy(dst=dst, src=a.ap(pattern=[[4, 1], [1, 4]], offset=0,
                                        scalar_offset=_index(10), indirect_dim=1))


def test_vector_offset_as_an_ap_view():
    "nki-library qkv_cte.py:513 (commit d2ad3a5): vector_offset=slot_mapping_sb.ap(...)."
    img = from_numpy(np.arange(15, dtype=np.float32).reshape(5, 3))
    rows = tile((2, 1), np.int32, fill=False)
    write(rows, np.int32([[4], [0]]))
    dst = tile((2, 3), fill=False)
    view = rows.ap(pattern=[[1, 2], [1, 1]], offset=0)
    nisa.dma_copy(dst=dst, src=img.ap(pattern=[[3, 2], [1, 3]], vector_offset=view, indirect_dim=0))
    assert read(dst).tolist() == [[12, 13, 14], [0, 1, 2]]
    wide = tile((2, 2), np.int32)
    with pytest.raises(MachineRuleError, match="'indirect-offsets'"):
        img.ap(pattern=[[3, 2], [1, 3]], vector_offset=wide.ap([[2, 2], [1, 2]]), indirect_dim=0)


def test_bitvec_operators_on_bit_patterns():
    "isa:2543-2544: integer types, bit patterns without a cast, on the Vector engine."
    a = tile((1, 2), np.int32, fill=False)
    write(a, np.int32([[-1, 2**24 + 1]]))
    b = tile((1, 2), np.uint32, fill=False)
    write(b, np.uint32([[0xF0F0F0F0, 0xFFFF]]))
    dst = tile((1, 2), np.uint32, fill=False)
    nisa.tensor_tensor(dst=dst, data1=a, data2=b, op=nl.bitwise_and)
    assert read(dst).tolist() == [[0xF0F0F0F0, 1]]
    nisa.tensor_tensor(dst=dst, data1=a, data2=b, op=nl.bitwise_xor)
    assert read(dst).tolist() == [[0x0F0F0F0F, (2**24 + 1) ^ 0xFFFF]]
    with pytest.raises(NkiError, match='integer tiles'):
        nisa.tensor_tensor(dst=tile((1, 2), fill=False), data1=tile((1, 2)), data2=tile((1, 2)),
                           op=nl.bitwise_or)
    with pytest.raises(NkiError, match='Vector engine'):
        nisa.tensor_tensor(dst=dst, data1=a, data2=b, op=nl.bitwise_or, engine=nisa.engine.gpsimd)
