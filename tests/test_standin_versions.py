"""The test-only stand-in `nki` poses as any NKI release 0.3 to 0.8 (NKI_STANDIN_VERSION), reports it
as the real package does (`nki.__version__`, which the Trainium report records) and makes the
interpreter model that release's rules (aws-neuron-sdk v2.32.0 nki/migration/index.rst:244-251)."""
import os
import subprocess
import sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = ("import nki, nki.language as nl\n"
         "print(nki.__version__)\n"
         "try:\n    print(nl.tile_size.sbuf_fmax_bytes)\n"
         "except AttributeError as e:\n    print('AttributeError', e)\n")


def _probe(version):
    env = {**os.environ, 'PYTHONPATH': f"{ROOT / 'tests' / 'standin'}:{ROOT}"}
    if version is not None:
        env['NKI_STANDIN_VERSION'] = version
    return subprocess.run([sys.executable, '-c', PROBE], cwd=ROOT, capture_output=True, text=True,
                          env=env)


@pytest.mark.parametrize('version, sbuf', [(None, 'AttributeError'), ('0.3', 'AttributeError'),
                                           ('0.4', '212984'), ('0.6', '212984'), ('0.7', '212984'),
                                           ('0.8', '212984')])
def test_standin_poses_as_each_release(version, sbuf):
    r = _probe(version)
    lines = r.stdout.splitlines()
    assert r.returncode == 0, r.stderr
    assert lines[0] == f"{version or '0.3'}.0+standin"
    assert lines[1].startswith(sbuf)  # trn2's 224 KiB (the default) less the reserve, from 0.4 on


def test_standin_refuses_an_unknown_release():
    r = _probe('0.9')
    assert r.returncode != 0 and "NKI_STANDIN_VERSION must be one of ('0.3', '0.4', '0.5', '0.6', '0.7', '0.8')" in r.stderr


SIGNATURES = ("import inspect, nki, nki.isa as nisa, neuronxcc\n"
              "print(list(inspect.signature(nki.jit).parameters))\n"
              "print(list(inspect.signature(nisa.dma_copy).parameters)[:3])\n"
              "print(neuronxcc.__version__)\n"
              "print(nisa.get_nc_version().name)\n")


@pytest.mark.parametrize('version, jit, third, cc', [
    ('0.3', ['func', 'mode', 'kwargs'], 'oob_mode', '2.24.8799.0+standin'),
    ('0.6', ['fn', 'kwargs'], 'priority', '2.27.5334.0+standin'),
    ('0.7', ['fn', 'compile_config', 'specialization_config', 'kwargs'], 'priority', '2.28.7631.0+standin'),
    ('0.8', ['fn', 'compile_config', 'specialization_config', 'kwargs'], 'priority', '2.29.0.0+standin')])
def test_standin_has_each_release_signatures(version, jit, third, cc):
    """The listings (v2.29.1 / v2.32.0 nki/api/nki/__init__.py, isa/__init__.py) and the compiler each SDK
    ships (v2.32.0 src/helperscripts/n2-manifest.json:124, :244); 0.7: the v2.33.1 nki.jit page and the v2.33.0
    release content page (neuronx-cc-2.28.7631.0). 0.8's compiler was not seen: the stand-in poses as 2.29.0.0."""
    env = {**os.environ, 'PYTHONPATH': f"{ROOT / 'tests' / 'standin'}:{ROOT}", 'NKI_STANDIN_VERSION': version}
    r = subprocess.run([sys.executable, '-c', SIGNATURES], cwd=ROOT, capture_output=True, text=True, env=env)
    lines = r.stdout.splitlines()
    assert r.returncode == 0, r.stderr
    assert lines[0] == str(jit) and lines[1][-len(third) - 3:] == f"'{third}']" and lines[2] == cc
    assert lines[3] == 'gen3'     # trn2 unless NKI_STANDIN_CHIP says otherwise


def test_standin_torch_neuronx_says_it_is_one(tmp_path):
    code = ("import torch, torch_neuronx, torch.nn.functional as F\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x): return F.interpolate(x, size=(22, 22), mode='nearest')\n"
            f"t = torch_neuronx.trace(M(), (torch.zeros(1, 1, 26, 26),), compiler_workdir={str(tmp_path)!r})\n"
            "print(torch_neuronx.__version__, t(torch.zeros(1, 1, 26, 26)).shape)\n")
    env = {**os.environ, 'PYTHONPATH': f"{ROOT / 'tests' / 'standin'}:{ROOT}"}
    r = subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0].endswith('+standin')
    log = (tmp_path / 'log-neuron-cc.txt').read_text()
    assert log.startswith('STAND-IN') and 'nothing was compiled' in log and 'resize_nearest_fixed_dma_kernel' in log


@pytest.mark.parametrize('version, has_dynamic_range', [('0.6', 'True'), ('0.7', 'False'), ('0.8', 'False')])
def test_standin_language_of_each_release(version, has_dynamic_range):
    "0.7 removes nl.dynamic_range (v2.33.1 migration guide); the stand-in's nki.language follows the release."
    code = "import nki.language as nl\nprint(hasattr(nl, 'dynamic_range'))\n"
    env = {**os.environ, 'PYTHONPATH': f"{ROOT / 'tests' / 'standin'}:{ROOT}", 'NKI_STANDIN_VERSION': version}
    r = subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == has_dynamic_range
