#!/usr/bin/env python3
"""Picks the tuning problems from benchmarks/shapes/gemm_*.csv (model, layer, m, n, k,
dtype, layout, source): every model's distinct shapes at a few token counts,
capped in work so that one GPU call of ~6 minutes measures every eligible
kernel on each. Usage: select_problems.py [--dtypes bf16,fp16] [--layouts rcr,rrr] [--token-counts others]
[--max-flops F] OUT.csv SHAPES.csv...
--token-counts others takes every M but the five default token counts (the tables' encoder batches
such as 6304 = 32 x 197, decode M = 1, 8k-16k prefills): a second tuning file beside the first.
--dtypes/--layouts replace the tables' dtype and layout with those lists (every problem is
then tuned for each dtype and layout, `|`-separated in the row); without them the tables' own
values are kept."""
import argparse, csv, random

ap = argparse.ArgumentParser()
ap.add_argument('--dtypes', help='comma-separated dtypes for every problem')
ap.add_argument('--layouts', help='comma-separated layouts for every problem')
ap.add_argument('--token-counts', choices=['default', 'others'], default='default')
ap.add_argument('--max-flops', type=float, default=6e11)
ap.add_argument('out')
ap.add_argument('shapes', nargs='+')
args = ap.parse_args()

MS = {16, 128, 512, 2048, 4096}
MAX_FLOPS = args.max_flops  # 2*M*N*K: by default mid-sized GEMMs (at most ~1 ms on an H100)

rows, seen = [], set()
for path in args.shapes:
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith('#')):
            m, n, k = int(r['m']), int(r['n']), int(r['k'])
            if (m in MS) != (args.token_counts == 'default') or 2 * m * n * k > MAX_FLOPS:
                continue
            key = (r['model'], m, n, k)
            if key in seen:
                continue
            seen.add(key)
            rows.append(r)
random.Random(7).shuffle(rows)
with open(args.out, 'w', newline='') as f:
    f.write('# Tuning problems for kdecl tune (benchmarks/tuning/select_problems.py from benchmarks/shapes/).\n')
    w = csv.DictWriter(f, fieldnames=['model', 'layer', 'm', 'n', 'k', 'dtype', 'layout', 'source'])
    w.writeheader()
    for r in rows:  # shuffled: a run cut short by its time budget keeps a fair sample
        row = {k: r[k] for k in w.fieldnames}
        if args.dtypes:
            row['dtype'] = args.dtypes.replace(',', '|')
        if args.layouts:
            row['layout'] = args.layouts.replace(',', '|')
        w.writerow(row)
print(len(rows), 'rows', len({(r['m'], r['n'], r['k']) for r in rows}), 'distinct shapes',
      len({r['model'] for r in rows}), 'models')
