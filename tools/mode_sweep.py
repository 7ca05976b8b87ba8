#!/usr/bin/env python
"""Every exact kernel variant under every ONNX nearest convention, against the specification.

Usage: python tools/mode_sweep.py [--max-size 48] [--workers 2] [--json FILE] [--limit]
Each run resizes a (2, in_h, in_w, 2) int16 image on the interpreter through resize_nearest() and
compares it with the ONNX specification's formulas in Fraction arithmetic (tests/onnx_spec.py).
The runs pair the (in, out) pairs 1..max-size of the rows with a permutation of those of the
columns, so every pair is met on both axes; --limit adds the 65,535 axis limit both ways.
Every exact variant record (chapter R3) runs; one that refuses a resize (strided, rowgather) is
counted as not applicable, not as a pass.
"""
import argparse
import json
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests'))
from onnx_spec import KERNEL_MODES, ROUNDINGS, spec_resize  # noqa: E402
from resize_nearest.host.variants import VARIANTS as RECORDS  # noqa: E402

VARIANTS = tuple(name for name, v in RECORDS.items() if v.exact)  # every exact record
LIMIT = 65535


def size_cases(max_size: int, limit: bool) -> list:
    "((in_h, in_w), (out_h, out_w)) of every run."
    pairs = [(i, o) for i in range(1, max_size + 1) for o in range(1, max_size + 1)]
    step = 7 if len(pairs) % 7 else 5  # coprime to the count: a permutation
    cases = [((i, pairs[k * step % len(pairs)][0]), (o, pairs[k * step % len(pairs)][1]))
             for k, (i, o) in enumerate(pairs)]
    if limit:
        for axis_in, axis_out in ((LIMIT, 1), (1, LIMIT), (LIMIT, LIMIT - 1), (3, LIMIT)):
            cases += [((axis_in, 3), (axis_out, 2)), ((3, axis_in), (2, axis_out))]
    return cases


def sweep_convention(job) -> dict:
    "Runs, wrong runs and refusals of every variant under one convention."
    from resize_nearest import resize_nearest
    from resize_nearest.host.replay import fresh_runs
    mode, rounding, cases = job
    rng = np.random.default_rng(0)
    result = {v: dict(runs=0, wrong=0, refused=0, first_wrong=None) for v in VARIANTS}
    for in_hw, out_hw in cases:
        x = rng.integers(-2**15, 2**15, (2, *in_hw, 2)).astype(np.int16)
        want = spec_resize(x, out_hw, mode, rounding)
        for v in VARIANTS:
            try:
                with fresh_runs(), warnings.catch_warnings():
                    warnings.simplefilter('ignore', RuntimeWarning)  # the program-size warning
                    got = resize_nearest(x, out_hw, variant=v, backend='cpu',
                                         coordinate_transformation_mode=mode, nearest_mode=rounding)
            except ValueError as e:
                if f"variant '{v}' needs" not in str(e):
                    raise
                result[v]['refused'] += 1
                continue
            result[v]['runs'] += 1
            if not np.array_equal(got, want):
                result[v]['wrong'] += 1
                result[v]['first_wrong'] = result[v]['first_wrong'] or [in_hw, out_hw]
    return dict(mode=mode, rounding=rounding, variants=result)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--max-size', type=int, default=48, help='largest axis size of the pairs')
    parser.add_argument('--workers', type=int, default=os.cpu_count(), help='processes')
    parser.add_argument('--limit', action='store_true', help='add the 65,535 axis limit')
    parser.add_argument('--json', help='write the results to this file')
    args = parser.parse_args()
    if args.max_size < 1 or args.workers < 1:
        parser.error('--max-size and --workers must be at least 1')
    cases = size_cases(args.max_size, args.limit)
    jobs = [(m, r, cases) for m in KERNEL_MODES for r in ROUNDINGS]
    print(f'{len(jobs)} conventions x {len(cases)} resizes x {len(VARIANTS)} variants', flush=True)
    start, results = time.time(), []
    with ProcessPoolExecutor(args.workers) as pool:
        for k, res in enumerate(pool.map(sweep_convention, jobs), 1):
            results.append(res)
            counts = {v: (c['runs'], c['wrong']) for v, c in res['variants'].items()}
            eta = (time.time() - start) / k * (len(jobs) - k)
            print(f'[{k}/{len(jobs)}, about {eta:.0f} s left] {res["mode"]}/{res["rounding"]}:'
                  f' (runs, wrong) {counts}', flush=True)
    wrong = sum(c['wrong'] for r in results for c in r['variants'].values())
    runs = sum(c['runs'] for r in results for c in r['variants'].values())
    print(f'{runs} runs, {wrong} wrong, {time.time() - start:.0f} s')
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1)
    return 1 if wrong else 0


if __name__ == '__main__':
    sys.exit(main())
