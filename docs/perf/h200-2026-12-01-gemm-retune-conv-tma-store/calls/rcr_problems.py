#!/usr/bin/env python3
"""The problem lists of call A (.dev/tune/rcr_bf16.csv, rcr_fp16.csv): the models' layers of
benchmarks/tuning/problems_sm90.csv and problems_sm90_more_m.csv whose layouts include rcr, in rcr
only, one file per dtype (bf16 timed first). Run from the repository root."""
import csv, os
rows = []
for f in ['benchmarks/tuning/problems_sm90.csv', 'benchmarks/tuning/problems_sm90_more_m.csv']:
    lines = [l for l in open(f) if not l.startswith('#')]
    rows += [r for r in csv.DictReader(lines) if 'rcr' in r['layout'].split('|')]
os.makedirs('.dev/tune', exist_ok=True)
for dt in ['bf16', 'fp16']:
    with open(f'.dev/tune/rcr_{dt}.csv', 'w') as o:
        o.write(f'# The model layers of benchmarks/tuning/problems_sm90*.csv, layout rcr, {dt} only.\n')
        w = csv.DictWriter(o, fieldnames=['model', 'layer', 'm', 'n', 'k', 'dtype', 'layout', 'source'], lineterminator='\n')
        w.writeheader()
        for r in rows:
            w.writerow(dict(r, dtype=dt, layout='rcr'))
