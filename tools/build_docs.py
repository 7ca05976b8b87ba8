#!/usr/bin/env python
"""Build the documentation site from the committed, executed notebooks (nothing is re-executed).

Usage: python tools/build_docs.py [--src _site/src] [--out _site/html]
Every notebook becomes a page in chapter order, with its outputs, figures and math (MathJax served from the
installed django-static-mathjax package: no CDN); `#| hide` cells are dropped and the other nbdev directives
stripped, so `#| export` cells show as code; nbs/index.ipynb (the README's source) is the home page; one API
reference page per module is generated from the exported code (signatures, docstrings, parameter comments).
"""
import argparse, importlib, inspect, json, re, shutil, subprocess, sys
from pathlib import Path
from fastcore.docments import docments

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRECTIVES = ('hide', 'default_exp')

def directives(src:str)->list:
    return [l[3:].strip().split()[0] for l in src.splitlines() if l.startswith('#|') and l[3:].strip()]

def stage_notebook(path:Path, dest:Path, extra_md:str=''):
    "Copy a notebook for the site: hidden cells out, directive lines out, links and figure paths rewritten."
    nb = json.loads(path.read_text())
    cells = []
    for c in nb['cells']:
        src = ''.join(c['source'])
        if c['cell_type'] == 'code':
            if set(directives(src)) & set(SKIP_DIRECTIVES) or not src.strip(): continue
            src = '\n'.join(l for l in src.splitlines() if not l.startswith('#|')).strip('\n')
            if not src: continue
        else:
            src = re.sub(r'\]\(nbs/([^)]+)\.ipynb\)', r'](\1.ipynb)', src)
        src = src.replace('../figures/', 'figures/')
        c['source'] = src
        for o in c.get('outputs', []):                            # figure links inside Markdown outputs
            if 'text/markdown' in o.get('data', {}):
                o['data']['text/markdown'] = ''.join(o['data']['text/markdown']).replace('../figures/', 'figures/')
        cells.append(c)
    if extra_md: cells.append({'cell_type': 'markdown', 'id': 'site-toc', 'metadata': {}, 'source': extra_md})
    nb['cells'] = cells
    dest.write_text(json.dumps(nb))

def public_names(mod)->list:
    return [n for n in getattr(mod, '__all__', []) if not n.startswith('_')]

def api_page(modname:str)->str:
    "MyST Markdown for one module: every public name with its signature, docstring and parameter comments."
    mod = importlib.import_module(modname)
    lines = [f'# `{modname}`', '', (mod.__doc__ or '').strip(), '']
    for name in public_names(mod):
        obj = getattr(mod, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            try: sig = str(inspect.signature(obj))
            except (TypeError, ValueError): sig = '(...)'
            kind = 'class' if inspect.isclass(obj) else 'function'
            lines += [f'## `{name}`', '', f'```python\n{kind} {name}{sig}\n```', '', inspect.getdoc(obj) or '', '']
            try: d = docments(obj, full=True)
            except Exception: d = {}
            rows = [(k, v) for k, v in d.items() if k != 'return' and (v.get('docment') or v.get('anno') not in (None, inspect._empty))]
            if rows:
                lines += ['| parameter | type | default | meaning |', '|---|---|---|---|']
                for k, v in rows:
                    anno = getattr(v.get('anno'), '__name__', v.get('anno'))
                    anno = '' if anno in (None, inspect._empty) else anno
                    default = '' if v.get('default') is inspect._empty else repr(v.get('default'))
                    lines.append(f"| `{k}` | {str(anno).replace('|', '/')} | `{default}` | {(v.get('docment') or '').replace('|', '/')} |")
                lines.append('')
        else:
            shown = f'module {obj.__name__}' if inspect.ismodule(obj) else repr(obj)[:200]   # no machine paths in the site
            lines += [f'## `{name}`', '', f'`{name} = {shown}`', '']
    return '\n'.join(lines)

def modules()->list:
    pkg = ROOT / 'resize_nearest'
    mods = []
    for p in sorted(pkg.rglob('*.py')):
        if p.name in ('_modidx.py',): continue
        name = '.'.join(p.relative_to(ROOT).with_suffix('').parts).replace('.__init__', '')
        if name != 'resize_nearest': mods.append(name)
    return mods

CONF = '''
project = 'resize_nearest'
author = 'resize_nearest developers'
extensions = ['myst_nb']
nb_execution_mode = 'off'
myst_enable_extensions = ['dollarmath', 'amsmath']
html_theme = 'sphinx_book_theme'
html_title = 'resize_nearest'
html_static_path = ['_static']
mathjax_path = 'mathjax/es5/tex-chtml.js'      # served from the site itself (django-static-mathjax), no CDN
html_theme_options = {'show_toc_level': 2}
html_context = {'default_mode': 'light'}
html_favicon = 'figures/02a_tile_model.png'       # a declared icon: browsers then do not ask for /favicon.ico
exclude_patterns = ['_build']
suppress_warnings = ['myst.header', 'mystnb.unknown_mime_type', 'misc.highlighting_failure']
'''

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--src', type=Path, default=ROOT / '_site' / 'src')
    ap.add_argument('--out', type=Path, default=ROOT / '_site' / 'html')   # MyST-NB also writes <out>/../jupyter_execute: keep both inside _site
    a = ap.parse_args()
    import mathjax                                              # django-static-mathjax
    shutil.rmtree(a.src, ignore_errors=True); a.src.mkdir(parents=True)
    nbs = sorted(p for p in (ROOT / 'nbs').glob('[0-9]*.ipynb'))
    toc = '```{toctree}\n:hidden:\n:maxdepth: 1\n:caption: Chapters\n\n' + '\n'.join(p.stem for p in nbs) + '\n```\n\n' \
          '```{toctree}\n:hidden:\n:maxdepth: 1\n:caption: Reference\n\napi/index\n```\n'
    stage_notebook(ROOT / 'nbs' / 'index.ipynb', a.src / 'index.ipynb', toc)
    for p in nbs: stage_notebook(p, a.src / p.name)
    shutil.copytree(ROOT / 'figures', a.src / 'figures')
    (a.src / 'api').mkdir()
    mods = modules()
    for m in mods: (a.src / 'api' / f'{m}.md').write_text(api_page(m))
    (a.src / 'api' / 'index.md').write_text('# API reference\n\nOne page per module, generated from the exported code.\n\n```{toctree}\n:maxdepth: 1\n\n'
                                            + '\n'.join(mods) + '\n```\n')
    static = a.src / '_static' / 'mathjax'
    mj = Path(mathjax.__file__).parent / 'static' / 'mathjax' / 'es5'
    shutil.copytree(mj, static / 'es5', ignore=shutil.ignore_patterns('*.map'))
    (a.src / 'conf.py').write_text(CONF)
    r = subprocess.run([sys.executable, '-m', 'sphinx', '-b', 'html', '-q', '-j', '2', str(a.src), str(a.out)], cwd=ROOT)
    if r.returncode: sys.exit(f'sphinx failed with status {r.returncode}')
    print(f'site written to {a.out} ({len(nbs) + 1} chapter pages, {len(mods)} API pages); open {a.out / "index.html"}')

if __name__ == '__main__': main()
