"""NKI 0.3 to 0.6 (Neuron SDK 2.29 to 2.32): the rules the interpreter models per release, and the
kernels free of what 0.6 deprecates. Citations: aws-neuron-sdk v2.32.0 nki/migration/index.rst."""
import inspect
import re
import warnings
import pytest
import resize_nearest.nki_cpu as nki
import resize_nearest.nki_cpu.language as nl
from resize_nearest.nki_cpu.memory import NKI_VERSIONS, current_nki_version, partition_capacity
from resize_nearest.kernels import gather as gather_kernels


from resize_nearest.kernels import rows as row_kernels
from resize_nearest.kernels import residue as residue_kernel
from resize_nearest.kernels import rowgather as rowgather_kernel
from resize_nearest.kernels import graph
def test_versions_and_their_sdks():
    "index.rst:15-36: 0.6 ships in 2.32, 0.5 in 2.31, 0.4 in 2.30, 0.3 in 2.29."
    assert NKI_VERSIONS == {'0.3': '2.29', '0.4': '2.30', '0.5': '2.31', '0.6': '2.32'}
    assert current_nki_version() == '0.6'
    with pytest.raises(ValueError, match=r"version must be one of \('0.3', '0.4', '0.5', '0.6'\)"):
        with nki.nki_version('0.7'):
            pass


def test_sbuf_size_name_of_0_3():
    "index.rst:244-251: 0.3's total_available_sbuf_size; sbuf_fmax_bytes does not exist yet."
    with nki.nki_version('0.3'):
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            assert nl.tile_size.total_available_sbuf_size == partition_capacity('sbuf')
        with pytest.raises(AttributeError, match='new in NKI 0.4'):
            nl.tile_size.sbuf_fmax_bytes


@pytest.mark.parametrize('version', ['0.4', '0.5', '0.6'])
def test_sbuf_size_names_from_0_4(version):
    "index.rst:244-251: sbuf_fmax_bytes per partition; total_available_sbuf_size deprecated."
    with nki.nki_version(version):
        assert nl.tile_size.sbuf_fmax_bytes == 224 * 1024 - 16392  # trn2 (the default), usable
        with nki.target_chip('trn1'):
            assert nl.tile_size.sbuf_fmax_bytes == 192 * 1024 - 16392
        with pytest.warns(DeprecationWarning, match='sbuf_fmax_bytes'):
            nl.tile_size.total_available_sbuf_size


def test_kernels_use_nothing_removed_or_deprecated_by_0_6():
    """index.rst:58-75 (dynamic_range, bare while: 0.6), :224-240 (neuronxcc.nki, the
    tensor_copy_dynamic_* pair: 0.4), :244-251 (total_available_sbuf_size: 0.4)."""
    banned = (r'dynamic_range', r'^\s*while\b', r'neuronxcc', r'tensor_copy_dynamic',
              r'total_available_sbuf_size')
    for module in (gather_kernels, row_kernels, residue_kernel, rowgather_kernel, graph):
        source = inspect.getsource(module)
        assert [b for b in banned if re.search(b, source, re.M)] == [], module.__name__
