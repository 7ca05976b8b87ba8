"""Two documented rules, each with an accepted twin and a refused twin (aws-neuron-sdk v2.29.1):
- nki/migration/nki-0-3-0-update-guide.rst:387-400: "All kernel output (return) tensors must be allocated with
  buffer=nl.shared_hbm. Using nl.hbm for output tensors will cause compilation failures."
- nki/api/nki/isa/__init__.py:2398-2404: tensor_scalar takes bitvec operators (e.g. bitwise_and); then "the
  input/output data types must be integer types, and input elements are treated as bit patterns without any data
  type casting", on the Vector Engine."""
import numpy as np
import pytest
import resize_nearest.nki_cpu as nki
import resize_nearest.nki_cpu.language as nl
import resize_nearest.nki_cpu.isa as nisa
from resize_nearest.nki_cpu.memory import MachineRuleError, NkiError


def copy_out_shared(x):
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


def copy_out_hbm(x):
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


def and_one(x):
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    y = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=y, data=t, op0=nl.bitwise_and, operand0=1)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=y)
    return out


def test_output_in_shared_hbm_is_accepted():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(nki.simulate(copy_out_shared)(x), x)


@pytest.mark.parametrize('release', ['0.3', '0.6'])
def test_output_in_hbm_is_refused(release):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(MachineRuleError, match=r"in nl\.hbm .*'output-shared-hbm'.*nki-0-3-0-update-guide.rst:387-400"):
        nki.profile(release).nki.jit(copy_out_hbm)(x)


@pytest.mark.parametrize('dtype', [np.int32, np.uint8, np.int16])
def test_bitwise_and_on_integer_tiles_runs(dtype):
    x = np.array([[0, 1, 2, 3], [4, 5, 126, 127]], dtype=dtype)
    np.testing.assert_array_equal(nki.simulate(and_one)(x), x & 1)      # NumPy's & is the bit pattern rule
    neg = np.array([[-1, -2, -3, 2**31 - 1]], dtype=np.int32)
    if dtype is np.int32:
        np.testing.assert_array_equal(nki.simulate(and_one)(neg), neg & 1)  # two's complement, no float cast


def test_bitwise_and_on_float_tiles_is_refused():
    x = np.ones((2, 3), dtype=np.float32)
    with pytest.raises(NkiError, match='bitvec tensor_scalar needs integer tiles'):
        nki.simulate(and_one)(x)
