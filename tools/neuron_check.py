#!/usr/bin/env python
"""Run the kernels on a Trainium instance through the real NKI (simulator and device), compare them with the
CPU interpreter bit for bit, benchmark them, and write figures/neuron_report.json.

Usage: python tools/neuron_check.py [--report figures/neuron_report.json] [--iters 20]
Without a working Neuron SDK it prints SKIPPED with the reason and exits 0: nothing is run or claimed.
"""
import argparse, json, sys
from resize_nearest import backend
from resize_nearest.peers import neuron_check

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument('--report', default='figures/neuron_report.json')
ap.add_argument('--iters', type=int, default=20)
a = ap.parse_args()
if a.iters < 1: ap.error('--iters must be at least 1')
if backend._REAL is None:
    print(f'SKIPPED: no real NKI here ({backend._REAL_WHY}); run this on a Trainium instance with the Neuron SDK.')
    sys.exit(0)
r = neuron_check(a.report, iters=a.iters)
print(json.dumps(r, indent=1))
bad = [x for x in r['results'] if not all(v for k, v in x.items() if k.endswith('bit-exact vs nki_cpu')) or any(k.endswith('error') for k in x)]
sys.exit(1 if bad else 0)
