#!/usr/bin/env python
"""Run every kernel on a Trainium instance through the real NKI 0.3 to 0.8 (simulator and device), under the compiler's
convention and six other ONNX nearest conventions (one per coordinate mode); compare each output with the CPU
interpreter bit for bit, time warmed nki.jit calls; then ask the real compiler: compile F.interpolate (nearest and
nearest-exact, and the backward pass) with torch_neuronx.trace, run it on index images and say which map its pixels
follow: the described kernel's (reciprocal row), the published kernel's (divide row), the exact one, or something
else (chapter 3.3). Write a JSON report (schema: chapter 3.3).

Usage: python tools/neuron_check.py [--report figures/neuron_report.json] [--warmup 3] [--iters 10] [--chip auto]
                                    [--widths 36:100 | --widths none]
--chip names the instance's chip (trn1, inf2, trn2, trn3; `auto`, the default: the one the device reports, else trn2):
variants it cannot run (indirect DMA needs NeuronCore-v3, trn2 and newer) are listed in the report's not_on_chip,
not run, and the `auto` variant picks for it.
--widths is the compiled-model step's width sweep (one compile per width), 'none' skips that step.
Supported: nki >=0.3,<0.9 and neuronx-cc >=2.24,<2.30 (Neuron SDK 2.29 to 2.34); another version is refused.
LNC: NEURON_LOGICAL_NC_CONFIG is set to 1 unless it is set (from NKI 0.7 a compile stops with NCC_EVRF066 where the
kernel's LNC degree differs from neuronx-cc's, which defaults to 2 on trn2 and trn3); the report records the degree.
Exit status: 0 every row bit exact (or the documented out-of-bounds case), 1 some row failed,
2 a version outside the supported range, 3 skipped: no real NKI here (nothing was run or claimed).
The compiled-model verdict is printed and recorded; it does not change the exit status.
"""
import argparse, os, sys
os.environ.setdefault('NKI_PRECISE_FP', '1')   # before nki is imported: the simulator keeps bfloat16 as bfloat16
from resize_nearest.kernels import backend
from resize_nearest.studies.trainium import neuron_check, report_table, compiler_versions
from resize_nearest.maps.plan import CHIP_TABLE


def widths(text):
    "'a:b' (range a to b-1) or 'none'."
    if text == 'none':
        return None
    try:
        lo, hi = (int(v) for v in text.split(':'))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--widths must be 'LOW:HIGH' or 'none', got {text!r}")
    if not 1 <= lo < hi:
        raise argparse.ArgumentTypeError(f'--widths needs 1 <= LOW < HIGH, got {text!r}')
    return tuple(range(lo, hi))


ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument('--report', default='figures/neuron_report.json')
ap.add_argument('--warmup', type=int, default=3)
ap.add_argument('--iters', type=int, default=10)
ap.add_argument('--chip', default='auto', choices=('auto',) + tuple(CHIP_TABLE))
ap.add_argument('--widths', type=widths, default='36:100')
a = ap.parse_args()
if a.iters < 1 or a.warmup < 0: ap.error('--iters must be at least 1 and --warmup at least 0')
real, why = backend.real_nki()
found = compiler_versions()
found_line = ('found: ' + ', '.join(f'{k} {v}' for k, v in found.items() if k != 'standin' and v)
              + (' (TEST STAND-IN: nothing here is a Trainium result)' if found['standin'] else ''))
problems = [p for p in (backend.version_problem(d, found[d]) for d in ('nki', 'neuronx-cc') if found[d]) if p]
if problems:
    print(found_line)
    print('REFUSED: ' + '; '.join(problems))
    sys.exit(2)
if real is None:
    print(f'SKIPPED: no real NKI here ({why}); run this on a Trainium instance with the Neuron SDK.')
    sys.exit(3)
print(found_line)
if a.chip == 'auto':
    a.chip = backend.device_chip() or 'trn2'
r = neuron_check(a.report, warmup=a.warmup, iters=a.iters, progress=sys.stderr.isatty(), chip=a.chip,
                 widths=a.widths)
print(f"nki {r['nki_version']} ({r['nki_path']}) on {r['host']} ({a.chip}); report: {a.report}")
print(f"LNC degree {r['lnc']['degree']} ({r['lnc']['source']}: {r['lnc']['form']}); loops: "
      f"{r['backend_forms']['loops']}; jit: {r['backend_forms']['jit']}")
for s in r['not_on_chip']:
    print(f"not run on {a.chip}: {s['case']} / {s['variant']}: {s['reason']}")
print(report_table(r))
cast = r['cast_rounding']
print(f"float32 -> int32 cast of {cast['values']}: {cast['cast']}; interpreter roundings that agree: "
      f"{cast['matches'] or 'none'}; the simulator casts as its release is documented to: "
      f"{cast['simulator_as_documented']}")
failed = [x for x in r['rows'] if x['status'] not in ('pass', 'expected-oob')]
if not cast['matches']:
    print('the device cast matches no interpreter rounding: the interpreter is wrong about casts')
print(f"{len(r['rows']) - len(failed)} rows passed, {len(failed)} failed")
compiled = r.get('compiled_model')
if compiled is None:
    print('compiled-model step: not run (--widths none)')
elif 'skipped' in compiled:
    print(f"compiled-model step skipped: {compiled['skipped']}")
else:
    print(f"compiled-model step: {compiled['note']}; kernel names seen: {compiled['kernel_names'] or 'none'}")
    for mode, v in compiled['verdicts'].items():
        label = 'STAND-IN ' if compiled['standin'] else ''
        matched = f" (matched: {v['matched'] or 'none'})" if 'matched' in v else ''
        print(f"{label}{mode}: {v['verdict']}{matched}" + (f"; first: {v['first'][:3]}" if v['first'] else ''))
sys.exit(1 if failed or not cast['matches'] else 0)
