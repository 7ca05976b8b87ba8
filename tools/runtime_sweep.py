#!/usr/bin/env python
"""The full sweep of chapter R13, checked against direct runs of each runtime.

1. `sweep` (resize_nearest.models.runtimes): every runtime on every convention over the 1-D pairs
   1..32 -> 1..32 and the eight 2-D families, through the package's child processes, as the audit
   runs them; every runtime gets all 1,024 pairs (LiteRT, whose onnx2tf converts about 12
   resizes a second, and tinygrad, about 20 s to compile a model of 256 resizes, are the longest).
2. The direct check: every runtime run again, directly (tests/runtimes_direct.py, each runtime's own
   API, none of the package's child code), on the 2-D families and the 1-D sample under every
   convention; each case's count must equal the sweep's (the sweep's 1-D pairs came from other
   models, of 256 resizes, so this also shows that packing does not change a count).

Usage: python tools/runtime_sweep.py [--json PATH] [--runtimes A,B] [--timeout S] [--workers N]
The runtimes' Pythons: RESIZE_NEAREST_RUNTIMES_PYTHON and RESIZE_NEAREST_LITERT_PYTHON (see
tools/runtimes_venv.sh), RESIZE_NEAREST_IREE_PYTHON (tools/iree_executorch_venv.sh). Prints a
summary; --json writes every count and every mismatch.
"""
import argparse, json, os, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from resize_nearest.models import runtimes as R  # noqa: E402
from tests.runtimes_direct import direct  # noqa: E402

CHECKED = ('1-D sample', '2-D families')


def direct_counts(name, mode, rounding, kind, folder) -> dict:
    "{case label: wrong elements, 'wrong output shape' or 'did not run'} of a direct run."
    import onnx

    model, xs, exact, labels = R.sweep_case(mode, rounding, kind)
    path = os.path.join(folder, 'model.onnx')
    onnx.save(model, path)
    ys = direct(name, path, {f'X{k}': x for k, x in enumerate(xs)}, os.path.join(folder, 'run'))
    if ys is None:
        with open(os.path.join(folder, 'run', 'stderr.txt'), errors='replace') as f:
            said = [s for s in f.read().splitlines() if s.strip()][-1:] or ['']
        return {label: f'did not run: {said[0][:200]}' for label in labels}
    found = {}
    for j, (e, label) in enumerate(zip(exact, labels)):
        y = ys[f'Y{j}']
        found[label] = (int((y.reshape(e.shape).astype(np.int64) != e).sum())
                        if y.size == e.size else 'wrong output shape')
    return found


def agrees(swept, direct_value) -> bool:
    "Whether the sweep's value says what the direct run found (a refusal: the run did not run)."
    if isinstance(direct_value, int):
        return swept == direct_value
    if direct_value == 'wrong output shape':
        return isinstance(swept, str) and swept.startswith('wrong output shape')
    # the runtime's exit without outputs: the sweep must show a refusal or a crash, not a count
    return isinstance(swept, str) and swept.startswith(('refused', 'crashed'))


def check_runtime(name, results, conventions) -> tuple:
    "(cases compared, mismatches) of one runtime's direct runs against the sweep's results."
    compared, mismatches = 0, []
    for mode, rounding in conventions:
        for kind in CHECKED:
            with tempfile.TemporaryDirectory(prefix='runtime_sweep_') as folder:
                found = direct_counts(name, mode, rounding, kind, folder)
            for label, value in found.items():
                swept = results.get((name, mode, rounding, label))
                compared += 1
                if not agrees(swept, value):
                    mismatches.append(dict(runtime=name, convention=f'{mode}/{rounding}',
                                           case=str(label), sweep=swept, direct=value))
    return compared, mismatches


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--json', help='write every count and mismatch here')
    ap.add_argument('--runtimes', default=','.join(R.RUNTIMES))
    ap.add_argument('--timeout', type=float, default=R.TIME_BOUND, help='seconds per case')
    ap.add_argument('--workers', type=int, default=2)
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.runtimes.split(',') if n.strip()]
    start = time.time()
    kinds = {n: R.KINDS for n in names}
    versions, results = R.sweep(kinds, timeout=args.timeout, workers=args.workers)
    swept_s = time.time() - start
    with ThreadPoolExecutor(args.workers) as pool:
        checked = pool.map(lambda n: check_runtime(n, results, R.CONVENTIONS), names)
        checks = dict(zip(names, checked))
    report = dict(versions=versions, kinds={n: list(k) for n, k in kinds.items()},
                  sweep_seconds=round(swept_s), check_seconds=round(time.time() - start - swept_s),
                  results=[[*k[:3], list(k[3]), v] for k, v in results.items()],
                  compared={n: c for n, (c, _) in checks.items()},
                  mismatches=[m for _, ms in checks.values() for m in ms])
    summarise(report)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(report, f, default=str)
    return 1 if report['mismatches'] else 0


def summarise(report) -> None:
    "The sweep's and the check's figures, one line per runtime."
    print(f"swept in {report['sweep_seconds']} s, checked directly in {report['check_seconds']} s")
    for name, v in report['versions'].items():
        mine = [m for m in report['mismatches'] if m['runtime'] == name]
        print(f"{name}: {R.version_text(v) or 'not installed'}; {len(mine)} of"
              f" {report['compared'][name]} direct cases disagree with the sweep")
    for m in report['mismatches'][:20]:
        print('  mismatch:', m)


if __name__ == '__main__':
    sys.exit(main())
