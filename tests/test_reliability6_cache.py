"""The kept front-end verdicts are data, not authority (appendix A5): an entry is used only if it
names every fact it rests on and each holds, in a folder owned by the user and writable by no one
else; writes follow no link, and a malformed entry is a miss, never a crash. The oracle of every
refusal is the front end itself run afresh (`kernel_problems`, which reads no kept verdict)."""
import importlib.util, json, os, subprocess, sys, textwrap, uuid, warnings
import pytest
from resize_nearest.nki_cpu import frontend
from resize_nearest.nki_cpu.frontend import NkiSubsetError, check_kernel, kernel_problems

HEADER = 'import resize_nearest.nki_cpu.language as nl\n'
GOOD = '''
N = 4

def k(x):
    return helper(x)

def helper(x):
    return x + N
'''
# the kernel the front end refuses: its helper raises
REFUSED = GOOD.replace('    return x + N', "    if x > N:\n        raise ValueError('big')\n"
                       '    return x + N')


def _load(path, body):
    "Write `body` to `path` and import it afresh as a module."
    path.write_text(HEADER + textwrap.dedent(body))
    spec = importlib.util.spec_from_file_location(f'mod_{uuid.uuid4().hex}', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def cache(tmp_path, monkeypatch):
    "A cache folder of this test's own, the user's and writable by no one else."
    root = tmp_path / 'cache'
    root.mkdir(mode=0o700)
    monkeypatch.setenv('RESIZE_NEAREST_CACHE', str(root))
    return root / 'frontend'


@pytest.fixture
def walks(monkeypatch):
    "How many times the real check ran."
    count, real = [], frontend._walk
    monkeypatch.setattr(frontend, '_walk', lambda fn: count.append(fn) or real(fn))
    return count


def _entry_of(module, cache):
    "The path of the one entry a pass of `module.k` leaves (made by checking it once)."
    check_kernel(module.k)
    (entry,) = cache.glob('*.json')
    return entry


def test_an_entry_without_its_facts_is_not_trusted(tmp_path, cache, walks):
    good = _load(tmp_path / 'kern.py', GOOD)
    entry = _entry_of(good, cache)
    kept = json.loads(entry.read_text())
    refused = _load(tmp_path / 'kern.py', REFUSED)  # the same places, another source
    assert kernel_problems(refused.k)[0]  # the oracle: the front end refuses it
    digest = frontend._file_digest(refused.k.__code__.co_filename)
    entry.write_text(json.dumps([[kept[0][0], digest, []]]))  # the kernel's place and digest only
    with pytest.raises(NkiSubsetError, match='in helper'):
        check_kernel(refused.k)
    # the twin: the honest entry of the accepted kernel is still reused, not checked again
    good = _load(tmp_path / 'kern.py', GOOD)
    check_kernel(good.k)
    before = len(walks)
    assert check_kernel(good.k) == (good.k, good.helper) and len(walks) == before


@pytest.mark.parametrize('mode', [0o777, 0o775])
def test_a_folder_others_can_write_is_ignored_with_one_warning(tmp_path, monkeypatch, walks, mode):
    shared = tmp_path / 'shared'
    shared.mkdir()
    os.chmod(shared, mode)
    monkeypatch.setenv('RESIZE_NEAREST_CACHE', str(shared))
    m = _load(tmp_path / 'kern.py', GOOD)
    with pytest.warns(UserWarning, match=f'writable by others \\(mode {mode:o}\\)') as said:
        for _ in range(3):
            assert check_kernel(m.k) == (m.k, m.helper)
    assert len(said) == 1 and len(walks) == 3
    assert list(shared.iterdir()) == []  # nothing kept there


def test_the_users_own_folder_is_used_without_a_warning(tmp_path, cache, walks):
    m = _load(tmp_path / 'kern.py', GOOD)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        check_kernel(m.k)
        check_kernel(m.k)
    assert len(walks) == 1 and len(list(cache.glob('*.json'))) == 1
    assert oct(cache.stat().st_mode & 0o777) == '0o700'


@pytest.mark.skipif(os.getuid() != 0, reason='giving a folder to another user needs root')
def test_a_folder_of_another_owner_is_ignored(tmp_path, monkeypatch, walks):
    theirs = tmp_path / 'theirs'
    theirs.mkdir(mode=0o755)
    os.chown(theirs, 12345, 12345)
    monkeypatch.setenv('RESIZE_NEAREST_CACHE', str(theirs))
    m = _load(tmp_path / 'kern.py', GOOD)
    with pytest.warns(UserWarning, match='owned by user 12345'):
        check_kernel(m.k)
    check_kernel(m.k)
    assert len(walks) == 2


def test_a_link_in_place_of_the_verdict_folder_is_ignored(tmp_path, cache, walks):
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir(mode=0o700)
    cache.symlink_to(elsewhere)
    m = _load(tmp_path / 'kern.py', GOOD)
    with pytest.warns(UserWarning, match='is a link'):
        check_kernel(m.k)
    assert list(elsewhere.iterdir()) == [] and len(walks) == 1


def test_a_write_never_follows_a_planted_link(tmp_path, cache, walks):
    m = _load(tmp_path / 'kern.py', GOOD)
    entry = _entry_of(m, cache)
    precious = tmp_path / 'precious'
    precious.write_text('mine')
    entry.unlink()
    # links at the names a writer could have used: this process's partial file, and the entry
    (cache / f'{entry.stem}.{os.getpid()}.partial').symlink_to(precious)
    entry.symlink_to(precious)
    assert check_kernel(m.k) == (m.k, m.helper)
    assert precious.read_text() == 'mine'
    assert not entry.is_symlink() and json.loads(entry.read_text())  # the link itself replaced


def test_an_entry_read_through_a_link_is_a_miss(tmp_path, cache, walks):
    m = _load(tmp_path / 'kern.py', GOOD)
    entry = _entry_of(m, cache)
    honest = tmp_path / 'honest.json'
    honest.write_text(entry.read_text())
    entry.unlink()
    entry.symlink_to(honest)
    check_kernel(m.k)
    assert len(walks) == 2
    # the twin: the same text as a plain file is reused
    assert check_kernel(m.k) == (m.k, m.helper) and len(walks) == 2


MALFORMED = {
    'deep brackets': '[' * 100_000,
    'deep and closed': '[' * 3_000 + ']' * 3_000,
    'random bytes': os.urandom(4096),
    'a folder': None,
    'a FIFO': 'fifo',
}


@pytest.mark.parametrize('kind', MALFORMED)
def test_a_malformed_entry_is_a_miss_and_leaves_no_litter(tmp_path, cache, walks, kind):
    m = _load(tmp_path / 'kern.py', GOOD)
    entry = _entry_of(m, cache)
    entry.unlink()
    garbage = MALFORMED[kind]
    if garbage is None:
        entry.mkdir()
    elif garbage == 'fifo':
        os.mkfifo(entry)
    elif isinstance(garbage, bytes):
        entry.write_bytes(garbage)
    else:
        entry.write_text(garbage)
    for _ in range(2):
        assert check_kernel(m.k) == (m.k, m.helper)  # what the front end says afresh
    assert not list(cache.glob('*.partial'))


def test_a_deeply_nested_entry_does_not_stop_a_new_process(tmp_path, cache):
    root = cache.parent
    run = [sys.executable, '-c', 'import numpy as np\nfrom resize_nearest import resize_nearest\n'
           'print(resize_nearest(np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1), (2, 2))'
           '.ravel().tolist())']
    env = dict(os.environ, RESIZE_NEAREST_CACHE=str(root))
    first = subprocess.run(run, capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr
    entries = list(cache.glob('*.json'))
    assert entries
    for entry in entries:
        entry.write_text('[' * 100_000)
    again = subprocess.run(run, capture_output=True, text=True, env=env)
    assert again.returncode == 0, again.stderr
    # (dst * in) // out on each axis: rows 0, 1 of 3; columns 0, 2 of 4
    assert again.stdout.strip() == '[0.0, 2.0, 4.0, 6.0]'
