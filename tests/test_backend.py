"""Backend selection and rebinding: one kernel source, NKI globals swapped for the kernel and all its helpers."""
import os, subprocess, sys, numpy as np, pytest
from pathlib import Path
from resize_nearest import backend
from resize_nearest.kernel import resize_nearest_exact_kernel, resize_nearest_reference
import resize_nearest.nki_cpu.isa as cpu_isa

ROOT = Path(__file__).resolve().parent.parent

class RecordingIsa:
    "Forwards to the interpreter's isa and records which instructions were issued through it."
    def __init__(self): self.calls = []
    def __getattr__(self, name):
        target = getattr(cpu_isa, name)
        if not callable(target) or isinstance(target, type): return target
        def f(*a, **k): self.calls.append(name); return target(*a, **k)
        return f

def test_bind_reaches_helpers():
    rec = RecordingIsa()
    nki_mod, nl_mod, _ = backend.modules('cpu')
    k = backend._rebind(resize_nearest_exact_kernel, dict(nki=nki_mod, nl=nl_mod, nisa=rec), {})
    x = np.arange(2 * 5 * 7 * 3, dtype=np.float32).reshape(2, 5, 7, 3)
    y = nki_mod.simulate(k)(x, (2, 9, 4, 3))
    np.testing.assert_array_equal(y, resize_nearest_reference(x, (9, 4)))
    assert {'iota', 'tensor_scalar', 'tensor_tensor', 'dma_copy'} <= set(rec.calls)   # iota lives in graph.py: helpers were rebound
    assert resize_nearest_exact_kernel.__globals__['nisa'] is cpu_isa                   # the original is untouched

def test_env_var_forces_and_validates():
    run = lambda v: subprocess.run([sys.executable, '-c', 'from resize_nearest import backend; print(backend.BACKEND)'],
                                   cwd=ROOT, capture_output=True, text=True, env={**os.environ, 'RESIZE_NEAREST_BACKEND': v})
    assert run('cpu').stdout.strip() == 'cpu'
    r = run('nki'); assert r.returncode != 0 and 'needs the real NKI' in r.stderr
    r = run('tpu'); assert r.returncode != 0 and 'RESIZE_NEAREST_BACKEND must be one of' in r.stderr

def test_placeholder_nki_package_is_not_taken_for_real(tmp_path):
    (tmp_path / 'nki').mkdir()
    (tmp_path / 'nki' / '__init__.py').write_text("raise ImportError('WRONG PACKAGE: install nki from the Neuron pip repository')")
    r = subprocess.run([sys.executable, '-c', 'from resize_nearest import backend; print(backend.describe())'], cwd=ROOT,
                       capture_output=True, text=True, env={**os.environ, 'PYTHONPATH': f'{tmp_path}:{ROOT}'})
    assert 'nki_cpu interpreter' in r.stdout and 'WRONG PACKAGE' in r.stdout
