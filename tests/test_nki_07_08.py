"""NKI 0.7 (Neuron SDK 2.33) and 0.8 (2.34): what the interpreter's profiles, the backend and the Trainium check do
about them. Sources (the repository's tags end at v2.32.0, so these are the published pages; nbs/nki_versions.md):
- nki.jit at 0.7: v2.33.1/nki/api/generated/nki.jit.html and v2.33.1/_modules/nki.html;
- loops: v2.33.1/nki/migration/index.html (dynamic_range removed), latest/nki/deep-dives/nki-loops.html (the range
  loops deprecated, "default to Python range");
- LNC: latest/compiler/error-codes/EVRF066.html (the message; kernel LNC=1 by default, neuronx-cc LNC=2 on Trn2 and
  later; NEURON_LOGICAL_NC_CONFIG sets both; --lnc in NEURON_CC_FLAGS overrides the compiler's);
- bitvec engines: latest/about-neuron/announcements/neuron2.x/announce-intent-eos-nki-virtualregister-lnc-apis.html.
"""
import ast
import inspect
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import resize_nearest.nki_cpu as cpu
import resize_nearest.nki_cpu.language as nl
import resize_nearest.nki_cpu.isa as nisa
from resize_nearest.nki_cpu import isa as cisa
from resize_nearest.nki_cpu.memory import allocate, write, read, int32, NkiError
from resize_nearest.kernels import backend
from resize_nearest.studies import trainium as t

ROOT = Path(__file__).resolve().parent.parent
STANDIN = {**os.environ, 'PYTHONPATH': f"{ROOT / 'tests' / 'standin'}:{ROOT}"}
ANNOUNCEMENT = 'announce-intent-eos-nki-virtualregister-lnc-apis'


def copy_kernel(x):
    "The smallest kernel with a loop: HBM -> SBUF -> HBM, one static_range step per row block."
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for _ in nl.static_range(1):
        tile = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=tile, src=x)
        nisa.dma_copy(dst=out, src=tile)
    return out


@pytest.fixture
def no_lnc(monkeypatch):
    "No LNC setting of the caller's: what a plain shell on an instance has."
    monkeypatch.delenv('NEURON_LOGICAL_NC_CONFIG', raising=False)
    monkeypatch.delenv('NEURON_CC_FLAGS', raising=False)


# --- the profiles -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('release', ['0.7', '0.8'])
def test_jit_signature_of_0_7_and_on(release):
    "v2.33.1 nki.jit: jit(fn=None, *, compile_config=None, specialization_config=None, **kwargs)."
    params = inspect.signature(cpu.profile(release).nki.jit).parameters
    assert list(params) == ['fn', 'compile_config', 'specialization_config', 'kwargs']
    assert params['compile_config'].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(inspect.signature(cpu.profile('0.6').nki.jit).parameters) == ['fn', 'kwargs']


@pytest.mark.parametrize('release', ['0.7', '0.8'])
def test_loops_of_0_7_and_on(release):
    "dynamic_range removed in 0.7; static_range, affine_range, sequential_range deprecated Python ranges."
    nl = cpu.profile(release).nl
    assert not hasattr(nl, 'dynamic_range') and hasattr(cpu.profile('0.6').nl, 'dynamic_range')
    for name in ('static_range', 'affine_range', 'sequential_range'):
        with pytest.warns(DeprecationWarning, match=f'nl.{name} is deprecated from NKI 0.7'):
            assert list(getattr(nl, name)(1, 7, 2)) == [1, 3, 5]
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert list(cpu.profile('0.6').nl.static_range(3)) == [0, 1, 2]   # not before 0.7


# --- LNC (NCC_EVRF066) --------------------------------------------------------------------------------------------

@pytest.mark.parametrize('release', ['0.7', '0.8'])
def test_plain_trn2_compile_stops_on_evrf066(release, no_lnc):
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    jit = cpu.profile(release).nki.jit(copy_kernel)
    with cpu.target_chip('trn2'), pytest.raises(NkiError) as e:
        jit(x)
    assert str(e.value) == ("NCC_EVRF066: NKI kernel 'copy_kernel' is configured with LNC=1, but neuronx-cc is "
                            'using LNC=2')
    with cpu.target_chip('trn3'):
        np.testing.assert_array_equal(jit[2](x), x)                 # the bracket form matches the compiler's 2
    with cpu.target_chip('trn1'):
        np.testing.assert_array_equal(jit(x), x)                    # trn1's compiler defaults to 1
    with cpu.target_chip('trn2'):
        np.testing.assert_array_equal(cpu.profile(release).nki.simulate(copy_kernel)(x), x)  # nothing compiled


def test_before_0_7_nothing_is_checked(no_lnc):
    x = np.ones((2, 4), np.float32)
    with cpu.target_chip('trn2'):
        np.testing.assert_array_equal(cpu.profile('0.6').nki.jit(copy_kernel)(x), x)


def test_backend_sets_one_degree_for_both_sides(no_lnc):
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    setting = backend.lnc_setting('trn2')
    assert setting == dict(degree=1, source='set by the backend',
                           form='NEURON_LOGICAL_NC_CONFIG=1 (kernel and neuronx-cc)')
    assert os.environ['NEURON_LOGICAL_NC_CONFIG'] == '1'
    with cpu.target_chip('trn2'):
        np.testing.assert_array_equal(cpu.profile('0.7').nki.jit(copy_kernel)(x), x)


def test_backend_keeps_the_callers_degree_and_refuses_a_disagreeing_compiler_flag(monkeypatch):
    monkeypatch.setenv('NEURON_LOGICAL_NC_CONFIG', '2')
    monkeypatch.delenv('NEURON_CC_FLAGS', raising=False)
    assert backend.lnc_setting('trn2')['degree'] == 2 and backend.lnc_setting('trn2')['source'] == 'environment'
    monkeypatch.setenv('NEURON_CC_FLAGS', '--lnc=1 -O2')
    with pytest.raises(ValueError, match='neuronx-cc use LNC=1 while the kernels run with LNC=2'):
        backend.lnc_setting('trn2')
    monkeypatch.setenv('NEURON_LOGICAL_NC_CONFIG', '3')
    with pytest.raises(ValueError, match="NEURON_LOGICAL_NC_CONFIG must be an LNC degree, 1 or 2, got '3'"):
        backend.lnc_setting('trn2')


# --- the backend's one place --------------------------------------------------------------------------------------

@pytest.mark.parametrize('release, loops', [('0.6', 'nl.static_range'), ('0.7', 'range'), ('0.8', 'range')])
def test_backend_runs_the_kernels_on_each_release_without_deprecated_loops(release, loops):
    "Through the stand-in: every variant on the device path, DeprecationWarning an error, no LNC setting given."
    code = ("import numpy as np\n"
            "from resize_nearest.kernels import backend\n"
            "from resize_nearest.host.api import resize_nearest\n"
            "from resize_nearest.host.variants import VARIANTS\n"
            "x = np.arange(2 * 12 * 12 * 3, dtype=np.float32).reshape(2, 12, 12, 3)\n"
            "for v in VARIANTS:\n"
            "    if v != 'strided':\n"
            "        resize_nearest(x, (8, 8), variant=v, backend='nki')\n"
            "resize_nearest(x, (6, 6), variant='strided', backend='nki')\n"
            "print(backend.forms()['loops'])\n")
    env = {k: v for k, v in STANDIN.items() if k not in ('NEURON_LOGICAL_NC_CONFIG', 'NEURON_CC_FLAGS')}
    r = subprocess.run([sys.executable, '-W', 'error::DeprecationWarning', '-c', code], cwd=ROOT,
                       capture_output=True, text=True, env={**env, 'NKI_STANDIN_VERSION': release})
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split()[0] == loops


# --- the bitvec-engine rule of 0.8 --------------------------------------------------------------------------------

def _ints():
    m = allocate((2, 3), int32)
    write(m, np.array([[0, 1, 2], [3, -1, 7]], np.int32))
    return m, allocate((2, 3), int32)


def test_bitvec_accepted_twins_under_0_8():
    "The announcement: pass engine=nki.isa.engine.vector or remove the engine argument."
    m, out = _ints()
    with cpu.nki_version('0.8'):
        for engine in (cisa.engine.vector, cisa.engine.unknown):
            cisa.tensor_tensor(out, m, m, cisa.OPS['bitwise_and'], engine=engine)
            assert read(out).tolist() == [[0, 1, 2], [3, -1, 7]]
            cisa.tensor_scalar(out, m, cisa.OPS['bitwise_and'], 1, engine=engine)
            assert read(out).tolist() == [[0, 1, 0], [1, 1, 1]]


@pytest.mark.parametrize('instruction, engine', [('tensor_tensor', 'gpsimd'), ('tensor_scalar', 'scalar'),
                                                 ('tensor_scalar', 'gpsimd')])
def test_bitvec_refused_twins_under_0_8(instruction, engine):
    "The announcement: gpsimd for tensor_tensor, scalar or gpsimd for tensor_scalar, with a bitvec operator."
    m, out = _ints()
    call = dict(tensor_tensor=lambda e: cisa.tensor_tensor(out, m, m, cisa.OPS['bitwise_xor'], engine=e),
                tensor_scalar=lambda e: cisa.tensor_scalar(out, m, cisa.OPS['bitwise_or'], 1, engine=e))[instruction]
    with cpu.nki_version('0.8'), pytest.raises(NkiError) as e:
        call(getattr(cisa.engine, engine))
    assert f'{instruction} with a bitvec operator on engine={engine}: NKI 0.8 announces' in str(e.value)
    assert ANNOUNCEMENT in str(e.value)


def test_the_rule_leaves_arithmetic_alone():
    "Only bitvec operators: a multiply on GpSimd (chapter 1.4's graph does one) is not the rule's."
    m, out = _ints()
    with cpu.nki_version('0.8'):
        cisa.tensor_tensor(out, m, m, cisa.OPS['multiply'], engine=cisa.engine.gpsimd)
    assert read(out).tolist() == [[0, 1, 4], [9, 1, 49]]


def _engine_calls():
    "(function, op source, engine source) of every tensor_tensor / tensor_scalar call in the shipped kernels."
    import importlib
    from resize_nearest.cli import SHIPPED_KERNELS
    from resize_nearest.nki_cpu.frontend import kernel_problems, _parse
    calls = []
    for target in SHIPPED_KERNELS:
        mod, fn = target.split(':')
        for f in kernel_problems(getattr(importlib.import_module(mod), fn))[1]:
            for n in ast.walk(_parse(f)[0]):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                        n.func.attr in ('tensor_tensor', 'tensor_scalar'):
                    kw = {k.arg: ast.unparse(k.value) for k in n.keywords}
                    ops = [kw.get(k, '') for k in ('op', 'op0', 'op1')]
                    calls.append((n.func.attr, ' '.join(ops), kw.get('engine', '')))
    return calls


def test_no_shipped_kernel_trips_the_bitvec_rule():
    calls = _engine_calls()
    assert calls, 'the kernels call tensor_tensor / tensor_scalar'
    tripping = [c for c in calls if 'bitwise' in c[1] and any(e in c[2] for e in ('gpsimd', 'scalar'))]
    assert tripping == []


def test_every_variant_runs_under_the_0_8_rules():
    "Run, not read: every variant through the interpreter under 0.8 (the rule raises where a kernel trips it)."
    from resize_nearest.host.api import resize_nearest
    from resize_nearest.host.variants import VARIANTS
    x = np.arange(2 * 12 * 12 * 3, dtype=np.float32).reshape(2, 12, 12, 3)
    with cpu.nki_version('0.8'):
        for v in VARIANTS:
            out_hw = (6, 6) if v == 'strided' else (8, 8)
            y = resize_nearest(x, out_hw, variant=v, backend='cpu')
            assert y.shape == (2, *out_hw, 3), v


# --- versions: the range and the refusal --------------------------------------------------------------------------

def test_version_refusal_names_what_it_found_and_what_it_takes():
    assert backend.version_problem('nki', '0.9.0').startswith(
        'nki 0.9.0 is not supported: resize_nearest is written for nki >=0.3,<0.9 (Neuron SDK 2.29 to 2.34)')
    assert 'neuronx-cc 2.30.1.0 is not supported' in backend.version_problem('neuronx-cc', '2.30.1.0')
    assert backend.version_problem('neuronx-cc', '2.28.7631.0') is None


def test_neuron_check_refuses_a_compiler_outside_the_range():
    r = subprocess.run([sys.executable, 'tools/neuron_check.py', '--widths', 'none'], cwd=ROOT, capture_output=True,
                       text=True, env={**STANDIN, 'NKI_STANDIN_VERSION': '0.8',
                                       'NEURONXCC_STANDIN_VERSION': '2.30.0.0+standin'})
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith('found: neuronx-cc 2.30.0.0+standin') and 'nki 0.8.0+standin' in lines[0]
    assert lines[1].startswith('REFUSED: neuronx-cc 2.30.0.0+standin is not supported: resize_nearest is written for '
                               'neuronx-cc >=2.24,<2.30 (Neuron SDK 2.29 to 2.34)')


# --- the three-way verdict ----------------------------------------------------------------------------------------

def _row(case, got, maps):
    return dict(case=case, **t.compare_maps(np.asarray(got)[None, :], maps['exact'], maps['described'],
                                            published=maps['published']))


def _maps(in_hw, out_hw, published):
    exact, described = t.premise_maps(in_hw, out_hw)
    return dict(exact=exact, described=described, published=published(in_hw, out_hw))


def _local_published(in_hw, out_hw):
    """A local stand-in for the published kernel's map, written from its description (a float32 divide for the row,
    then the float32 scale per axis) independently of resize_nearest.kernels.gather."""
    (in_h, in_w), (out_h, out_w) = in_hw, out_hw
    p = np.arange(out_h * out_w)
    row = np.floor(np.float32(p) / np.float32(out_w))
    col = (p % out_w).astype(np.float32)
    src_h = np.floor(row * np.float32(in_h / out_h)).astype(np.int64)
    src_w = np.floor(col * np.float32(in_w / out_w)).astype(np.int64)
    return src_h * in_w + src_w


@pytest.mark.parametrize('published', [_local_published, t.published_map], ids=['local stand-in', 'chapter 1.5'])
def test_three_way_verdict_on_constructed_outputs(published):
    sweep = [(f'width {w} sweep', (8, 64), (6, w)) for w in range(36, 100)]
    maps = {case: _maps(i, o, published) for case, i, o in sweep + [('224 -> 192', (224, 224), (192, 192))]}
    assert any((m['described'] != m['published']).any() for m in maps.values())      # the sweep tells them apart
    assert (maps['224 -> 192']['described'] != maps['224 -> 192']['exact']).any()
    assert (maps['224 -> 192']['published'] != maps['224 -> 192']['exact']).any()
    for name in ('described', 'published', 'exact'):
        v = t.premise_verdict([_row(case, m[name], m) for case, m in maps.items()])
        assert (v['matched'], v['verdict'], v['first']) == (name, t.HYPOTHESES[name], [])
    off = {case: m['exact'] + 1 for case, m in maps.items()}                          # one source pixel along
    v = t.premise_verdict([_row(case, off[case], m) for case, m in maps.items()])
    assert v['verdict'] == 'the compiler does something else' and v['matched'] is None
    first = v['first'][0]
    assert set(first) == {'case', 'pixel', 'got', 'exact', 'described', 'published'} and first['pixel'] == 0
    assert first['got'] == [first['exact'] + 1]
    apart = [case for case, m in maps.items() if (m['described'] != m['published']).any()][:2]
    mixed = [_row(apart[0], maps[apart[0]]['described'], maps[apart[0]]),   # one size as described,
             _row(apart[1], maps[apart[1]]['published'], maps[apart[1]])]   # another as published
    assert t.premise_verdict(mixed)['verdict'] == 'the compiler does something else'


def test_published_map_of_chapter_1_5_agrees_with_the_local_stand_in():
    "Two writings of one description; where they agree the stand-in above tests what chapter 3.3 uses."
    for in_hw, out_hw in (((8, 64), (6, 41)), ((224, 224), (192, 192)), ((26, 26), (22, 22)), ((7, 7), (41, 41))):
        np.testing.assert_array_equal(t.published_map(in_hw, out_hw), _local_published(in_hw, out_hw))


@pytest.mark.slow
def test_three_way_verdict_end_to_end_through_the_stand_in_compiler():
    "The stand-in torch_neuronx lowering each way in turn: the compiled-model step names it."
    code = ("import json, sys\n"
            "import torch_neuronx\n"
            "from resize_nearest.studies import trainium as t\n"
            "c = t.compiled_model_check(torch_neuronx.trace, widths=(40, 41, 42))\n"
            "print(json.dumps({m: v.get('matched') for m, v in c['verdicts'].items()}))\n")
    for lowering in ('described', 'published', 'exact'):
        r = subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True,
                           env={**STANDIN, 'NEURON_STANDIN_LOWERING': lowering})
        assert r.returncode == 0, r.stderr[-2000:]
        assert json.loads(r.stdout.splitlines()[-1]) == {'nearest': lowering, 'nearest-exact': lowering,
                                                         'backward': None}
