#!/usr/bin/env python
"""`nbdev_export`, with the two lines nbdev writes itself kept within 100 columns.

nbdev 2.4.14 wraps `__all__` at 120 columns (nbdev/maker.py:205, `TextWrapper(width=120, ...)`) and
writes the notebook's summary as a one-line module docstring (maker.py:179-186, `_retr_mdoc`).
Neither is configurable, so this wraps both at 100 and otherwise runs nbdev's own export.
A cell marked `#| export <module>` for a module that no notebook's `#| default_exp` owns (appendix A1
sends chapter 1.4's drawing code to graph_drawing this way) makes nbdev append to that file on every export
(nbdev/export.py:92, `is_new=False`; maker.py:221 `_make_exists` opens it with 'a'); such a module
is written afresh instead, so exporting twice gives the same file.
Usage: python tools/export.py   (instead of nbdev_export; tools/check_sync.sh uses it)
"""
import json
import re
import textwrap
from functools import cache
from pathlib import Path

import nbdev.maker
from nbdev.doclinks import nbdev_export

WIDTH = 100


def module_docstring(cells):
    "nbdev's module docstring, its summary wrapped at WIDTH."
    doc = _nbdev_module_docstring(cells)
    if not doc:
        return doc
    summary = doc.strip()[3:-3]
    lines = textwrap.wrap(summary, width=WIDTH - 3, break_long_words=False, break_on_hyphens=False)
    return '"""' + '\n'.join(lines) + '"""\n\n'


_nbdev_module_docstring = nbdev.maker._retr_mdoc
nbdev.maker._retr_mdoc = module_docstring


def all_wrapper(**options):
    "The TextWrapper nbdev asks for, narrow enough that `__all__ = ` plus a line fits WIDTH."
    return textwrap.TextWrapper(**{**options, 'width': WIDTH - len('__all__ = ')})


nbdev.maker.TextWrapper = all_wrapper


@cache
def owned_modules() -> frozenset:
    "The modules some notebook names in its `#| default_exp` cell."
    nbs = Path(__file__).resolve().parent.parent / 'nbs'
    cells = (c for p in nbs.glob('*.ipynb') for c in json.loads(p.read_text())['cells'])
    sources = (''.join(c['source']) for c in cells)
    owner = re.compile(r'^#\|\s*default_exp\s+(\S+)', re.M)
    return frozenset(m for src in sources for m in owner.findall(src))


def maker_init(self, dest, name, nb_path, is_new=True, **options):
    "nbdev's ModuleMaker, writing afresh a module that no `#| default_exp` owns."
    _nbdev_maker_init(self, dest, name, nb_path, is_new or name not in owned_modules(), **options)


_nbdev_maker_init = nbdev.maker.ModuleMaker.__init__
nbdev.maker.ModuleMaker.__init__ = maker_init



def docstring_first(init: Path):
    """Put the package's docstring above `__version__`: nbdev writes the version line first
    (put_version_in_init), which leaves `resize_nearest.__doc__` None and `help()` silent."""
    lines = init.read_text().split('\n')
    if not (lines[0].startswith('__version__') and lines[1].startswith('"""')):
        return
    end = next(i for i, line in enumerate(lines[1:], 1) if line.rstrip().endswith('"""'))
    init.write_text('\n'.join(lines[1:end + 1] + [lines[0]] + lines[end + 1:]))


if __name__ == '__main__':
    nbdev_export()
    docstring_first(Path(__file__).resolve().parent.parent / 'resize_nearest' / '__init__.py')
