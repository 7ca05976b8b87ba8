"""NKI 0.3 to 0.8 (Neuron SDK 2.29 to 2.34): the rules the interpreter models per release, and the
kernels free of what 0.6 deprecates. Citations: aws-neuron-sdk v2.32.0 nki/migration/index.rst; for 0.7 and 0.8
the published documentation read in nbs/nki_versions.md (the repository's tags end at v2.32.0)."""
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
    """index.rst:15-36: 0.6 ships in 2.32, 0.5 in 2.31, 0.4 in 2.30, 0.3 in 2.29; 0.7 in 2.33 (v2.33.0
    release-notes/releasecontent.html: nki-0.7.0), 0.8 in 2.34 (announce-intent-eos-nki-virtualregister-lnc-apis)."""
    assert NKI_VERSIONS == {'0.3': '2.29', '0.4': '2.30', '0.5': '2.31', '0.6': '2.32', '0.7': '2.33',
                            '0.8': '2.34'}
    assert current_nki_version() == '0.6'
    with pytest.raises(ValueError, match=r"version must be one of \('0.3', '0.4', '0.5', '0.6', '0.7', '0.8'\)"):
        with nki.nki_version('0.9'):
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


# --- per-release semantics (aws-neuron-sdk v2.32.0 release-notes/components/nki.rst) ---------------------------
import numpy as np
from resize_nearest.kernels import backend
from resize_nearest.host.variants import VARIANTS
from resize_nearest.maps.index_map import gather_reference
from resize_nearest.nki_cpu.memory import NkiError
from resize_nearest.studies.trainium import cast_probe_kernel, CAST_PROBE

PROBE = np.float32([CAST_PROBE])


def _hardware_cast(v):
    "nki.rst:71-72 (0.6.0): round to nearest, ties to even; saturate to the destination range."
    i = np.iinfo(np.int32)
    return np.clip(np.rint(v.astype(np.float64)), i.min, i.max).astype(np.int32)


@pytest.mark.parametrize('release', ['0.3', '0.4', '0.5', '0.6'])
def test_cast_probe_gives_what_each_simulator_is_documented_to(release):
    """nki.rst:69-72: before 0.6 nki.simulate cast as NumPy does; from 0.6 as the hardware. The device (jit)
    casts as the hardware under every release."""
    p, k = nki.profile(release), backend.bind(cast_probe_kernel, 'cpu')
    with np.errstate(invalid='ignore'):
        numpy_cast = PROBE.astype(np.int32)
    expected_sim = _hardware_cast(PROBE) if release == '0.6' else numpy_cast
    np.testing.assert_array_equal(p.nki.simulate(k)(PROBE), expected_sim)
    np.testing.assert_array_equal(p.nki.jit(k)(PROBE), _hardware_cast(PROBE))


@pytest.mark.parametrize('release', ['0.3', '0.5', '0.6'])
@pytest.mark.parametrize('in_hw, out_hw', [((26, 26), (22, 22)), ((7, 7), (41, 41))])
def test_compiled_kernel_floors_alike_under_each_simulator(release, in_hw, out_hw):
    """The compiled kernel's floor is a cast plus a correction (floor_nisa_kernel): with NumPy's truncation
    (0.3-0.5 simulators) and with round-to-nearest-even (0.6, the device) it lands on the same floor, so every
    simulator shows the same float32 map (chapter 1.1's load_indices 'as_compiled')."""
    x = np.random.default_rng(1).random((1, *in_hw, 2), dtype=np.float32)
    k = backend.bind(VARIANTS['as_compiled'].kernel, 'cpu')
    got = nki.profile(release).nki.simulate(k)(x, (1, *out_hw, 2))
    np.testing.assert_array_equal(got, gather_reference(x, out_hw, 'as_compiled'))


def _reshape_kernel(x):
    flat = x.reshape((x.shape[0] * x.shape[1] // 2,))
    t = nl.ndarray((1, flat.shape[0]), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=flat.reshape((1, flat.shape[0])))
    out = nl.ndarray((1, flat.shape[0]), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


import resize_nearest.nki_cpu.isa as nisa  # noqa: E402


@pytest.mark.parametrize('release', ['0.5', '0.6'])
def test_reshape_changing_the_count_is_refused_from_0_5(release):
    "nki.rst:175-176 (0.5.0): reshape asserts the total element count; invalid reshapes fail at trace time."
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    with pytest.raises(NkiError, match=f'NKI {release} requires the element count to be preserved'):
        nki.profile(release).nki.simulate(_reshape_kernel)(x)


@pytest.mark.parametrize('release', ['0.3', '0.4'])
def test_reshape_changing_the_count_is_not_checked_before_0_5(release):
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_array_equal(nki.profile(release).nki.simulate(_reshape_kernel)(x), [[0, 1, 2, 3]])
    with nki.nki_version(release):
        big = nki.memory.from_numpy(x)
        with pytest.raises(NkiError, match='run past its storage'):
            big.reshape((3, 4))


def test_dynamic_range_warns_in_0_6_only():
    "nki.rst:54-59 (0.6.0): a deprecation warning for nl.dynamic_range loops."
    for release in ('0.3', '0.4', '0.5'):
        with nki.nki_version(release), warnings.catch_warnings():
            warnings.simplefilter('error')
            assert list(nl.dynamic_range(2)) == [0, 1]
    with nki.nki_version('0.6'), pytest.warns(DeprecationWarning, match='nl.fori_loop'):
        assert list(nl.dynamic_range(2)) == [0, 1]


@pytest.mark.parametrize('release, default', [('0.3', False), ('0.4', True), ('0.6', True)])
def test_precise_fp_default(release, default, monkeypatch):
    "nki.rst:255 (0.4.0): NKI_PRECISE_FP=1 is the simulator's default; NKI_PRECISE_FP=0 restores the old one."
    monkeypatch.delenv('NKI_PRECISE_FP', raising=False)
    assert nki.precise_fp(release) is default
    monkeypatch.setenv('NKI_PRECISE_FP', '0')
    assert nki.precise_fp(release) is False
    monkeypatch.setenv('NKI_PRECISE_FP', '1')
    assert nki.precise_fp(release) is True


# What each Neuron SDK release installs, from its own manifest (aws-neuron-sdk v2.32.0
# src/helperscripts/n2-manifest.json, line of each package), and the compiler release notes
# (release-notes/components/compiler.rst:20 at v2.32.0, :11 at v2.30.0 and v2.31.1; 2.29.1.rst:16).
SDK_PACKAGES = {
    '2.28.1': ('0.2.0', '2.23.6484.0'),   # :307, :302 (outside: the NKI before 0.3)
    '2.29.0': ('0.3.0', '2.24.5133.0'),   # :277, :273
    '2.29.1': ('0.3.0', '2.24.8799.0'),   # :248, :244
    '2.30.0': ('0.4.0', '2.25.3371.0'),   # :217, :214
    '2.31.0': ('0.5.0', '2.26.6360.0'),   # :188, :185
    '2.31.1': ('0.5.0', '2.26.6360.0'),   # :156, :153
    '2.32.0': ('0.6.0', '2.27.5334.0'),   # :125, :124
    # the published release content pages (the repository has no v2.33 tag): v2.33.0 releasecontent.html
    # lists nki-0.7.0 and neuronx-cc-2.28.7631.0; v2.33.1 release-notes/2.33.1.html: "All other packages are the
    # same as in Neuron 2.33.0". 2.34.0 ships nki 0.8.0 (its announcements); its neuronx-cc was not seen (None).
    '2.33.0': ('0.7.0', '2.28.7631.0'),
    '2.33.1': ('0.7.0', '2.28.7631.0'),
    '2.34.0': ('0.8.0', None),
}


def test_neuron_extra_admits_sdk_2_29_to_2_34_and_nothing_before():
    "settings.ini's neuron extra, read as pip reads it, against what each SDK release installs."
    from configparser import ConfigParser
    from pathlib import Path
    from packaging.requirements import Requirement
    cfg = ConfigParser()
    cfg.read(Path(__file__).resolve().parent.parent / 'settings.ini')
    reqs = {r.name: r.specifier for r in map(Requirement, cfg['DEFAULT']['neuron_requirements'].split())}
    assert set(reqs) == {'nki', 'neuronx-cc'}
    for sdk, (nki_v, cc_v) in SDK_PACKAGES.items():
        inside = sdk >= '2.29'
        assert (nki_v in reqs['nki']) is inside, sdk
        assert cc_v is None or (cc_v in reqs['neuronx-cc']) is inside, sdk
    assert '0.9.0' not in reqs['nki'] and '2.30.0.0' not in reqs['neuronx-cc']
    # 2.34.0's compiler was not seen: each SDK from 2.29 to 2.33 raised neuronx-cc's minor by one (2.24 to
    # 2.28), and the pin admits the next (2.29) so that 2.34 resolves if it keeps to that; neuron_check names
    # the compiler it finds, and refuses it, where it does not
    assert '2.29.0.0' in reqs['neuronx-cc']


def test_backend_refuses_exactly_what_the_extra_excludes():
    for sdk, (nki_v, cc_v) in SDK_PACKAGES.items():
        inside = sdk >= '2.29'
        assert (backend.version_problem('nki', nki_v) is None) is inside, sdk
        assert cc_v is None or (backend.version_problem('neuronx-cc', cc_v) is None) is inside, sdk
