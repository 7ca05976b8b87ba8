"""The test-only stand-in `nki` poses as any NKI release 0.3 to 0.6 (NKI_STANDIN_VERSION), reports it
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
                                           ('0.4', '212984'), ('0.6', '212984')])
def test_standin_poses_as_each_release(version, sbuf):
    r = _probe(version)
    lines = r.stdout.splitlines()
    assert r.returncode == 0, r.stderr
    assert lines[0] == f"{version or '0.3'}.0+standin"
    assert lines[1].startswith(sbuf)  # trn2's 224 KiB (the default) less the reserve, from 0.4 on


def test_standin_refuses_an_unknown_release():
    r = _probe('0.7')
    assert r.returncode != 0 and "NKI_STANDIN_VERSION must be one of ('0.3', '0.4', '0.5', '0.6')" in r.stderr
