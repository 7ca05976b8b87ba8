#!/usr/bin/env python
"""Execute notebooks in place and save their outputs, skipping exactly what `nbdev_test` skips.

Usage: python tools/run_nbs.py [NOTEBOOK ...] [--flags "neuron"]
Without notebooks it runs every nbs/*.ipynb whose name does not start with '_' or '.'.
Cells are skipped when they carry `#| eval: false`, contain `nbdev_export(`, or carry a flag from
settings.ini `tst_flags` that is not named in --flags (the same rules as nbdev 2.4.14 `test_nb`).
A cell skipped for a flag (`slow`) keeps the output of the last run that did run it (chapter prose
leans on it; tests/test_book.py checks it is there); other skipped cells keep none. Figures are written
to figures/ only here
(RESIZE_NEAREST_FIGURES=1), never under nbdev_test.
"""
import argparse, configparser, os, sys, time
from pathlib import Path
from execnb.nbio import read_nb, write_nb
from execnb.shell import CaptureShell
from nbdev.process import extract_directives

ROOT = Path(__file__).resolve().parent.parent

def tst_flags():
    cfg = configparser.ConfigParser(); cfg.read(ROOT/'settings.ini')
    return set(cfg['DEFAULT'].get('tst_flags', 'notest').split())

def skip_cell(cell, skip_flags):
    if cell.cell_type != 'code': return True
    if 'nbdev_export' + '(' in cell.source: return True
    direc = extract_directives(cell, remove=False) or {}
    if direc.get('eval:', [''])[0].lower() == 'false': return True
    return bool(skip_flags & direc.keys())

def flag_skipped(cell, skip_flags) -> bool:
    "A code cell skipped only for a flag such as `slow`: its committed output stays."
    direc = extract_directives(cell, remove=False) or {}
    return cell.cell_type == 'code' and bool(skip_flags & direc.keys())

def run(path: Path, skip_flags) -> bool:
    nb = read_nb(path)
    for c in nb.cells:
        if c.cell_type == 'code' and not flag_skipped(c, skip_flags):
            c.outputs, c.execution_count = [], None
    os.environ['IN_TEST'] = '1'  # same environment nbdev_test gives notebooks
    os.environ['RESIZE_NEAREST_FIGURES'] = '1'  # only this tool writes figures/ (nbdev_test and pytest never do)
    sys.path.insert(0, str(ROOT))
    shell, cwd, t0 = CaptureShell(path), os.getcwd(), time.time()
    os.chdir(path.parent)
    try: shell.run_all(nb, exc_stop=True, preproc=lambda c: skip_cell(c, skip_flags))
    except Exception:
        sys.stderr.write(shell.prettytb(fname=path) + '\n')
        return False
    finally: os.chdir(cwd)
    for c in nb.cells:
        if c.cell_type == 'code': c.execution_count = None
    write_nb(nb, path)
    print(f'{path.relative_to(ROOT)}: executed in {time.time()-t0:.1f} s')
    return True

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('notebooks', nargs='*', type=Path)
    ap.add_argument('--flags', default='', help='space separated tst_flags to run anyway')
    a = ap.parse_args()
    nbs = [p.resolve() for p in a.notebooks] or sorted(p for p in (ROOT/'nbs').glob('*.ipynb') if not p.name.startswith(('_', '.')))
    skip = tst_flags() - set(a.flags.split())
    failed = [p.name for p in nbs if not run(p, skip)]
    if failed: sys.exit(f'notebooks failed: {" ".join(failed)}')

if __name__ == '__main__': main()
