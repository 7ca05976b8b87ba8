"""The interpreter `resize_nearest.nki_cpu` stands alone (shared/DESIGN.md, layers: numpy,
ml_dtypes and the standard library only): none of its modules imports another module of the
package, and importing it loads nothing of the package outside it."""
import ast, json, subprocess, sys
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / 'resize_nearest'
NKI_CPU = PKG / 'nki_cpu'
INTERPRETER = 'resize_nearest.nki_cpu'


def _targets(path: Path):
    "Absolute names of the modules each import statement of `path` names (relative ones resolved)."
    # the package a relative import starts from: a.b.c -> a.b, a.b.__init__ -> a.b
    package = '.'.join(path.relative_to(PKG.parent).with_suffix('').parts).rsplit('.', 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rsplit('.', 1)[0]
            module = node.module or ''
            yield (base + '.' + module).rstrip('.') if node.level else module


def _inside(module: str) -> bool:
    return module == INTERPRETER or module.startswith(INTERPRETER + '.')


def test_interpreter_modules_import_nothing_else_of_the_package():
    modules = sorted(NKI_CPU.rglob('*.py'))
    assert {p.stem for p in modules} >= {'__init__', 'memory', 'isa', 'language', 'frontend'}
    outside = {
        f'{p.relative_to(PKG.parent)} imports {t}'
        for p in modules
        for t in _targets(p)
        if t.split('.')[0] == 'resize_nearest' and not _inside(t)
    }
    assert not outside, sorted(outside)


def test_importing_the_interpreter_loads_no_other_package_module():
    "resize_nearest/__init__.py runs first (its names are lazy); nothing else outside nki_cpu."
    code = ('import json, sys, resize_nearest.nki_cpu; '
            'print(json.dumps(sorted(m for m in sys.modules if m.startswith("resize_nearest"))))')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                       cwd=PKG.parent, check=True)
    loaded = set(json.loads(r.stdout))
    outside = {m for m in loaded if m != 'resize_nearest' and not _inside(m)}
    assert INTERPRETER in loaded and not outside, sorted(outside)
