"""The interpreter against the real NKI 0.3 API (tests/data/nki-0.3-api.json, copied from shared/reference; its
`_about` field says where it comes from): every name the shipped kernels use exists in the real API, and every
interpreter function that the real API also has takes the same parameters in the same order with the same defaults."""
import ast, enum, importlib, inspect, json, re, pytest
from pathlib import Path
from resize_nearest.nki_cpu import language as cpu_nl, isa as cpu_isa
import resize_nearest.nki_cpu as cpu_nki
from resize_nearest.nki_cpu.memory import Tensor, Buffer
from resize_nearest.nki_cpu.isa import Op
from resize_nearest.nki_cpu.frontend import kernel_problems, _parse
from resize_nearest.cli import SHIPPED_KERNELS

API = json.loads((Path(__file__).parent / 'data' / 'nki-0.3-api.json').read_text())
MODULES = {'nki': cpu_nki, 'nki.language': cpu_nl, 'nki.isa': cpu_isa}
ALIASES = {'nki': 'nki', 'nl': 'nki.language', 'nisa': 'nki.isa'}

def real_params(sig:str):
    "[(name, default source or None)] from a signature string such as 'f(a, b=1)'."
    fn = ast.parse(f'def {sig}: pass').body[0]
    a = fn.args
    defaults = [None] * (len(a.args) - len(a.defaults)) + [ast.unparse(d) for d in a.defaults]
    params = list(zip([x.arg for x in a.args], defaults))
    # keyword-only parameters (nki.jit from 0.7: `fn=None, *, compile_config=None, ...`)
    params += [(x.arg, None if d is None else ast.unparse(d)) for x, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg: params.append(('**' + a.kwarg.arg, None))
    return params

def _norm(d):
    "An interpreter default written the way the API stubs write it."
    if d is inspect.Parameter.empty: return None
    if isinstance(d, enum.Enum): return f'{type(d).__name__}.{d.name}'
    if isinstance(d, Buffer): return f'MemoryRegion.{d.name}'
    if isinstance(d, Op): return f'nl.{d.name}'
    return repr(d)

def our_params(fn):
    out = []
    for p in inspect.signature(fn).parameters.values():
        out.append(('**' + p.name, None) if p.kind is p.VAR_KEYWORD else (p.name, _norm(p.default)))
    return out

def used_api_names():
    "{(module, attribute chain)} that the shipped kernels and their helpers reach through nki/nl/nisa."
    used = set()
    for target in SHIPPED_KERNELS:
        mod, fn = target.split(':')
        _, seen = kernel_problems(getattr(importlib.import_module(mod), fn))
        for f in seen:
            node, _ = _parse(f)
            for n in ast.walk(node):
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ALIASES:
                    used.add((ALIASES[n.value.id], n.attr))
    return used

def test_kernels_use_only_real_api_names():
    used = used_api_names()
    assert {('nki.isa', 'dma_copy'), ('nki.isa', 'iota'), ('nki.language', 'ndarray'), ('nki.language', 'sbuf')} <= used
    for mod, name in sorted(used):
        spec = API[mod]
        assert name in spec['functions'] or name in spec['classes'] or name in spec['names'] or \
               any(name in c['members'] for c in spec['classes'].values() if c['bases'] == ['Enum']) or \
               name in API['nki.language']['classes']['MemoryRegion']['members'] and mod == 'nki.language', f'{mod}.{name} is not in NKI 0.3'

# The names the 0.3 API text marks "This API is deprecated and will be removed in future releases"
# (aws-neuron-sdk v2.29.1 nki/api/nki/language/__init__.py:127 and :1545, both pointing to static_range).
DEPRECATED = {('nki.language', 'affine_range'), ('nki.language', 'sequential_range')}

def test_kernels_use_no_deprecated_name():
    used = used_api_names()
    assert ('nki.language', 'static_range') in used
    assert not used & DEPRECATED, sorted(used & DEPRECATED)

def test_deprecated_names_warn_on_the_interpreter():
    for _, name in DEPRECATED:
        with pytest.warns(DeprecationWarning, match='static_range'):
            list(getattr(MODULES['nki.language'], name)(2))

@pytest.mark.parametrize('mod', list(MODULES))
def test_signatures_match(mod):
    ours, checked = MODULES[mod], 0
    for name, sig in API[mod]['functions'].items():
        fn = getattr(ours, name, None)
        if fn is None or not callable(fn): continue
        assert our_params(fn) == real_params(sig), f'{mod}.{name}: ours {our_params(fn)} vs real {sig}'
        checked += 1
    assert checked >= {'nki': 2, 'nki.language': 8, 'nki.isa': 6}[mod]

def test_every_used_function_is_implemented_with_the_real_signature():
    for mod, name in used_api_names():
        if name in API[mod]['functions']:
            assert our_params(getattr(MODULES[mod], name)) == real_params(API[mod]['functions'][name]), f'{mod}.{name}'

def test_enum_members_exist_in_real_api():
    for cls in ('engine', 'oob_mode', 'dge_mode'):
        ours = {m.name for m in getattr(cpu_isa, cls)}
        assert ours <= set(API['nki.isa']['classes'][cls]['members']), cls

def test_tensor_methods_match_the_documented_signatures():
    doc = API['_about']
    for meth in ('ap', 'reshape'):
        sig = re.search(rf'NkiTensor\.({meth}\([^)]*\))', doc).group(1)
        real = real_params(sig)
        ours = [p for p in our_params(getattr(Tensor, meth)) if p[0] != 'self']
        assert ours == real, (meth, ours, real)


LISTED = {v: json.loads((Path(__file__).parent / 'data' / f'nki-{v}-api.json').read_text())
          for v in ('0.3', '0.4', '0.5', '0.6', '0.7', '0.8')}


def _spelled(params):
    """A buffer default the way every listing means it: MemoryRegion.sbuf (0.3), sbuf (0.4 on), Ellipsis (the
    rendered 0.7 pages, which say "defaults to sbuf"; Sphinx shows a `...` default as Ellipsis)."""
    same = {'MemoryRegion.sbuf': 'sbuf', 'Ellipsis': 'sbuf'}
    return [(n, same.get(d, d)) for n, d in params]


@pytest.mark.parametrize('release', LISTED)
def test_every_profile_conforms_to_its_listing(release):
    """Each release's profile: every function its listing gives a signature for and the interpreter models takes
    exactly those parameters. 0.8's listing gives none (no 0.8 signature was seen), so its profile is held to 0.7's."""
    api = LISTED['0.7' if release == '0.8' else release]
    prof = cpu_nki.profile(release)
    mods = {'nki': prof.nki, 'nki.language': prof.nl, 'nki.isa': prof.nisa}
    checked = []
    for mod, ours in mods.items():
        for name, sig in api[mod]['functions'].items():
            fn = getattr(ours, name, None)
            if fn is None or not callable(fn):
                continue
            assert _spelled(our_params(fn)) == _spelled(real_params(sig)), f'{release} {mod}.{name}: {sig}'
            checked.append(name)
    assert 'jit' in checked and len(checked) >= (3 if release in ('0.7', '0.8') else 10), checked
