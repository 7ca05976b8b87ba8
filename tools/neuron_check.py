#!/usr/bin/env python
"""Run every kernel on a Trainium instance through the real NKI 0.3 to 0.6 (simulator and device), under the compiler's
convention and six other ONNX nearest conventions (one per coordinate mode); compare each output with the CPU
interpreter bit for bit, time warmed nki.jit calls, and write a JSON report (schema: chapter 3.6).

Usage: python tools/neuron_check.py [--report figures/neuron_report.json] [--warmup 3] [--iters 10] [--chip trn2]
--chip names the instance's chip (trn1, inf2, trn2, trn3): variants it cannot run (indirect DMA needs
NeuronCore-v3, trn2 and newer) are listed in the report's not_on_chip, not run, and `auto` picks for it.
Exit status: 0 every row bit exact (or the documented out-of-bounds case), 1 some row failed,
3 skipped: no real NKI here (nothing was run or claimed).
"""
import argparse, json, os, sys
os.environ.setdefault('NKI_PRECISE_FP', '1')   # before nki is imported: the simulator keeps bfloat16 as bfloat16
from resize_nearest.kernels import backend
from resize_nearest.studies.trainium import neuron_check, report_table
from resize_nearest.maps.plan import CHIP_TABLE

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument('--report', default='figures/neuron_report.json')
ap.add_argument('--warmup', type=int, default=3)
ap.add_argument('--iters', type=int, default=10)
ap.add_argument('--chip', default='trn2', choices=tuple(CHIP_TABLE))
a = ap.parse_args()
if a.iters < 1 or a.warmup < 0: ap.error('--iters must be at least 1 and --warmup at least 0')
real, why = backend.real_nki()
if real is None:
    print(f'SKIPPED: no real NKI here ({why}); run this on a Trainium instance with the Neuron SDK.')
    sys.exit(3)
r = neuron_check(a.report, warmup=a.warmup, iters=a.iters, progress=sys.stderr.isatty(), chip=a.chip)
print(f"nki {r['nki_version']} ({r['nki_path']}) on {r['host']} ({a.chip}); report: {a.report}")
for s in r['not_on_chip']:
    print(f"not run on {a.chip}: {s['case']} / {s['variant']}: {s['reason']}")
print(report_table(r))
cast = r['cast_rounding']
print(f"float32 -> int32 cast of {cast['values']}: {cast['cast']}; interpreter roundings that agree: "
      f"{cast['matches'] or 'none'}")
failed = [x for x in r['rows'] if x['status'] not in ('pass', 'expected-oob')]
if not cast['matches']:
    print('the device cast matches no interpreter rounding: the interpreter is wrong about casts')
print(f"{len(r['rows']) - len(failed)} rows passed, {len(failed)} failed")
sys.exit(1 if failed or not cast['matches'] else 0)
