"""Backend selection and rebinding: one kernel source, NKI globals swapped for the kernel and all its helpers;
the real-NKI detection, placeholders and the environment variable."""
import os, subprocess, sys, numpy as np, pytest
from pathlib import Path
from resize_nearest.kernels import backend
from resize_nearest.kernels.gather import resize_nearest_exact_kernel
from resize_nearest.host.api import resize_nearest_reference
import resize_nearest.nki_cpu as cpu_nki, resize_nearest.nki_cpu.isa as cpu_isa

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / 'tests' / 'standin'

def _py(code, **env):
    return subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True, env={**os.environ, **env})

def test_bind_reaches_helpers():
    sentinel = object()
    k = backend._rebind(resize_nearest_exact_kernel, dict(nisa=sentinel), {})
    g = k.__globals__
    graph = g['_tile_indices'].__globals__['build_index_graph_exact']       # reached through _tile_indices
    helpers = [g['_tile_indices'], graph, g['gather_store_tile'], graph.__globals__['floor_div']]
    assert g['nisa'] is sentinel and all(h.__globals__['nisa'] is sentinel for h in helpers)   # helpers in graph.py rebound too
    assert resize_nearest_exact_kernel.__globals__['nisa'] is not sentinel                      # the original is untouched
    x = np.arange(2 * 5 * 7 * 3, dtype=np.float32).reshape(2, 5, 7, 3)
    cpu_nki.reset_stats()
    y = backend.run_kernel(resize_nearest_exact_kernel, x, (2, 9, 4, 3), backend='cpu')
    np.testing.assert_array_equal(y, resize_nearest_reference(x, (9, 4)))
    assert cpu_nki.stats()['per_kind'].get('gpsimd.iota') == 1                                  # iota lives in graph.py

def test_env_var_is_read_when_a_kernel_runs():
    assert _py('from resize_nearest.kernels import backend; print(backend.default_backend())', RESIZE_NEAREST_BACKEND='cpu').stdout.strip() == 'cpu'
    r = _py('from resize_nearest.kernels import backend; backend.default_backend()', RESIZE_NEAREST_BACKEND='nki')
    assert r.returncode != 0 and 'needs the real NKI' in r.stderr
    code = ('import numpy as np; from resize_nearest import resize_nearest; from resize_nearest.kernels import backend\n'
            'x = np.ones((1, 2, 2, 1), np.float32)\nprint(resize_nearest(x, (3, 3), backend="cpu").sum())\n'
            'try: resize_nearest(x, (3, 3))\nexcept ValueError as e: print("ValueError:", e)')
    r = _py(code, RESIZE_NEAREST_BACKEND='tpu')        # a junk value breaks neither import nor backend='cpu'
    assert r.returncode == 0 and r.stdout.splitlines()[0] == '9.0', r.stderr
    assert "RESIZE_NEAREST_BACKEND='tpu' is not a backend; allowed: auto, cpu, nki, nki-sim" in r.stdout

def test_placeholder_nki_package_is_reported(tmp_path):
    "The public index's nki 0.0.1 raises ImportError('WRONG PACKAGE ...') on import; it must be named, never used."
    (tmp_path / 'nki').mkdir()
    (tmp_path / 'nki' / '__init__.py').write_text("raise ImportError('WRONG PACKAGE. Please install the package from Neuron Repository')")
    (tmp_path / 'nki-0.0.1.dist-info').mkdir()
    (tmp_path / 'nki-0.0.1.dist-info' / 'METADATA').write_text('Metadata-Version: 2.1\nName: nki\nVersion: 0.0.1\n')
    r = _py('from resize_nearest.kernels import backend; print(backend.describe())', PYTHONPATH=f'{tmp_path}:{ROOT}')
    assert 'nki_cpu interpreter' in r.stdout and 'WRONG PACKAGE' in r.stdout
    assert 'placeholder package from the public index installed: nki 0.0.1' in r.stdout

def test_module_without_entry_points_is_not_real(tmp_path):
    (tmp_path / 'nki').mkdir()
    for f in ('__init__', 'language', 'isa'): (tmp_path / 'nki' / f'{f}.py').write_text('')
    r = _py('from resize_nearest.kernels import backend; print(backend.describe())', PYTHONPATH=f'{tmp_path}:{ROOT}')
    assert 'nki_cpu interpreter' in r.stdout and 'lacks jit, simulate)' in r.stdout

def test_standin_takes_the_real_nki_path():
    code = ('import numpy as np; from resize_nearest import resize_nearest, resize_nearest_reference; from resize_nearest.kernels import backend\n'
            'print(backend.default_backend()); print(backend.describe())\n'
            'x = np.random.default_rng(0).random((2, 26, 26, 3), dtype=np.float32)\n'
            'for b in ("auto", "cpu", "nki", "nki-sim"):\n'
            '    for v in ("exact", "hoisted", "auto"):\n'
            '        assert (resize_nearest(x, (22, 22), variant=v, backend=b) == resize_nearest_reference(x, (22, 22))).all()\n'
            'print("ok")')
    r = _py(code, PYTHONPATH=f'{STANDIN}:{ROOT}')
    out = r.stdout.splitlines()
    assert r.returncode == 0 and out[0] == 'nki' and 'real nki 0.3.0+standin' in out[1] and out[-1] == 'ok', r.stderr


def _fake_nki(tmp_path, version):
    (tmp_path / 'nki').mkdir()
    (tmp_path / 'nki' / '__init__.py').write_text(f"__version__ = {version!r}\njit = simulate = lambda f: f\n"
                                                  "from . import language, isa\n")
    for f in ('language', 'isa'):
        (tmp_path / 'nki' / f'{f}.py').write_text('')
    return f'{tmp_path}:{ROOT}'


@pytest.mark.parametrize('version', ['0.2.0', '0.9.0'])
def test_a_release_outside_0_3_to_0_8_is_named_and_refused(tmp_path, version):
    "The extra pins nki>=0.3,<0.9 (Neuron SDK 2.29 to 2.34: nbs/nki_versions.md)."
    path = _fake_nki(tmp_path, version)
    r = _py('from resize_nearest.kernels import backend; print(backend.describe())', PYTHONPATH=path)
    assert 'nki_cpu interpreter' in r.stdout
    assert f'nki {version} is not supported: resize_nearest is written for nki >=0.3,<0.9 (Neuron SDK 2.29 to 2.34)' in r.stdout
    r = _py('from resize_nearest.kernels import backend; backend.modules("nki")', PYTHONPATH=path)
    assert r.returncode != 0 and f'nki {version} is not supported' in r.stderr
    r = subprocess.run([sys.executable, 'tools/neuron_check.py'], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, 'PYTHONPATH': path})
    assert r.returncode == 2 and f'found: nki {version}' in r.stdout and 'REFUSED: nki' in r.stdout


def test_neuron_check_refuses_a_compiler_outside_the_range():
    env = {**os.environ, 'PYTHONPATH': f'{STANDIN}:{ROOT}', 'NEURONXCC_STANDIN_VERSION': '2.23.1.0'}
    r = subprocess.run([sys.executable, 'tools/neuron_check.py'], cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 2
    assert 'REFUSED: neuronx-cc 2.23.1.0 is not supported: resize_nearest is written for neuronx-cc >=2.24,<2.30' in r.stdout


@pytest.mark.parametrize('release', ['0.3', '0.4', '0.5', '0.6', '0.7', '0.8'])
@pytest.mark.parametrize('chip, expected', [('trn1', 'trn1'), ('inf2', 'trn1'), ('trn2', 'trn2'), ('trn3', 'trn3')])
def test_device_chip_from_get_nc_version(release, chip, expected):
    """nisa.get_nc_version() in every release (v2.29.1 nki/api/nki/isa/__init__.py:890, v2.32.0 :242); nc_version
    gen2 is the "Trn1/Inf2 target", gen3 "Trn2", gen4 "Trn3" (v2.29.1 :118-126)."""
    r = _py('from resize_nearest.kernels import backend; print(backend.device_chip())',
            PYTHONPATH=f'{STANDIN}:{ROOT}', NKI_STANDIN_VERSION=release, NKI_STANDIN_CHIP=chip)
    assert r.returncode == 0 and r.stdout.strip() == expected, r.stderr


def test_auto_on_a_reported_trn1_picks_only_what_trn1_runs():
    """On the stand-in device reporting trn1 the interpreter checks trn1's rules, under which an indirect DMA is
    refused (nki-dge.rst "Any (indirect: v3+)"): resize_nearest's `auto` must pick a variant trn1 runs."""
    code = ('import numpy as np; from resize_nearest import resize_nearest, resize_nearest_reference\n'
            'x = np.random.default_rng(0).random((2, 26, 26, 3), dtype=np.float32)\n'
            'for out in ((22, 22), (41, 41), (13, 52)):\n'
            '    assert (resize_nearest(x, out) == resize_nearest_reference(x, out)).all()\n'
            'print("ok")')
    r = _py(code, PYTHONPATH=f'{STANDIN}:{ROOT}', NKI_STANDIN_CHIP='trn1')
    assert r.returncode == 0 and r.stdout.strip() == 'ok', r.stderr[-600:]
