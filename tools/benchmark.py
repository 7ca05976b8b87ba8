#!/usr/bin/env python
"""Throughput benchmark: interpreter variants vs the NumPy gather vs PyTorch, medians of repeated runs.

Usage: python tools/benchmark.py [--shape 1 512 512 64] [--out 768 768] [--repeats 5]
"""
import argparse, json, signal
signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # quiet exit when piped into head
from resize_nearest.benchmark import benchmark

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument('--shape', type=int, nargs=4, default=[1, 512, 512, 64])
ap.add_argument('--out', type=int, nargs=2, default=[768, 768])
ap.add_argument("--repeats", type=int, default=5)
a = ap.parse_args()
if a.repeats < 1: ap.error('--repeats must be at least 1')
r = benchmark(tuple(a.shape), tuple(a.out), repeats=a.repeats)
print(json.dumps(r, indent=1))
