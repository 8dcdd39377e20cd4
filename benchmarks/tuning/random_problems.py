#!/usr/bin/env python3
"""Random GEMM problems for kdecl tune, beside the real models' shapes of problems_sm90*.csv.

The models' layers have few distinct widths, nearly all multiples of 256; a model trained on
them alone has not seen how a 256-wide tile wastes a 1600-wide output (GPT-2 XL). These
shapes fill the space between: M log-uniform in [1, 16384], N and K log-uniform in
[128, 32768], most of them multiples of 8 (the TMA class), some of 2 only; one random layout
each, both 16-bit dtypes; at most --max-flops (2 M N K) as the models' tuning lists (N and K
are drawn again until the problem fits, M is kept).
Usage: random_problems.py [--count 1600] [--seed 11] [--max-flops 6e11] OUT.csv"""
import argparse, math, random

ap = argparse.ArgumentParser()
ap.add_argument("--count", type=int, default=1600)
ap.add_argument('--seed', type=int, default=11)
ap.add_argument('--max-flops', type=float, default=6e11)
ap.add_argument('out')
args = ap.parse_args()

rng = random.Random(args.seed)


def log_uniform(lo, hi):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def rounded(v, multiple):
    return max(multiple, v // multiple * multiple)


rows, seen = [], set()
while len(rows) < args.count:
    m = log_uniform(1, 16384)  # drawn first, so that the flops cap does not skew M towards small
    while True:
        n = rounded(log_uniform(128, 32768), 8 if rng.random() < 0.85 else 2)
        k = rounded(log_uniform(128, 32768), 8 if rng.random() < 0.9 else 2)
        if 2 * m * n * k <= args.max_flops:
            break
    if (m, n, k) in seen:
        continue
    seen.add((m, n, k))
    rows.append((m, n, k, rng.choice(['rcr', 'rrr', 'crr', 'ccr'])))
with open(args.out, 'w') as f:
    f.write('# Random tuning problems (benchmarks/tuning/random_problems.py --count %d --seed %d): no model\'s layers.\n'
            % (args.count, args.seed))
    f.write('model,layer,m,n,k,dtype,layout,source\n')
    for i, (m, n, k, lay) in enumerate(rows):
        f.write(f'Random,r{i},{m},{n},{k},bf16|fp16,{lay},benchmarks/tuning/random_problems.py\n')
