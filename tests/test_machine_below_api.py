"""The NeuronCore below the NKI API, as the Neuron documentation states it: each rule as a refused
and an accepted case, the numerics the docs give, and the row-gather kernel kept inside them.
Citations are aws-neuron-sdk at tag v2.29.1 (v2.32.0 where named);
isa = nki/api/nki/isa/__init__.py."""
import numpy as np
import pytest
import resize_nearest.nki_cpu as nki
import resize_nearest.nki_cpu.language as nl
import resize_nearest.nki_cpu.isa as nisa
from resize_nearest.nki_cpu.memory import (
    MachineRuleError, NkiError, from_numpy, read, target_chip, write,
)
from resize_nearest.maps.plan import rowgather_copy_periods
from resize_nearest.host.cost_model import rowgather_counts
from resize_nearest.kernels.rowgather import resize_nearest_rowgather_kernel
from machine_rule_cases import NEW_CASES, tile


def _refused(rule):
    with pytest.raises(MachineRuleError, match=f"'{rule}'"):
        NEW_CASES[rule]()


def test_iota_writes_sbuf_only():
    "isa:930 (v2.32.0 isa:1739): the output tile must be in SBUF."
    _refused('iota-sbuf')
    t = tile((2, 2), np.int32, fill=False)
    nisa.iota(t, [[1, 2]])
    assert read(t).tolist() == [[0, 1], [0, 1]]


def test_iota_offset_is_an_integer():
    "isa:951 (v2.32.0 isa:1760): an int32 offset; a float offset is refused, not truncated."
    _refused('iota-int')
    with pytest.raises(MachineRuleError, match="'iota-int'"):
        nisa.iota(tile((2, 2), np.int32, fill=False), [[1, 2]], channel_multiplier=2.0)
    t = tile((2, 2), np.int32, fill=False)
    nisa.iota(t, [[1, 2]], offset=np.int32(7))
    assert read(t).tolist() == [[7, 8], [7, 8]]


def test_iota_casts_the_32_bit_integer_not_a_float32():
    """isa:934-937 (v2.32.0 isa:1743-1746): values computed in 32-bit integer arithmetic, then cast
    to dst's type; uint32 from 2^24 + 1 stays 2^24 + 1 (a float32 detour gives 2^24)."""
    u = tile((1, 2), np.uint32, fill=False)
    nisa.iota(u, [[1, 2]], offset=2**24 + 1)
    assert read(u).tolist() == [[2**24 + 1, 2**24 + 2]]
    i16 = tile((1, 1), np.int16, fill=False)
    nisa.iota(i16, [[1, 1]], offset=2**24 + 3)  # integer to integer: the low 16 bits
    assert read(i16).tolist() == [[3]]


def _out_kernel(x):
    out = nl.ndarray((2, 2), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=x)
    return out


def test_kernel_output_must_be_shared_hbm():
    "nki-0-3-0-update-guide.rst:387-400: outputs in nl.shared_hbm; nl.hbm fails to compile."
    _refused('output-shared-hbm')
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    assert nki.jit(_out_kernel)(x).tolist() == x.tolist()


def test_enum_arguments_refuse_raw_integers():
    "nki-0-3-0-update-guide.rst:402-415: dge_mode=2 and other raw integers are refused."
    _refused('enum-args')
    with pytest.raises(MachineRuleError, match="'enum-args'"):
        nisa.tensor_copy(dst=tile((2, 2), fill=False), src=tile((2, 2)), engine=5)
    with pytest.raises(MachineRuleError, match="'enum-args'"):
        nisa.dma_copy(dst=tile((2, 2), fill=False), src=from_numpy(np.zeros((2, 2), np.float32)),
                      oob_mode=0)
    dst = tile((2, 2), fill=False)
    nisa.dma_copy(dst=dst, src=from_numpy(np.ones((2, 2), np.float32)),
                  dge_mode=nisa.dge_mode.swdge, oob_mode=nisa.oob_mode.error)
    assert read(dst).tolist() == [[1, 1], [1, 1]]


def test_compute_stride_fits_the_int16_field():
    "trainium_inferentia2_arch.rst:716-718: free-axis strides are int16, in elements."
    _refused('ap-stride')
    src = tile((2, 40000), np.uint8)
    write(src, np.tile(np.arange(40000) % 251, (2, 1)).astype(np.uint8))
    dst = tile((2, 2), np.uint8, fill=False)
    nisa.tensor_copy(dst=dst, src=src[:, 0:40000:32767])  # the largest step the field holds
    assert read(dst).tolist() == [[0, 32767 % 251]] * 2
    one = tile((2, 1), np.uint8, fill=False)
    nisa.tensor_copy(dst=one, src=src[:, 0:40000:33000][:, 0:1])  # one element never steps


def test_hardware_dge_needs_neuroncore_v3():
    "isa:684 (v2.32.0 isa:372): hardware DGE on NeuronCore-v3 or newer; trn1 is v2."
    _refused('hwdge-v3')
    with target_chip('trn2'):
        dst = tile((2, 2), fill=False)
        nisa.dma_copy(dst=dst, src=from_numpy(np.ones((2, 2), np.float32)),
                      dge_mode=nisa.dge_mode.hwdge)
    assert read(dst).tolist() == [[1, 1], [1, 1]]


def test_same_type_int32_copy_names_its_engine():
    """isa:2256-2261 and release-notes/components/nki.rst:154: the Scalar engine copies through
    float32, so a 32-bit integer copy left to the compiler may lose bits; Vector is bit exact."""
    _refused('copy-engine')
    src = tile((1, 2), np.int32)
    write(src, np.int32([[2**24 + 1, -(2**31)]]))
    dst = tile((1, 2), np.int32, fill=False)
    nisa.tensor_copy(dst=dst, src=src, engine=nisa.engine.vector)
    assert read(dst).tolist() == [[2**24 + 1, -(2**31)]]
    f = tile((1, 1), fill=False)
    nisa.tensor_copy(dst=f, src=tile((1, 1)))  # float32: every engine copies alike


def test_scalar_engine_copy_goes_through_float32_and_not_on_v2():
    "isa:2266 (v2.32.0 isa:403): not on v2's Scalar engine; isa:2256-2258: through float32."
    _refused('scalar-copy-v2')
    with target_chip('trn2'):
        src = tile((1, 1), np.int32)
        write(src, np.int32([[2**24 + 1]]))
        dst = tile((1, 1), np.int32, fill=False)
        nisa.tensor_copy(dst=dst, src=src, engine=nisa.engine.scalar)
    assert read(dst).tolist() == [[2**24]]


def test_tensor_tensor_takes_the_same_elements_per_partition_in_any_shape():
    "isa:2536 (v2.32.0 isa:1021): same partitions and elements per partition."
    a = tile((2, 6), np.int32)
    write(a, np.arange(12, dtype=np.int32).reshape(2, 6))
    b = tile((2, 2, 3), np.int32)
    write(b, np.ones((2, 2, 3), np.int32))
    dst = tile((2, 3, 2), np.int32, fill=False)
    nisa.tensor_tensor(dst=dst, data1=a, data2=b, op=nl.add)
    assert read(dst).reshape(2, 6).tolist() == (np.arange(12).reshape(2, 6) + 1).tolist()
    with pytest.raises(NkiError, match='elements per partition'):
        nisa.tensor_tensor(dst=dst, data1=a, data2=tile((2, 5), np.int32), op=nl.add)


def test_indirect_leading_stride_is_ignored():
    "nki-aps.rst:287-291 (v2.32.0 :378-382): rows step by the base row size, any leading stride."
    img = from_numpy(np.arange(15, dtype=np.float32).reshape(5, 3))
    rows = tile((2, 1), np.int32)
    write(rows, np.int32([[4], [1]]))
    got = read(img.ap([[7, 2], [1, 3]], vector_offset=rows, indirect_dim=0))
    assert got.tolist() == [[12, 13, 14], [3, 4, 5]]


def test_rowgather_copy_periods_keep_the_stride_field():
    "trainium_inferentia2_arch.rst:716-718: a step of p_w*C or q_w*C elements past 32,767 splits."
    assert rowgather_copy_periods(1000, 3, 64, 2) == 1
    assert rowgather_copy_periods(511, 3, 64, 5) == 5  # 32,704 fits
    assert rowgather_copy_periods(512, 3, 64, 5) == 1  # 32,768 does not


def _expected(x, out_hw):
    h, w = x.shape[1:3]
    oh, ow = out_hw
    return x[:, (np.arange(oh) * h) // oh][:, :, (np.arange(ow) * w) // ow]


def test_rowgather_exact_where_the_period_step_exceeds_the_field():
    "uint8 (1, 4, 2000, 64) -> (1, 4, 6, 64): a step of 64,000 elements, one copy per period."
    x = np.random.default_rng(0).integers(0, 256, (1, 4, 2000, 64), dtype=np.uint8)
    with nki.counting() as counts:
        y = nki.simulate(resize_nearest_rowgather_kernel)(x, (1, 4, 6, 64))
    assert np.array_equal(y, _expected(x, (4, 6)))
    model = rowgather_counts((1, 4, 2000, 64), (4, 6), 1)
    assert counts.summary()['per_engine']['vector'] == model['per_engine']['vector']


def test_rowgather_int32_above_2_24_exact_on_the_named_engine():
    "isa:2256-2261: the residue copies run on Vector (named), bit exact for any int32."
    x = np.random.default_rng(1).integers(-(2**31), 2**31 - 1, (1, 5, 4, 3), dtype=np.int32)
    with nki.counting() as counts:
        y = nki.simulate(resize_nearest_rowgather_kernel)(x, (1, 9, 6, 3))
    assert np.array_equal(y, _expected(x, (9, 6)))
    assert counts.summary()['per_kind'].get('vector.tensor_copy', 0) > 0


def test_a_bool_is_stored_as_its_uint8_byte():
    """nki.api.shared.rst:45: boolean stored as uint8. A float cast rounds to that byte first (0.4
    and a tie at 0.5 give 0, -3 saturates to 0), so not every non-zero value is true."""
    src = tile((1, 6), fill=False)
    write(src, np.float32([[0.4, 0.5, 0.6, 1.5, -3.0, 2.0]]))
    dst = tile((1, 6), np.bool_, fill=False)
    nisa.tensor_copy(dst=dst, src=src)
    assert read(dst).tolist() == [[False, False, True, True, False, True]]
