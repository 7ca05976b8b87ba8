"""The Trainium check refuses cleanly without a real nki (the peer extractors are tested in test_audit.py)."""
import subprocess, sys, numpy as np, pytest
from pathlib import Path
from resize_nearest.studies.trainium import read_neuron_report, neuron_check
from resize_nearest.maps.index_map import load_indices
from resize_nearest.kernels import backend

ROOT = Path(__file__).resolve().parent.parent

def test_neuron_check_refuses_without_nki():
    if backend.real_nki()[0] is not None: pytest.skip('an nki package is importable: tests/test_neuron_path.py covers it')
    with pytest.raises(RuntimeError, match='needs the real NKI'): neuron_check('/tmp/never_written.json')
    assert read_neuron_report('/tmp/does/not/exist.json') is None

@pytest.mark.neuron
def test_on_trainium(tmp_path):
    rep = neuron_check(tmp_path / 'r.json', iters=5)
    for r in rep['rows']: assert r['status'] in ('pass', 'expected-oob'), r
