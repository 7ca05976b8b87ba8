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


# peer_counts (chapter R6): the one count of implementations against an exact map
from resize_nearest.studies.compare import peer_counts


def test_peer_counts_counts_pixels_a_library_gets_wrong():
    """PyTorch nearest on 26x26 -> 22x22: per axis it is wrong where floor(d * fl32(26/22)) misses
    (d * 26) // 22 (PyTorch's UpSample.h computes the float32 product), so on the image every pixel
    in a wrong row or a wrong column is wrong: out^2 - right^2."""
    torch = pytest.importorskip('torch')
    d = np.arange(22)
    picked = np.floor(d.astype(np.float32) * np.float32(26 / 22)).astype(np.int64)
    right = int((picked == d * 26 // 22).sum())
    counts = peer_counts([((26, 26), (22, 22))])
    assert counts['PyTorch nearest'][((26, 26), (22, 22))] == 22 * 22 - right * right == 43


def test_peer_counts_takes_any_runner_and_exact_map():
    exact = lambda n_in, n_out: np.arange(n_out) * n_in // n_out
    def missing(n_in, n_out):
        raise ModuleNotFoundError('no', name='not_a_library')
    runners = {'one off': lambda n_in, n_out: exact(n_in, n_out) + (np.arange(n_out) == 1),
               'refuses': lambda n_in, n_out: 'refuses', 'missing': missing}
    counts = peer_counts([(5, 3), (2, 4)], runners, exact)
    assert counts == {'one off': {(5, 3): 1, (2, 4): 1}, 'refuses': {(5, 3): 'refuses', (2, 4): 'refuses'},
                      'missing': {(5, 3): 'skipped: not_a_library is not installed',
                                  (2, 4): 'skipped: not_a_library is not installed'}}
    with pytest.raises(TypeError, match='peers must be a dict'):
        peer_counts([(5, 3)], [exact])
