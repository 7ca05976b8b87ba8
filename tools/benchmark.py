#!/usr/bin/env python
"""Cold and warm calls of the host API on the interpreter against NumPy's exact gathers, and a volume
against np.take per axis and torch's F.interpolate (chapter 3.5's table).

Usage: python tools/benchmark.py [--repeats 5] [--json]
Each row: the first call of its shape in a fresh process after the import (cold), then medians of
interleaved samples of the warm call and of NumPy's gather (and PyTorch's, for the volume); ratios
measured in one run. Last, the import's own time and whether it loads matplotlib, onnx or torch.
This is a benchmark, not a test: run it on a quiet machine.
"""
import argparse
import json
import signal

from resize_nearest.studies.benchmark import import_seconds, speed_table
from resize_nearest.studies.tables import Table

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet exit when piped into head
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument('--repeats', type=int, default=5, help='interleaved timed samples per contender')
parser.add_argument('--json', action='store_true', help='print the rows as JSON')
args = parser.parse_args()
if args.repeats < 1:
    parser.error('--repeats must be at least 1')
rows = speed_table(repeats=args.repeats)
imports = import_seconds()
if args.json:
    print(json.dumps(dict(rows=rows, imports=imports), indent=1))
else:
    columns = ['case', 'dtype', 'cold_ms', 'warm_ms', 'numpy_ms', 'cold / NumPy', 'warm / NumPy']
    print(Table(rows, columns, {c: '{:.3f}' for c in columns[2:]}).text())
    for row in rows:
        if 'torch_ms' in row:
            print(f"{row['case']} {row['dtype']}: warm {row['warm_ms']:.3f} ms, np.take per axis"
                  f" {row['numpy_ms']:.3f} ms, F.interpolate {row['torch_ms']:.3f} ms")
    print(f"import resize_nearest: {imports['import_s']:.3f} s; with its first name:"
          f" {imports['first_name_s']:.3f} s; heavy modules: {imports['heavy_modules'] or 'none'}")
