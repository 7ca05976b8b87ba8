"""Peer extractors against the library formulas documented in the notebooks; tools that must skip cleanly here."""
import subprocess, sys, numpy as np, pytest
from pathlib import Path
from resize_nearest.compare import torch_indices, onnxruntime_indices, opencv_indices
from resize_nearest.trainium import read_neuron_report, neuron_check
from resize_nearest.index_map import load_indices
from resize_nearest import backend

ROOT = Path(__file__).resolve().parent.parent

def test_peer_formulas():
    rng = np.random.default_rng(0)
    for _ in range(40):
        ih, iw, oh, ow = (int(v) for v in rng.integers(1, 70, 4))
        rows, cols = np.arange(oh), np.arange(ow)
        ort_r = np.floor(rows.astype(np.float32) / (np.float32(oh) / np.float32(ih))).astype(int)
        ort_c = np.floor(cols.astype(np.float32) / (np.float32(ow) / np.float32(iw))).astype(int)
        np.testing.assert_array_equal(onnxruntime_indices((ih, iw), (oh, ow)), (np.minimum(ort_r, ih - 1)[:, None] * iw + np.minimum(ort_c, iw - 1)[None]).ravel())
        cv_r = np.floor(rows * (1.0 / (oh / ih))).astype(int); cv_c = np.floor(cols * (1.0 / (ow / iw))).astype(int)
        np.testing.assert_array_equal(opencv_indices((ih, iw), (oh, ow)), (np.minimum(cv_r, ih - 1)[:, None] * iw + np.minimum(cv_c, iw - 1)[None]).ravel())
        t_r = np.floor(rows.astype(np.float32) * np.float32(ih / oh)).astype(int); t_c = np.floor(cols.astype(np.float32) * np.float32(iw / ow)).astype(int)
        np.testing.assert_array_equal(torch_indices((ih, iw), (oh, ow)), (t_r[:, None] * iw + t_c[None]).ravel())

def test_neuron_check_refuses_without_nki():
    if backend.real_nki()[0] is not None: pytest.skip('an nki package is importable: tests/test_neuron_path.py covers it')
    with pytest.raises(RuntimeError, match='needs the real NKI'): neuron_check('/tmp/never_written.json')
    assert read_neuron_report('/tmp/does/not/exist.json') is None

@pytest.mark.neuron
def test_on_trainium(tmp_path):
    rep = neuron_check(tmp_path / 'r.json', iters=5)
    for r in rep['rows']: assert r['status'] in ('pass', 'expected-oob'), r
