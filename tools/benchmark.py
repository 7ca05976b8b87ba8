#!/usr/bin/env python
"""Throughput of the host API on the interpreter against NumPy's gathers (chapter 3.5's benchmark).

Usage: python tools/benchmark.py [--repeats 5] [--json]
Each row: the first call (it records the kernel's map), then medians of interleaved calls of the
default (`auto`) and `variant='auto'` against np.take on the flat map and the two-step gather.
"""
import argparse
import json
import signal

from resize_nearest.studies.benchmark import benchmark
from resize_nearest.studies.tables import Table

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet exit when piped into head
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument('--repeats', type=int, default=5, help='interleaved timed calls per contender')
parser.add_argument('--json', action='store_true', help='print the rows as JSON')
args = parser.parse_args()
if args.repeats < 1:
    parser.error('--repeats must be at least 1')
rows = benchmark(repeats=args.repeats)
if args.json:
    print(json.dumps(rows, indent=1))
else:
    columns = list(rows[0])
    print(Table(rows, columns, {c: '{:.3f}' for c in columns[2:]}).text())
