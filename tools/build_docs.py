#!/usr/bin/env python
"""Build the documentation site from the committed, executed notebooks (nothing is re-executed).

Usage: python tools/build_docs.py [--src _site/src] [--out _site/html]
Every notebook becomes a page in chapter order, with its outputs, figures and math (MathJax served
from the installed django-static-mathjax package: no CDN); `#| hide` cells are dropped, an `#| echo:
false` cell shows as its Markdown output, an `#| code-fold: true` cell shows its outputs with its
code folded behind a toggle, and the other nbdev directives are stripped, so `#| export` cells show
as code. Markdown outputs (the tables cells print) are parsed as MyST, so they
are HTML tables. nbs/index.ipynb (the README's source) is the home page; nbs/*.md (the compiler
contract) are reference pages; one API page per module is generated from the exported code:
signatures with readable defaults, docstrings, parameter tables, and module values with names
instead of reprs that hold machine addresses. The CSS gives the text column 100 columns of code at a
1280-pixel window (tests/test_docs.py measures it).
"""

import argparse
import json, importlib, inspect, json, pprint, re, shutil, subprocess, sys, textwrap
from pathlib import Path
from fastcore.docments import docments

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRECTIVES = ('hide', 'default_exp')


def directives(src: str) -> list:
    return [
        l[3:].strip().split()[0] for l in src.splitlines() if l.startswith('#|') and l[3:].strip()
    ]


def site_links(text: str) -> str:
    "Links written for the repository (README at the root, figures beside nbs/), as the site needs."
    text = re.sub(r'\]\(nbs/([^)]+)\.(ipynb|md)\)', r'](\1.\2)', text)
    return text.replace('../figures/', 'figures/')


def echoed_output(cell) -> dict:
    "An `#| echo: false` cell as the Markdown cell its output is (as the README shows it)."
    texts = [
        ''.join(o['data']['text/markdown'])
        for o in cell.get('outputs', [])
        if 'text/markdown' in o.get('data', {})
    ]
    return {
        'cell_type': 'markdown',
        'id': cell.get('id', 'echo'),
        'metadata': {},
        'source': site_links('\n\n'.join(texts)),
    }


def staged_cell(cell):
    "One cell as the site shows it, or None: hidden cells out, directives out, links rewritten."
    src = ''.join(cell['source'])
    if cell['cell_type'] != 'code':
        cell['source'] = site_links(src)
        return cell
    if set(directives(src)) & set(SKIP_DIRECTIVES) or not src.strip():
        return None
    if re.search(r'^#\|\s*echo:\s*false', src, re.M):
        return echoed_output(cell)
    if re.search(r'^#\|\s*code-fold:\s*true', src, re.M):  # Quarto's, as nbdev documents it
        cell.setdefault('metadata', {})['tags'] = ['hide-input']  # myst-nb's toggle
    src = '\n'.join(l for l in src.splitlines() if not l.startswith('#|')).strip('\n')
    if not src:
        return None
    cell['source'] = src.replace('../figures/', 'figures/')
    for output in cell.get('outputs', []):  # figure links inside Markdown outputs
        data = output.get('data', {})
        if 'text/markdown' in data:
            data['text/markdown'] = site_links(''.join(data['text/markdown']))
    return cell


def stage_notebook(path: Path, dest: Path, extra_md: str = ''):
    "Copy a notebook for the site, every cell as `staged_cell` makes it, `extra_md` appended."
    nb = json.loads(path.read_text())
    cells = [c for c in map(staged_cell, nb['cells']) if c is not None]
    if extra_md:
        cells.append(
            {'cell_type': 'markdown', 'id': 'site-toc', 'metadata': {}, 'source': extra_md}
        )
    nb['cells'] = cells
    dest.write_text(json.dumps(nb))


def public_names(mod) -> list:
    "A module's public names, the package's face first, then functions and classes, then values."
    import resize_nearest

    names = [n for n in getattr(mod, '__all__', []) if not n.startswith('_')]
    face = set(resize_nearest.__all__)

    def rank(name):
        obj = getattr(mod, name)
        return (name not in face, not (inspect.isfunction(obj) or inspect.isclass(obj)))

    return sorted(names, key=rank)  # stable: the module's own order within each rank


def face_table() -> str:
    "The top-level names, each with the module that holds it and its docstring's first line."
    import resize_nearest

    rows = ['| name | module | what it is |', '|---|---|---|']
    for name in resize_nearest.__all__:
        module = f'resize_nearest.{resize_nearest._LAZY[name]}'
        obj = getattr(resize_nearest, name)
        doc = inspect.getdoc(obj) if callable(obj) and not isinstance(obj, dict) else ''
        text = doc or value_comment(source_lines(importlib.import_module(module)), name)
        paragraph = ' '.join(text.strip().split('\n\n')[0].split())
        first = prose(paragraph.split('. ')[0].rstrip('.') + '.')
        rows.append(f'| [`{name}`]({module}.md) | `{module}` | {first} |')
    return '\n'.join(rows) + '\n\n'


# reprs name what they show: '<function f at 0x7f...>' -> 'f',
# "<class 'numpy.float32'>" -> 'numpy.float32'
READABLE = (
    (re.compile(r'<function (\S+) at 0x[0-9a-f]+>'), r'\1'),
    (re.compile(r'<functools\._lru_cache_wrapper object at 0x[0-9a-f]+>'), 'cached function'),
    (re.compile(r'<(\S+) object at 0x[0-9a-f]+>'), r'\1 instance'),
    (re.compile(r"<class '([^']+)'>"), r'\1'),
    (re.compile(r"<enum '([^']+)'>"), r'\1'),
    (re.compile(r'<([\w.]+): [^>]*>'), r'\1'),
)


def readable(text: str) -> str:
    "A repr with machine addresses and class brackets replaced by names."
    for pattern, replacement in READABLE:
        text = pattern.sub(replacement, text)
    return text


def value_lines(value, width: int) -> list:
    "A value's readable text in lines of at most `width` columns; a dict gets one line per entry."
    if isinstance(value, dict) and value:
        entries = [f'{key!r}: {readable(repr(item))},' for key, item in value.items()]
        shortened = [textwrap.shorten(e, width - 4, placeholder=' …') for e in entries]
        return ['{'] + ['    ' + e for e in shortened] + ['}']
    lines = readable(pprint.pformat(value, width=width, compact=True)).splitlines()
    return [textwrap.shorten(l, width, placeholder=' …') for l in lines]


def value_block(name: str, value, max_lines: int = 12) -> str:
    "A module-level value as a Python block, at most `max_lines` lines of at most 96 columns."
    if inspect.ismodule(value):
        return f'```python\n{name}  # module {value.__name__}\n```'
    lines = value_lines(value, 92 - len(name))
    # a dict's entries carry their own indent; other continuation lines start under the value
    indent = '' if isinstance(value, dict) and value else ' ' * (len(name) + 3)
    if len(lines) > max_lines:
        lines = (
            lines[: max_lines - 1]
            + [f'    …  ({len(lines) - max_lines + 1} more lines)']
            + lines[-1:]
        )
    return '```python\n' + f'{name} = ' + f'\n{indent}'.join(lines) + '\n```'


def parameter_texts(sig) -> list:
    "The parameters as Python writes them, with the `/` and `*` markers; a long default cut short."
    texts, params = [], list(sig.parameters.values())
    kinds = [p.kind for p in params]
    for i, param in enumerate(params):
        if (
            param.kind is param.KEYWORD_ONLY
            and param.VAR_POSITIONAL not in kinds[:i]
            and param.KEYWORD_ONLY not in kinds[:i]
        ):
            texts.append('*')
        # a long default (a tuple of benchmark cases) is cut here; the parameter table holds it
        texts.append(textwrap.shorten(readable(str(param)), 88, placeholder=' …'))
        if param.kind is param.POSITIONAL_ONLY and param.POSITIONAL_ONLY not in kinds[i + 1 :]:
            texts.append('/')
    return texts


def signature_block(kind: str, name: str, obj) -> str:
    "The signature as a Python block: one line if it fits 96 columns, else one parameter a line."
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return f'```python\n{kind} {name}(...)\n```'
    params = parameter_texts(sig)
    ret = (
        ''
        if sig.return_annotation is inspect.Signature.empty
        else ' -> ' + readable(inspect.formatannotation(sig.return_annotation))
    )
    one_line = f'{kind} {name}(' + ', '.join(params) + ')' + ret
    if len(one_line) <= 96:
        return f'```python\n{one_line}\n```'
    body = ''.join(f'    {p},\n' for p in params)
    return f'```python\n{kind} {name}(\n{body}){ret}\n```'


def prose(text: str) -> str:
    "A docstring as Markdown text: `code` kept, characters Markdown or MyST would read escaped."
    parts = re.split(r'(`[^`]*`)', text or '')
    return ''.join(
        p if p.startswith('`') else re.sub(r'([*_$<\[\]|\\])', r'\\\1', p) for p in parts
    )


def parameter_rows(obj) -> list:
    """Markdown rows (parameter, type, default, meaning) for the parameters with an annotation or a
    comment; the type is the annotation only (never one guessed from the default)."""
    try:
        sig = inspect.signature(obj)
        comments = {k: v.get('docment') or '' for k, v in docments(obj, full=True).items()}
    except Exception:  # classes without an inspectable __init__, builtins: no table
        return []
    rows = []
    for key, param in sig.parameters.items():
        anno, comment = param.annotation, ' '.join(comments.get(key, '').split())
        if anno is param.empty and not comment:
            continue
        shown_anno = '' if anno is param.empty else readable(inspect.formatannotation(anno))
        shown_default = (
            '(required)'
            if param.default is param.empty
            else f'`{textwrap.shorten(readable(repr(param.default)), 80, placeholder=" …")}`'
        )
        rows.append(f'| `{key}` | {prose(shown_anno)} | {shown_default} | {prose(comment)} |')
    return ['| parameter | type | default | meaning |', '|---|---|---|---|'] + rows if rows else []


def source_lines(mod) -> list:
    "A module's source lines ([] when it has none to read)."
    try:
        return inspect.getsource(mod).splitlines()
    except (OSError, TypeError):
        return []


def value_comment(lines: list, name: str) -> str:
    "The comment module source `lines` give a name: the lines above its assignment, and after."
    starts = [i for i, l in enumerate(lines) if re.match(rf'{re.escape(name)}\s*(:[^=]*)?=', l)]
    if not starts:
        return ''
    i = starts[0]
    above = []
    while i > 0 and lines[i - 1].startswith('#') and not lines[i - 1].startswith('# %%'):
        i -= 1
        above.insert(0, lines[i].lstrip('# '))
    after = lines[starts[0]].split('  # ', 1)[1:]
    return ' '.join(above + after).strip()


def api_entry(name: str, obj, lines: list) -> list:
    """The Markdown of one public name: signature, docstring and parameter table, or its value and
    the comment its module's source `lines` give it."""
    function = inspect.unwrap(obj) if callable(obj) else obj
    if not (inspect.isfunction(function) or inspect.isclass(function)):
        comment = prose(value_comment(lines, name))
        return [f'## `{name}`', '', value_block(name, obj), '', comment, '']
    kind = 'class' if inspect.isclass(function) else 'function'
    entry = [
        f'## `{name}`',
        '',
        signature_block(kind, name, function),
        '',
        prose(inspect.getdoc(function)),
        '',
    ]
    rows = parameter_rows(function)
    return entry + rows + ([''] if rows else [])


def api_page(modname: str) -> str:
    "MyST Markdown for one module: every public name, its signature, docstring and comments."
    mod = importlib.import_module(modname)
    page = [f'# `{modname}`', '', prose((mod.__doc__ or '').strip()), '']
    lines = source_lines(mod)  # read once for the comments of every value
    for name in public_names(mod):
        page += api_entry(name, getattr(mod, name), lines)
    return '\n'.join(page)


def modules() -> list:
    pkg = ROOT / 'resize_nearest'
    mods = []
    for p in sorted(pkg.rglob('*.py')):
        if p.name in ('_modidx.py',):
            continue
        name = '.'.join(p.relative_to(ROOT).with_suffix('').parts).replace('.__init__', '')
        empty_folder = p.name == '__init__.py' and not p.read_text(encoding='utf-8').strip()
        if name != 'resize_nearest' and not empty_folder:
            mods.append(name)
    return mods


def layer_of(modname: str) -> str:
    """The package folder a module sits in (its layer), or 'face' for the entry points: the
    top-level modules and the `entry` folder of their plumbing."""
    parts = modname.split('.')
    if parts[1] == 'entry':
        return 'face'
    return parts[1] if len(parts) > 2 or parts[1] == 'nki_cpu' else 'face'


CONF = '''
project = 'resize_nearest'
author = 'resize_nearest developers'
extensions = ['myst_nb']
nb_execution_mode = 'off'
# Markdown outputs (the tables cells print) parsed as MyST: their tables are HTML tables
nb_render_markdown_format = 'myst'
myst_enable_extensions = ['dollarmath', 'amsmath']
myst_heading_anchors = 2
html_theme = 'sphinx_book_theme'
html_title = 'resize_nearest'
html_static_path = ['_static']
html_css_files = ['site.css']
# served from the site itself (django-static-mathjax), no CDN
mathjax_path = 'mathjax/es5/tex-chtml.js'
# no secondary sidebar: its width goes to the text
html_theme_options = {'show_toc_level': 2, 'secondary_sidebar_items': []}
html_context = {'default_mode': 'light'}
# a declared icon: browsers then do not ask for /favicon.ico
html_favicon = 'figures/15_gather_tile.png'
exclude_patterns = ['_build']
suppress_warnings = ['myst.header', 'mystnb.unknown_mime_type', 'misc.highlighting_failure']
'''

# The article gets the page's width (the page table of contents is in the header's menu), code is
# set at
# a size where 100 columns, the width of every code line, fit in it, and printed outputs that hold
# sentences (error messages) wrap at the column instead of scrolling; tables of numbers are never
# that wide.
SITE_CSS = """
.bd-page-width { max-width: 100%; }
.bd-sidebar-primary code { font-size: 0.7em; }   /* module names fit the sidebar */
.bd-sidebar-primary code, .bd-sidebar-primary code .pre {
  white-space: normal; overflow-wrap: anywhere; }
.bd-main .bd-content .bd-article-container { max-width: 100%; }
div.highlight pre { font-size: 12.5px; line-height: 1.45; }
div.cell_output div.highlight pre { white-space: pre-wrap; overflow-wrap: anywhere; }
div.cell_output table { font-size: 12.5px; }
article table { max-width: 100%; }
article table td, article table th { overflow-wrap: anywhere; padding: 0.2em 0.4em; }
/* code in a table wraps only at spaces and at the <wbr> that identifier_breaks() puts after each
   underscore and dot: never `rowgathe` / `r` */
article table code, article table code .pre {
  white-space: normal; overflow-wrap: normal; word-break: normal; }
div.cell_output table td, div.cell_output table th { overflow-wrap: anywhere; }
div.cell_output img, article img { max-width: 100%; height: auto; }
"""


TABLE_CELL = re.compile(r'<t[dh][ >].*?</t[dh]>', re.S)
CODE_TEXT = re.compile(r'(<span class="pre">)([^<]*)(</span>)')


def identifier_breaks(html: str) -> str:
    "A line-break opportunity (<wbr>) after each underscore and dot of the code in table cells."
    def in_code(span):
        text = re.sub(r'([_.])(?=\w)', r'\1<wbr>', span.group(2))
        return span.group(1) + text + span.group(3)

    return TABLE_CELL.sub(lambda cell: CODE_TEXT.sub(in_code, cell.group(0)), html)


def toctree(caption: str, entries) -> str:
    return (
        f'```{{toctree}}\n:hidden:\n:maxdepth: 1\n:caption: {caption}\n\n'
        + '\n'.join(entries)
        + '\n```\n\n'
    )


def stage_pages(src: Path, chapters: list, pages: list):
    """The home page with the table of contents in two sections (the core track, the reference:
    nbs/parts.json), every chapter, the Markdown pages and the figures."""
    tracks = json.loads((ROOT / 'nbs' / 'parts.json').read_text(encoding='utf-8'))
    entries = {
        track: [p.stem for key in parts for p in chapters if p.name.startswith(key)]
        for track, parts in tracks.items()
    }
    entries['Reference'] += [p.stem for p in pages] + ['api/index']
    toc = ''.join(toctree(track, names) for track, names in entries.items())
    stage_notebook(ROOT / 'nbs' / 'index.ipynb', src / 'index.ipynb', toc)
    for path in chapters:
        stage_notebook(path, src / path.name)
    for path in pages:
        (src / path.name).write_text(site_links(path.read_text()))
    shutil.copytree(ROOT / 'figures', src / 'figures')


def stage_api(src: Path) -> list:
    "One API page per module and their index; returns the module names."
    (src / 'api').mkdir()
    mods = modules()
    for mod in mods:
        (src / 'api' / f'{mod}.md').write_text(api_page(mod))
    index = (
        '# API reference\n\n`from resize_nearest import *` gives these names; every other public name'
        ' lives in its module, one page per module below, generated from the exported code.\n\n'
        + face_table()
    )
    # ground floor first, as DESIGN.md's layer table has them
    floors = ['nki_cpu', 'maps', 'kernels', 'host', 'compiler', 'studies', 'models', 'face']
    layers = sorted(dict.fromkeys(layer_of(m) for m in mods), key=floors.index)
    tocs = ''.join(toctree(f'Layer: {layer}', [m for m in mods if layer_of(m) == layer])
                   for layer in layers)
    (src / 'api' / 'index.md').write_text(index + tocs.replace(':hidden:\n', ''))
    return mods


def stage_static(src: Path):
    "MathJax (from the installed django-static-mathjax: no CDN), the site's CSS and conf.py."
    import mathjax

    es5 = Path(mathjax.__file__).parent / 'static' / 'mathjax' / 'es5'
    shutil.copytree(
        es5, src / '_static' / 'mathjax' / 'es5', ignore=shutil.ignore_patterns('*.map')
    )
    (src / '_static' / 'site.css').write_text(SITE_CSS)
    (src / 'conf.py').write_text(CONF)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--src', type=Path, default=ROOT / '_site' / 'src')
    # MyST-NB also writes <out>/../jupyter_execute: keep both inside _site
    ap.add_argument('--out', type=Path, default=ROOT / '_site' / 'html')
    args = ap.parse_args()
    shutil.rmtree(args.src, ignore_errors=True)
    args.src.mkdir(parents=True)
    chapters = sorted((ROOT / 'nbs').glob('[0-9aer]*.ipynb'))
    pages = sorted((ROOT / 'nbs').glob('*.md'))
    stage_pages(args.src, chapters, pages)
    mods = stage_api(args.src)
    stage_static(args.src)
    sphinx = [
        sys.executable,
        '-m',
        'sphinx',
        '-b',
        'html',
        '-q',
        '-j',
        '2',
        str(args.src),
        str(args.out),
    ]
    if subprocess.run(sphinx, cwd=ROOT).returncode:
        sys.exit('sphinx failed')
    for page in args.out.rglob('*.html'):
        page.write_text(identifier_breaks(page.read_text(encoding='utf-8')), encoding='utf-8')
    print(
        f'site written to {args.out} ({len(chapters) + 1} chapter pages, {len(pages)} reference '
        f'pages, {len(mods)} API pages); open {args.out / "index.html"}'
    )


if __name__ == '__main__':
    main()
