"""The front-end check: every refused construct on a tiny kernel, helpers followed, shipped kernels clean, the lint command."""
import subprocess, sys, textwrap, numpy as np, pytest
from pathlib import Path
from resize_nearest.nki_cpu import language as nl, isa as nisa, simulate, jit
from resize_nearest.nki_cpu.frontend import check_kernel, kernel_problems, NkiSubsetError
from resize_nearest.cli import SHIPPED_KERNELS

ROOT = Path(__file__).resolve().parent.parent
TILE_WIDTH = 4
SCALE = np.float32(2.0)

def _kernel_from(tmp_path, body, name='k'):
    "A module file holding `body`, imported, so the checker reads real source with real line numbers."
    mod = tmp_path / f'mod_{abs(hash(body))}.py'
    mod.write_text('import numpy as np\nimport resize_nearest.nki_cpu.language as nl\nimport resize_nearest.nki_cpu.isa as nisa\n' + textwrap.dedent(body))
    sys.path.insert(0, str(tmp_path))
    try:
        import importlib; m = importlib.import_module(mod.stem)
    finally: sys.path.remove(str(tmp_path))
    return getattr(m, name), mod

REFUSED = {
    'raise': ("def k(x):\n    if x.shape[0] > 1: raise ValueError('no')\n    return x\n", "'raise' is not accepted", 5),
    'try': ("def k(x):\n    try:\n        return x\n    except Exception:\n        return x\n", "'try' is not accepted", 5),
    'list comprehension': ("def k(x):\n    return [d for d in x.shape]\n", 'a list comprehension', 5),
    'generator': ("def k(x):\n    return tuple(int(d) for d in x.shape)\n", 'a generator expression', 5),
    'dict comprehension': ("def k(x):\n    return {str(d): d for d in x.shape}\n", 'a dict comprehension', 5),
    'set literal': ("def k(x):\n    return {1, 2}\n", 'a set literal', 5),
    'lambda': ("def k(x):\n    f = lambda y: y\n    return f(x)\n", 'a lambda', 5),
    'walrus': ("def k(x):\n    if (n := x.shape[0]) > 1: return n\n", "assignment expression", 5),
    'is not': ("def k(x, r=None):\n    if r is not None: return r\n    return x\n", "'is not' is not accepted", 5),
    'is': ("def k(x, r=None):\n    if r is None: return x\n    return r\n", "'is' is not accepted", 5),
    'inner def': ("def k(x):\n    def h(y): return y\n    return h(x)\n", 'inner function definition', 5),
    'inner class': ("def k(x):\n    class C: pass\n    return x\n", 'class definition inside a function', 5),
    'import': ("def k(x):\n    import math\n    return x\n", "'import' inside a function", 5),
    'global': ("def k(x):\n    global G\n    return x\n", "'global'", 5),
    'del': ("def k(x):\n    y = x\n    del y\n    return x\n", "'del'", 6),
    'format spec': ("def k(x):\n    print(f'{x.shape[0]:>4}')\n    return x\n", 'format specifier', 5),
    'numpy call': ("def k(x):\n    return np.dtype(x.dtype)\n", "module 'np' (numpy) is not an NKI module", 5),
    'numpy attribute': ("def k(x):\n    return x.dtype.itemsize\n", "'.itemsize' is not an NKI tensor field", 5),
    'unknown builtin': ("def k(x):\n    return sum(x.shape)\n", "builtin 'sum' is not available", 5),
    'enumerate': ("def k(x):\n    for i, d in enumerate(x.shape): print(i)\n    return x\n", "builtin 'enumerate'", 5),
    'misspelt api': ("def k(x):\n    nisa.dma_cpy(dst=x, src=x)\n", 'nisa.dma_cpy does not exist', 5),
    'numpy global': ("DT = np.float32\ndef k(x):\n    return DT\n", "global 'DT' holds the class numpy.float32", 6),
    'keyword-only': ("def k(x, *, n=1):\n    return x\n", "uses '*'", 4),
    'list default': ("def k(x, shape=[1, 2]):\n    return x\n", 'defaults to a list', 4),
    'undefined': ("def k(x):\n    return undefined_name\n", "name 'undefined_name' is not defined", 5),
}

@pytest.mark.parametrize('construct', list(REFUSED))
def test_each_refused_construct(tmp_path, construct):
    body, message, line = REFUSED[construct]
    k, mod = _kernel_from(tmp_path, body)
    problems, _ = kernel_problems(k)
    assert problems and message in problems[0].message, (construct, problems)
    assert problems[0].line == line and problems[0].file == str(mod) and problems[0].function == 'k'
    with pytest.raises(NkiSubsetError, match=f'{mod.name}:{line}: in k:'): check_kernel(k)
    with pytest.raises(NkiSubsetError): simulate(k)(np.zeros((2, 2), np.float32))   # the interpreter refuses to run it

def test_accepted_constructs_and_nki_globals(tmp_path):
    body = '''
    TILE = 128
    NAMES = ('h', 'w')
    F32 = nl.float32
    def helper(t, n):
        assert n > 0, f'n must be positive, got {n}'
        return min(TILE, n)
    def k(x, shape=(2, 2)):
        out = nl.ndarray(shape, dtype=F32, buffer=nl.shared_hbm)
        t = nl.ndarray(shape, dtype=x.dtype, buffer=nl.sbuf)
        d = {}
        for i, name in ((0, 'h'), (1, 'w')):
            d[name] = helper(t, x.shape[i]) if i != 1 else -1
        total = 0
        while total < 3: total += 1
        nisa.dma_copy(dst=t, src=x)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=float(len(d)), engine=nisa.engine.vector)
        nisa.dma_copy(dst=out, src=t)
        return out
    '''
    k, _ = _kernel_from(tmp_path, body)
    assert [f.__name__ for f in check_kernel(k)] == ['k', 'helper']
    np.testing.assert_array_equal(simulate(k)(np.ones((2, 2), np.float32)), np.full((2, 2), 2, np.float32))

def test_helpers_are_followed_and_named(tmp_path):
    body = '''
    def deep(n):
        return [i for i in range(n)]
    def middle(n):
        return deep(n)
    def k(x):
        return middle(x.shape[0])
    '''
    k, mod = _kernel_from(tmp_path, body)
    problems, seen = kernel_problems(k)
    assert [f.__name__ for f in seen] == ['k', 'middle', 'deep']
    assert len(problems) == 1 and problems[0].function == 'deep' and problems[0].line == 6

def test_list_arguments_refused_at_call():
    def k(x, shape): return x
    with pytest.raises(NkiSubsetError, match='kernel argument 1 of k is a list'): jit(k)(np.zeros(2, np.float32), [1, 2])

def test_no_source_is_refused():
    ns = {}
    exec('def k(x):\n    return x\n', ns)
    with pytest.raises(NkiSubsetError, match='source is not available'): check_kernel(ns['k'])

@pytest.mark.parametrize('target', SHIPPED_KERNELS)
def test_shipped_kernels_pass(target):
    import importlib
    mod, fn = target.split(':')
    assert check_kernel(getattr(importlib.import_module(mod), fn))

def test_lint_command(tmp_path):
    (tmp_path / 'userk.py').write_text('import numpy as np\ndef k(x):\n    return np.zeros(2) if x is None else x\n')
    run = lambda *a: subprocess.run([sys.executable, '-m', 'resize_nearest.cli', *a], cwd=tmp_path, capture_output=True, text=True)
    r = run('lint')
    assert r.returncode == 0 and r.stdout.count('ok   ') == len(SHIPPED_KERNELS), r.stdout + r.stderr
    r = run('lint', 'userk:k')
    assert r.returncode == 1 and "userk.py:3: in k: 'is' is not accepted" in r.stdout, r.stdout + r.stderr
    r = run('lint', 'userk:missing')
    assert r.returncode == 2 and "has no function 'missing'" in r.stderr
    r = run('lint', 'no_colon')
    assert r.returncode == 2 and 'module:function' in r.stderr
