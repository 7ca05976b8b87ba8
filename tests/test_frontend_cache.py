"""The front-end verdict kept on disk: a pass is reused while its sources and what the check read
outside them hold, and checked afresh otherwise; a refusal is never kept. Every test keeps its
verdicts under its own tmp_path (RESIZE_NEAREST_CACHE), never in the user's cache."""
import importlib.util, json, os, subprocess, sys, textwrap, uuid
import pytest
from resize_nearest.nki_cpu import frontend
from resize_nearest.nki_cpu.frontend import check_kernel, verdict_dir, NkiSubsetError

HEADER = 'import resize_nearest.nki_cpu.language as nl\n'
GOOD = '''
N = 4

def k(x):
    return helper(x)

def helper(x):
    return x + N
'''
# the same kernel and helper at the same places, the helper now with a construct the front end
# refuses (a raise): only the source tells them apart
REFUSED = '''
N = 4

def k(x):
    return helper(x)

def helper(x):
    if x > N:
        raise ValueError('too big')
    return x + N
'''


def _load(path, body):
    "Write `body` to `path` and import it afresh as a module (new code objects, real line numbers)."
    path.write_text(HEADER + textwrap.dedent(body))
    spec = importlib.util.spec_from_file_location(f'mod_{uuid.uuid4().hex}', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def cache(tmp_path, monkeypatch):
    "A cache folder of this test's own."
    monkeypatch.setenv('RESIZE_NEAREST_CACHE', str(tmp_path / 'cache'))
    return tmp_path / 'cache' / 'frontend'


@pytest.fixture
def walks(monkeypatch):
    "How many times the real check ran."
    count, real = [], frontend._walk
    monkeypatch.setattr(frontend, '_walk', lambda fn: count.append(fn) or real(fn))
    return count


def test_a_pass_is_kept_and_reused(tmp_path, cache, walks):
    m = _load(tmp_path / 'kern.py', GOOD)
    assert check_kernel(m.k) == (m.k, m.helper)
    assert len(walks) == 1 and len(list(cache.glob('*.json'))) == 1
    assert check_kernel(m.k) == (m.k, m.helper)  # the same functions, by identity
    assert len(walks) == 1


def test_a_fresh_process_reuses_the_kept_pass(tmp_path, cache):
    (tmp_path / 'kern.py').write_text(HEADER + GOOD)
    setup = (f'import sys; sys.path.insert(0, {str(tmp_path)!r})\n'
             'from resize_nearest.nki_cpu import frontend\nimport kern\n')
    # the second process cannot run the check: only the kept pass can answer
    forbid = 'def refuse(fn):\n    raise AssertionError("checked again")\nfrontend._walk = refuse\n'
    answer = 'print([f.__name__ for f in frontend.check_kernel(kern.k)])\n'
    env = dict(os.environ, RESIZE_NEAREST_CACHE=str(cache.parent))
    for child in (setup + answer, setup + forbid + answer):
        done = subprocess.run([sys.executable, '-c', child], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "['k', 'helper']"


def test_a_changed_source_is_checked_again(tmp_path, cache, walks):
    path = tmp_path / 'kern.py'
    check_kernel(_load(path, GOOD).k)
    m = _load(path, REFUSED)
    with pytest.raises(NkiSubsetError, match="'raise'"):
        check_kernel(m.k)
    assert len(walks) == 2


def test_a_refusal_is_never_kept(tmp_path, cache, walks):
    m = _load(tmp_path / 'kern.py', REFUSED)
    for _ in range(2):
        with pytest.raises(NkiSubsetError, match="'raise'"):
            check_kernel(m.k)
    assert len(walks) == 2 and not list(cache.glob('*.json'))


def test_a_changed_global_is_checked_again(tmp_path, cache, walks):
    m = _load(tmp_path / 'kern.py', GOOD)
    check_kernel(m.k)
    m.N = 2**40  # no longer an int32: the front end refuses the global
    with pytest.raises(NkiSubsetError, match="'N'"):
        check_kernel(m.k)
    m.N = 5
    bad = _load(tmp_path / 'other.py', REFUSED)
    m.helper = bad.helper  # the kernel now reaches a helper that raises
    with pytest.raises(NkiSubsetError, match="'raise'"):
        check_kernel(m.k)
    assert len(walks) == 3


def test_a_new_checker_checks_again(tmp_path, cache, walks, monkeypatch):
    m = _load(tmp_path / 'kern.py', GOOD)
    check_kernel(m.k)
    monkeypatch.setattr(frontend, '_checker_digest', lambda: 'another checker')
    check_kernel(m.k)
    assert len(walks) == 2 and len(list(cache.glob('*.json'))) == 2


def test_a_corrupt_entry_is_checked_again_and_replaced(tmp_path, cache, walks):
    m = _load(tmp_path / 'kern.py', GOOD)
    check_kernel(m.k)
    (entry,) = cache.glob('*.json')
    for garbage in ('{not json', '[[1, 2]]', json.dumps([[['x', 1, 'k'], 'digest', []]])):
        entry.write_text(garbage)
        assert check_kernel(m.k) == (m.k, m.helper)
    assert len(walks) == 4
    assert check_kernel(m.k) == (m.k, m.helper) and len(walks) == 4  # the entry was rewritten


def test_an_unwritable_cache_is_no_error(tmp_path, monkeypatch, walks):
    blocker = tmp_path / 'a-file'
    blocker.write_text('')
    monkeypatch.setenv('RESIZE_NEAREST_CACHE', str(blocker))  # its frontend/ cannot be made
    m = _load(tmp_path / 'kern.py', GOOD)
    assert check_kernel(m.k) == check_kernel(m.k) == (m.k, m.helper)
    assert len(walks) == 2


def test_where_verdicts_are_kept(tmp_path, monkeypatch):
    monkeypatch.delenv('RESIZE_NEAREST_CACHE', raising=False)
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'xdg'))
    assert verdict_dir() == tmp_path / 'xdg' / 'resize_nearest' / 'frontend'
    monkeypatch.delenv('XDG_CACHE_HOME')
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    assert verdict_dir() == tmp_path / 'home' / '.cache' / 'resize_nearest' / 'frontend'
    monkeypatch.setenv('RESIZE_NEAREST_CACHE', str(tmp_path / 'moved'))
    assert verdict_dir() == tmp_path / 'moved' / 'frontend'


def test_off_keeps_nothing(tmp_path, monkeypatch, walks):
    monkeypatch.setenv('RESIZE_NEAREST_CACHE', 'off')
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'xdg'))
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    assert verdict_dir() is None
    m = _load(tmp_path / 'kern.py', GOOD)
    check_kernel(m.k)
    check_kernel(m.k)
    assert len(walks) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ['kern.py']
