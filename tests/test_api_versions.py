"""The kernels and the interpreter against the API listings of the NKI releases they claim (0.3 to 0.8). For 0.3 to 0.6:
tests/data/nki-0.X-api.json, copied from shared/reference, each extracted mechanically (Python ast) from the API
reference stubs nki/api/nki/**/__init__.py of aws-neuron/aws-neuron-sdk at v2.29.1, v2.30.0, v2.31.1 and v2.32.0
(their `_about` field). Every name a shipped kernel reaches through nki/nl/nisa must exist in every listing, and
the interpreter's profile of a release must take the parameters that release's listing gives, in its order,
with its defaults.
For 0.7 and 0.8 the listings are PARTIAL (tests/data/nki-0.7-api.json, nki-0.8-api.json, by hand from the published
documentation; their `_about`): a name they lack is unknown, not absent. Against them the kernels must use no name the
release removes, no deprecated name the backend does not replace, and only keywords of the signatures they give."""
import json
from pathlib import Path
import pytest
import resize_nearest.nki_cpu as cpu_nki
from test_api_conformance import used_api_names, real_params, our_params

DATA = Path(__file__).parent / 'data'
RELEASES = ('0.3', '0.4', '0.5', '0.6')
LISTINGS = {v: json.loads((DATA / f'nki-{v}-api.json').read_text()) for v in RELEASES}
PARTIAL = {v: json.loads((DATA / f'nki-{v}-api.json').read_text()) for v in ('0.7', '0.8')}


def _has(api, mod, name):
    spec = api[mod]
    enum_members = [m for c in spec['classes'].values() if c['bases'] == ['Enum'] for m in c['members']]
    region = api['nki.language']['classes'].get('MemoryRegion', {})  # the partial listings have none
    buffers = region.get('members', []) if mod == 'nki.language' else []
    return (name in spec['functions'] or name in spec['classes'] or name in spec['names']
            or name in enum_members or name in buffers)


def test_listings_are_the_four_releases():
    for v, api in LISTINGS.items():
        assert f'NKI {v}' in api['_about'], v
    assert LISTINGS['0.3']['nki']['functions']['jit'] == "jit(func=None, mode='auto', **kwargs)"
    assert LISTINGS['0.6']['nki']['functions']['jit'] == 'jit(fn=None, **kwargs)'


@pytest.mark.parametrize('release', RELEASES)
def test_every_kernel_uses_only_names_of_the_release(release):
    used = used_api_names()
    assert ('nki.isa', 'dma_copy') in used and ('nki.language', 'static_range') in used
    missing = sorted(f'{m}.{n}' for m, n in used if not _has(LISTINGS[release], m, n))
    assert missing == [], f'not in NKI {release}: {missing}'


@pytest.mark.parametrize('release', RELEASES)
def test_every_kernel_call_fits_the_release_signature(release):
    "Each function the kernels call exists in the release with parameters the interpreter's profile has."
    api, prof = LISTINGS[release], cpu_nki.profile(release)
    mods = {'nki': prof.nki, 'nki.language': prof.nl, 'nki.isa': prof.nisa}
    for mod, name in used_api_names():
        if name in api[mod]['functions']:
            assert _spelled(our_params(getattr(mods[mod], name))) == \
                _spelled(real_params(api[mod]['functions'][name])), f'{release} {mod}.{name}'


def _spelled(params):
    "A buffer default the way every listing means it: 0.3 writes MemoryRegion.sbuf, 0.4 on sbuf (same object)."
    return [(n, 'sbuf' if d == 'MemoryRegion.sbuf' else d) for n, d in params]


@pytest.mark.parametrize('release', ['0.3', '0.6'])
def test_profile_signatures_conform(release):
    """The profile's nki, nki.language and nki.isa: every function the listing has and the interpreter models
    takes exactly the listing's parameters (names, order, defaults)."""
    api, prof = LISTINGS[release], cpu_nki.profile(release)
    mods = {'nki': prof.nki, 'nki.language': prof.nl, 'nki.isa': prof.nisa}
    checked = {}
    for mod, ours in mods.items():
        for name, sig in api[mod]['functions'].items():
            fn = getattr(ours, name, None)
            if fn is None or not callable(fn):
                continue
            assert _spelled(our_params(fn)) == _spelled(real_params(sig)), f'{release} {mod}.{name}: {sig}'
            checked[mod] = checked.get(mod, 0) + 1
    assert checked['nki'] == 2 and checked['nki.language'] >= 8 and checked['nki.isa'] >= 6, checked


def test_the_signatures_that_changed():
    "jit: (func, mode) in 0.3, (fn) from 0.4; dma_copy's priority from 0.4 (the listings)."
    assert [p for p, _ in our_params(cpu_nki.profile('0.3').nki.jit)] == ['func', 'mode', '**kwargs']
    for v in ('0.4', '0.5', '0.6'):
        assert [p for p, _ in our_params(cpu_nki.profile(v).nki.jit)] == ['fn', '**kwargs']
        assert [p for p, _ in our_params(cpu_nki.profile(v).nisa.dma_copy)][:3] == ['dst', 'src', 'priority']
    assert 'priority' not in [p for p, _ in our_params(cpu_nki.profile('0.3').nisa.dma_copy)]


def _kernel_calls():
    "{(module, function): set of keyword names} over every nki/nl/nisa call in the shipped kernels and helpers."
    import ast, importlib
    from resize_nearest.cli import SHIPPED_KERNELS
    from resize_nearest.nki_cpu.frontend import kernel_problems, _parse
    from test_api_conformance import ALIASES
    calls = {}
    for target in SHIPPED_KERNELS:
        mod, fn = target.split(':')
        for f in kernel_problems(getattr(importlib.import_module(mod), fn))[1]:
            for n in ast.walk(_parse(f)[0]):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                        isinstance(n.func.value, ast.Name) and n.func.value.id in ALIASES:
                    key = (ALIASES[n.func.value.id], n.func.attr)
                    calls.setdefault(key, set()).update(k.arg for k in n.keywords if k.arg)
    return calls


@pytest.mark.parametrize('release', RELEASES)
def test_every_keyword_a_kernel_passes_exists_in_the_release(release):
    calls = _kernel_calls()
    assert ('nki.isa', 'dma_copy') in calls and {'dst', 'src'} <= calls[('nki.isa', 'dma_copy')]
    checked = set()
    for (mod, name), keywords in sorted(calls.items()):
        sig = LISTINGS[release][mod]['functions'].get(name)
        if sig is None:
            continue                      # not a function of the listing (a dtype, an enum, a class)
        params = {p.lstrip('*') for p, _ in real_params(sig)}
        assert keywords <= params, f'NKI {release} {mod}.{name} lacks {sorted(keywords - params)}'
        checked.add(name)
    assert {'dma_copy', 'iota', 'tensor_scalar', 'tensor_tensor', 'ndarray'} <= checked, checked


def test_partial_listings_say_so_and_cite():
    for v, api in PARTIAL.items():
        assert api['_about'].startswith(f'PARTIAL public API of NKI {v}.0'), v
        assert 'awsdocs-neuron.readthedocs-hosted.com' in api['_about'] and api['_removed'] and api['_deprecated']
    assert PARTIAL['0.7']['nki']['functions']['jit'] == \
        'jit(fn=None, *, compile_config=None, specialization_config=None, **kwargs)'


@pytest.mark.parametrize('release', PARTIAL)
def test_no_kernel_uses_a_name_the_release_removes(release):
    used = {f'{m}.{n}' for m, n in used_api_names()}
    assert 'nki.language.dynamic_range' in PARTIAL[release]['_removed']
    assert sorted(used & set(PARTIAL[release]['_removed'])) == []


@pytest.mark.parametrize('release', PARTIAL)
def test_deprecated_names_the_kernels_use_are_replaced_by_the_backend(release):
    "static_range is deprecated from 0.7; the backend hands kernels Python's range in its place (appendix A7)."
    from resize_nearest.kernels import backend
    from resize_nearest.nki_cpu import language
    used = {f'{m}.{n}' for m, n in used_api_names()}
    deprecated = used & set(PARTIAL[release]['_deprecated'])
    assert deprecated == {'nki.language.static_range'}
    adapted = backend.language_for(language, tuple(int(p) for p in release.split('.')))
    assert all(getattr(adapted, name.rsplit('.', 1)[1]) is range for name in deprecated)


@pytest.mark.parametrize('release', PARTIAL)
def test_every_keyword_a_kernel_passes_fits_the_documented_signatures(release):
    calls, api = _kernel_calls(), PARTIAL[release]
    checked = set()
    for (mod, name), keywords in sorted(calls.items()):
        sig = api.get(mod, {}).get('functions', {}).get(name)
        if sig is None:
            continue                      # not documented for this release (the listing is partial)
        params = {p.lstrip('*') for p, _ in real_params(sig)}
        assert keywords <= params, f'NKI {release} {mod}.{name} lacks {sorted(keywords - params)}'
        checked.add(name)
    assert checked == ({'tensor_scalar', 'ndarray'} if release == '0.7' else set()), checked


@pytest.mark.parametrize('release', PARTIAL)
def test_documented_names_the_kernels_use(release):
    "Which of the kernels' names the partial listing establishes; the rest are unknown for it, and said so."
    used = used_api_names()
    known = sorted(f'{m}.{n}' for m, n in used if m in PARTIAL[release] and _has(PARTIAL[release], m, n))
    assert 'nki.isa.tensor_scalar' in known
    assert len(known) < len(used)         # partial: these listings do not establish every name the kernels use
