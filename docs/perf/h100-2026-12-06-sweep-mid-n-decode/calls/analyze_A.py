#!/usr/bin/env python3
"""Summaries of call A: decode A/B (base vs new) and the 128x160 bench (best with vs without mid_n)."""
import json, lzma, re, sys, math, collections, os
R = sys.argv[1]
# decode: lines "  batch kv splits us GB/s copy_us copy_GB/s share cudnn_us cudnn_GBs ratio [which opts]"
rows = collections.defaultdict(list)
for line in open(os.path.join(R, 'decode_bench.log')):
    m = re.match(r'\s*(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)%(.*)\[(base|new) (.*)\]', line)
    if not m: continue
    b, kv, sp, us = int(m[1]), int(m[2]), int(m[3]), float(m[4])
    share = float(m[8]); rest = m[9]; which = m[10]; opts = m[11]
    cache = 'fp8' if '--cache fp8' in opts else 'bf16'
    d = 64 if '--d 64' in opts else 128
    cud = re.match(r'\s*([\d.]+)\s+\d+\s+([\d.]+)x', rest)
    rows[(cache, d, b, kv, which)].append((us, share, sp, float(cud[1]) if cud else None))
print('cache d batch kv | splits base_us new_us new/base | share base new | cudnn_us new_vs_cudnn')
keys = sorted({k[:4] for k in rows})
for k in keys:
    base = rows.get(k + ('base',)); new = rows.get(k + ('new',))
    med = lambda v, i: sorted(x[i] for x in v)[len(v) // 2] if v else float('nan')
    bu, nu = med(base, 0), med(new, 0)
    cu = [x[3] for x in (new or []) + (base or []) if x[3]]
    cud = sorted(cu)[len(cu)//2] if cu else None
    print(f"{k[0]} {k[1]} {k[2]:4d} {k[3]:6d} | {new[0][2] if new else '-':>3} {bu:8.1f} {nu:8.1f} {nu/bu if base and new else float('nan'):6.3f} | "
          f"{med(base,1):5.1f}% {med(new,1):5.1f}% | " + (f"{cud:8.1f} {cud/nu:5.2f}x" if cud and new else ''))
# mid_n bench
p = os.path.join(R, 'bench', 'mid_n_bf16.jsonl')
if os.path.exists(p):
    ratios_with, ratios_without, ratios_disp, gains = [], [], [], []
    print('\nm n k | cublas_us best_us best_wo_160_us gain | best kernel')
    for line in open(p):
        r = json.loads(line)
        cub = r['cublas']['ms']
        sc = r.get('screened', [])
        if not sc: continue
        best = min(sc, key=lambda x: x['ms'])
        wo = [x for x in sc if '128x160x64' not in x['kernel']]
        bw = min(wo, key=lambda x: x['ms'])
        gains.append(bw['ms'] / best['ms'])
        ratios_with.append(cub / best['ms']); ratios_without.append(cub / bw['ms'])
        name = best['kernel'].split('_tma_wgmma_')[-1][:40] if 'tma_wgmma' in best['kernel'] else best['kernel'][:40]
        print(f"{r['m']:5d} {r['n']:5d} {r['k']:5d} | {cub*1e3:7.1f} {best['ms']*1e3:7.1f} {bw['ms']*1e3:7.1f} {bw['ms']/best['ms']:5.3f} | {name}")
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    print(f"\n{len(gains)} shapes: best/cuBLAS with 160 {g(ratios_with):.3f}, without {g(ratios_without):.3f}; "
          f"gain geomean {g(gains):.3f}, max {max(gains):.3f}; 160 best on {sum(1 for x in gains if x > 1.0)}; "
          f"below 0.80: with {sum(1 for x in ratios_with if x < 0.8)}, without {sum(1 for x in ratios_without if x < 0.8)}")
