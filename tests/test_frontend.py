"""The front-end check, rule by rule, against the source of the NKI 0.3 front end.

Each case is a tiny kernel the front end refuses, with the rule the check must name and the line of
leanprover/KLR (commit 7ccd18c) or of the 0.3 migration guide it cites; where the front end accepts a
near neighbour, the accepted twin must pass. The shipped kernels must pass, and the lint command
reports both."""
import importlib, subprocess, sys, textwrap, uuid, numpy as np, pytest
from pathlib import Path
from resize_nearest.nki_cpu import language as nl, isa as nisa, simulate, jit
from resize_nearest.nki_cpu.frontend import check_kernel, kernel_problems, NkiSubsetError, FRONTEND_RULES
from resize_nearest.cli import SHIPPED_KERNELS

HEADER = ('import math\nimport numpy as np\nimport resize_nearest.nki_cpu as nki\n'
          'import resize_nearest.nki_cpu.language as nl\nimport resize_nearest.nki_cpu.isa as nisa\n')

def _kernel_from(tmp_path, body, name='k'):
    "A module file holding `body`, imported, so the checker reads real source with real line numbers."
    mod = tmp_path / f'mod_{uuid.uuid4().hex}.py'
    mod.write_text(HEADER + textwrap.dedent(body))
    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()
    try:
        m = importlib.import_module(mod.stem)
    finally:
        sys.path.remove(str(tmp_path))
    return getattr(m, name), mod

# rule -> (refused kernel, the source line its message must cite, the line of the construct in the body)
REFUSED = {
    'statement': ("def k(x):\n    if x.shape[0] > 1:\n        raise ValueError('no')\n    return x\n",
                  'gather.c:1349', 3),
    'expression': ("def k(x):\n    return [d for d in x.shape]\n", 'gather.c:1079', 2),
    'format-spec': ("def k(x):\n    print(f'{x.shape[0]:>4}')\n", 'gather.c:1057', 2),
    'int32-constant': ("def k(x):\n    return 2147483648\n", 'gather.c:816-819', 2),
    'numpy-dtype': ("DT = np.float32\ndef k(x):\n    return DT\n", 'gather.c:525-536', 3),
    'class-base': ("class Cfg:\n    n = 1\ndef k(x):\n    return Cfg\n", 'gather.c:1554-1560', 4),
    'ellipsis': ("def k(x):\n    y = ...\n    return y\n", 'Simplify.lean:60', 2),
    'dict-key': ("def k(x):\n    return {1: x}\n", 'Simplify.lean:67', 2),
    'in-chained': ("def k(x):\n    return 0 < 1 in (1, 2)\n", 'Simplify.lean:89-90', 2),
    'matmul': ("def k(x):\n    return x @ x\n", 'Simplify.lean:106', 2),
    'starred': ("def k(x):\n    return min(*x.shape)\n", 'Simplify.lean:224', 2),
    'keyword-expansion': ("def k(x):\n    return nl.ndarray(**x)\n", 'Simplify.lean:264', 2),
    'loop-target': ("def k(x):\n    for n, s in (('h', 1), ('w', 2)):\n        print(n, s)\n",
                    'Simplify.lean:372', 2),
    'unpack-target': ("def k(x, t):\n    a, t[0] = x.shape\n    return a\n", 'Simplify.lean:299-308', 2),
    'several-stores': ("def k(x, a, b):\n    a[0] = b[0] = x\n", 'Simplify.lean:316', 2),
    'list-target': ("def k(x):\n    [a, b] = x.shape\n    return a\n", 'Trace/NKI.lean:382', 2),
    'declaration': ("def k(x, t):\n    t[0]: int\n    return x\n", 'Simplify.lean:367', 2),
    'loop-else': ("def k(x):\n    for i in nl.static_range(2):\n        print(i)\n    else:\n"
                  "        print(x)\n", 'Simplify.lean:371, 380', 2),
    'with': ("def k(x):\n    with nl.no_reorder(1):\n        print(x)\n", 'Annotations.lean:143', 2),
    'varargs': ("def h(*xs):\n    return xs\ndef k(x):\n    return h(x)\n", 'Simplify.lean:416', 1),
    'kwargs': ("def h(a, **kw):\n    return a\ndef k(x):\n    return h(x)\n", 'Simplify.lean:418', 1),
    'decorator': ("import functools\n@functools.cache\ndef h(a):\n    return a\ndef k(x):\n"
                  "    return h(x)\n", 'Simplify.lean:432-443', 2),
    'range-args': ("def k(x):\n    for i in range():\n        print(i)\n", 'Annotations.lean:137', 2),
    'range-value': ("def k(x):\n    return list(range(3))\n", 'Annotations.lean:59', 2),
    'not-iterable': ("def k(x):\n    for c in 'hw':\n        print(c)\n", 'Python.lean:246-254', 2),
    'builtin': ("def k(x):\n    return sum(x.shape)\n", 'Python.lean:79-398', 2),
    'min-max-arity': ("def k(x):\n    return min(1, 2, 3)\n", 'Python.lean:165, 191', 2),
    'math': ("def k(x):\n    return math.exp(1.0)\n", 'Python.lean:34-39, 405-424', 2),
    'attribute': ("def k(x):\n    return x.ndim\n", 'Term.lean:486-552', 2),
    'beta1-api': ("import types as _t\nneuronxcc = _t.ModuleType('neuronxcc.nki')\n"
                  "def k(x):\n    return neuronxcc\n", 'Annotations.lean:52', 4),
    'module': ("def k(x):\n    return np.zeros(2)\n", 'Types.lean:284', 2),
    'undefined': ("def k(x):\n    return undefined_name\n", 'Trace/NKI.lean:98', 2),
    'global-value': ("G = object()\ndef k(x):\n    return G\n", 'gather.c:486-567', 3),
    'nested-function': ("def outer():\n    def inner(y):\n        return y\n    return inner\n"
                        "H = outer()\ndef k(x):\n    return H(x)\n", 'gather.c:1323', 7),
    'no-source': ("H = lambda y: y\ndef k(x):\n    return H(x)\n", 'gather.c:1411-1460', 3),
    'is': ("def k(x, r=None):\n    if r is None:\n        return x\n    return r\n",
           'nki-0-3-0-update-guide.rst', 2),
    'keyword-only': ("def k(x, *, n=1):\n    return x\n", 'nki-0-3-0-update-guide.rst', 1),
    'list-default': ("def k(x, shape=[1, 2]):\n    return x\n", 'nki-0-3-0-update-guide.rst', 1),
}

# rule -> a kernel the front end accepts that differs from the refused one in the point at issue
ACCEPTED = {
    'statement': "def k(x):\n    assert x.shape[0] <= 1, 'no'\n    return x\n",
    'expression': "def k(x):\n    dims = []\n    for i in nl.static_range(2):\n        dims.append(x.shape[i])\n    return dims\n",
    'format-spec': "def k(x):\n    print(f'{x.shape[0]!r} rows')\n",
    'int32-constant': "def k(x):\n    return 2**31 - 1\n",
    'numpy-dtype': "DT = nl.float32\ndef k(x):\n    return DT\n",
    'ellipsis': "def k(x):\n    return x[..., 0]\n",
    'dict-key': "def k(x):\n    return {'rows': x}\n",
    'in-chained': "def k(x):\n    return 1 in (1, 2)\n",
    'starred': "def k(x):\n    return min(x.shape[0], x.shape[1])\n",
    'loop-target': "def k(x):\n    for pair in (('h', 1), ('w', 2)):\n        name, size = pair\n        print(name, size)\n",
    'unpack-target': "def k(x):\n    a, (b, c) = 1, (2, 3)\n    return a + b + c\n",
    'several-stores': "def k(x, a):\n    b = a[0] = x\n    return b\n",
    'declaration': "def k(x):\n    n: int\n    n = 3\n    return n\n",
    'loop-else': "def k(x):\n    n = 0\n    while n < 3:\n        n += 1\n    return n\n",
    'with': "def k(x):\n    with nl.no_reorder():\n        print(x)\n",
    'decorator': "@nki.jit\ndef h(a):\n    return a\ndef k(x):\n    return x\n",
    'range-args': "def k(x):\n    for i in range(0, 8, 2):\n        print(i)\n",
    'not-iterable': "def k(x):\n    for c in ('h', 'w'):\n        print(c)\n",
    'builtin': "def k(x):\n    return divmod(len(x.shape), 2)\n",
    'min-max-arity': "def k(x):\n    return min(1, min(2, 3))\n",
    'math': "def k(x):\n    return math.gcd(12, 18)\n",
    'attribute': "def k(x):\n    return len(x.shape)\n",
    'module': "def k(x):\n    return nl.ndarray((2, 2), dtype=nl.float32, buffer=nl.sbuf)\n",
    'global-value': "G = (128, 'h', {'a': 1.5})\ndef k(x):\n    return G\n",
    'class-base': "import enum\nclass Mode(enum.Enum):\n    up = 1\ndef k(x):\n    return Mode.up\n",
    'is': "def k(x, r=None):\n    if r == None:\n        return x\n    return r\n",
    'keyword-only': "def k(x, n=1):\n    return x\n",
    'list-default': "def k(x, shape=(1, 2)):\n    return x\n",
}

def test_every_rule_has_a_refused_case():
    assert set(REFUSED) == set(FRONTEND_RULES)

@pytest.mark.parametrize('rule', list(REFUSED))
def test_rule_refused_with_its_source(tmp_path, rule):
    body, source, line = REFUSED[rule]
    k, mod = _kernel_from(tmp_path, body)
    problems, _ = kernel_problems(k)
    mine = [p for p in problems if p.rule == rule]
    assert mine, (rule, problems)
    assert source in mine[0].message, mine[0].message
    assert mine[0].line == line + HEADER.count('\n'), (mine[0], line)
    assert mine[0].file == str(mod)
    with pytest.raises(NkiSubsetError, match=f'{mod.name}:'):
        check_kernel(k)

@pytest.mark.parametrize('rule', list(ACCEPTED))
def test_accepted_twin_passes(tmp_path, rule):
    k, _ = _kernel_from(tmp_path, ACCEPTED[rule])
    problems, _ = kernel_problems(k)
    assert problems == [], problems

def test_refused_kernels_do_not_run(tmp_path):
    k, _ = _kernel_from(tmp_path, REFUSED['loop-target'][0])
    with pytest.raises(NkiSubsetError):
        simulate(k)(np.zeros((2, 2), np.float32))

def test_accepted_kernel_runs_and_helpers_are_followed(tmp_path):
    body = '''
    TILE = 128
    F32 = nl.float32
    def helper(t, n):
        assert n > 0, f'n must be positive, got {n}'
        return min(TILE, n)
    def k(x, shape=(2, 2)):
        out = nl.ndarray(shape, dtype=F32, buffer=nl.shared_hbm)
        t = nl.ndarray(shape, dtype=x.dtype, buffer=nl.sbuf)
        sizes = {}
        for i in nl.static_range(2):
            sizes[f'{i}'] = helper(t, x.shape[i]) if i != 1 else -1
        total = 0
        while total < 3:
            total += 1
        nisa.dma_copy(dst=t, src=x)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=float(len(sizes)))
        nisa.dma_copy(dst=out, src=t)
        return out
    '''
    k, _ = _kernel_from(tmp_path, body)
    assert [f.__name__ for f in check_kernel(k)] == ['k', 'helper']
    np.testing.assert_array_equal(simulate(k)(np.ones((2, 2), np.float32)), np.full((2, 2), 2, np.float32))

def test_helpers_are_named_in_problems(tmp_path):
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
    assert problems[0].function == 'deep' and problems[0].rule == 'expression'

@pytest.mark.parametrize('operation, source', [
    (lambda t: t + 1, 'Term.lean:101'), (lambda t: 1.0 * t, 'Term.lean:101'),
    (lambda t: t < 0, 'Term.lean:161'), (lambda t: -t, 'Python.lean:49'),
    (lambda t: len(t), 'Python.lean:398'), (lambda t: [r for r in t], 'Python.lean:246-254'),
    (lambda t: 0 in t, 'Python.lean:66'), (lambda t: t.__setitem__(0, 1.0), 'NKI.lean:370')])
def test_trace_time_rules_on_tensors(operation, source):
    "Python on tiles, which the tracer refuses (KLR/Trace, 7ccd18c), is refused when a kernel runs."
    t = nl.ndarray((2, 2), dtype=nl.float32, buffer=nl.sbuf)
    with pytest.raises(NkiSubsetError, match=source):
        operation(t)
    assert bool(t) is True                              # a tile is always true (Types.lean:588)

def test_list_arguments_refused_at_call():
    def k(x, shape):
        return x
    with pytest.raises(NkiSubsetError, match='kernel argument 1 of k is a list'):
        jit(k)(np.zeros(2, np.float32), [1, 2])

def test_exec_without_source_is_a_problem_not_a_crash():
    ns = {}
    exec('def k(x):\n    return x\n', ns)
    with pytest.raises(NkiSubsetError, match='source is not available'):
        check_kernel(ns['k'])

def test_the_published_kernel_is_linted_with_the_others_once():
    "The kernel the chapters measure the others against is checked like the variants' kernels."
    assert 'resize_nearest.kernels.gather:resize_nearest_published_kernel' in SHIPPED_KERNELS
    assert len(set(SHIPPED_KERNELS)) == len(SHIPPED_KERNELS), SHIPPED_KERNELS

@pytest.mark.parametrize('target', SHIPPED_KERNELS)
def test_shipped_kernels_pass(target):
    mod, fn = target.split(':')
    assert check_kernel(getattr(importlib.import_module(mod), fn))

def test_no_shipped_function_loops_over_a_tuple_target():
    "The tuple loop target graph.py once had (Simplify.lean:372) is gone from every shipped helper."
    for target in SHIPPED_KERNELS:
        mod, fn = target.split(':')
        _, seen = kernel_problems(getattr(importlib.import_module(mod), fn))
        import ast, inspect
        for f in seen:
            tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
            assert all(isinstance(n.target, ast.Name) for n in ast.walk(tree) if isinstance(n, ast.For)), f

def test_lint_command(tmp_path):
    (tmp_path / 'userk.py').write_text('import numpy as np\ndef k(x):\n    return np.zeros(2) if x is None else x\n')
    run = lambda *a: subprocess.run([sys.executable, '-m', 'resize_nearest.cli', *a], cwd=tmp_path,
                                    capture_output=True, text=True)
    r = run('lint')
    assert r.returncode == 0 and r.stdout.count('ok   ') == len(SHIPPED_KERNELS), r.stdout + r.stderr
    r = run('lint', 'userk:k')
    assert r.returncode == 1 and "userk.py:3: in k: 'is'" in r.stdout, r.stdout + r.stderr
    r = run('lint', 'userk:missing')
    assert r.returncode == 2 and "has no function 'missing'" in r.stderr
    r = run('lint', 'no_colon')
    assert r.returncode == 2 and 'module:function' in r.stderr
