"""The package's layering (shared/DESIGN.md): no import cycle, no function-local imports but the allowed ones, and no
matplotlib below the studies layer."""
import ast, json, re, subprocess, sys
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / 'resize_nearest'
# function-local imports that are allowed, with the reason
ALLOWED_LOCAL = {'torch', 'onnx', 'onnxruntime', 'cv2', 'jax',          # optional peers, loaded only when compared or benchmarked
                 'google.protobuf',                                  # onnx's protobuf, loaded with onnx
                 'importlib',                                        # __init__'s PEP 562 lazy names
                 'ml_dtypes',                                        # bfloat16, a second to import: only when asked for
                 'tqdm',                                             # progress bars, only where a sweep runs
                 'resize_nearest.kernels.gather', 'resize_nearest.host.api'}  # the registry loads kernels lazily, as the compiler's does

def modules():
    for p in sorted(PKG.rglob('*.py')):
        if p.name != '_modidx.py': yield '.'.join(p.relative_to(PKG.parent).with_suffix('').parts).replace('.__init__', ''), p

def imports(name, path, known=()):
    "(module-level package imports, function-local imports) of one module; `from pkg import submodule` counts as the submodule."
    tree, top, local = ast.parse(path.read_text()), set(), set()
    pkg = name if path.name == '__init__.py' else name.rsplit('.', 1)[0]
    def target(n):
        if isinstance(n, ast.Import): return [a.name for a in n.names]
        base = pkg
        for _ in range(n.level - 1): base = base.rsplit('.', 1)[0]
        mod = (base + '.' + n.module if n.module else base) if n.level else n.module
        return [f'{mod}.{a.name}' if f'{mod}.{a.name}' in known else mod for a in n.names]
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)): top.update(t for t in target(node) if t.startswith('resize_nearest'))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for n in ast.walk(node):
                if isinstance(n, (ast.Import, ast.ImportFrom)): local.update(target(n))
    return top, local

def test_no_import_cycle():
    mods = dict(modules())
    graph = {m: {t for t in imports(m, p, mods)[0] if t in mods and t != m} for m, p in mods.items()}
    state = {}
    def visit(m, path):
        state[m] = 'open'
        for t in graph[m]:
            assert state.get(t) != 'open', f'import cycle: {" -> ".join(path + [t])}'
            if t not in state: visit(t, path + [t])
        state[m] = 'done'
    for m in graph:
        if m not in state: visit(m, [m])
    assert 'resize_nearest.host.variants' in graph['resize_nearest.host.api']             # the host API goes through the records
    assert 'resize_nearest.kernels.gather' in graph['resize_nearest.host.variants']

def test_function_local_imports_are_the_allowed_ones():
    for m, p in modules():
        _, local = imports(m, p)
        extra = {t for t in local if t.split('.')[0] not in ALLOWED_LOCAL and not any(t == a or t.startswith(a + '.') for a in ALLOWED_LOCAL)}
        assert not extra, f'{m} imports {sorted(extra)} inside a function'

def test_interpreter_and_kernels_do_not_import_matplotlib():
    code = ('import sys, resize_nearest.nki_cpu, resize_nearest.kernels.backend, resize_nearest.kernels.gather, resize_nearest.kernels.rows, '
            'resize_nearest.host.api, resize_nearest.host.cost_model, resize_nearest.compiler.registry, resize_nearest.compiler.grad; '
            'print(sorted(m for m in sys.modules if m.split(".")[0] == "matplotlib"))')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, cwd=PKG.parent)
    assert r.returncode == 0 and r.stdout.strip() == '[]', r.stdout + r.stderr

KERNEL_MODULES = {'resize_nearest.kernels.graph', 'resize_nearest.kernels.gather', 'resize_nearest.kernels.rows',
                  'resize_nearest.kernels.residue', 'resize_nearest.kernels.rowgather'}

def test_plan_and_cost_model_sit_beneath_the_kernels():
    "The plan imports only index math; the cost model predicts kernels without importing any (DESIGN.md layers)."
    mods = dict(modules())
    plan, _ = imports('resize_nearest.maps.plan', mods['resize_nearest.maps.plan'], mods)
    assert plan <= {'resize_nearest.maps.index_map', 'resize_nearest.maps.floor', 'resize_nearest.maps.nearest_modes'}, plan
    cost, _ = imports('resize_nearest.host.cost_model', mods['resize_nearest.host.cost_model'], mods)
    assert not cost & KERNEL_MODULES, cost & KERNEL_MODULES
    for kernel in KERNEL_MODULES:
        top, _ = imports(kernel, mods[kernel], mods)
        assert 'resize_nearest.maps.plan' in top, kernel

def test_the_top_level_face_is_small_and_every_name_resolves():
    "`from resize_nearest import *` gives the curated names (1 to 30), each importing from its module."
    import importlib, subprocess, sys
    import resize_nearest
    assert 1 <= len(resize_nearest.__all__) <= 30
    assert set(resize_nearest.__all__) == set(resize_nearest._LAZY)
    for name in resize_nearest.__all__:
        value = getattr(resize_nearest, name)
        module = importlib.import_module(f'resize_nearest.{resize_nearest._LAZY[name]}')
        assert value is getattr(module, name), name
    star = 'from resize_nearest import *; print(sorted(k for k in dir() if not k.startswith("_")))'
    r = subprocess.run([sys.executable, '-c', star], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == str(sorted(resize_nearest.__all__))

NBS = PKG.parent / 'nbs'
TRACKS = json.loads((NBS / 'parts.json').read_text(encoding='utf-8'))
PARTS = {key: title for track in TRACKS.values() for key, title in track.items()}


def book():
    "The chapters in reading order: the core track's parts, then the reference (nbs/parts.json)."
    return [p for key in PARTS for p in sorted(NBS.glob(f'{key}*.ipynb'))]


def chapter_of_module():
    "Module name -> the chapter that exports it (its `#| default_exp`, or `#| export <module>`)."
    owners = {}
    for path in book():
        for cell in json.loads(path.read_text(encoding='utf-8'))['cells']:
            # a notebook's own module, and any module a cell exports to by name
            for found in re.findall(r'^#\| (?:default_exp|exporti?) (\S+)', ''.join(cell['source']),
                                    re.M):
                owners.setdefault('resize_nearest.' + found.replace('.__init__', ''), path.name)
    return owners


def chapter_imports(path, known):
    "Package modules a chapter's code cells import; a top-level name counts as the module holding it."
    from resize_nearest import _LAZY
    found = set()
    for cell in json.loads(path.read_text(encoding='utf-8'))['cells']:
        if cell['cell_type'] != 'code':
            continue
        source = '\n'.join(l for l in ''.join(cell['source']).splitlines() if not l.startswith(('%', '!')))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith('resize_nearest'):
                for alias in node.names:
                    sub = f'{node.module}.{alias.name}'
                    lazy = _LAZY.get(alias.name) if node.module == 'resize_nearest' else None
                    found.add(sub if sub in known else f'resize_nearest.{lazy}' if lazy else node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith('resize_nearest.'))
    return found - {'resize_nearest'}


def test_a_chapter_imports_only_what_its_reader_has_met_or_can_look_up():
    """The book's order (DESIGN.md): a core chapter uses earlier core chapters and the reference it
    links to (the reference is looked up, not read in order); a reference chapter uses the core and
    earlier reference chapters and the appendices; an appendix A uses only
    earlier appendices A."""
    owners = chapter_of_module()
    order = [p.name for p in book()]
    for position, path in enumerate(book()):
        for module in chapter_imports(path, owners):
            owner = owners[module]
            earlier = order.index(owner) <= position
            if path.name.startswith('a'):
                allowed = owner.startswith('a') and earlier
            elif path.name[0].isdigit():
                allowed = earlier or not owner[0].isdigit()
            else:
                allowed = earlier or owner[0] in 'ae'
            assert allowed, f'{path.name} imports {module}, exported by {owner}'


def test_every_notebook_belongs_to_a_part():
    chapters = {p.name for p in NBS.glob('*.ipynb')} - {'index.ipynb'}
    assert chapters == {p.name for p in book()}, chapters ^ {p.name for p in book()}


def design_layers():
    "DESIGN.md's layer table, ground floor first: [(layer, [module, ...]), ...]."
    text = (PKG.parent / 'DESIGN.md').read_text(encoding='utf-8')
    table = text[text.index('| layer | modules |'):].split('\n\n')[0].splitlines()[2:]
    return [(row.split('|')[1].strip(), re.findall(r'`([a-z_.]+)`', row.split('|')[2]))
            for row in table]


LAYERS = design_layers()


def test_a_layer_is_a_folder():
    """Each layer of DESIGN.md's table is one folder of the package (the entry points: the face and
    the `entry` folder of the plumbing that serves only them)."""
    folders = [{m.split('.')[0] if '.' in m or m == 'nki_cpu' else '' for m in members}
               for _, members in LAYERS]
    assert all(len(f) == 1 for f in folders[:-1]), folders
    assert folders[-1] == {'', 'entry'}, folders[-1]
    assert len({f.pop() for f in folders[:-1]}) == len(LAYERS) - 1
    entries = {p.name for p in PKG.iterdir() if p.name != '__pycache__'}
    assert len(entries) <= 13, sorted(entries)


def test_the_design_table_names_each_module_once():
    names = [m for _, members in LAYERS for m in members]
    assert len(names) == len(set(names)) and len(LAYERS) >= 8, LAYERS


def test_every_module_imports_only_its_layer_and_the_layers_below():
    mods = dict(modules())
    level = {f'resize_nearest.{m}': i for i, (_, members) in enumerate(LAYERS) for m in members}
    folders = {name for name, path in mods.items()
               if path.name == '__init__.py' and not path.read_text(encoding='utf-8').strip()}
    unplaced = set(mods) - set(level) - {'resize_nearest'} - folders
    assert not unplaced, f'modules without a layer in LAYERS: {sorted(unplaced)}'
    for name, path in mods.items():
        if name == 'resize_nearest':
            continue  # the package's face names modules lazily, from every layer
        above = {t for t in imports(name, path, mods)[0] if t in level and level[t] > level[name]}
        assert not above, f'{name} ({LAYERS[level[name]][0]}) imports {sorted(above)} from above'


def test_the_public_names_of_all_modules_together_are_at_most_150():
    "A small public face: every module's `__all__`, the top level's included, at most 150 names."
    import importlib
    counts = {name: len(getattr(importlib.import_module(name), '__all__', []))
              for name, _ in modules()}
    assert counts['resize_nearest'] >= 1 and sum(counts.values()) <= 150, counts


def test_the_package_says_what_it_is():
    "`help(resize_nearest)` opens with the package's docstring, not nothing."
    import resize_nearest
    assert resize_nearest.__doc__ and 'nearest-neighbour resize' in resize_nearest.__doc__
