#!/usr/bin/env python
"""Forward time of resize_nearest.torch.interpolate_nearest against F.interpolate(mode='nearest') on CPU, side by side in
one run (medians of interleaved calls). Usage: python tools/benchmark_torch.py [--repeats 9]"""
import argparse
from resize_nearest.torch import benchmark_forward

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument('--repeats', type=int, default=9)
a = ap.parse_args()
if a.repeats < 1: ap.error('--repeats must be at least 1')
for r in benchmark_forward(repeats=a.repeats):
    print(f"{r['case']:<40} interpolate_nearest {r['ours_ms']:8.2f} ms   F.interpolate {r['torch_ms']:8.2f} ms   ratio {r['ratio']:.2f}")
