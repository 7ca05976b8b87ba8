#!/usr/bin/env python
"""Cold and warm calls of the host API on the interpreter against NumPy's exact gathers, and a volume
against np.take per axis and torch's F.interpolate (chapter R7's table), each row judged against
its bound.

Usage: python tools/benchmark.py [--repeats 5] [--json]
First the front end's check of every shipped kernel in a fresh process, afresh and from kept
verdicts (which it leaves kept, as a second run of a program finds them). Each row: the first call
of its shape in a fresh process after the import (cold, with that process's peak resident memory),
then NumPy's gather called first in a fresh process too (the first touch of a large output's
memory is the machine's cost, not ours), then medians of interleaved samples of the warm call and
of NumPy's gather (and PyTorch's, for the volume); ratios measured in one run. Bounds: warm <= 2x NumPy (the (2, 26, 26, 3) batch <= 3x, the
volume against np.take per axis), cold <= 10x NumPy's warm time + 30 ms, import with its first name
<= 0.3 s loading none of matplotlib, onnx, torch. Child processes cache bytecode under the temporary
directory, as an installed package has it. This is a benchmark, not a test: run it on a quiet
machine (its exit status is 0 whatever the marks say).
"""
import argparse
import json
import signal

from resize_nearest.studies.benchmark import (
    IMPORT_BOUND_S,
    front_end_seconds,
    import_seconds,
    speed_table,
)
from resize_nearest.studies.tables import Table

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet exit when piped into head
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument('--repeats', type=int, default=5, help='interleaved timed samples per contender')
parser.add_argument('--json', action='store_true', help='print the rows as JSON')
args = parser.parse_args()
if args.repeats < 1:
    parser.error('--repeats must be at least 1')
front = front_end_seconds()
rows = speed_table(repeats=args.repeats)
imports = import_seconds()
if args.json:
    print(json.dumps(dict(front_end=front, rows=rows, imports=imports), indent=1))
else:
    columns = ['case', 'dtype', 'cold_ms', 'warm_ms', 'numpy_ms', 'cold / NumPy', 'warm / NumPy',
               'warm bound', 'warm ok', 'cold bound_ms', 'cold ok', 'numpy cold_ms', 'peak_MiB']
    formats = {c: '{:.3f}' for c in columns[2:7] + ['cold bound_ms', 'numpy cold_ms']}
    print(Table(rows, columns, dict(formats, peak_MiB='{:.0f}')).text())
    for row in rows:
        if 'torch_ms' in row:
            print(f"{row['case']} {row['dtype']}: warm {row['warm_ms']:.3f} ms, np.take per axis"
                  f" {row['numpy_ms']:.3f} ms, F.interpolate {row['torch_ms']:.3f} ms")
    largest = max(rows, key=lambda r: r['peak_MiB'])
    print(f"largest peak: {largest['case']}, {largest['peak_MiB']:.0f} MiB resident in its cold"
          f" process, {largest['call_MiB']:.0f} MiB of it raised by the call")
    print(f"front end, {front['kernels']} kernels: {front['fresh_s'] * 1e3:.0f} ms checked afresh,"
          f" {front['kept_s'] * 1e3:.0f} ms from kept verdicts")
    print(f"import resize_nearest: {imports['import_s']:.3f} s; with its first name:"
          f" {imports['first_name_s']:.3f} s (bound {IMPORT_BOUND_S} s: {imports['ok']});"
          f" heavy modules: {imports['heavy_modules'] or 'none'}")
