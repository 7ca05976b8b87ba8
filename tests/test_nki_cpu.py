"""Each interpreter op against hand-computed expectations."""
import numpy as np, pytest, ml_dtypes
import resize_nearest.nki_cpu as nki
import resize_nearest.nki_cpu.language as nl
import resize_nearest.nki_cpu.isa as nisa
from resize_nearest.nki_cpu.memory import read, write, from_numpy, NkiError, OutOfBoundsError, UninitializedReadError

def tile(vals, dtype):
    a = np.asarray(vals, dtype=dtype)
    t = nl.ndarray(a.shape, dtype=dtype, buffer=nl.sbuf); write(t, a); return t

def out(shape, dtype): return nl.ndarray(shape, dtype=dtype, buffer=nl.sbuf)

def test_iota_pattern_offset_multiplier():
    t = out((3, 2, 2), np.int32)
    nisa.iota(t, [[10, 2], [1, 2]], offset=5, channel_multiplier=100)
    assert read(t).tolist() == [[[5, 6], [15, 16]], [[105, 106], [115, 116]], [[205, 206], [215, 216]]]
    f = out((2, 1), np.float32); nisa.iota(f, [[1, 1]], offset=2**24 + 1, channel_multiplier=1)
    assert read(f).ravel().tolist() == [2**24, 2**24 + 2]   # 2^24+1 ties to even (2^24); 2^24+2 is exact
    with pytest.raises(NkiError, match='covers 4 elements'): nisa.iota(out((2, 3), np.int32), [[1, 4]])

def test_tensor_scalar_ties_reverse_and_two_ops():
    d = tile([[0.5], [1.5], [2.5], [-2.5]], np.float32)
    r = out((4, 1), np.int32); nisa.tensor_scalar(r, d, nl.multiply, 1.0)
    assert read(r).ravel().tolist() == [0, 2, 2, -2]
    r2 = out((4, 1), np.float32); nisa.tensor_scalar(r2, d, nl.subtract, 10.0, reverse0=True, op1=nl.multiply, operand1=2.0)
    assert read(r2).ravel().tolist() == [19.0, 17.0, 15.0, 25.0]
    s = out((4, 1), np.int8); nisa.tensor_scalar(s, d, nl.multiply, 1000.0)
    assert read(s).ravel().tolist() == [127, 127, 127, -128]           # saturating
    c = out((4, 1), np.int8); nisa.tensor_scalar(c, d, nl.greater, 1.0)
    assert read(c).ravel().tolist() == [0, 1, 1, 0]
    col = tile([[1.0], [2.0], [3.0], [4.0]], np.float32)
    m = out((4, 1), np.float32); nisa.tensor_scalar(m, d, nl.add, col)
    assert read(m).ravel().tolist() == [1.5, 3.5, 5.5, 1.5]

def test_tensor_scalar_scalar_operand_is_rounded_to_float32():
    p = tile([[41]], np.int32)
    f = out((1, 1), np.float32); nisa.tensor_scalar(f, p, nl.multiply, 1.0 / 41)
    assert read(f)[0, 0] == np.float32(41) * np.float32(1 / 41) < 1

def test_tensor_tensor_int32_exact_above_2_24_and_float_path():
    a, b = tile([[2**24 + 1], [2**31 - 1]], np.int32), tile([[2], [1]], np.int32)
    r = out((2, 1), np.int32); nisa.tensor_tensor(r, a, b, nl.add)
    assert read(r).ravel().tolist() == [2**24 + 3, -2**31]              # exact, wraps like int32 lanes
    m = out((2, 1), np.int32); nisa.tensor_tensor(m, a, tile([[1.0], [1.0]], np.float32), nl.multiply)
    assert read(m).ravel().tolist() == [2**24, 2**31 - 1]               # float32 path rounds, then saturates
    x = out((2, 1), np.int8); nisa.tensor_tensor(x, tile([[1], [0]], np.int8), tile([[1], [1]], np.int8), nl.logical_xor)
    assert read(x).ravel().tolist() == [0, 1]
    with pytest.raises(NkiError, match='differs'): nisa.tensor_tensor(out((2, 1), np.int32), a, tile([[1, 2]], np.int32), nl.add)

def test_tensor_copy_bit_exact_and_bf16_rounding():
    bits = np.array([[0x7FC00001], [0x80000000], [0x7F800000], [0xFFBFFFFF]], dtype=np.uint32).view(np.float32)
    s = tile(bits, np.float32); d = out((4, 1), np.float32); nisa.tensor_copy(d, s)
    assert read(d).view(np.uint32).tolist() == bits.view(np.uint32).tolist()
    b = out((3, 1), ml_dtypes.bfloat16)
    nisa.tensor_copy(b, tile([[1.00390625], [1.01171875], [3.0]], np.float32))  # ties to even in bf16
    assert read(b).astype(np.float32).ravel().tolist() == [1.0, 1.015625, 3.0]

def test_memset_type_rule():
    t = out((2, 2), np.int32); nisa.memset(t, 7); assert read(t).tolist() == [[7, 7], [7, 7]]
    with pytest.raises(NkiError, match='needs an integer value'): nisa.memset(t, 2.0)

def test_dma_strided_and_indirect():
    x = from_numpy(np.arange(40, dtype=np.float32).reshape(10, 4))
    t = out((3, 2), np.float32)
    nisa.dma_copy(t, x.ap([[8, 3], [2, 2]], offset=1))                 # rows 0,2,4 ; columns 1,3
    assert read(t).tolist() == [[1, 3], [9, 11], [17, 19]]
    idx = tile([[9], [0], [3]], np.int32)
    g = out((3, 4), np.float32); nisa.dma_copy(g, x.ap([[4, 3], [1, 4]], offset=0, vector_offset=idx, indirect_dim=0))
    assert read(g)[:, 0].tolist() == [36, 0, 12]

def test_dma_out_of_bounds_error_and_skip():
    x = from_numpy(np.arange(12, dtype=np.int32).reshape(6, 2), name='img')
    for bad in (6, -1, 10**6):
        idx = tile([[0], [bad]], np.int32)
        with pytest.raises(OutOfBoundsError, match=f'indirect index {bad} on partition 1'):
            nisa.dma_copy(out((2, 2), np.int32), x.ap([[2, 2], [1, 2]], offset=0, vector_offset=idx, indirect_dim=0))
    g = out((2, 2), np.int32); nisa.memset(g, -1)
    nisa.dma_copy(g, x.ap([[2, 2], [1, 2]], offset=0, vector_offset=tile([[5], [6]], np.int32), indirect_dim=0), oob_mode=nisa.oob_mode.skip)
    assert read(g).tolist() == [[10, 11], [-1, -1]]

def test_dma_bounds_are_the_views_rows_not_the_batch():
    batch = from_numpy(np.arange(2 * 3 * 2, dtype=np.float32).reshape(2 * 3, 2), name='batch')
    image0 = batch[0:3]                                                  # rows of image 0 only
    idx = tile([[3]], np.int32)                                         # one past image 0 = image 1's row 0
    with pytest.raises(OutOfBoundsError):
        nisa.dma_copy(out((1, 2), np.float32), image0.ap([[2, 1], [1, 2]], vector_offset=idx, indirect_dim=0))
    t = out((1, 2), np.float32)                                         # the whole-batch view lets it through
    nisa.dma_copy(t, batch.ap([[2, 1], [1, 2]], offset=0, vector_offset=idx, indirect_dim=0))
    assert read(t).tolist() == [[6, 7]]

def test_partition_limit_uninitialised_and_counters():
    with pytest.raises(NkiError, match='partition dimension 129 exceeds maximum 128'): nl.ndarray((129, 1), dtype=np.float32, buffer=nl.sbuf)
    with pytest.raises(UninitializedReadError): nisa.tensor_copy(out((2, 1), np.float32), out((2, 1), np.float32))
    nki.reset_stats()
    a = out((4, 1), np.int32); nisa.iota(a, [[1, 1]], offset=0, channel_multiplier=1)
    nisa.tensor_tensor(a, a, a, nl.add); nisa.tensor_scalar(a, a, nl.multiply, 2.0)
    x = from_numpy(np.zeros((4, 3), np.float32)); t = out((4, 3), np.float32)
    nisa.dma_copy(t, x); nisa.dma_copy(t[:, 0:2], x.ap([[3, 4], [1, 2]], offset=0))
    s = nki.stats()
    assert s['per_kind'] == {'dma.dma_copy': 2, 'gpsimd.iota': 1, 'gpsimd.tensor_tensor': 1, 'vector.tensor_scalar': 1}
    assert s['dma_transfers'] == 2 and s['dma_bytes'] == 4 * (12 + 8) and s['dma_descriptors'] == 1 + 4

def test_jit_copies_inputs_and_checks_outputs():
    def k(x):
        o = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf); nisa.dma_copy(dst=t, src=x)
        nisa.dma_copy(dst=o[0:1], src=t[0:1]); return o                 # writes only row 0
    a = np.ones((2, 2), np.float32)
    with pytest.raises(UninitializedReadError): nki.jit(k)(a)

@pytest.mark.parametrize('channels, cc, oob', [(3, 3, 'error'), (5, 2, 'error'), (4, 4, 'skip')])
def test_bulk_gather_equals_the_element_path(channels, cc, oob, monkeypatch):
    "The fast row gather (whole pieces by NumPy fancy indexing) moves the same values and counts the same descriptors as the element-by-element path."
    rng = np.random.default_rng(3)
    table = from_numpy(rng.random((50, channels), dtype=np.float32))
    rows = np.r_[np.arange(10, 20), [3, 3, 4, 5, 49, 0, 1], rng.integers(0, 50, 20)].reshape(-1, 1)
    if oob == 'skip': rows[[2, 30], 0] = [60, -1]
    results = []
    for fast in (True, False):
        if not fast: monkeypatch.setattr(nisa, '_bulk_gather', lambda *a: False)      # force the element path
        idx = tile(rows.astype(np.int32), np.int32)
        dst = out((rows.shape[0], cc), np.float32)
        if oob == 'skip': nisa.memset(dst, 0.0)
        with nki.counting() as c:
            nisa.dma_copy(dst=dst, src=table.ap([[channels, rows.shape[0]], [1, cc]], offset=1 if cc < channels else 0, vector_offset=idx, indirect_dim=0),
                          oob_mode=nisa.oob_mode.skip if oob == 'skip' else nisa.oob_mode.error)
        s = c.summary()
        results.append((read(dst).copy(), s['dma_descriptors'], s['descriptor_bytes'], s['dma_bytes']))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1:] == results[1][1:] and results[0][1] > 1

def test_inputs_are_shared_read_only_and_never_modified():
    "A kernel input is not copied on the way in, and a kernel that writes into it gets its own copy: the caller's array is unchanged."
    def scribble(a):
        t = nl.ndarray((2, 3), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(t, 7.0)
        nisa.dma_copy(dst=a, src=t)
        return a
    x = np.arange(6, dtype=np.float32).reshape(2, 3); x0 = x.copy()
    t = from_numpy(x)
    assert np.shares_memory(t.storage.data, x) and not t.storage.data.flags.writeable
    y = nki.jit(scribble)(x)
    np.testing.assert_array_equal(x, x0); np.testing.assert_array_equal(y, np.full((2, 3), 7.0))

# --- machine rules: each refused with the rule's name and its document (aws-neuron-sdk v2.29.1) ---------
from resize_nearest.nki_cpu.memory import (MACHINE_RULES, MachineRuleError, allocate as _alloc, from_numpy as _hbm,
                                           target_chip, write as _write, STATS as _STATS)
from resize_nearest.nki_cpu import isa as _isa

def _sb(shape, dtype=np.float32, buf='sbuf', fill=True):
    from resize_nearest.nki_cpu import memory
    t = _alloc(shape, dtype, getattr(memory, buf), f'{buf}{shape}')
    if fill:
        _write(t, np.zeros(shape, dtype))
    return t

def _rows(n=2):
    r = _sb((n, 1), np.int32)
    _write(r, np.zeros((n, 1), np.int32))
    return r

MACHINE_CASES = {
    'partitions': lambda: _alloc((129, 2), np.float32),
    'tensor-bytes': lambda: _alloc((2, 60000), np.float32),
    'free-dims': lambda: _sb((2, 2, 2, 2, 2, 2)).ap([[32, 2], [16, 2], [8, 2], [4, 2], [2, 2], [1, 2]]),
    'partition-step': lambda: _sb((16, 32)).ap([[64, 8], [1, 32]]),               # nki-aps.rst's own example
    'indirect-hbm': lambda: _sb((4, 2)).ap([[2, 2], [1, 2]], vector_offset=_rows()),
    'indirect-offsets': lambda: _hbm(np.zeros((4, 2), np.float32)).ap([[2, 2], [1, 2]],
                                                                       vector_offset=_sb((2, 1), np.int32, 'psum')),
    'indirect-swdge': lambda: _isa.dma_copy(_sb((2, 2), fill=False),
                                            _hbm(np.zeros((4, 2), np.float32)).ap([[2, 2], [1, 2]], vector_offset=_rows()),
                                            dge_mode=_isa.dge_mode.hwdge),
    'dma-psum-source': lambda: _isa.dma_copy(_hbm(np.zeros((2, 2), np.float32)), _sb((2, 2), buf='psum')),
    'dma-broadcast': lambda: _isa.dma_copy(_hbm(np.zeros((2, 3, 2), np.float32)), _sb((2, 2)).ap([[2, 2], [0, 3], [1, 2]])),
    'tt-psum-inputs': lambda: _isa.tensor_tensor(_sb((2, 2)), _sb((2, 2), buf='psum'), _sb((2, 2), buf='psum'), _isa.OPS['add']),
    'gpsimd-psum': lambda: _isa.tensor_copy(_sb((2, 2)), _sb((2, 2), buf='psum'), engine=_isa.engine.gpsimd),
    'ts-gpsimd': lambda: _isa.tensor_scalar(_sb((2, 2)), _sb((2, 2)), _isa.OPS['add'], 1.0, engine=_isa.engine.gpsimd),
}

def _live_overflow():
    with target_chip('trn1'):
        keep = _alloc((128, 25600), np.float32)          # 100 KiB per partition
        return keep, _alloc((128, 25600), np.float32)    # a second one does not fit trn1's 192 KiB

MACHINE_CASES['live-bytes'] = _live_overflow
from machine_rule_cases import NEW_CASES  # the rules below the API, with their documents
MACHINE_CASES.update(NEW_CASES)

def test_every_machine_rule_has_a_case():
    assert set(MACHINE_CASES) == set(MACHINE_RULES)

@pytest.mark.parametrize('rule', sorted(MACHINE_RULES))
def test_machine_rule_refused_with_its_document(rule):
    with pytest.raises(MachineRuleError, match=f"'{rule}'") as e:
        MACHINE_CASES[rule]()
    assert MACHINE_RULES[rule][1].split()[-1].split(':')[0] in str(e.value)

def test_live_bytes_follow_references_and_chip():
    _STATS.reset()
    with target_chip('trn1'):
        first = _alloc((128, 25600), np.float32)
        del first                                        # dropped: its bytes are free again
        second = _alloc((128, 25600), np.float32)
    with target_chip('trn2'):                            # 224 KiB per partition: two 100 KiB tiles fit
        third = _alloc((128, 25600), np.float32)
    assert _STATS.summary()['sbuf_peak_bytes'] == 2 * 102400
    del second, third

def test_tensor_tensor_precision_follows_the_engine():
    "int32 tiles: exact on GpSimd (the default), float32 on Vector or with a PSUM operand (isa :2549-2554)."
    a, out = _sb((1, 1), np.int32), _sb((1, 1), np.int32, fill=False)
    _write(a, np.int32([[2**24 + 1]]))
    _isa.tensor_tensor(out, a, a, _isa.OPS['add'])
    assert int(_isa.read(out)[0, 0]) == 2**25 + 2
    _isa.tensor_tensor(out, a, a, _isa.OPS['add'], engine=_isa.engine.vector)
    assert int(_isa.read(out)[0, 0]) == 2**25
    p = _sb((1, 1), np.int32, 'psum')
    _write(p, np.int32([[2**24 + 1]]))
    _isa.tensor_tensor(out, a, p, _isa.OPS['add'])
    assert int(_isa.read(out)[0, 0]) == 2**25

def test_shape_entries_must_be_integers():
    for bad in ((2.9, 3), (True, 3), ('4', 3)):
        with pytest.raises(TypeError, match='shape entries must be integers'):
            _alloc(bad, np.float32)

def test_kernels_stay_within_the_sbuf_of_every_chip():
    "The measured SBUF peak of every exact variant on the cost model's largest shapes fits trn1's 192 KiB."
    from resize_nearest import nki_cpu, resize_nearest
    cases = [((1, 512, 512, 64), (768, 768), ('hoisted', 'residue', 'rowgather')),     # rowgather: 160 KiB
             ((1, 1080, 1920, 3), (720, 1280), ('rowgather',)), ((10, 30, 20, 1280), (59, 38), ('exact', 'hoisted'))]
    for shape, out, variants in cases:
        x = np.zeros(shape, np.float32)
        for variant in variants:
            with nki_cpu.counting() as c:
                resize_nearest(x, out, variant=variant)
            assert 0 <= c.summary()['sbuf_peak_bytes'] <= 192 * 1024, (shape, variant)
