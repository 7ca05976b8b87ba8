#!/usr/bin/env python
"""interpolate_nearest against F.interpolate(mode='nearest') on CPU: forward and forward+backward,
side by side in one run (the best of interleaved samples); chapter R14's table.

Usage: python tools/benchmark_torch.py [--repeats 9] [--json]
"""
import argparse
import json

from resize_nearest.studies.tables import Table
from resize_nearest.torch import benchmark_torch

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument('--repeats', type=int, default=9, help='interleaved timed calls per contender')
parser.add_argument('--json', action='store_true', help='print the rows as JSON')
args = parser.parse_args()
if args.repeats < 1:
    parser.error('--repeats must be at least 1')
rows = benchmark_torch(repeats=args.repeats)
if args.json:
    print(json.dumps(rows, indent=1))
else:
    formats = dict(ours_ms='{:.2f}', torch_ms='{:.2f}', ratio='{:.2f}')
    print(Table(rows, list(rows[0]), formats).text())
