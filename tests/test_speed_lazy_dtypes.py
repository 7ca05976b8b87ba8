"""ml_dtypes (about a second to import) is loaded by the interpreter only when bfloat16 is named or
met: a uint8 or float32 kernel run, and the front end's check of a kernel that mentions
nl.bfloat16, leave it unloaded; a bfloat16 run still copies every bit."""
import os, subprocess, sys, textwrap
import ml_dtypes, numpy as np
from resize_nearest.kernels.backend import run_kernel
from resize_nearest.nki_cpu import memory
import resize_nearest.nki_cpu.language as nl

KERNEL = '''
import resize_nearest.nki_cpu.language as nl
import resize_nearest.nki_cpu.isa as nisa


def element_bytes(dtype):
    if dtype == nl.uint8 or dtype == nl.int8:
        return 1
    if dtype == nl.float32:
        return 4
    return 2 if dtype == nl.bfloat16 or dtype == nl.float16 else 0


def copy_kernel(x):
    assert element_bytes(x.dtype) > 0
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    tile = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=tile, src=x)
    nisa.dma_copy(dst=out, src=tile)
    return out
'''


def _kernel_module(tmp_path):
    (tmp_path / 'copy_kern.py').write_text(KERNEL)
    sys.path.insert(0, str(tmp_path))
    try:
        import copy_kern
    finally:
        sys.path.remove(str(tmp_path))
    return copy_kern


def test_uint8_and_float32_runs_leave_ml_dtypes_unloaded(tmp_path):
    (tmp_path / 'copy_kern.py').write_text(KERNEL)
    child = textwrap.dedent(f'''
        import sys, numpy as np
        sys.path.insert(0, {str(tmp_path)!r})
        from resize_nearest.kernels.backend import run_kernel
        from resize_nearest.nki_cpu.frontend import check_kernel
        import copy_kern
        check_kernel(copy_kern.copy_kernel)  # reads nl.bfloat16 in element_bytes
        for dtype in (np.uint8, np.float32):
            x = (np.arange(24) * 7 % 251).astype(dtype).reshape(4, 6)
            assert (run_kernel(copy_kern.copy_kernel, x, backend='cpu') == x).all()
        print(sorted(m for m in sys.modules if m.split('.')[0] == 'ml_dtypes'))
    ''')
    env = dict(os.environ, RESIZE_NEAREST_CACHE='off')  # the check runs in full, keeping nothing
    done = subprocess.run([sys.executable, '-c', child], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == '[]'


def test_a_bfloat16_run_copies_every_bit(tmp_path):
    kern = _kernel_module(tmp_path)
    bits = np.array([0x0000, 0x8000, 0x3F80, 0x7F80, 0xFF80, 0x7FC1, 0x0001, 0xC2F7, 0x4049, 0x3EAB,
                     0x7F7F, 0x80FF], dtype=np.uint16).reshape(3, 4)
    x = bits.view(ml_dtypes.bfloat16)
    y = run_kernel(kern.copy_kernel, x, backend='cpu')
    assert y.dtype == np.dtype(ml_dtypes.bfloat16)
    assert (y.view(np.uint16) == bits).all()  # NaN payloads and signed zeros included


def test_bfloat16_is_known_by_identity():
    assert nl.bfloat16 == memory.bfloat16 == np.dtype(ml_dtypes.bfloat16)
    assert memory.is_bfloat16(np.dtype(ml_dtypes.bfloat16))
    for other in (np.float16, np.uint16, np.int16, np.dtype('V2'), np.dtype('>f2')):
        assert not memory.is_bfloat16(np.dtype(other))
    assert memory.supported_dtype(np.dtype(ml_dtypes.bfloat16))
    assert not memory.supported_dtype(np.dtype(ml_dtypes.float8_e4m3fn))  # not an NKI 0.3 dtype here
    assert not memory.supported_dtype(np.dtype('>f4'))  # float32, but not in native byte order
    assert 'bfloat16' in dir(nl) and 'bfloat16' in dir(memory)
