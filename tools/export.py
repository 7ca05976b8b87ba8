#!/usr/bin/env python
"""`nbdev_export`, with the two lines nbdev writes itself kept within 100 columns.

nbdev 2.4.14 wraps `__all__` at 120 columns (nbdev/maker.py:205, `TextWrapper(width=120, ...)`) and
writes the notebook's summary as a one-line module docstring (maker.py:179-186, `_retr_mdoc`).
Neither is configurable, so this wraps both at 100 and otherwise runs nbdev's own export.
Usage: python tools/export.py   (instead of nbdev_export; tools/check_sync.sh uses it)
"""
import textwrap

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

if __name__ == '__main__':
    nbdev_export()
